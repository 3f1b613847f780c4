// A batch of 200 rows through a 1000-class head: an N that no register tile divides, a prime K.
func.func @matmul(%a: tensor<200x16001xf32>, %b: tensor<16001x1000xf32>, %c: tensor<200x1000xf32>) -> tensor<200x1000xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<200x16001xf32>, tensor<16001x1000xf32>) outs(%c : tensor<200x1000xf32>) -> tensor<200x1000xf32>
  return %r : tensor<200x1000xf32>
}
