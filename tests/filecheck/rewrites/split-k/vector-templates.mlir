// Static matvec, vecmat, dot, batch_matvec and batch_vecmat go through
// split-k's vector templates (vector_chunks.py); this checks their IR and
// which pattern fired. The same op with an attribute of its own goes to the
// forall builder, which gives the same IR.
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' | filecheck %s --check-prefix=WHOLE
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' | filecheck %s --check-prefix=TAIL
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS4
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS3

// Four chunks of 250 (K = 1000): columns of W, chunks of x, one reduce.
// WHOLE-LABEL: func.func @matvec
// WHOLE:         %[[ID:.*]] = arith.constant 0.000000e+00 : f32
// WHOLE:         %[[P:.*]] = scf.forall (%[[S:.*]]) in (4) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<64x4xf32>) {
// WHOLE-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 250))> (%[[S]])
// WHOLE-NEXT:      %w_chunk = tensor.extract_slice %w[0, %[[OFF]]] [64, 250] [1, 1] : tensor<64x1000xf32> to tensor<64x250xf32>
// WHOLE-NEXT:      %x_chunk = tensor.extract_slice %x[%[[OFF]]] [250] [1] : tensor<1000xf32> to tensor<250xf32>
// WHOLE-NEXT:      %[[SO:.*]] = tensor.extract_slice %[[O]][0, %[[S]]] [64, 1] [1, 1] : tensor<64x4xf32> to tensor<64xf32>
// WHOLE-NEXT:      %[[F:.*]] = linalg.fill ins(%[[ID]] : f32) outs(%[[SO]] : tensor<64xf32>) -> tensor<64xf32>
// WHOLE-NEXT:      %[[MV:.*]] = linalg.matvec ins(%w_chunk, %x_chunk : tensor<64x250xf32>, tensor<250xf32>) outs(%[[F]] : tensor<64xf32>) -> tensor<64xf32>
// WHOLE-NEXT:      scf.forall.in_parallel {
// WHOLE-NEXT:        tensor.parallel_insert_slice %[[MV]] into %[[O]][0, %[[S]]] [64, 1] [1, 1] : tensor<64xf32> into tensor<64x4xf32>
// WHOLE-NEXT:      }
// WHOLE-NEXT:    } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// WHOLE-NEXT:    %[[M:.*]] = linalg.reduce ins(%[[P]]:tensor<64x4xf32>) outs(%c:tensor<64xf32>) dimensions = [1]  {xsplit.split_part = "merge"}
// WHOLE:         func.return %[[M]]

// Two chunks of 334 and a tail of 332, added in once at chunk 0.
// TAIL-LABEL: func.func @matvec
// TAIL:         scf.forall (%{{.*}}) in (2)
// TAIL:         %w_tail = tensor.extract_slice %w[0, 668] [64, 332] [1, 1] {xsplit.split_part = "tail"} : tensor<64x1000xf32> to tensor<64x332xf32>
// TAIL-NEXT:    %x_tail = tensor.extract_slice %x[668] [332] [1] {xsplit.split_part = "tail"} : tensor<1000xf32> to tensor<332xf32>
// TAIL:         %tail = linalg.matvec {xsplit.split_part = "tail"} ins(%w_tail, %x_tail : tensor<64x332xf32>, tensor<332xf32>)
// TAIL-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %tail : tensor<64x2xf32>, tensor<64xf32>) outs(%c : tensor<64xf32>)
// TAIL:           linalg.index 1 : index
// TAIL:           arith.select
func.func @matvec(%w: tensor<64x1000xf32>, %x: tensor<1000xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.matvec ins(%w, %x : tensor<64x1000xf32>, tensor<1000xf32>) outs(%c : tensor<64xf32>) -> tensor<64xf32>
  func.return %0 : tensor<64xf32>
}

// -----

// Rows of W: K leads the matrix.
// WHOLE-LABEL: func.func @vecmat
// WHOLE:         %x_chunk = tensor.extract_slice %x[%{{.*}}] [250] [1] : tensor<1000xf32> to tensor<250xf32>
// WHOLE-NEXT:    %w_chunk = tensor.extract_slice %w[%{{.*}}, 0] [250, 48] [1, 1] : tensor<1000x48xf32> to tensor<250x48xf32>
// WHOLE:         linalg.vecmat ins(%x_chunk, %w_chunk : tensor<250xf32>, tensor<250x48xf32>)
// WHOLE:         linalg.reduce ins(%{{.*}}:tensor<48x4xf32>) outs(%c:tensor<48xf32>) dimensions = [1]
// TAIL-LABEL: func.func @vecmat
// TAIL:         %w_tail = tensor.extract_slice %w[668, 0] [332, 48] [1, 1] {xsplit.split_part = "tail"}
// TAIL:         %tail = linalg.vecmat {xsplit.split_part = "tail"}
func.func @vecmat(%x: tensor<1000xf32>, %w: tensor<1000x48xf32>, %c: tensor<48xf32>) -> tensor<48xf32> {
  %0 = linalg.vecmat ins(%x, %w : tensor<1000xf32>, tensor<1000x48xf32>) outs(%c : tensor<48xf32>) -> tensor<48xf32>
  func.return %0 : tensor<48xf32>
}

// -----

// An integer dot into a 0-d init: the partials are a vector of chunks, the
// identity and combiner the integer ones, the merge reduces dimension 0.
// WHOLE-LABEL: func.func @dot_i8
// WHOLE:         arith.constant 0 : i32
// WHOLE:         scf.forall (%[[S:.*]]) in (4) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<4xi32>) {
// WHOLE:           tensor.extract_slice %[[O]][%[[S]]] [1] [1] : tensor<4xi32> to tensor<i32>
// WHOLE:           linalg.dot ins(%{{.*}}, %{{.*}} : tensor<1024xi8>, tensor<1024xi8>)
// WHOLE:         linalg.reduce ins(%{{.*}}:tensor<4xi32>) outs(%c:tensor<i32>) dimensions = [0]
// WHOLE:           arith.addi
// TAIL-LABEL: func.func @dot_i8
// TAIL:         %tail = linalg.dot {xsplit.split_part = "tail"} ins(%x_tail, %y_tail : tensor<1364xi8>, tensor<1364xi8>)
// TAIL-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
// TAIL:           linalg.index 0 : index
func.func @dot_i8(%x: tensor<4096xi8>, %y: tensor<4096xi8>, %c: tensor<i32>) -> tensor<i32> {
  %0 = linalg.dot ins(%x, %y : tensor<4096xi8>, tensor<4096xi8>) outs(%c : tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

// Each batch's matvec: the partials are B x N x chunks.
// WHOLE-LABEL: func.func @batch_matvec
// WHOLE:         %w_chunk = tensor.extract_slice %w[0, 0, %{{.*}}] [3, 64, 250] [1, 1, 1]
// WHOLE-NEXT:    %x_chunk = tensor.extract_slice %x[0, %{{.*}}] [3, 250] [1, 1]
// WHOLE:         tensor.parallel_insert_slice %{{.*}} into %{{.*}}[0, 0, %{{.*}}] [3, 64, 1] [1, 1, 1] : tensor<3x64xf32> into tensor<3x64x4xf32>
// WHOLE:         linalg.reduce ins(%{{.*}}:tensor<3x64x4xf32>) outs(%c:tensor<3x64xf32>) dimensions = [2]
// TAIL-LABEL: func.func @batch_matvec
// TAIL:         %tail = linalg.batch_matvec {xsplit.split_part = "tail"}
// TAIL:           linalg.index 2 : index
func.func @batch_matvec(%w: tensor<3x64x1000xf32>, %x: tensor<3x1000xf32>, %c: tensor<3x64xf32>) -> tensor<3x64xf32> {
  %0 = linalg.batch_matvec ins(%w, %x : tensor<3x64x1000xf32>, tensor<3x1000xf32>) outs(%c : tensor<3x64xf32>) -> tensor<3x64xf32>
  func.return %0 : tensor<3x64xf32>
}

// -----

// WHOLE-LABEL: func.func @batch_vecmat
// WHOLE:         %x_chunk = tensor.extract_slice %x[0, %{{.*}}] [3, 250] [1, 1]
// WHOLE-NEXT:    %w_chunk = tensor.extract_slice %w[0, %{{.*}}, 0] [3, 250, 64] [1, 1, 1]
// WHOLE:         linalg.reduce ins(%{{.*}}:tensor<3x64x4xf32>) outs(%c:tensor<3x64xf32>) dimensions = [2]
// TAIL-LABEL: func.func @batch_vecmat
// TAIL:         %tail = linalg.batch_vecmat {xsplit.split_part = "tail"}
func.func @batch_vecmat(%x: tensor<3x1000xf32>, %w: tensor<3x1000x64xf32>, %c: tensor<3x64xf32>) -> tensor<3x64xf32> {
  %0 = linalg.batch_vecmat ins(%x, %w : tensor<3x1000xf32>, tensor<3x1000x64xf32>) outs(%c : tensor<3x64xf32>) -> tensor<3x64xf32>
  func.return %0 : tensor<3x64xf32>
}

// -----

// A matvec with an attribute of its own is no plain op tree for the matvec
// templates: split-k-forall-static's (any static reduction's) splits it,
// into the same IR.
// WHOLE-LABEL: func.func @marked
// WHOLE:         linalg.matvec {keep} ins(%w_chunk, %x_chunk
// WHOLE:         linalg.reduce ins(%{{.*}}:tensor<64x4xf32>) outs(%c:tensor<64xf32>) dimensions = [1]
func.func @marked(%w: tensor<64x1000xf32>, %x: tensor<1000xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.matvec {keep} ins(%w, %x : tensor<64x1000xf32>, tensor<1000xf32>) outs(%c : tensor<64xf32>) -> tensor<64xf32>
  func.return %0 : tensor<64xf32>
}

// STATS4: split-k-static-matvec-chunks: 1
// STATS4: split-k-static-vecmat-chunks: 1
// STATS4: split-k-static-dot-chunks: 1
// STATS4: split-k-static-batch-matvec-chunks: 1
// STATS4: split-k-static-batch-vecmat-chunks: 1
// STATS4: split-k-forall-static: 1
// STATS4: split-k-forall: 0
// STATS3: split-k-static-matvec-chunks-and-tail: 1
// STATS3: split-k-static-vecmat-chunks-and-tail: 1
// STATS3: split-k-static-dot-chunks-and-tail: 1
// STATS3: split-k-static-batch-matvec-chunks-and-tail: 1
// STATS3: split-k-static-batch-vecmat-chunks-and-tail: 1
// STATS3: split-k-forall-static-and-tail: 1
// STATS3: split-k-forall: 0
