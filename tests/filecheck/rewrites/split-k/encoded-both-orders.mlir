// Split-K composed with encodings, in both orders, early and late: K = 1001
// (7 x 143 chunks, aligned to the f32 K tile of 1), then K = 1009 (prime:
// 7 chunks of 145, K zero-padded to 1015; the pad moves into the pack's dispatch). The partial products are one
// batch_mmt4d on packed tiles; the merge reduces the chunk dimension into %c.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-late' | filecheck %s --check-prefixes=CHECK,LATE
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'split-k{factor=7},set-encoding,materialize-late' | filecheck %s --check-prefixes=CHECK,LATE
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'split-k{factor=7 strategy=expand},set-encoding,materialize-late' | filecheck %s --check-prefix=EXPAND
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-early' | filecheck %s --check-prefixes=CHECK,EARLY
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'split-k{factor=7},set-encoding,materialize-early' | filecheck %s --check-prefixes=CHECK,EARLY
// RUN: xsplit-opt %s -p 'set-encoding,split-k{factor=7}' | filecheck %s --check-prefix=ENCODED
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-late' | iree-opt > /dev/null

// CHECK-LABEL: func.func @aligned
// CHECK-SAME:    (%[[A:.*]]: tensor<100x1001xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// CHECK-NOT:     scf.forall
// LATE:          flow.dispatch.workgroups(%[[A]])
// LATE:            tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [100, 7, 143]
// EARLY:         tensor.expand_shape %[[A]] {{\[\[}}0], [1, 2]] output_shape [100, 7, 143]
// CHECK:         linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0, 2] inner_dims_pos = [0, 2] inner_tiles = [8, 1] into %{{.*}} : tensor<100x7x143xf32> -> tensor<7x13x143x8x1xf32>
// LATE:          flow.dispatch.workgroups(%[[B]])
// CHECK:         linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [0, 2, 1] inner_dims_pos = [2, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<7x143x70xf32> -> tensor<7x9x143x8x1xf32>
// The partial products are one batch_mmt4d on packed tiles; the chunks are
// merged in the packed layout into the packed %c (never unpacked), at graph
// level where IREE forms the merge's dispatch; only the merged result is unpacked.
// CHECK:         %[[P:.*]] = {{.*}}linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<7x13x143x8x1xf32>, tensor<7x9x143x8x1xf32>) outs(%{{.*}} : tensor<7x13x9x8x8xf32>)
// EARLY:         %[[PC:.*]] = linalg.pack %[[C]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<100x70xf32> -> tensor<13x9x8x8xf32>
// LATE:          %[[PC:.*]] = flow.dispatch.workgroups(%[[C]]) : (tensor<100x70xf32>) -> tensor<13x9x8x8xf32>
// LATE:            linalg.pack
// CHECK:         %[[R:.*]] = linalg.reduce ins(%{{.*}}:tensor<7x13x9x8x8xf32>) outs(%[[PC]]:tensor<13x9x8x8xf32>) dimensions = [0]
// CHECK-NOT:     linalg.unpack {{.*}} -> tensor<7x
// LATE:          flow.dispatch.workgroups(%[[R]]) : (tensor<13x9x8x8xf32>) -> tensor<100x70xf32>
// CHECK:         %[[M:.*]] = linalg.unpack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// CHECK:         func.return
// With strategy=expand first, the chunk loop is the output's last dimension;
// its packed layout puts it first all the same.
// EXPAND-LABEL: func.func @aligned
// EXPAND:         linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<7x13x143x8x1xf32>, tensor<7x9x143x8x1xf32>)
// EXPAND:         linalg.reduce ins(%{{.*}}:tensor<7x13x9x8x8xf32>) outs(%{{.*}}:tensor<13x9x8x8xf32>) dimensions = [0]
// EXPAND:         linalg.unpack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// Before materialization: the partials are one encoded contraction over (d0, d1, d2, d3 = chunk).
// ENCODED-LABEL: func.func @aligned
// ENCODED:         iree_encoding.set_encoding %{{.*}} : tensor<100x7x143xf32> -> tensor<100x7x143xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d0, d1)>], iteration_sizes = [100, 70, 143, 7]>>
// ENCODED:         linalg.generic
// ENCODED:         iree_encoding.unset_encoding %{{.*}} -> tensor<7x100x70xf32>
func.func @aligned(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// CHECK-LABEL: func.func @prime_k
// CHECK:         tensor.pad %{{.*}} low[0, 0] high[0, 6]
// CHECK:         : tensor<32x1009xf32> to tensor<32x1015xf32>
// CHECK:         tensor.pad %{{.*}} low[0, 0] high[6, 0]
// CHECK:         linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<7x4x145x8x1xf32>, tensor<7x6x145x8x1xf32>) outs(%{{.*}} : tensor<7x4x6x8x8xf32>)
func.func @prime_k(%a: tensor<32x1009xf32>, %b: tensor<1009x48xf32>, %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x1009xf32>, tensor<1009x48xf32>) outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  func.return %r : tensor<32x48xf32>
}
