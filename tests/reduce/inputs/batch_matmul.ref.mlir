func.func @dropped(%a: tensor<2x5x8xf32>, %b: tensor<2x8x9xf32>, %o: tensor<1x5x9xf32>) -> tensor<1x5x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<2x5x8xf32>, tensor<2x8x9xf32>) outs(%f : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %oc = tensor.collapse_shape %o [[0, 1], [2]] : tensor<1x5x9xf32> into tensor<5x9xf32>
  %rr = linalg.reduce ins(%mm : tensor<2x5x9xf32>) outs(%oc : tensor<5x9xf32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  %r = tensor.expand_shape %rr [[0, 1], [2]] output_shape [1, 5, 9] : tensor<5x9xf32> into tensor<1x5x9xf32>
  return %r : tensor<1x5x9xf32>
}
