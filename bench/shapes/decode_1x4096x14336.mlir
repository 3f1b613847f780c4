// Decode, one token: a 4096-wide projection of a 14336-wide activation (Llama-3-8B's FFN down).
func.func @matmul(%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}
