// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt --mlir-print-op-generic > %t.xsplit
// RUN: iree-opt --mlir-print-op-generic %s > %t.iree
// RUN: cmp %t.iree %t.xsplit

// An argmax: two results, printed in parentheses after the region.
// CHECK-LABEL: func.func @argmax
// CHECK:       %[[V:.*]], %[[I:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x100xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi32>) {
// CHECK:         linalg.yield %{{.*}}, %{{.*}} : f32, i32
// CHECK-NEXT:  } -> (tensor<4xf32>, tensor<4xi32>)
// CHECK-NEXT:  func.return %[[V]], %[[I]] : tensor<4xf32>, tensor<4xi32>
func.func @argmax(%x: tensor<4x100xf32>, %v: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x100xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%in: f32, %out: f32, %out_0: i32):
    %5 = linalg.index 1 : index
    %6 = arith.index_cast %5 : index to i32
    %7 = arith.maximumf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %6, %out_0 : i32
    linalg.yield %7, %9 : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}

// Attributes beside the structured ones are kept (xDSL 0.74 dropped them).
// CHECK-LABEL: func.func @hinted
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x100xf32>) outs(%{{.*}} : tensor<4xf32>) attrs =  {hint = [1 : index, 50 : index]} {
func.func @hinted(%x: tensor<4x100xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"], hint = [1 : index, 50 : index]} ins(%x : tensor<4x100xf32>) outs(%v : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
