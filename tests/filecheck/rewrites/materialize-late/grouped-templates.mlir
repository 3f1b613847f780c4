// RUN: xsplit-opt %s -p materialize-late | filecheck %s
// RUN: xsplit-opt %s -p materialize-late --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// The grouped GEMMs of materialize-early's test, at graph level, each put in
// a dispatch region by materialize_grouped.py's templates (then workgroups);
// and the equal-groups ones inside a dispatch region of the module's own,
// materialized where they are (the region stays a region).
// STATS: materialize-late: materialize-grouped-matmul-in-dispatch-region: 1
// STATS: materialize-late: materialize-grouped-matmul-and-tail-in-dispatch-region: 1
// STATS: materialize-late: materialize-grouped-batch-matmul-in-dispatch-region: 1
// STATS: materialize-late: materialize-grouped-batch-matmul-and-tail-in-dispatch-region: 1
// STATS: materialize-late: materialize-grouped-gemm-in-dispatch-region: 0
// STATS: materialize-late: materialize-grouped-matmul-in-dispatch: 1
// STATS: materialize-late: materialize-grouped-batch-matmul-in-dispatch: 1
// STATS: materialize-late: materialize-grouped-gemm-in-dispatch: 0
// STATS: materialize-late: dispatch-region-to-workgroups: 4

// CHECK-LABEL: func.func @mm
// CHECK:         %[[W:.*]] = flow.dispatch.workgroups(%a, %b) : (tensor<16x1000xf32>, tensor<1000x32xf32>) -> tensor<4x16x32xf32> =
// CHECK:           scf.forall (%{{.*}}) in (4)
// CHECK:             linalg.fill
// CHECK-NEXT:        linalg.matmul
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:           iree_tensor_ext.dispatch.tensor.store
// CHECK:         linalg.reduce ins(%[[W]]:tensor<4x16x32xf32>)

// CHECK-LABEL: func.func @bmm
// CHECK:         flow.dispatch.workgroups(%a, %b) : (tensor<2x16x1000xf32>, tensor<2x1000x32xf32>) -> tensor<4x2x16x32xf32> =
// CHECK:           linalg.batch_matmul

// CHECK-LABEL: func.func @mm_tail
// CHECK:         %[[W:.*]] = flow.dispatch.workgroups(%a, %b) : (tensor<16x1000xf32>, tensor<1000x32xf32>) -> tensor<3x16x32xf32> =
// CHECK:           scf.forall (%{{.*}}) in (2)
// CHECK:           flow.return
// CHECK:         %[[T:.*]] = linalg.matmul {xsplit.split_part = "tail"}
// CHECK-NEXT:    tensor.insert_slice %[[T]] into %[[W]][2, 0, 0] [1, 16, 32] [1, 1, 1] {xsplit.split_part = "tail"}

// CHECK-LABEL: func.func @bmm_tail
// CHECK:         %[[W:.*]] = flow.dispatch.workgroups(%a, %b) : (tensor<2x16x1000xf32>, tensor<2x1000x32xf32>) -> tensor<3x2x16x32xf32> =
// CHECK:         %[[T:.*]] = linalg.batch_matmul {xsplit.split_part = "tail"}
// CHECK-NEXT:    tensor.insert_slice %[[T]] into %[[W]][2, 0, 0, 0]

// CHECK-LABEL: func.func @mm_in_region
// CHECK:         %[[R:.*]] = flow.dispatch.region -> (tensor<4x16x32xf32>) {
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<4x16x32xf32>
// CHECK-NEXT:      %[[L:.*]] = scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %[[E]]) -> (tensor<4x16x32xf32>) {
// CHECK:             linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x250xf32>, tensor<250x32xf32>)
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:      flow.return %[[L]] : tensor<4x16x32xf32>

// CHECK-LABEL: func.func @bmm_in_region
// CHECK:         flow.dispatch.region -> (tensor<4x2x16x32xf32>) {
// CHECK:             linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x16x250xf32>, tensor<2x250x32xf32>)
// CHECK:           flow.return

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
func.func @mm_in_region(%a: tensor<16x1000xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %identity = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x16x32xf32>
  %partials_init = linalg.fill ins(%identity : f32) outs(%0 : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  %r = flow.dispatch.region -> (tensor<4x16x32xf32>) {
    %partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 250, 500, 750, 1000>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) outs(%partials_init : tensor<4x16x32xf32>) {
    ^bb0(%1: f32, %2: f32, %3: f32):
      %4 = arith.mulf %1, %2 : f32
      %5 = arith.addf %3, %4 : f32
      linalg.yield %5 : f32
    } -> tensor<4x16x32xf32>
    flow.return %partials : tensor<4x16x32xf32>
  }
  %6 = tensor.expand_shape %c [[0, 1], [2]] output_shape [1, 16, 32] : tensor<16x32xf32> into tensor<1x16x32xf32>
  %merged = rock.reduce sum %r into %6 {axis = 0 : index} : tensor<4x16x32xf32> into tensor<1x16x32xf32> -> tensor<1x16x32xf32>
  %7 = tensor.collapse_shape %merged [[0, 1], [2]] : tensor<1x16x32xf32> into tensor<16x32xf32>
  func.return %7 : tensor<16x32xf32>
}
func.func @bmm_in_region(%a: tensor<2x16x1000xf32>, %b: tensor<2x1000x32xf32>, %c: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %identity = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x2x16x32xf32>
  %partials_init = linalg.fill ins(%identity : f32) outs(%0 : tensor<4x2x16x32xf32>) -> tensor<4x2x16x32xf32>
  %r = flow.dispatch.region -> (tensor<4x2x16x32xf32>) {
    %partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 250, 500, 750, 1000>, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<2x16x1000xf32>, tensor<2x1000x32xf32>) outs(%partials_init : tensor<4x2x16x32xf32>) {
    ^bb0(%1: f32, %2: f32, %3: f32):
      %4 = arith.mulf %1, %2 : f32
      %5 = arith.addf %3, %4 : f32
      linalg.yield %5 : f32
    } -> tensor<4x2x16x32xf32>
    flow.return %partials : tensor<4x2x16x32xf32>
  }
  %6 = tensor.expand_shape %c [[0, 1], [2], [3]] output_shape [1, 2, 16, 32] : tensor<2x16x32xf32> into tensor<1x2x16x32xf32>
  %merged = rock.reduce sum %r into %6 {axis = 0 : index} : tensor<4x2x16x32xf32> into tensor<1x2x16x32xf32> -> tensor<1x2x16x32xf32>
  %7 = tensor.collapse_shape %merged [[0, 1], [2], [3]] : tensor<1x2x16x32xf32> into tensor<2x16x32xf32>
  func.return %7 : tensor<2x16x32xf32>
}
