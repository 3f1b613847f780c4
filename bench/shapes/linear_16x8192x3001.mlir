// Sixteen rows, a prime K of 3001 against a transposed (N x K) B.
func.func @matmul(%a: tensor<16x3001xf32>, %b: tensor<8192x3001xf32>) -> tensor<16x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x8192xf32>) -> tensor<16x8192xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<16x3001xf32>, tensor<8192x3001xf32>) outs(%init : tensor<16x8192xf32>) -> tensor<16x8192xf32>
  return %r : tensor<16x8192xf32>
}
