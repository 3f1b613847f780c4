// A static batch_matmul, and a matmul reading a transposed weight, go
// through split-k's template patterns; this checks their IR and which
// pattern fired.
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' | filecheck %s --check-prefix=WHOLE
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=TAIL < %t.0.out
// RUN: iree-opt < %t.0.out > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS4
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS3
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 strategy=expand}' > %t.1.out 2> %t.1.err && filecheck %s --check-prefix=EXPAND < %t.1.out
// RUN: iree-opt < %t.1.out > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 strategy=grouped}' | filecheck %s --check-prefix=GROUPED
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 strategy=grouped}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=GROUPED-STATS
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 strategy=expand}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=EXPAND-STATS

// Four chunks of 25 (K = 100): the loop, each chunk every batch, one reduce.
// WHOLE-LABEL: func.func @bmm
// WHOLE:         %[[P:.*]] = scf.forall (%[[S:.*]]) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<3x16x24x4xf32>) {
// WHOLE-NEXT:      %[[O:.*]] = affine.apply affine_map<(d0) -> ((d0 * 25))> (%[[S]])
// WHOLE-NEXT:      %a_chunk = tensor.extract_slice %a[0, 0, %[[O]]] [3, 16, 25] [1, 1, 1] : tensor<3x16x100xf32> to tensor<3x16x25xf32>
// WHOLE-NEXT:      %b_chunk = tensor.extract_slice %b[0, %[[O]], 0] [3, 25, 24] [1, 1, 1] : tensor<3x100x24xf32> to tensor<3x25x24xf32>
// WHOLE:           linalg.batch_matmul ins(%a_chunk, %b_chunk : tensor<3x16x25xf32>, tensor<3x25x24xf32>)
// WHOLE:           tensor.parallel_insert_slice %{{.*}} into %{{.*}}[0, 0, 0, %[[S]]] [3, 16, 24, 1] [1, 1, 1, 1]
// WHOLE:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// WHOLE-NEXT:    %[[M:.*]] = linalg.reduce ins(%[[P]]:tensor<3x16x24x4xf32>) outs(%c:tensor<3x16x24xf32>) dimensions = [3]
// WHOLE:         func.return %[[M]]

// Two chunks of 34 and a tail of 32, added in once at chunk 0.
// TAIL-LABEL: func.func @bmm
// TAIL:         scf.forall (%{{.*}}) in (2)
// TAIL:         %a_tail = tensor.extract_slice %a[0, 0, 68] [3, 16, 32] [1, 1, 1] {xsplit.split_part = "tail"}
// TAIL-NEXT:    %b_tail = tensor.extract_slice %b[0, 68, 0] [3, 32, 24] [1, 1, 1] {xsplit.split_part = "tail"}
// TAIL:         %tail = linalg.batch_matmul {xsplit.split_part = "tail"} ins(%a_tail, %b_tail
// TAIL:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %tail : tensor<3x16x24x2xf32>, tensor<3x16x24xf32>) outs(%c : tensor<3x16x24xf32>)
// TAIL:           linalg.index 3 : index
// TAIL:           arith.select
// K = 4 x 25 through expand_shape; the batch loop leads, the chunk loop is
// the partials' last dimension.
// Groups of 34, 34 and 32, every batch in each; rock.reduce sums them into C.
// GROUPED-LABEL: func.func @bmm
// GROUPED:         %[[P:.*]] = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 34, 68, 100>, {{.*}}} ins(%a, %b : tensor<3x16x100xf32>, tensor<3x100x24xf32>) outs(%{{.*}} : tensor<3x3x16x24xf32>)
// GROUPED:         %[[C1:.*]] = tensor.expand_shape %c {{\[}}[0, 1], [2], [3]] output_shape [1, 3, 16, 24]
// GROUPED-NEXT:    %[[M:.*]] = rock.reduce sum %[[P]] into %[[C1]] {axis = 0 : index} : tensor<3x3x16x24xf32> into tensor<1x3x16x24xf32>
// GROUPED-NEXT:    tensor.collapse_shape %[[M]]

// EXPAND-LABEL: func.func @bmm
// EXPAND:         %[[EA:.*]] = tensor.expand_shape %a {{\[}}[0], [1], [2, 3]] output_shape [3, 16, 4, 25] : tensor<3x16x100xf32> into tensor<3x16x4x25xf32>
// EXPAND-NEXT:    %[[EB:.*]] = tensor.expand_shape %b {{\[}}[0], [1, 2], [3]] output_shape [3, 4, 25, 24] : tensor<3x100x24xf32> into tensor<3x4x25x24xf32>
// EXPAND:         %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[EA]], %[[EB]] : tensor<3x16x4x25xf32>, tensor<3x4x25x24xf32>) outs(%{{.*}} : tensor<3x16x24x4xf32>)
// EXPAND:         linalg.reduce ins(%[[P]]:tensor<3x16x24x4xf32>) outs(%c:tensor<3x16x24xf32>) dimensions = [3]
func.func @bmm(%a: tensor<3x16x100xf32>, %b: tensor<3x100x24xf32>, %c: tensor<3x16x24xf32>) -> tensor<3x16x24xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x16x100xf32>, tensor<3x100x24xf32>) outs(%c : tensor<3x16x24xf32>) -> tensor<3x16x24xf32>
  func.return %0 : tensor<3x16x24xf32>
}

// -----

// An integer batch_matmul: the identity and the combiner are the integer ones.
// WHOLE-LABEL: func.func @bmm_i32
// WHOLE:         arith.constant 0 : i32
// WHOLE:         scf.forall (%{{.*}}) in (4)
// WHOLE:         linalg.reduce
// WHOLE:           arith.addi
func.func @bmm_i32(%a: tensor<2x4x64xi32>, %b: tensor<2x64x8xi32>, %c: tensor<2x4x8xi32>) -> tensor<2x4x8xi32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x64xi32>, tensor<2x64x8xi32>) outs(%c : tensor<2x4x8xi32>) -> tensor<2x4x8xi32>
  func.return %0 : tensor<2x4x8xi32>
}

// -----

// Transposed A and B: the generic reads both sources, and the split cuts them.
// WHOLE-LABEL: func.func @both_transposed
// WHOLE-NOT:     linalg.transpose
// WHOLE:           tensor.extract_slice %x[%{{.*}}, 0] [25, 4]
// WHOLE:           tensor.extract_slice %w[0, %{{.*}}] [6, 25]
// WHOLE:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// WHOLE-NOT:     linalg.transpose
func.func @both_transposed(%x: tensor<100x4xf32>, %w: tensor<6x100xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<4x100xf32>
  %xt = linalg.transpose ins(%x : tensor<100x4xf32>) outs(%e : tensor<4x100xf32>) permutation = [1, 0]
  %f = tensor.empty() : tensor<100x6xf32>
  %wt = linalg.transpose ins(%w : tensor<6x100xf32>) outs(%f : tensor<100x6xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%xt, %wt : tensor<4x100xf32>, tensor<100x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// STATS4: split-k: split-k-matmul-reads-through-transpose: 1
// STATS4: split-k: split-k-reads-through-transpose: 0
// STATS4: split-k: split-k-static-batch-chunks: 2
// STATS4: split-k: split-k-static-batch-chunks-and-tail: 0
// STATS3: split-k: split-k-static-batch-chunks: 0
// STATS3: split-k: split-k-static-batch-chunks-and-tail: 2
// The generic a read through both transposes leaves is A^T.B^T, which
// expand's generic template splits (generic_chunks.py); the other op
// (static, every input reading K) is split-k-expand-static's.
// EXPAND-STATS: split-k: split-k-expand-batch-matmul: 1
// EXPAND-STATS: split-k: split-k-expand-generic-at-bt: 1
// EXPAND-STATS: split-k: split-k-expand-static: 1
// EXPAND-STATS: split-k: split-k-expand: 0
// GROUPED-STATS: split-k: split-k-grouped-batch-matmul: 1
// GROUPED-STATS: split-k: split-k-grouped-static: 2
// GROUPED-STATS: split-k: split-k-grouped: 0
