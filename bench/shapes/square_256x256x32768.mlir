// Square mid-size output, long K.
func.func @matmul(%a: tensor<256x32768xf32>, %b: tensor<32768x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x32768xf32>, tensor<32768x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
