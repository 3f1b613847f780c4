// A square output over a long K (a Gram matrix of 40000 samples).
func.func @matmul(%a: tensor<384x40000xf32>, %b: tensor<40000x384xf32>) -> tensor<384x384xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<384x384xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<384x384xf32>) -> tensor<384x384xf32>
  %r = linalg.matmul ins(%a, %b : tensor<384x40000xf32>, tensor<40000x384xf32>) outs(%init : tensor<384x384xf32>) -> tensor<384x384xf32>
  return %r : tensor<384x384xf32>
}
