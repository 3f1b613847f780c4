// A linear layer's weight as PyTorch keeps it (N x K): 512x768x16384 against a transposed B.
func.func @matmul(%a: tensor<512x16384xf32>, %b: tensor<768x16384xf32>) -> tensor<512x768xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x768xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x768xf32>) -> tensor<512x768xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<512x16384xf32>, tensor<768x16384xf32>) outs(%init : tensor<512x768xf32>) -> tensor<512x768xf32>
  return %r : tensor<512x768xf32>
}
