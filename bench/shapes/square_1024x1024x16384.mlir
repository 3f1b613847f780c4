// Compute-bound: a large square output and a long K (34 GFLOP).
func.func @matmul(%a: tensor<1024x16384xf32>, %b: tensor<16384x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1024x16384xf32>, tensor<16384x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
