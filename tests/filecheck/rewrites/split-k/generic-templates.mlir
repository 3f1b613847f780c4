// Static linalg.generic contractions of rank 2 (A.B, A^T.B, A.B^T, A^T.B^T
// by their maps) go through split-k's generic templates (generic_chunks.py):
// the loop and the merge written out, the partial and the tail copies of the
// user's generic ($clone). This checks their IR and which pattern fired; a
// generic with an attribute of its own, or whose body extends its inputs,
// goes to split-k-forall-static's template (forall_split.py), any static
// reduction's. strategy=expand has a template per form too
// (expand_split.expanded_generic).
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 strategy=expand}' | filecheck %s --check-prefix=EXPAND
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 strategy=expand}' | iree-opt > /dev/null
// align= where M needs no padding and the rest of K is none or aligned
// (generic_chunks.aligned_patterns): the chunk index first in the partials.
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=8}' | filecheck %s --check-prefix=ALIGNED
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=8}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=8}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=ALSTATS3
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=5 align=8}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=ALSTATS5
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 strategy=expand}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=EXPSTATS
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' | filecheck %s --check-prefix=WHOLE
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' | filecheck %s --check-prefix=TAIL
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS4
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS3

// STATS4-DAG: split-k-static-generic-a-b-chunks: 1
// STATS4-DAG: split-k-static-generic-at-b-chunks: 1
// STATS4-DAG: split-k-static-generic-a-bt-chunks: 1
// STATS4-DAG: split-k-static-generic-at-bt-chunks: 1
// STATS4-DAG: split-k-static-generic-a-b-chunks-and-tail: 0
// STATS4-DAG: split-k-forall-static: 2
// STATS4-DAG: split-k-forall: 0
// STATS3-DAG: split-k-static-generic-a-b-chunks-and-tail: 1
// STATS3-DAG: split-k-static-generic-at-b-chunks-and-tail: 1
// STATS3-DAG: split-k-static-generic-a-bt-chunks-and-tail: 1
// STATS3-DAG: split-k-static-generic-at-bt-chunks-and-tail: 1
// STATS3-DAG: split-k-static-generic-at-b-chunks: 0
// STATS3-DAG: split-k-forall-static-and-tail: 2
// STATS3-DAG: split-k-forall: 0
// EXPSTATS-DAG: split-k-expand-generic-a-b: 1
// EXPSTATS-DAG: split-k-expand-generic-at-b: 1
// EXPSTATS-DAG: split-k-expand-generic-a-bt: 1
// EXPSTATS-DAG: split-k-expand-generic-at-bt: 1
// EXPSTATS-DAG: split-k-expand-static: 2
// EXPSTATS-DAG: split-k-expand: 0
// ALSTATS3-DAG: split-k-aligned-generic-a-b-and-tail: 1
// ALSTATS3-DAG: split-k-aligned-generic-at-b-and-tail: 1
// ALSTATS3-DAG: split-k-aligned-generic-a-bt-and-tail: 1
// ALSTATS3-DAG: split-k-aligned-generic-at-bt-and-tail: 1
// ALSTATS3-DAG: split-k-aligned: 2
// ALSTATS5-DAG: split-k-aligned-generic-a-b: 1
// ALSTATS5-DAG: split-k-aligned-generic-at-b: 1
// ALSTATS5-DAG: split-k-aligned-generic-a-bt: 1
// ALSTATS5-DAG: split-k-aligned-generic-at-bt: 1

// A.B: chunks of K are columns of A and rows of B.
// WHOLE-LABEL: func.func @a_b
// WHOLE:         %a_chunk = tensor.extract_slice %a[0, %[[OFF:.*]]] [16, 250] [1, 1] : tensor<16x1000xf32> to tensor<16x250xf32>
// WHOLE-NEXT:    %b_chunk = tensor.extract_slice %b[%[[OFF]], 0] [250, 32] [1, 1] : tensor<1000x32xf32> to tensor<250x32xf32>
// TAIL-LABEL: func.func @a_b
// TAIL:         %a_tail = tensor.extract_slice %a[0, 668] [16, 332] [1, 1] {xsplit.split_part = "tail"}
// TAIL-NEXT:    %b_tail = tensor.extract_slice %b[668, 0] [332, 32] [1, 1] {xsplit.split_part = "tail"}
func.func @a_b(%a: tensor<16x1000xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}

// -----

// A^T.B: four chunks of 250, each a copy of the generic (its maps, its body)
// on rows of both inputs, into slot s of the partials; one reduce into %c.
// WHOLE-LABEL: func.func @at_b
// WHOLE:         %[[ID:.*]] = arith.constant 0.000000e+00 : f32
// WHOLE:         %[[P:.*]] = scf.forall (%[[S:.*]]) in (4) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<16x32x4xf32>) {
// WHOLE-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 250))> (%[[S]])
// WHOLE-NEXT:      %a_chunk = tensor.extract_slice %a[%[[OFF]], 0] [250, 16] [1, 1] : tensor<1000x16xf32> to tensor<250x16xf32>
// WHOLE-NEXT:      %b_chunk = tensor.extract_slice %b[%[[OFF]], 0] [250, 32] [1, 1] : tensor<1000x32xf32> to tensor<250x32xf32>
// WHOLE-NEXT:      %[[SO:.*]] = tensor.extract_slice %[[O]][0, 0, %[[S]]] [16, 32, 1] [1, 1, 1] : tensor<16x32x4xf32> to tensor<16x32xf32>
// WHOLE-NEXT:      %[[F:.*]] = linalg.fill ins(%[[ID]] : f32) outs(%[[SO]] : tensor<16x32xf32>) -> tensor<16x32xf32>
// WHOLE-NEXT:      %partial = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a_chunk, %b_chunk : tensor<250x16xf32>, tensor<250x32xf32>) outs(%[[F]] : tensor<16x32xf32>) {
// WHOLE-NEXT:      ^bb0(%x: f32, %y: f32, %acc: f32):
// WHOLE-NEXT:        %p = arith.mulf %x, %y : f32
// WHOLE-NEXT:        %s = arith.addf %acc, %p : f32
// WHOLE-NEXT:        linalg.yield %s : f32
// WHOLE-NEXT:      } -> tensor<16x32xf32>
// WHOLE-NEXT:      scf.forall.in_parallel {
// WHOLE-NEXT:        tensor.parallel_insert_slice %partial into %[[O]][0, 0, %[[S]]] [16, 32, 1] [1, 1, 1] : tensor<16x32xf32> into tensor<16x32x4xf32>
// WHOLE-NEXT:      }
// WHOLE-NEXT:    } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// WHOLE-NEXT:    %[[M:.*]] = linalg.reduce ins(%[[P]]:tensor<16x32x4xf32>) outs(%c:tensor<16x32xf32>) dimensions = [2]  {xsplit.split_part = "merge"}
// WHOLE:         func.return %[[M]]
// TAIL-LABEL: func.func @at_b
// TAIL:         %a_tail = tensor.extract_slice %a[668, 0] [332, 16] [1, 1] {xsplit.split_part = "tail"}
// TAIL-NEXT:    %b_tail = tensor.extract_slice %b[668, 0] [332, 32] [1, 1] {xsplit.split_part = "tail"}
func.func @at_b(%a: tensor<1000x16xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1000x16xf32>, tensor<1000x32xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}

// -----

// A.B^T: K is the columns of both inputs.
// ALIGNED-LABEL: func.func @a_bt
// ALIGNED:         %partials = scf.forall (%[[S:.*]]) in (2) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<2x16x32xf32>) {
// ALIGNED:           %a_chunk = tensor.extract_slice %a[0, %[[OFF:.*]]] [16, 336] [1, 1] : tensor<16x1000xf32> to tensor<16x336xf32>
// ALIGNED-NEXT:      %b_chunk = tensor.extract_slice %b[0, %[[OFF]]] [32, 336] [1, 1] : tensor<32x1000xf32> to tensor<32x336xf32>
// ALIGNED-NEXT:      %[[SO:.*]] = tensor.extract_slice %[[O]][%[[S]], 0, 0] [1, 16, 32] [1, 1, 1] : tensor<2x16x32xf32> to tensor<16x32xf32>
// ALIGNED:           %partial = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// ALIGNED:         %a_tail = tensor.extract_slice %a[0, 672] [16, 328] [1, 1] {xsplit.split_part = "tail"} : tensor<16x1000xf32> to tensor<16x328xf32>
// ALIGNED-NEXT:    %b_tail = tensor.extract_slice %b[0, 672] [32, 328] [1, 1] {xsplit.split_part = "tail"} : tensor<32x1000xf32> to tensor<32x328xf32>
// ALIGNED:         %tail = linalg.generic {{.*}} ins(%a_tail, %b_tail : tensor<16x328xf32>, tensor<32x328xf32>) outs(%tail_init : tensor<16x32xf32>) attrs =  {xsplit.split_part = "tail"}
// ALIGNED:         %merged = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// WHOLE-LABEL: func.func @a_bt
// WHOLE:         %a_chunk = tensor.extract_slice %a[0, %[[OFF:.*]]] [16, 250] [1, 1] : tensor<16x1000xf32> to tensor<16x250xf32>
// WHOLE-NEXT:    %b_chunk = tensor.extract_slice %b[0, %[[OFF]]] [32, 250] [1, 1] : tensor<32x1000xf32> to tensor<32x250xf32>
// TAIL-LABEL: func.func @a_bt
// TAIL:         %a_tail = tensor.extract_slice %a[0, 668] [16, 332] [1, 1] {xsplit.split_part = "tail"}
// TAIL-NEXT:    %b_tail = tensor.extract_slice %b[0, 668] [32, 332] [1, 1] {xsplit.split_part = "tail"}
func.func @a_bt(%a: tensor<16x1000xf32>, %b: tensor<32x1000xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x1000xf32>, tensor<32x1000xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}

// -----

// expand: K of A^T as (chunk, within) rows, of B^T as columns; the copy of
// the generic reads them through (d3, d2) and writes the chunk loop last.
// EXPAND-LABEL: func.func @at_bt
// EXPAND:         %[[EA:.*]] = tensor.expand_shape %a {{\[\[}}0, 1], [2]] output_shape [4, 250, 16] : tensor<1000x16xf32> into tensor<4x250x16xf32>
// EXPAND-NEXT:    %[[EB:.*]] = tensor.expand_shape %b {{\[\[}}0], [1, 2]] output_shape [32, 4, 250] : tensor<32x1000xf32> into tensor<32x4x250xf32>
// EXPAND-NEXT:    %identity = arith.constant 0.000000e+00 : f32
// EXPAND-NEXT:    %[[E:.*]] = tensor.empty() : tensor<16x32x4xf32>
// EXPAND-NEXT:    %[[F:.*]] = linalg.fill ins(%identity : f32) outs(%[[E]] : tensor<16x32x4xf32>) -> tensor<16x32x4xf32>
// EXPAND-NEXT:    %partials = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d2, d0)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[EA]], %[[EB]] : tensor<4x250x16xf32>, tensor<32x4x250xf32>) outs(%[[F]] : tensor<16x32x4xf32>) {
// EXPAND-NEXT:    ^bb0(%x: f32, %y: f32, %acc: f32):
// EXPAND-NEXT:      %p = arith.mulf %x, %y : f32
// EXPAND:         %merged = linalg.reduce ins(%partials:tensor<16x32x4xf32>) outs(%c:tensor<16x32xf32>) dimensions = [2]  {xsplit.split_part = "merge"}

// A^T.B^T: two chunks of 334 and a tail of 332, a copy of the generic marked
// as the tail, added in once at chunk 0.
// TAIL-LABEL: func.func @at_bt
// TAIL:         scf.forall (%{{.*}}) in (2)
// TAIL:           %a_chunk = tensor.extract_slice %a[%[[OFF:.*]], 0] [334, 16] [1, 1] : tensor<1000x16xf32> to tensor<334x16xf32>
// TAIL-NEXT:      %b_chunk = tensor.extract_slice %b[0, %[[OFF]]] [32, 334] [1, 1] : tensor<32x1000xf32> to tensor<32x334xf32>
// TAIL:         %a_tail = tensor.extract_slice %a[668, 0] [332, 16] [1, 1] {xsplit.split_part = "tail"} : tensor<1000x16xf32> to tensor<332x16xf32>
// TAIL-NEXT:    %b_tail = tensor.extract_slice %b[0, 668] [32, 332] [1, 1] {xsplit.split_part = "tail"} : tensor<32x1000xf32> to tensor<32x332xf32>
// TAIL-NEXT:    %[[E:.*]] = tensor.empty() : tensor<16x32xf32>
// TAIL-NEXT:    %tail_init = linalg.fill {xsplit.split_part = "tail"} ins(%{{.*}} : f32) outs(%[[E]] : tensor<16x32xf32>) -> tensor<16x32xf32>
// TAIL-NEXT:    %tail = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a_tail, %b_tail : tensor<332x16xf32>, tensor<32x332xf32>) outs(%tail_init : tensor<16x32xf32>) attrs =  {xsplit.split_part = "tail"} {
// TAIL-NEXT:    ^bb0(%x_1: f32, %y_1: f32, %acc_1: f32):
// TAIL-NEXT:      %p_1 = arith.mulf %x_1, %y_1 : f32
// TAIL:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %tail : tensor<16x32x2xf32>, tensor<16x32xf32>) outs(%c : tensor<16x32xf32>) attrs =  {xsplit.split_part = "merge"}
// TAIL:           linalg.index 2 : index
// TAIL:           arith.select
func.func @at_bt(%a: tensor<1000x16xf32>, %b: tensor<32x1000xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1000x16xf32>, tensor<32x1000xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}


// -----

// An attribute of its own: the forall builder, the same IR with the attribute kept.
// WHOLE-LABEL: func.func @with_attribute
// WHOLE:         %partial = linalg.generic {{.*}} attrs =  {user.mark}
func.func @with_attribute(%a: tensor<1000x16xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1000x16xf32>, tensor<1000x32xf32>) outs(%c : tensor<16x32xf32>) attrs = {user.mark} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}

// -----

// f16 inputs extended into an f32 accumulator: the forall builder.
// WHOLE-LABEL: func.func @extends
// WHOLE:         %partial = linalg.generic {{.*}} ins(%a_chunk, %b_chunk : tensor<250x16xf16>, tensor<250x32xf16>)
func.func @extends(%a: tensor<1000x16xf16>, %b: tensor<1000x32xf16>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1000x16xf16>, tensor<1000x32xf16>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}
