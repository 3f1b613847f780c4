// A small output over a prime K of a million: one workgroup unsplit.
func.func @matmul(%a: tensor<48x1000003xf32>, %b: tensor<1000003x48xf32>) -> tensor<48x48xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<48x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<48x48xf32>) -> tensor<48x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<48x1000003xf32>, tensor<1000003x48xf32>) outs(%init : tensor<48x48xf32>) -> tensor<48x48xf32>
  return %r : tensor<48x48xf32>
}
