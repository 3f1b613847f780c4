// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=16 pad_m=8}' | filecheck %s

// K = 100 in about 3 chunks of a multiple of 16: ceil(100/3) = 34 -> 48, so
// two static chunks of 48 in the loop and a tail of 4, zero-padded to 16.
// M = 10 is padded to 16 rows; the merge reads rows 0-9 back. The chunk is
// the partials' outer dimension: each chunk writes one contiguous block.
// CHECK-LABEL: func.func @ragged
// CHECK:         %[[AP:.*]] = tensor.pad %a low[0, 0] high[6, 0]
// CHECK:         } : tensor<10x100xf32> to tensor<16x100xf32>
// CHECK:         %[[P:.*]] = scf.forall (%[[S:.*]]) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<2x16x20xf32>) {
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 48))> (%[[S]])
// CHECK-NEXT:      tensor.extract_slice %[[AP]][0, %[[OFF]]] [16, 48] [1, 1] : tensor<16x100xf32> to tensor<16x48xf32>
// CHECK-NEXT:      tensor.extract_slice %b[%[[OFF]], 0] [48, 20] [1, 1] : tensor<100x20xf32> to tensor<48x20xf32>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x48xf32>, tensor<48x20xf32>) outs(%{{.*}} : tensor<16x20xf32>)
// CHECK:           tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[S]], 0, 0] [1, 16, 20] [1, 1, 1] : tensor<16x20xf32> into tensor<2x16x20xf32>
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         %[[AT:.*]] = tensor.extract_slice %[[AP]][0, 96] [16, 4] [1, 1]
// CHECK:         tensor.pad %[[AT]] low[0, 0] high[0, 12]
// CHECK:         %[[BT:.*]] = tensor.extract_slice %b[96, 0] [4, 20] [1, 1]
// CHECK:         tensor.pad %[[BT]] low[0, 0] high[12, 0]
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x20xf32>) outs(%{{.*}} : tensor<16x20xf32>)
// CHECK:         %[[PM:.*]] = tensor.extract_slice %[[P]][0, 0, 0] [2, 10, 20] [1, 1, 1]
// CHECK:         %[[TM:.*]] = tensor.extract_slice %[[T]][0, 0] [10, 20] [1, 1]
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[PM]], %[[TM]] : tensor<2x10x20xf32>, tensor<10x20xf32>) outs(%c : tensor<10x20xf32>)
// CHECK:           linalg.index 2 : index
// CHECK:           arith.select
// CHECK:         return %[[R]]
func.func @ragged(%a: tensor<10x100xf32>, %b: tensor<100x20xf32>, %c: tensor<10x20xf32>) -> tensor<10x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<10x100xf32>, tensor<100x20xf32>) outs(%c : tensor<10x20xf32>) -> tensor<10x20xf32>
  func.return %0 : tensor<10x20xf32>
}

// -----

// Aligned M and a K the chunks divide: no pad, no tail, a plain merge.
// CHECK-LABEL: func.func @exact
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall (%{{.*}}) in (3)
// CHECK:           tensor.extract_slice %a[0, %{{.*}}] [16, 32] [1, 1]
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<3x16x20xf32>) outs(%c : tensor<16x20xf32>)
// CHECK-NOT:       linalg.index
// CHECK:           arith.addf
func.func @exact(%a: tensor<16x96xf32>, %b: tensor<96x20xf32>, %c: tensor<16x20xf32>) -> tensor<16x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x96xf32>, tensor<96x20xf32>) outs(%c : tensor<16x20xf32>) -> tensor<16x20xf32>
  func.return %0 : tensor<16x20xf32>
}

// -----

// A batch_matmul keeps its batch loop; only the LHS spans M and is padded.
// CHECK-LABEL: func.func @batched
// CHECK:         tensor.pad %a low[0, 0, 0] high[0, 3, 0]
// CHECK-NOT:     tensor.pad %b low
// CHECK:         scf.forall (%{{.*}}) in (2) {{.*}} -> (tensor<2x2x16x7xf32>)
func.func @batched(%a: tensor<2x13x100xf32>, %b: tensor<2x100x7xf32>, %c: tensor<2x13x7xf32>) -> tensor<2x13x7xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x13x100xf32>, tensor<2x100x7xf32>) outs(%c : tensor<2x13x7xf32>) -> tensor<2x13x7xf32>
  func.return %0 : tensor<2x13x7xf32>
}

// -----

// Not a multiply-accumulate: zero padding would change a max, so the plan is
// read as the plain forall reads it: static chunks of ceil(100/3) = 34, two
// in the loop, and the last 32 as the reduce on its own slice, not padded.
// CHECK-LABEL: func.func @max_rows
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           tensor.extract_slice %{{.*}} [10, 34] [1, 1] : tensor<10x100xf32> to tensor<10x34xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 68] [10, 32] [1, 1] {xsplit.split_part = "tail"} : tensor<10x100xf32> to tensor<10x32xf32>
func.func @max_rows(%a: tensor<10x100xf32>, %c: tensor<10xf32>) -> tensor<10xf32> {
  %0 = linalg.reduce ins(%a : tensor<10x100xf32>) outs(%c : tensor<10xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  func.return %0 : tensor<10xf32>
}

// -----

// K shorter than two aligned chunks: the plan falls back to the plain forall
// (two static chunks of 7 and a tail of 6).
// CHECK-LABEL: func.func @short_k
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:         tensor.extract_slice %{{.*}}[0, 14] [8, 6] [1, 1] {xsplit.split_part = "tail"}
func.func @short_k(%a: tensor<8x20xf32>, %b: tensor<20x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x20xf32>, tensor<20x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}

// -----

// K = 150: two chunks of 64 and a tail of 22. The tail's 16 aligned rows
// are sliced in place; only the 6 past them are copied, padded to 16.
// CHECK-LABEL: func.func @tail_in_two
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:         %a_tail = tensor.extract_slice %a[0, 128] [16, 16] [1, 1] {xsplit.split_part = "tail"} : tensor<16x150xf32> to tensor<16x16xf32>
// CHECK-NEXT:    %b_tail = tensor.extract_slice %b[128, 0] [16, 20] [1, 1] {xsplit.split_part = "tail"} : tensor<150x20xf32> to tensor<16x20xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         %tail = linalg.generic {{.*}} ins(%a_tail, %b_tail : tensor<16x16xf32>, tensor<16x20xf32>)
// CHECK:         %a_tail_rest = tensor.extract_slice %a[0, 144] [16, 6] [1, 1] {xsplit.split_part = "tail"} : tensor<16x150xf32> to tensor<16x6xf32>
// CHECK-NEXT:    %a_tail_rest_padded = tensor.pad %a_tail_rest low[0, 0] high[0, 10]
// CHECK:         %b_tail_rest = tensor.extract_slice %b[144, 0] [6, 20] [1, 1] {xsplit.split_part = "tail"} : tensor<150x20xf32> to tensor<6x20xf32>
// CHECK-NEXT:    %b_tail_rest_padded = tensor.pad %b_tail_rest low[0, 0] high[10, 0]
// CHECK:         %tail_rest = linalg.generic {{.*}} ins(%a_tail_rest_padded, %b_tail_rest_padded : tensor<16x16xf32>, tensor<16x20xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %tail, %tail_rest : tensor<2x16x20xf32>, tensor<16x20xf32>, tensor<16x20xf32>) outs(%c : tensor<16x20xf32>)
func.func @tail_in_two(%a: tensor<16x150xf32>, %b: tensor<150x20xf32>, %c: tensor<16x20xf32>) -> tensor<16x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x150xf32>, tensor<150x20xf32>) outs(%c : tensor<16x20xf32>) -> tensor<16x20xf32>
  func.return %0 : tensor<16x20xf32>
}

// -----

// K = 128 in 3: two chunks of 48 and a tail of 32, a multiple of 16: no pad.
// CHECK-LABEL: func.func @tail_in_place
// CHECK-NOT:     tensor.pad
// CHECK:         %tail = linalg.generic {{.*}} ins(%a_tail, %b_tail : tensor<16x32xf32>, tensor<32x20xf32>)
// CHECK-NOT:     tail_rest
// CHECK:         return
func.func @tail_in_place(%a: tensor<16x128xf32>, %b: tensor<128x20xf32>, %c: tensor<16x20xf32>) -> tensor<16x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x128xf32>, tensor<128x20xf32>) outs(%c : tensor<16x20xf32>) -> tensor<16x20xf32>
  func.return %0 : tensor<16x20xf32>
}
