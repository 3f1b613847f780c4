// A wide output: 256 rows by 2048 columns over K = 16384.
func.func @matmul(%a: tensor<256x16384xf32>, %b: tensor<16384x2048xf32>) -> tensor<256x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x2048xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x2048xf32>) -> tensor<256x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x16384xf32>, tensor<16384x2048xf32>) outs(%init : tensor<256x2048xf32>) -> tensor<256x2048xf32>
  return %r : tensor<256x2048xf32>
}
