// On a CPU that data-tiles, an encoded plain matmul, its init encoded or a
// constant-filled encoded tensor.empty, is materialized by the templates of
// materialize_encodings.py (PACKED_MATMUL, PACKED_FILLED_MATMUL and their
// _IN_DISPATCHES forms), not by the builder they specialize.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' | filecheck %s --check-prefix=LATE
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' | filecheck %s --check-prefix=EARLY
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=LATE-STATS
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=EARLY-STATS
// LATE-STATS: materialize-late: materialize-matmul-in-dispatches: 1
// LATE-STATS: materialize-late: materialize-filled-matmul-in-dispatches: 1
// LATE-STATS: materialize-late: materialize-encoding-in-dispatches: 0
// EARLY-STATS: materialize-early: materialize-matmul-early: 1
// EARLY-STATS: materialize-early: materialize-filled-matmul-early: 1
// EARLY-STATS: materialize-early: materialize-encoding-early: 0

// The fill is made in the packed layout, in the mmt4d's dispatch, its
// constant with it; each pack has a dispatch of its own.
// LATE-LABEL: func.func @matmul_fill
// LATE:         %[[PA:.*]] = flow.dispatch.workgroups(%a) : (tensor<100x1001xf32>) -> tensor<13x1001x8x1xf32> =
// LATE:           linalg.pack %{{.*}} padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<100x1001xf32> -> tensor<13x1001x8x1xf32>
// LATE:         %[[PB:.*]] = flow.dispatch.workgroups(%b) : (tensor<1001x70xf32>) -> tensor<9x1001x8x1xf32> =
// LATE:           linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %{{.*}} : tensor<1001x70xf32> -> tensor<9x1001x8x1xf32>
// LATE:         %[[R:.*]] = flow.dispatch.workgroups(%[[PA]], %[[PB]]) : (tensor<13x1001x8x1xf32>, tensor<9x1001x8x1xf32>) -> tensor<100x70xf32> =
// LATE:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// LATE-NEXT:      %[[E:.*]] = tensor.empty() : tensor<13x9x8x8xf32>
// LATE-NEXT:      %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<13x9x8x8xf32>) -> tensor<13x9x8x8xf32>
// LATE-NEXT:      %[[M:.*]] = linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<13x1001x8x1xf32>, tensor<9x1001x8x1xf32>) outs(%[[F]] : tensor<13x9x8x8xf32>) -> tensor<13x9x8x8xf32>
// LATE-NEXT:      %[[U:.*]] = tensor.empty() : tensor<100x70xf32>
// LATE-NEXT:      %[[O:.*]] = linalg.unpack %[[M]] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %[[U]] : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// LATE-NEXT:      iree_tensor_ext.dispatch.tensor.store %[[O]]
// LATE:         func.return %[[R]]
// EARLY-LABEL: func.func @matmul_fill
// EARLY:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// EARLY:         %[[E:.*]] = tensor.empty() : tensor<13x9x8x8xf32>
// EARLY-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<13x9x8x8xf32>) -> tensor<13x9x8x8xf32>
// EARLY-NEXT:    %[[M:.*]] = linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<13x1001x8x1xf32>, tensor<9x1001x8x1xf32>) outs(%[[F]] : tensor<13x9x8x8xf32>) -> tensor<13x9x8x8xf32>
// EARLY-NEXT:    %[[U:.*]] = tensor.empty() : tensor<100x70xf32>
// EARLY-NEXT:    %[[O:.*]] = linalg.unpack %[[M]] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %[[U]] : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// EARLY-NEXT:    func.return %[[O]]
func.func @matmul_fill(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>) -> tensor<100x70xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x70xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<100x70xf32>) -> tensor<100x70xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%f : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// An encoded init is packed in a dispatch of its own too.
// LATE-LABEL: func.func @matmul_c
// LATE:         %[[PA:.*]] = flow.dispatch.workgroups(%a)
// LATE:         %[[PB:.*]] = flow.dispatch.workgroups(%b)
// LATE:         %[[PC:.*]] = flow.dispatch.workgroups(%c) : (tensor<100x70xf32>) -> tensor<13x9x8x8xf32> =
// LATE:           linalg.pack %{{.*}} padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<100x70xf32> -> tensor<13x9x8x8xf32>
// LATE:         %[[R:.*]] = flow.dispatch.workgroups(%[[PA]], %[[PB]], %[[PC]])
// LATE:           linalg.mmt4d
// LATE-NEXT:      tensor.empty() : tensor<100x70xf32>
// LATE-NEXT:      linalg.unpack
// LATE:         func.return %[[R]]
func.func @matmul_c(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}
