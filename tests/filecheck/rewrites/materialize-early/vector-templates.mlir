// Encoded matvecs and vecmats go through materialize_vector_contractions.py's
// templates: the operands without the missing loop get a unit dimension
// (tensor.expand_shape), are packed with unit tiles along it, and the result
// loses it again (tensor.collapse_shape).
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// CHECK-LABEL: func.func @matvec
// CHECK-SAME:    (%[[A:.*]]: tensor<64x1001xf32>, %[[X:.*]]: tensor<1001xf32>, %[[Y:.*]]: tensor<64xf32>)
// CHECK:         %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<64x1001xf32> -> tensor<8x1001x8x1xf32>
// CHECK-NEXT:    %[[XU:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1001, 1] : tensor<1001xf32> into tensor<1001x1xf32>
// CHECK:         %[[PX:.*]] = linalg.pack %[[XU]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [1, 1] into %{{.*}} : tensor<1001x1xf32> -> tensor<1x1001x1x1xf32>
// CHECK-NEXT:    %[[YU:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
// CHECK:         %[[PY:.*]] = linalg.pack %[[YU]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<64x1xf32> -> tensor<8x1x8x1xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.mmt4d ins(%[[PA]], %[[PX]] : tensor<8x1001x8x1xf32>, tensor<1x1001x1x1xf32>) outs(%[[PY]] : tensor<8x1x8x1xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<64x1xf32>
// CHECK-NEXT:    %[[U:.*]] = linalg.unpack %[[P]] inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %[[E]] : tensor<8x1x8x1xf32> -> tensor<64x1xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %[[U]] {{\[\[}}0, 1]] : tensor<64x1xf32> into tensor<64xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @matvec(%a: tensor<64x1001xf32>, %x: tensor<1001xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x1001xf32>, tensor<1001xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// A zero-filled result is filled in its packed layout, with the unit.
// CHECK-LABEL: func.func @matvec_filled
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x1x8x1xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<8x1x8x1xf32>)
// CHECK-NEXT:    %[[P:.*]] = linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<8x1001x8x1xf32>, tensor<1x1001x1x1xf32>) outs(%[[F]] : tensor<8x1x8x1xf32>)
// CHECK:         linalg.unpack %[[P]]
// CHECK-NEXT:    tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<64x1xf32> into tensor<64xf32>
func.func @matvec_filled(%a: tensor<64x1001xf32>, %x2: tensor<7x143xf32>) -> tensor<64xf32> {
  %x = tensor.collapse_shape %x2 [[0, 1]] : tensor<7x143xf32> into tensor<1001xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.matvec ins(%a, %x : tensor<64x1001xf32>, tensor<1001xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// A vecmat: x and y get the unit M; y's tiles are 1 x 8.
// CHECK-LABEL: func.func @vecmat
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1001, 1]
// CHECK:         linalg.pack %{{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %{{.*}} : tensor<1001x64xf32> -> tensor<8x1001x8x1xf32>
// CHECK:         linalg.pack %{{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [1, 8] into %{{.*}} : tensor<64x1xf32> -> tensor<1x8x1x8xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<1x1001x1x1xf32>, tensor<8x1001x8x1xf32>) outs(%{{.*}} : tensor<1x8x1x8xf32>)
// CHECK:         linalg.unpack %[[P]] outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [1, 8] into %{{.*}} : tensor<1x8x1x8xf32> -> tensor<64x1xf32>
func.func @vecmat(%x: tensor<1001xf32>, %b: tensor<1001x64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.vecmat ins(%x, %b : tensor<1001xf32>, tensor<1001x64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// STATS-DAG: xsplit-stats: materialize-early: materialize-matvec-early: 1
// STATS-DAG: xsplit-stats: materialize-early: materialize-filled-matvec-early: 1
// STATS-DAG: xsplit-stats: materialize-early: materialize-vecmat-early: 1
// STATS-DAG: xsplit-stats: materialize-early: materialize-encoding-early: 0
