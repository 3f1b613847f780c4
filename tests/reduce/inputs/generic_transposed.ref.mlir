#a = affine_map<(d0, d1, d2) -> (d2, d0)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gen(%a: tensor<24x13xf32>, %b: tensor<70x24xf32>, %c: tensor<13x70xf32>, %o: tensor<13x1xf32>) -> (tensor<13x70xf32>, tensor<13x1xf32>) {
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<24x13xf32>, tensor<70x24xf32>) outs(%c : tensor<13x70xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x70xf32>
  %oc = tensor.collapse_shape %o [[0, 1]] : tensor<13x1xf32> into tensor<13xf32>
  %rr = linalg.reduce ins(%mm : tensor<13x70xf32>) outs(%oc : tensor<13xf32>) dimensions = [1]
    (%p: f32, %q: f32) {
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  %r = tensor.expand_shape %rr [[0, 1]] output_shape [13, 1] : tensor<13xf32> into tensor<13x1xf32>
  return %mm, %r : tensor<13x70xf32>, tensor<13x1xf32>
}
