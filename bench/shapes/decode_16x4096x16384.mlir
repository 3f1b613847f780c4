// Decode, a batch of 16 tokens.
func.func @matmul(%a: tensor<16x16384xf32>, %b: tensor<16384x4096xf32>, %c: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16384xf32>, tensor<16384x4096xf32>) outs(%c : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}
