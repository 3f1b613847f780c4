// A batch-4 decode step against a transposed (N x K) weight: split-lanes' rows form.
func.func @matmul(%a: tensor<4x11008xf32>, %b: tensor<4096x11008xf32>) -> tensor<4x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4096xf32>) -> tensor<4x4096xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<4x11008xf32>, tensor<4096x11008xf32>) outs(%init : tensor<4x4096xf32>) -> tensor<4x4096xf32>
  return %r : tensor<4x4096xf32>
}
