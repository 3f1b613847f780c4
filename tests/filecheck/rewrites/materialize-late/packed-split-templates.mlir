// An encoded split of a matmul and its merge, late: the common root goes
// through materialize-packed-split-in-dispatches (PACKED_SPLIT_IN_DISPATCHES),
// a matvec's (packed with a unit N) through the builder it comes before. The
// reshape and the pad that feed a pack are copied into its dispatch.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-late' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'split-k{factor=7 strategy=expand},set-encoding,materialize-late' | filecheck %s --check-prefix=EXPAND
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-late' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'split-k{factor=7 strategy=expand},set-encoding,materialize-late' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=EXPAND-STATS
// On a target that does not data-tile, drop-split-encodings (SPLIT_DROPPED):
// the split and its merge on plain tensors.
// RUN: xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-late{target=sm_80}' | filecheck %s --check-prefix=GPU
// RUN: xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-late{target=sm_80}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=GPU-STATS

// CHECK-LABEL: func.func @aligned
// CHECK-SAME:    (%[[A:.*]]: tensor<100x1001xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// CHECK:         %[[PA:.*]] = flow.dispatch.workgroups(%[[A]]) : (tensor<100x1001xf32>) -> tensor<7x13x143x8x1xf32> =
// CHECK:           %[[LA:.*]] = iree_tensor_ext.dispatch.tensor.load
// CHECK:           %[[XA:.*]] = tensor.expand_shape %[[LA]] {{\[\[}}0], [1, 2]] output_shape [100, 7, 143]
// CHECK-NEXT:      linalg.pack %[[XA]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0, 2] inner_dims_pos = [0, 2] inner_tiles = [8, 1] into %{{.*}} : tensor<100x7x143xf32> -> tensor<7x13x143x8x1xf32>
// CHECK:         %[[PB:.*]] = flow.dispatch.workgroups(%[[B]]) : (tensor<1001x70xf32>) -> tensor<7x9x143x8x1xf32> =
// CHECK:           tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [7, 143, 70]
// CHECK-NEXT:      linalg.pack %{{.*}} outer_dims_perm = [0, 2, 1] inner_dims_pos = [2, 1] inner_tiles = [8, 1]
// CHECK:         %[[P:.*]] = flow.dispatch.workgroups(%[[PA]], %[[PB]])
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<7x13x9x8x8xf32>
// CHECK-NEXT:      %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<7x13x9x8x8xf32>)
// CHECK-NEXT:      linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<7x13x143x8x1xf32>, tensor<7x9x143x8x1xf32>) outs(%[[F]] : tensor<7x13x9x8x8xf32>)
// CHECK:         %[[PC:.*]] = flow.dispatch.workgroups(%[[C]]) : (tensor<100x70xf32>) -> tensor<13x9x8x8xf32> =
// CHECK:           linalg.pack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<100x70xf32> -> tensor<13x9x8x8xf32>
// The merge, at graph level, over the packed chunks into the packed init.
// CHECK:         %[[R:.*]] = linalg.reduce ins(%[[P]]:tensor<7x13x9x8x8xf32>) outs(%[[PC]]:tensor<13x9x8x8xf32>) dimensions = [0]
// CHECK-NEXT:    ({{.*}}: f32, {{.*}}: f32) {
// CHECK-NEXT:      arith.addf
// CHECK:         %[[M:.*]] = flow.dispatch.workgroups(%[[R]]) : (tensor<13x9x8x8xf32>) -> tensor<100x70xf32> =
// CHECK:           linalg.unpack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// CHECK:         func.return %[[M]]
// EXPAND-LABEL: func.func @aligned
// EXPAND:         linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<7x13x143x8x1xf32>, tensor<7x9x143x8x1xf32>)
// EXPAND:         linalg.reduce ins(%{{.*}}:tensor<7x13x9x8x8xf32>) outs(%{{.*}}:tensor<13x9x8x8xf32>) dimensions = [0]
// EXPAND:         linalg.unpack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// GPU-LABEL: func.func @aligned
// GPU-SAME:    (%[[A:.*]]: tensor<100x1001xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// GPU-NOT:       iree_encoding
// GPU:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// GPU-NEXT:      %[[E:.*]] = tensor.empty() : tensor<7x100x70xf32>
// GPU-NEXT:      %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<7x100x70xf32>)
// GPU-NEXT:      %[[P:.*]] = linalg.generic {{.*}} outs(%[[F]] : tensor<7x100x70xf32>) attrs =  {xsplit.split_chunks = 7 : i64}
// GPU:           %[[M:.*]] = linalg.reduce ins(%[[P]]:tensor<7x100x70xf32>) outs(%[[C]]:tensor<100x70xf32>) dimensions = [0]
// GPU:           func.return %[[M]]
func.func @aligned(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// K = 1009 is padded to 7 x 145: the pad and the reshape, in that order.
// CHECK-LABEL: func.func @prime_k
// CHECK:         flow.dispatch.workgroups(%{{.*}}) : (tensor<32x1009xf32>) -> tensor<7x4x145x8x1xf32> =
// CHECK:           %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 6]
// CHECK:           %[[X:.*]] = tensor.expand_shape %[[PAD]] {{\[\[}}0], [1, 2]] output_shape [32, 7, 145]
// CHECK-NEXT:      linalg.pack %[[X]]
// CHECK:         linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<7x4x145x8x1xf32>, tensor<7x6x145x8x1xf32>) outs(%{{.*}} : tensor<7x4x6x8x8xf32>)
// CHECK:         linalg.reduce ins(%{{.*}}:tensor<7x4x6x8x8xf32>) outs(%{{.*}}:tensor<4x6x8x8xf32>) dimensions = [0]
func.func @prime_k(%a: tensor<32x1009xf32>, %b: tensor<1009x48xf32>, %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x1009xf32>, tensor<1009x48xf32>) outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  func.return %r : tensor<32x48xf32>
}

// A matvec has no N loop: its operands need a unit dimension, the builder's.
// CHECK-LABEL: func.func @matvec
// CHECK:         linalg.batch_mmt4d
// CHECK:         linalg.reduce
// CHECK:         linalg.unpack
func.func @matvec(%a: tensor<64x1001xf32>, %x: tensor<1001xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x1001xf32>, tensor<1001xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// STATS: xsplit-stats: materialize-late: materialize-packed-split-in-dispatches: 2
// STATS: xsplit-stats: materialize-late: materialize-encoded-split-in-dispatches: 1
// strategy=expand marks @aligned's merge (xsplit.split_part = "merge"), a
// mark the builder's fresh merge drops: the builder's; @prime_k, split by
// forall, is the template's.
// EXPAND-STATS: xsplit-stats: materialize-late: materialize-packed-split-in-dispatches: 1
// EXPAND-STATS: xsplit-stats: materialize-late: materialize-encoded-split-in-dispatches: 2
// GPU-STATS: xsplit-stats: materialize-late: drop-split-encodings: 2
