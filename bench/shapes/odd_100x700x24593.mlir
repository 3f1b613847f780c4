// Odd M and N (700 = 21 x 32 + 28) with prime K = 24593.
func.func @matmul(%a: tensor<100x24593xf32>, %b: tensor<24593x700xf32>) -> tensor<100x700xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<100x700xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<100x700xf32>) -> tensor<100x700xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x24593xf32>, tensor<24593x700xf32>) outs(%init : tensor<100x700xf32>) -> tensor<100x700xf32>
  return %r : tensor<100x700xf32>
}
