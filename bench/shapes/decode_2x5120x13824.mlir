// A batch-2 decode step against a 13824x5120 weight, whose rows are 20 KiB apart.
func.func @matmul(%a: tensor<2x13824xf32>, %b: tensor<13824x5120xf32>) -> tensor<2x5120xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x5120xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x5120xf32>) -> tensor<2x5120xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x13824xf32>, tensor<13824x5120xf32>) outs(%init : tensor<2x5120xf32>) -> tensor<2x5120xf32>
  return %r : tensor<2x5120xf32>
}
