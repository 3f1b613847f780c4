// Prime K = 12289 over a 640x640 output, the largest M of the split-K set.
func.func @matmul(%a: tensor<640x12289xf32>, %b: tensor<12289x640xf32>) -> tensor<640x640xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<640x640xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<640x640xf32>) -> tensor<640x640xf32>
  %r = linalg.matmul ins(%a, %b : tensor<640x12289xf32>, tensor<12289x640xf32>) outs(%init : tensor<640x640xf32>) -> tensor<640x640xf32>
  return %r : tensor<640x640xf32>
}
