// A 512x768 output over K = 16384, the init a tensor.empty + linalg.fill as frontends write it.
func.func @matmul(%a: tensor<512x16384xf32>, %b: tensor<16384x768xf32>) -> tensor<512x768xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x768xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x768xf32>) -> tensor<512x768xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x16384xf32>, tensor<16384x768xf32>) outs(%init : tensor<512x768xf32>) -> tensor<512x768xf32>
  return %r : tensor<512x768xf32>
}
