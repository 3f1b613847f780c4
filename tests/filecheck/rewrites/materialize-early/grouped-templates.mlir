// RUN: xsplit-opt %s -p materialize-early | filecheck %s
// RUN: xsplit-opt %s -p materialize-early --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// The grouped GEMMs that split-k{strategy=grouped} writes for a static matmul
// and batch matmul, of equal groups (factor=4 of K = 1000) and of equal groups
// and a shorter last one (factor=3), are materialized by the template patterns
// of materialize_grouped.py, not by the builder they specialize.
// STATS: materialize-early: materialize-grouped-matmul-early: 1
// STATS: materialize-early: materialize-grouped-matmul-and-tail-early: 1
// STATS: materialize-early: materialize-grouped-batch-matmul-early: 1
// STATS: materialize-early: materialize-grouped-batch-matmul-and-tail-early: 1
// STATS: materialize-early: materialize-grouped-gemm-early: 0

// CHECK-LABEL: func.func @mm
// CHECK-NOT:     linalg_ext.split_grouped_gemm
// CHECK:         %[[ID:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x16x32xf32>
// CHECK-NEXT:    %[[L:.*]] = scf.forall (%[[G:.*]]) in (4) shared_outs(%[[O:.*]] = %[[E]]) -> (tensor<4x16x32xf32>) {
// CHECK-NEXT:      %[[K:.*]] = affine.apply affine_map<(d0) -> ((d0 * 250))> (%[[G]])
// CHECK-NEXT:      %[[SLOT:.*]] = tensor.extract_slice %[[O]][%[[G]], 0, 0] [1, 16, 32] [1, 1, 1] : tensor<4x16x32xf32> to tensor<16x32xf32>
// CHECK-NEXT:      %[[A:.*]] = tensor.extract_slice %a[0, %[[K]]] [16, 250] [1, 1] : tensor<16x1000xf32> to tensor<16x250xf32>
// CHECK-NEXT:      %[[B:.*]] = tensor.extract_slice %b[%[[K]], 0] [250, 32] [1, 1] : tensor<1000x32xf32> to tensor<250x32xf32>
// CHECK-NEXT:      %[[ACC:.*]] = linalg.fill ins(%[[ID]] : f32) outs(%[[SLOT]] : tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:      %[[P:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x250xf32>, tensor<250x32xf32>) outs(%[[ACC]] : tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:      scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[P]] into %[[O]][%[[G]], 0, 0] [1, 16, 32] [1, 1, 1] : tensor<16x32xf32> into tensor<4x16x32xf32>
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:    tensor.expand_shape
// CHECK-NEXT:    rock.reduce sum %[[L]]

// CHECK-LABEL: func.func @bmm
// CHECK:         scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<4x2x16x32xf32>) {
// CHECK:           tensor.extract_slice %a[0, 0, %{{.*}}] [2, 16, 250] [1, 1, 1] : tensor<2x16x1000xf32> to tensor<2x16x250xf32>
// CHECK:           linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x16x250xf32>, tensor<2x250x32xf32>) outs(%{{.*}} : tensor<2x16x32xf32>)
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}

// Groups of 334 and a last one of 332: two in the loop, the last beside it.
// CHECK-LABEL: func.func @mm_tail
// CHECK:         %[[L:.*]] = scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<3x16x32xf32>) {
// CHECK:           affine.apply affine_map<(d0) -> ((d0 * 334))>
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK-NEXT:    %[[A:.*]] = tensor.extract_slice %a[0, 668] [16, 332] [1, 1] {xsplit.split_part = "tail"} : tensor<16x1000xf32> to tensor<16x332xf32>
// CHECK-NEXT:    %[[B:.*]] = tensor.extract_slice %b[668, 0] [332, 32] [1, 1] {xsplit.split_part = "tail"} : tensor<1000x32xf32> to tensor<332x32xf32>
// CHECK-NEXT:    %[[I:.*]] = linalg.fill {xsplit.split_part = "tail"} ins(%{{.*}} : f32) outs(%[[E]] : tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:    %[[T:.*]] = linalg.matmul {xsplit.split_part = "tail"} ins(%[[A]], %[[B]] : tensor<16x332xf32>, tensor<332x32xf32>) outs(%[[I]] : tensor<16x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT:    %[[ALL:.*]] = tensor.insert_slice %[[T]] into %[[L]][2, 0, 0] [1, 16, 32] [1, 1, 1] {xsplit.split_part = "tail"} : tensor<16x32xf32> into tensor<3x16x32xf32>
// CHECK:         rock.reduce sum %[[ALL]]

// CHECK-LABEL: func.func @bmm_tail
// CHECK:         %[[L:.*]] = scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<3x2x16x32xf32>) {
// CHECK:         %[[T:.*]] = linalg.batch_matmul {xsplit.split_part = "tail"} ins(%{{.*}}, %{{.*}} : tensor<2x16x332xf32>, tensor<2x332x32xf32>)
// CHECK-NEXT:    tensor.insert_slice %[[T]] into %[[L]][2, 0, 0, 0] [1, 2, 16, 32] [1, 1, 1, 1] {xsplit.split_part = "tail"}

func.func @mm(%a: tensor<16x1000xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %identity = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x16x32xf32>
  %partials_init = linalg.fill ins(%identity : f32) outs(%0 : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  %partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 250, 500, 750, 1000>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) outs(%partials_init : tensor<4x16x32xf32>) {
  ^bb0(%1: f32, %2: f32, %3: f32):
    %4 = arith.mulf %1, %2 : f32
    %5 = arith.addf %3, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<4x16x32xf32>
  %6 = tensor.expand_shape %c [[0, 1], [2]] output_shape [1, 16, 32] : tensor<16x32xf32> into tensor<1x16x32xf32>
  %merged = rock.reduce sum %partials into %6 {axis = 0 : index} : tensor<4x16x32xf32> into tensor<1x16x32xf32> -> tensor<1x16x32xf32>
  %7 = tensor.collapse_shape %merged [[0, 1], [2]] : tensor<1x16x32xf32> into tensor<16x32xf32>
  func.return %7 : tensor<16x32xf32>
}
func.func @bmm(%a: tensor<2x16x1000xf32>, %b: tensor<2x1000x32xf32>, %c: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %identity = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x2x16x32xf32>
  %partials_init = linalg.fill ins(%identity : f32) outs(%0 : tensor<4x2x16x32xf32>) -> tensor<4x2x16x32xf32>
  %partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 250, 500, 750, 1000>, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<2x16x1000xf32>, tensor<2x1000x32xf32>) outs(%partials_init : tensor<4x2x16x32xf32>) {
  ^bb0(%1: f32, %2: f32, %3: f32):
    %4 = arith.mulf %1, %2 : f32
    %5 = arith.addf %3, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<4x2x16x32xf32>
  %6 = tensor.expand_shape %c [[0, 1], [2], [3]] output_shape [1, 2, 16, 32] : tensor<2x16x32xf32> into tensor<1x2x16x32xf32>
  %merged = rock.reduce sum %partials into %6 {axis = 0 : index} : tensor<4x2x16x32xf32> into tensor<1x2x16x32xf32> -> tensor<1x2x16x32xf32>
  %7 = tensor.collapse_shape %merged [[0, 1], [2], [3]] : tensor<1x2x16x32xf32> into tensor<2x16x32xf32>
  func.return %7 : tensor<2x16x32xf32>
}
func.func @mm_tail(%a: tensor<16x1000xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %identity = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x16x32xf32>
  %partials_init = linalg.fill ins(%identity : f32) outs(%0 : tensor<3x16x32xf32>) -> tensor<3x16x32xf32>
  %partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 334, 668, 1000>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) outs(%partials_init : tensor<3x16x32xf32>) {
  ^bb0(%1: f32, %2: f32, %3: f32):
    %4 = arith.mulf %1, %2 : f32
    %5 = arith.addf %3, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<3x16x32xf32>
  %6 = tensor.expand_shape %c [[0, 1], [2]] output_shape [1, 16, 32] : tensor<16x32xf32> into tensor<1x16x32xf32>
  %merged = rock.reduce sum %partials into %6 {axis = 0 : index} : tensor<3x16x32xf32> into tensor<1x16x32xf32> -> tensor<1x16x32xf32>
  %7 = tensor.collapse_shape %merged [[0, 1], [2]] : tensor<1x16x32xf32> into tensor<16x32xf32>
  func.return %7 : tensor<16x32xf32>
}
func.func @bmm_tail(%a: tensor<2x16x1000xf32>, %b: tensor<2x1000x32xf32>, %c: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %identity = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x2x16x32xf32>
  %partials_init = linalg.fill ins(%identity : f32) outs(%0 : tensor<3x2x16x32xf32>) -> tensor<3x2x16x32xf32>
  %partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 334, 668, 1000>, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<2x16x1000xf32>, tensor<2x1000x32xf32>) outs(%partials_init : tensor<3x2x16x32xf32>) {
  ^bb0(%1: f32, %2: f32, %3: f32):
    %4 = arith.mulf %1, %2 : f32
    %5 = arith.addf %3, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<3x2x16x32xf32>
  %6 = tensor.expand_shape %c [[0, 1], [2], [3]] output_shape [1, 2, 16, 32] : tensor<2x16x32xf32> into tensor<1x2x16x32xf32>
  %merged = rock.reduce sum %partials into %6 {axis = 0 : index} : tensor<3x2x16x32xf32> into tensor<1x2x16x32xf32> -> tensor<1x2x16x32xf32>
  %7 = tensor.collapse_shape %merged [[0, 1], [2], [3]] : tensor<1x2x16x32xf32> into tensor<2x16x32xf32>
  func.return %7 : tensor<2x16x32xf32>
}
