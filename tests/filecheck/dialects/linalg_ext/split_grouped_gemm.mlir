// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @grouped
// CHECK:         linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 3, 6, 7>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%{{.*}}, %{{.*}} : tensor<4x7xf32>, tensor<7x5xf32>) outs(%{{.*}} : tensor<3x4x5xf32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK:           linalg.yield %{{.*}} : f32
// CHECK-NEXT:    } -> tensor<3x4x5xf32>
// CHECK:         linalg_ext.split_grouped_gemm {balanced, group_count = 4 : i64, {{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4x?xf32>, tensor<?x5xf32>) outs(%{{.*}} : tensor<4x4x5xf32>)
func.func @grouped(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<3x4x5xf32>, %da: tensor<4x?xf32>, %db: tensor<?x5xf32>, %q: tensor<4x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<4x4x5xf32>) {
  %0 = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 3, 6, 7>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<3x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4x5xf32>
  %1 = linalg_ext.split_grouped_gemm {group_count = 4 : i64, balanced, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%da, %db : tensor<4x?xf32>, tensor<?x5xf32>) outs(%q : tensor<4x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x4x5xf32>
  func.return %0, %1 : tensor<3x4x5xf32>, tensor<4x4x5xf32>
}
