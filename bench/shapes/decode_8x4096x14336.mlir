// Eight tokens through Llama-3-8B's FFN down projection, B row-major: streamed by split-k's tiles.
func.func @matmul(%a: tensor<8x14336xf32>, %b: tensor<14336x4096xf32>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x14336xf32>, tensor<14336x4096xf32>) outs(%init : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  return %r : tensor<8x4096xf32>
}
