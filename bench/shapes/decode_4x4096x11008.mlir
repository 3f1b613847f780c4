// A batch-4 decode step: 4 rows against an 11008x4096 weight, streamed.
func.func @matmul(%a: tensor<4x11008xf32>, %b: tensor<11008x4096xf32>) -> tensor<4x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4096xf32>) -> tensor<4x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x11008xf32>, tensor<11008x4096xf32>) outs(%init : tensor<4x4096xf32>) -> tensor<4x4096xf32>
  return %r : tensor<4x4096xf32>
}
