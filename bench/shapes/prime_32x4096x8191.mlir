// Prime K = 8191 (a Mersenne prime), decode-like M.
func.func @matmul(%a: tensor<32x8191xf32>, %b: tensor<8191x4096xf32>, %c: tensor<32x4096xf32>) -> tensor<32x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x8191xf32>, tensor<8191x4096xf32>) outs(%c : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  return %r : tensor<32x4096xf32>
}
