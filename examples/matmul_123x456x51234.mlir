// The seed's unaligned split-K case (IREE issue #13115): K = 51234 = 2*3*8539,
// which IREE only splits in 6 chunks, and which xsplit splits in any number.
func.func @matmul_static(%arg0: tensor<123x51234xf32>, %arg1: tensor<51234x456xf32>, %arg2: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%arg2 : tensor<123x456xf32>) -> tensor<123x456xf32>
  return %0 : tensor<123x456xf32>
}
