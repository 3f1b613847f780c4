// A keepdims reduction, as IREE imports ONNX's ReduceSum(keepdims=1): the
// output map keeps the reduced dimension as the constant 0. Each chunk's
// partial keeps it too, the partials gain the chunk dimension last, and the
// merge folds that dimension, and the tail (50021 = 6 x 7146 + 7145), into
// the original init.
// RUN: xsplit-opt %s -p 'split-k{factor=7}' | filecheck %s
// RUN: xsplit-opt %s -p 'split-k{factor=7 strategy=grouped}' 2>&1 >/dev/null | filecheck %s --check-prefix=GROUPED

// CHECK-LABEL: func.func @row_sums
// CHECK:         %[[INIT:.*]] = linalg.fill
// CHECK:         scf.forall (%[[C:.*]]) in (6) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<8x1x6xf32>)
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>]
// CHECK:           tensor.parallel_insert_slice %{{.*}}[0, 0, %[[C]]] [8, 1, 1] [1, 1, 1] : tensor<8x1xf32> into tensor<8x1x6xf32>
// CHECK:         %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], {{.*}} ins(%{{.*}} : tensor<8x7145xf32>) outs(%{{.*}} : tensor<8x1xf32>) attrs =  {xsplit.split_part = "tail"}
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[T]] : tensor<8x1x6xf32>, tensor<8x1xf32>) outs(%[[INIT]] : tensor<8x1xf32>) attrs =  {xsplit.split_part = "merge"}
// GROUPED: remark: grouped cannot express this split (the grouped op takes one reduction loop and projected-permutation maps); using forall
func.func @row_sums(%x: tensor<8x50021xf32>) -> tensor<8x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x50021xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
}
