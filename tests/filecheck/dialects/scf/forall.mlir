// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @forall
func.func @forall(%t: tensor<8x4xf32>, %n: index, %u: tensor<4xf32>) -> tensor<8x4xf32> {
  // CHECK:      scf.forall (%[[I:.*]], %[[J:.*]]) in (%{{.*}}, 4) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<8x4xf32>) {
  // CHECK-NEXT:   %[[S:.*]] = tensor.extract_slice %[[O]][%[[I]], %[[J]]] [1, 1] [1, 1] : tensor<8x4xf32> to tensor<1x1xf32>
  // CHECK-NEXT:   scf.forall.in_parallel {
  // CHECK-NEXT:     tensor.parallel_insert_slice %[[S]] into %[[O]][%[[I]], %[[J]]] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<8x4xf32>
  // CHECK-NEXT:   }
  // CHECK-NEXT: } {mapping = [#gpu.block<y>, #gpu.thread<x>]}
  %r = scf.forall (%i, %j) in (%n, 4) shared_outs(%o = %t) -> (tensor<8x4xf32>) {
    %s = tensor.extract_slice %o[%i, %j] [1, 1] [1, 1] : tensor<8x4xf32> to tensor<1x1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i, %j] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<8x4xf32>
    }
  } {mapping = [#gpu.block<y>, #gpu.thread<x>]}
  // CHECK:      scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (3) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<8x4xf32>, tensor<4xf32>) {
  // CHECK-NEXT:   scf.forall.in_parallel {
  // CHECK-NEXT:   }
  // CHECK-NEXT: } {foo, mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
  %r2:2 = scf.forall (%i) = (0) to (%n) step (3) shared_outs(%o = %t, %p = %u) -> (tensor<8x4xf32>, tensor<4xf32>) {
    scf.forall.in_parallel {
    }
  } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>], foo}
  // CHECK:      scf.forall (%{{.*}}) in (4) {
  // CHECK-NEXT: }
  scf.forall (%i) in (4) {
  }
  // CHECK:      scf.forall (%{{.*}}) in (4) {
  // CHECK-NEXT: } {mapping = [#gpu.warp<linear_dim_0>]}
  scf.forall (%i) in (4) {
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.warp<linear_dim_0>]}
  func.return %r : tensor<8x4xf32>
}
