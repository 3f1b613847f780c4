// Four tokens through Llama-3-8B's FFN down projection: a skinny product that streams B.
func.func @matmul(%a: tensor<4x14336xf32>, %b: tensor<14336x4096xf32>) -> tensor<4x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4096xf32>) -> tensor<4x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x14336xf32>, tensor<14336x4096xf32>) outs(%init : tensor<4x4096xf32>) -> tensor<4x4096xf32>
  return %r : tensor<4x4096xf32>
}
