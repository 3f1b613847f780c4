func.func @dropped(%a: tensor<2x5x8xf32>, %b: tensor<2x8x9xf32>, %o: tensor<1x5x9xf32>) -> tensor<1x5x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<2x5x8xf32>, tensor<2x8x9xf32>) outs(%f : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %r = rock.reduce sum %mm into %o {axis = 0 : index} : tensor<2x5x9xf32> into tensor<1x5x9xf32> -> tensor<1x5x9xf32>
  return %r : tensor<1x5x9xf32>
}
