// Two tokens through Llama-2-7B's FFN up projection, B row-major.
func.func @matmul(%a: tensor<2x4096xf32>, %b: tensor<4096x11008xf32>) -> tensor<2x11008xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x11008xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x11008xf32>) -> tensor<2x11008xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x4096xf32>, tensor<4096x11008xf32>) outs(%init : tensor<2x11008xf32>) -> tensor<2x11008xf32>
  return %r : tensor<2x11008xf32>
}
