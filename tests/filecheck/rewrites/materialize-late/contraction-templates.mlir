// Encoded contractions beyond the plain matmul, late: with an M and an N
// loop and at most one batch loop, the templates of materialize_contractions.py
// put each pack in a dispatch of its own, with the reshape that feeds it
// copied in, and the (batch_)mmt4d with its unpack in one; two batch loops
// stay with the materialize-encoding-in-dispatches builder.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// A reshaped, transposed A: the collapse_shape goes into A's pack dispatch.
// CHECK-LABEL: func.func @collapsed_at_b
// CHECK-SAME:    (%[[A:.*]]: tensor<7x143x100xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// CHECK:         %[[PA:.*]] = flow.dispatch.workgroups(%[[A]]) : (tensor<7x143x100xf32>) -> tensor<13x1001x8x1xf32> =
// CHECK:           %[[LA:.*]] = iree_tensor_ext.dispatch.tensor.load
// CHECK:           %[[X:.*]] = tensor.collapse_shape %[[LA]] {{\[\[}}0, 1], [2]] : tensor<7x143x100xf32> into tensor<1001x100xf32>
// CHECK-NEXT:      linalg.pack %[[X]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %{{.*}} : tensor<1001x100xf32> -> tensor<13x1001x8x1xf32>
// CHECK:         %[[PB:.*]] = flow.dispatch.workgroups(%[[B]]) : (tensor<1001x70xf32>) -> tensor<9x1001x8x1xf32> =
// CHECK:         %[[PC:.*]] = flow.dispatch.workgroups(%[[C]]) : (tensor<100x70xf32>) -> tensor<13x9x8x8xf32> =
// CHECK:         %[[R:.*]] = flow.dispatch.workgroups(%[[PA]], %[[PB]], %[[PC]])
// CHECK:           %[[P:.*]] = linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<13x1001x8x1xf32>, tensor<9x1001x8x1xf32>) outs(%{{.*}} : tensor<13x9x8x8xf32>)
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<100x70xf32>
// CHECK-NEXT:      linalg.unpack %[[P]] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %[[E]] : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// CHECK:         func.return %[[R]]
func.func @collapsed_at_b(%a: tensor<7x143x100xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %at = tensor.collapse_shape %a [[0, 1], [2]] : tensor<7x143x100xf32> into tensor<1001x100xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%at, %b : tensor<1001x100xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// One batch loop, from a zero-filled init: the constant made again inside
// the batch_mmt4d's dispatch.
// CHECK-LABEL: func.func @batch_filled
// CHECK:         flow.dispatch.workgroups(%{{.*}}) : (tensor<3x16x400xf32>) -> tensor<3x2x400x8x1xf32> =
// CHECK:         flow.dispatch.workgroups(%{{.*}}) : (tensor<3x400x24xf32>) -> tensor<3x3x400x8x1xf32> =
// CHECK:         flow.dispatch.workgroups(%{{.*}}, %{{.*}}) : (tensor<3x2x400x8x1xf32>, tensor<3x3x400x8x1xf32>) -> tensor<3x16x24xf32> =
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<3x2x3x8x8xf32>
// CHECK-NEXT:      %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<3x2x3x8x8xf32>)
// CHECK-NEXT:      %[[P:.*]] = linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<3x2x400x8x1xf32>, tensor<3x3x400x8x1xf32>) outs(%[[F]] : tensor<3x2x3x8x8xf32>)
// CHECK:           linalg.unpack %[[P]] inner_dims_pos = [1, 2] inner_tiles = [8, 8] into %{{.*}} : tensor<3x2x3x8x8xf32> -> tensor<3x16x24xf32>
func.func @batch_filled(%a: tensor<3x16x400xf32>, %b: tensor<3x400x24xf32>) -> tensor<3x16x24xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x16x24xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<3x16x24xf32>) -> tensor<3x16x24xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x16x400xf32>, tensor<3x400x24xf32>) outs(%c : tensor<3x16x24xf32>) -> tensor<3x16x24xf32>
  func.return %r : tensor<3x16x24xf32>
}

// Two batch loops are collapsed into the one batch_mmt4d has: the builder's.
// CHECK-LABEL: func.func @two_batch_loops
// CHECK:         tensor.collapse_shape
// CHECK:         linalg.batch_mmt4d
// CHECK:         tensor.expand_shape
func.func @two_batch_loops(%a: tensor<2x3x16x40xf32>, %b: tensor<2x3x40x24xf32>, %c: tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b0, b1, m, n, k) -> (b0, b1, m, k)>, affine_map<(b0, b1, m, n, k) -> (b0, b1, k, n)>, affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x16x40xf32>, tensor<2x3x40x24xf32>) outs(%c : tensor<2x3x16x24xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x16x24xf32>
  func.return %r : tensor<2x3x16x24xf32>
}

// STATS: xsplit-stats: materialize-late: materialize-contraction-in-dispatches: 1
// STATS: xsplit-stats: materialize-late: materialize-filled-batch-contraction-in-dispatches: 1
// STATS: xsplit-stats: materialize-late: materialize-encoding-in-dispatches: 1
