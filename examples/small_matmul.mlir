func.func @mm(%a: tensor<16x1000xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
