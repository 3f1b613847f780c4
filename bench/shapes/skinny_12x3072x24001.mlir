// Twelve rows against a prime K: still memory-bound enough to stream B.
func.func @matmul(%a: tensor<12x24001xf32>, %b: tensor<24001x3072xf32>) -> tensor<12x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<12x3072xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<12x3072xf32>) -> tensor<12x3072xf32>
  %r = linalg.matmul ins(%a, %b : tensor<12x24001xf32>, tensor<24001x3072xf32>) outs(%init : tensor<12x3072xf32>) -> tensor<12x3072xf32>
  return %r : tensor<12x3072xf32>
}
