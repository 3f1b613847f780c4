// Sixteen rows, a prime K of 3001 against a wide row-major B.
func.func @matmul(%a: tensor<16x3001xf32>, %b: tensor<3001x8192xf32>) -> tensor<16x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x8192xf32>) -> tensor<16x8192xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x3001xf32>, tensor<3001x8192xf32>) outs(%init : tensor<16x8192xf32>) -> tensor<16x8192xf32>
  return %r : tensor<16x8192xf32>
}
