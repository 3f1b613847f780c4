// A decode step as ONNX MatMul of a 1-D input imports it: linalg.vecmat,
// the 1 x 14336 row of decode_1x4096x14336 without its unit M loop.
func.func @vecmat(%x: tensor<14336xf32>, %w: tensor<14336x4096xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.vecmat ins(%x, %w : tensor<14336xf32>, tensor<14336x4096xf32>) outs(%init : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
