// Square mid-size output, long K: already many workgroups.
func.func @matmul(%a: tensor<512x16384xf32>, %b: tensor<16384x512xf32>, %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<512x16384xf32>, tensor<16384x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
