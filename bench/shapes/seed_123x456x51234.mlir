// The seed's unaligned split-K case (IREE issue #13115): K = 2*3*8539.
func.func @matmul(%a: tensor<123x51234xf32>, %b: tensor<51234x456xf32>, %c: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%c : tensor<123x456xf32>) -> tensor<123x456xf32>
  return %r : tensor<123x456xf32>
}
