// ONNX MatMul W @ x of a 1-D input: linalg.matvec against the N x K weight,
// linear_1x4096x14336 without its unit M loop.
func.func @matvec(%w: tensor<4096x14336xf32>, %x: tensor<14336xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.matvec ins(%w, %x : tensor<4096x14336xf32>, tensor<14336xf32>) outs(%init : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
