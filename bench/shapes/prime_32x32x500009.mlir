// Prime K = 500009 over a 32x32 output: almost all of the work is the reduction.
func.func @matmul(%a: tensor<32x500009xf32>, %b: tensor<500009x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<32x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x500009xf32>, tensor<500009x32xf32>) outs(%init : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
