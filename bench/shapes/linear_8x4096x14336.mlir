// Eight tokens against a transposed (N x K) down projection: IREE's own tiles (more rows than the lanes take).
func.func @matmul(%a: tensor<8x14336xf32>, %b: tensor<4096x14336xf32>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<8x14336xf32>, tensor<4096x14336xf32>) outs(%init : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  return %r : tensor<8x4096xf32>
}
