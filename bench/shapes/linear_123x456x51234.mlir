// The seed's shape with B transposed (N x K), as ONNX Gemm transB=1 and linear layers hold weights.
func.func @matmul(%a: tensor<123x51234xf32>, %b: tensor<456x51234xf32>) -> tensor<123x456xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<123x456xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<123x456xf32>) -> tensor<123x456xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<123x51234xf32>, tensor<456x51234xf32>) outs(%init : tensor<123x456xf32>) -> tensor<123x456xf32>
  return %r : tensor<123x456xf32>
}
