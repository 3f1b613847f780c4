// 32 rows against a wide B (rows 16 KiB apart) with prime K = 12289.
func.func @matmul(%a: tensor<32x12289xf32>, %b: tensor<12289x4096xf32>) -> tensor<32x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<32x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x12289xf32>, tensor<12289x4096xf32>) outs(%init : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  return %r : tensor<32x4096xf32>
}
