// A transposed matvec (linalg.matvec against the N x K weight) with a
// prime K: split-lanes reads its 14336 whole lanes in place and the last 5
// columns as a product of their own. Held out from split-lanes' tuning.
func.func @matvec(%w: tensor<4096x14341xf32>, %x: tensor<14341xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.matvec ins(%w, %x : tensor<4096x14341xf32>, tensor<14341xf32>) outs(%init : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
