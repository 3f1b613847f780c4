// Prime K = 65521: IREE's split-reduction cannot split it.
func.func @matmul(%a: tensor<64x65521xf32>, %b: tensor<65521x384xf32>, %c: tensor<64x384xf32>) -> tensor<64x384xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x65521xf32>, tensor<65521x384xf32>) outs(%c : tensor<64x384xf32>) -> tensor<64x384xf32>
  return %r : tensor<64x384xf32>
}
