// Transposed B (N x K) with prime K = 30011.
func.func @matmul(%a: tensor<96x30011xf32>, %b: tensor<1024x30011xf32>) -> tensor<96x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<96x1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<96x1024xf32>) -> tensor<96x1024xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<96x30011xf32>, tensor<1024x30011xf32>) outs(%init : tensor<96x1024xf32>) -> tensor<96x1024xf32>
  return %r : tensor<96x1024xf32>
}
