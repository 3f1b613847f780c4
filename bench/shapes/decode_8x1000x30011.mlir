// Skinny M, an N that no register tile divides (a 1000-class head), a prime K.
func.func @matmul(%a: tensor<8x30011xf32>, %b: tensor<30011x1000xf32>, %c: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x30011xf32>, tensor<30011x1000xf32>) outs(%c : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  return %r : tensor<8x1000xf32>
}
