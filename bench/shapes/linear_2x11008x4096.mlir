// Two tokens through a transposed (N x K) FFN up projection: split-lanes' rows form.
func.func @matmul(%a: tensor<2x4096xf32>, %b: tensor<11008x4096xf32>) -> tensor<2x11008xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x11008xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x11008xf32>) -> tensor<2x11008xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<2x4096xf32>, tensor<11008x4096xf32>) outs(%init : tensor<2x11008xf32>) -> tensor<2x11008xf32>
  return %r : tensor<2x11008xf32>
}
