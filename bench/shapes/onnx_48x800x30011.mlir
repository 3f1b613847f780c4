// ONNX Gemm transB=1 as iree-import-onnx and --compile-to=input leave it: the
// weight (N x K) transposed into a copy, then a row-major matmul on the copy.
func.func @linear(%x: tensor<48x30011xf32>, %w: tensor<800x30011xf32>) -> tensor<48x800xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %empty_t = tensor.empty() : tensor<30011x800xf32>
  %transposed = linalg.transpose ins(%w : tensor<800x30011xf32>) outs(%empty_t : tensor<30011x800xf32>) permutation = [1, 0]
  %empty = tensor.empty() : tensor<48x800xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<48x800xf32>) -> tensor<48x800xf32>
  %r = linalg.matmul ins(%x, %transposed : tensor<48x30011xf32>, tensor<30011x800xf32>) outs(%init : tensor<48x800xf32>) -> tensor<48x800xf32>
  return %r : tensor<48x800xf32>
}
