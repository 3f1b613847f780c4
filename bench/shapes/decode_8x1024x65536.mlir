// Skinny M with a very long K.
func.func @matmul(%a: tensor<8x65536xf32>, %b: tensor<65536x1024xf32>, %c: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x65536xf32>, tensor<65536x1024xf32>) outs(%c : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  return %r : tensor<8x1024xf32>
}
