// A decode step against a transposed (N x K) weight: a transposed matvec.
func.func @matmul(%a: tensor<1x14336xf32>, %b: tensor<4096x14336xf32>) -> tensor<1x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<1x14336xf32>, tensor<4096x14336xf32>) outs(%init : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}
