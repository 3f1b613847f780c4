// Encoded contractions beyond the plain matmul, with an M and an N loop and
// at most one batch loop, go through the templates of
// materialize_contractions.py (the plain matmul's, their layouts numbers of
// the match; batch_mmt4d for a batch loop); two batch loops stay with the
// materialize-encoding-early builder. On a target that does not data-tile,
// the matched contraction is copied onto the plain operands (DROPPED,
// DROPPED_FILLED), whatever its batch loops.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: xsplit-opt %s -p 'set-encoding,materialize-early{target=sm_80}' | filecheck %s --check-prefix=GPU
// RUN: xsplit-opt %s -p 'set-encoding,materialize-early{target=sm_80}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=GPU-STATS

// A transposed A: its pack tiles dimensions 1 and 0 (M first in the tile).
// CHECK-LABEL: func.func @at_b
// CHECK-SAME:    (%[[A:.*]]: tensor<1001x100xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// CHECK:         %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %{{.*}} : tensor<1001x100xf32> -> tensor<13x1001x8x1xf32>
// CHECK:         %[[PB:.*]] = linalg.pack %[[B]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %{{.*}} : tensor<1001x70xf32> -> tensor<9x1001x8x1xf32>
// CHECK:         %[[PC:.*]] = linalg.pack %[[C]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<100x70xf32> -> tensor<13x9x8x8xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.mmt4d ins(%[[PA]], %[[PB]] : tensor<13x1001x8x1xf32>, tensor<9x1001x8x1xf32>) outs(%[[PC]] : tensor<13x9x8x8xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<100x70xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.unpack %[[P]] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %[[E]] : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// CHECK-NEXT:    func.return %[[R]]
// GPU-LABEL: func.func @at_b
// GPU-SAME:    (%[[A:.*]]: tensor<1001x100xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// GPU-NEXT:      %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<1001x100xf32>, tensor<1001x70xf32>) outs(%[[C]] : tensor<100x70xf32>)
// GPU:           func.return %[[R]]
func.func @at_b(%a: tensor<1001x100xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1001x100xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// One batch loop, from a zero-filled init: batch_mmt4d into the packed fill.
// CHECK-LABEL: func.func @batch_filled
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [1, 2] inner_tiles = [8, 1] into %{{.*}} : tensor<3x16x400xf32> -> tensor<3x2x400x8x1xf32>
// CHECK:         linalg.pack %{{.*}} outer_dims_perm = [0, 2, 1] inner_dims_pos = [2, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<3x400x24xf32> -> tensor<3x3x400x8x1xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<3x2x3x8x8xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<3x2x3x8x8xf32>)
// CHECK-NEXT:    %[[P:.*]] = linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<3x2x400x8x1xf32>, tensor<3x3x400x8x1xf32>) outs(%[[F]] : tensor<3x2x3x8x8xf32>)
// CHECK:         linalg.unpack %[[P]] inner_dims_pos = [1, 2] inner_tiles = [8, 8] into %{{.*}} : tensor<3x2x3x8x8xf32> -> tensor<3x16x24xf32>
// GPU-LABEL: func.func @batch_filled
// GPU:           %[[E:.*]] = tensor.empty() : tensor<3x16x24xf32>
// GPU-NEXT:      %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<3x16x24xf32>)
// GPU-NEXT:      linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<3x16x400xf32>, tensor<3x400x24xf32>) outs(%[[F]] : tensor<3x16x24xf32>)
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

// STATS: xsplit-stats: materialize-early: materialize-contraction-early: 1
// STATS: xsplit-stats: materialize-early: materialize-filled-batch-contraction-early: 1
// STATS: xsplit-stats: materialize-early: materialize-encoding-early: 1
// GPU-STATS: xsplit-stats: materialize-early: drop-contraction-encodings: 2
// GPU-STATS: xsplit-stats: materialize-early: drop-filled-contraction-encodings: 1
// GPU-STATS: xsplit-stats: materialize-early: materialize-encoding-early: 0
