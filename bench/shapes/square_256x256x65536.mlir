// K = 65536 over a 256x256 output.
func.func @matmul(%a: tensor<256x65536xf32>, %b: tensor<65536x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x65536xf32>, tensor<65536x256xf32>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
