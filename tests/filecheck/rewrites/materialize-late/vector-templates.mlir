// Encoded matvecs and vecmats, late: materialize_vector_contractions.py's
// templates put each pack in a dispatch region of its own (the reshape that
// feeds x copied in before its unit dimension is added) and the mmt4d, the
// unpack and the collapse of the unit dimension in one.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// CHECK-LABEL: func.func @matvec_filled
// CHECK-SAME:    (%[[A:.*]]: tensor<64x1001xf32>, %[[X2:.*]]: tensor<7x143xf32>)
// CHECK:         %[[PA:.*]] = flow.dispatch.workgroups(%[[A]]) : (tensor<64x1001xf32>) -> tensor<8x1001x8x1xf32> =
// CHECK:         %[[PX:.*]] = flow.dispatch.workgroups(%[[X2]]) : (tensor<7x143xf32>) -> tensor<1x1001x1x1xf32> =
// CHECK:           %[[L:.*]] = iree_tensor_ext.dispatch.tensor.load
// CHECK:           %[[X:.*]] = tensor.collapse_shape %[[L]] {{\[\[}}0, 1]] : tensor<7x143xf32> into tensor<1001xf32>
// CHECK-NEXT:      %[[XU:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1001, 1]
// CHECK-NEXT:      linalg.pack %[[XU]]
// CHECK:         %[[R:.*]] = flow.dispatch.workgroups(%[[PA]], %[[PX]]) : (tensor<8x1001x8x1xf32>, tensor<1x1001x1x1xf32>) -> tensor<64xf32> =
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<8x1x8x1xf32>
// CHECK-NEXT:      %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<8x1x8x1xf32>)
// CHECK-NEXT:      %[[P:.*]] = linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<8x1001x8x1xf32>, tensor<1x1001x1x1xf32>) outs(%[[F]] : tensor<8x1x8x1xf32>)
// CHECK-NEXT:      %[[UE:.*]] = tensor.empty() : tensor<64x1xf32>
// CHECK-NEXT:      %[[U:.*]] = linalg.unpack %[[P]] inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %[[UE]] : tensor<8x1x8x1xf32> -> tensor<64x1xf32>
// CHECK-NEXT:      tensor.collapse_shape %[[U]] {{\[\[}}0, 1]] : tensor<64x1xf32> into tensor<64xf32>
// CHECK:         func.return %[[R]]
func.func @matvec_filled(%a: tensor<64x1001xf32>, %x2: tensor<7x143xf32>) -> tensor<64xf32> {
  %x = tensor.collapse_shape %x2 [[0, 1]] : tensor<7x143xf32> into tensor<1001xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.matvec ins(%a, %x : tensor<64x1001xf32>, tensor<1001xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// CHECK-LABEL: func.func @vecmat
// CHECK:         flow.dispatch.workgroups(%{{.*}}) : (tensor<1001xf32>) -> tensor<1x1001x1x1xf32> =
// CHECK:           tensor.expand_shape
// CHECK:         flow.dispatch.workgroups(%{{.*}}) : (tensor<1001x64xf32>) -> tensor<8x1001x8x1xf32> =
// CHECK:         flow.dispatch.workgroups(%{{.*}}) : (tensor<64xf32>) -> tensor<1x8x1x8xf32> =
// CHECK:           tensor.expand_shape
// CHECK:         flow.dispatch.workgroups(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x1001x1x1xf32>, tensor<8x1001x8x1xf32>, tensor<1x8x1x8xf32>) -> tensor<64xf32> =
// CHECK:           linalg.mmt4d
// CHECK:           tensor.collapse_shape
func.func @vecmat(%x: tensor<1001xf32>, %b: tensor<1001x64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.vecmat ins(%x, %b : tensor<1001xf32>, tensor<1001x64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// STATS-DAG: xsplit-stats: materialize-late: materialize-filled-matvec-in-dispatches: 1
// STATS-DAG: xsplit-stats: materialize-late: materialize-vecmat-in-dispatches: 1
// STATS-DAG: xsplit-stats: materialize-late: materialize-encoding-in-dispatches: 0
