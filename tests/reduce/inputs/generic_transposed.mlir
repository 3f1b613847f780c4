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
  %r = rock.reduce sum %mm into %o {axis = 1 : index} : tensor<13x70xf32> into tensor<13x1xf32> -> tensor<13x1xf32>
  return %mm, %r : tensor<13x70xf32>, tensor<13x1xf32>
}
