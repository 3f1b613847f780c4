// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4},materialize-late' | iree-opt > /dev/null
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=expand}' 2>&1 >/dev/null | filecheck %s --check-prefix=EXPAND
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=grouped}' 2>&1 >/dev/null | filecheck %s --check-prefix=GROUPED

// IREE's argmax form. Each chunk keeps its best value and, through
// linalg.index shifted by the chunk's offset, where in K it is. The chunks are
// merged best value first, smallest index among equal values (an order-free
// rule, so any reduction order IREE picks keeps the first index on ties);
// then that winner meets the original init under the op's own `ogt`.
// CHECK-LABEL: func.func @argmax
// CHECK-SAME:    (%[[X:.*]]: tensor<4x1000xf32>, %[[V:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>)
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:         %[[PV:.*]], %[[PI:.*]] = scf.forall (%[[S:.*]]) in (4) shared_outs(%[[OV:.*]] = %{{.*}}, %[[OI:.*]] = %{{.*}}) -> (tensor<4x4xf32>, tensor<4x4xi64>) {
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 250))> (%[[S]])
// CHECK-NEXT:      %[[XC:.*]] = tensor.extract_slice %[[X]][0, %[[OFF]]] [4, 250] [1, 1]
// CHECK:           linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK:           linalg.fill ins(%[[ZERO]] : i64)
// CHECK:           %[[CV:.*]], %[[CI:.*]] = linalg.generic {{.*}} ins(%[[XC]] : tensor<4x250xf32>)
// CHECK:             %[[IDX:.*]] = linalg.index 1 : index
// CHECK-NEXT:        %[[GLOBAL:.*]] = arith.addi %[[IDX]], %[[OFF]] : index
// CHECK-NEXT:        %[[CAST:.*]] = arith.index_cast %[[GLOBAL]] : index to i64
// CHECK:             arith.select %{{.*}}, %[[CAST]], %{{.*}} : i64
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[CV]] into %[[OV]][0, %[[S]]] [4, 1] [1, 1] : tensor<4xf32> into tensor<4x4xf32>
// CHECK-NEXT:        tensor.parallel_insert_slice %[[CI]] into %[[OI]][0, %[[S]]] [4, 1] [1, 1] : tensor<4xi64> into tensor<4x4xi64>
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         %[[BV:.*]], %[[BI:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[PV]], %[[PI]] : tensor<4x4xf32>, tensor<4x4xi64>)
// CHECK-NEXT:    ^bb0(%[[pv:.*]]: f32, %[[pi:.*]]: i64, %[[av:.*]]: f32, %[[ai:.*]]: i64):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[pv]], %[[av]] : f32
// CHECK-NEXT:      %[[EQ:.*]] = arith.cmpf oeq, %[[pv]], %[[av]] : f32
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpi slt, %[[pi]], %[[ai]] : i64
// CHECK-NEXT:      %[[TIE:.*]] = arith.andi %[[EQ]], %[[LT]] : i1
// CHECK-NEXT:      %[[TAKE:.*]] = arith.ori %[[GT]], %[[TIE]] : i1
// CHECK-NEXT:      %[[NV:.*]] = arith.select %[[TAKE]], %[[pv]], %[[av]] : f32
// CHECK-NEXT:      %[[NI:.*]] = arith.select %[[TAKE]], %[[pi]], %[[ai]] : i64
// CHECK-NEXT:      linalg.yield %[[NV]], %[[NI]] : f32, i64
// CHECK:         %[[MV:.*]], %[[MI:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[BV]], %[[BI]] : tensor<4xf32>, tensor<4xi64>) outs(%[[V]], %[[I]] : tensor<4xf32>, tensor<4xi64>)
// CHECK-NEXT:    ^bb0(%[[mv:.*]]: f32, %[[mi:.*]]: i64, %[[iv:.*]]: f32, %[[ii:.*]]: i64):
// CHECK-NEXT:      %[[KEEP:.*]] = arith.cmpf ogt, %[[mv]], %[[iv]] : f32
// CHECK-NEXT:      arith.maximumf %[[mv]], %[[iv]] : f32
// CHECK-NEXT:      arith.select %[[KEEP]], %[[mi]], %[[ii]] : i64
// CHECK:         func.return %[[MV]], %[[MI]] : tensor<4xf32>, tensor<4xi64>
// EXPAND: argmax.mlir:[[# @LINE + 3]]:3: remark: expand cannot express this split (an arg-reduction's index must count from the start of K); using forall
// GROUPED: argmax.mlir:[[# @LINE + 2]]:3: remark: grouped cannot express this split (rock.reduce merges one result, not a value and its index); using forall
func.func @argmax(%x: tensor<4x1000xf32>, %v: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x1000xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_0: i64):
    %5 = linalg.index 1 : index
    %6 = arith.index_cast %5 : index to i64
    %7 = arith.maximumf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %6, %out_0 : i64
    linalg.yield %7, %9 : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xi64>
}

// -----

// An argmin that keeps the LAST index on ties (`ole`, the accumulator on the
// left), its value a select: ties go to the larger index, the init is
// replaced on equality as the unsplit loop would. The identity for a min is
// +inf.
// CHECK-LABEL: func.func @argmin_last
// CHECK:         arith.constant 0x7f800000 : f32
// CHECK:         %[[OFF:.*]] = affine.apply
// CHECK:           %[[IDX:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[GLOBAL:.*]] = arith.addi %[[IDX]], %[[OFF]] : index
// CHECK-NEXT:      %[[CAST:.*]] = arith.index_cast %[[GLOBAL]] : index to i32
// CHECK:           arith.select %{{.*}}, %[[CAST]], %{{.*}} : i32
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         linalg.generic
// CHECK:           arith.cmpf olt, %[[pv:.*]], %[[av:.*]] : f32
// CHECK-NEXT:      arith.cmpf oeq, %[[pv]], %[[av]] : f32
// CHECK-NEXT:      arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// CHECK:         linalg.generic
// CHECK:           %[[KEEP:.*]] = arith.cmpf ole, %[[mv:.*]], %[[iv:.*]] : f32
// CHECK-NEXT:      arith.select %[[KEEP]], %[[mv]], %[[iv]] : f32
func.func @argmin_last(%x: tensor<4x1000xf32>, %v: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x1000xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%in: f32, %out: f32, %out_0: i32):
    %5 = linalg.index 1 : index
    %6 = arith.index_cast %5 : index to i32
    %8 = arith.cmpf oge, %out, %in : f32
    %7 = arith.select %8, %in, %out : f32
    %9 = arith.select %8, %6, %out_0 : i32
    linalg.yield %7, %9 : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Integers: cmpi sgt and maxsi; the value identity is the smallest i8.
// CHECK-LABEL: func.func @argmax_i8
// CHECK:         arith.constant -128 : i8
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         arith.cmpi sgt
// CHECK-NEXT:    arith.cmpi eq
// CHECK-NEXT:    arith.cmpi slt
// CHECK:         arith.maxsi
func.func @argmax_i8(%x: tensor<1000xi8>, %v: tensor<i8>, %i: tensor<i32>) -> (tensor<i8>, tensor<i32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<1000xi8>) outs(%v, %i : tensor<i8>, tensor<i32>) {
  ^bb0(%in: i8, %out: i8, %out_0: i32):
    %5 = linalg.index 0 : index
    %6 = arith.index_cast %5 : index to i32
    %7 = arith.maxsi %in, %out : i8
    %8 = arith.cmpi sgt, %in, %out : i8
    %9 = arith.select %8, %6, %out_0 : i32
    linalg.yield %7, %9 : i8, i32
  } -> (tensor<i8>, tensor<i32>)
  func.return %0#0, %0#1 : tensor<i8>, tensor<i32>
}

// -----

// Two-result reductions that are not a recognised arg-reduction pass through
// unchanged: the index kept is not the loop's (an input value), and the
// accumulator also feeds the value.
// CHECK-LABEL: func.func @not_an_argmax
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x1000xf32>, tensor<4x1000xi32>)
// CHECK-NOT:     scf.forall
// CHECK:         func.return
func.func @not_an_argmax(%x: tensor<4x1000xf32>, %ids: tensor<4x1000xi32>, %v: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %ids : tensor<4x1000xf32>, tensor<4x1000xi32>) outs(%v, %i : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%in: f32, %id: i32, %out: f32, %out_0: i32):
    %7 = arith.maximumf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %id, %out_0 : i32
    linalg.yield %7, %9 : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @accumulator_reused
// CHECK-NOT:     scf.forall
// CHECK:         func.return
func.func @accumulator_reused(%x: tensor<4x1000xf32>, %v: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x1000xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%in: f32, %out: f32, %out_0: i32):
    %5 = linalg.index 1 : index
    %6 = arith.index_cast %5 : index to i32
    %s = arith.addf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %6, %out_0 : i32
    linalg.yield %s, %9 : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// An index-typed index result stays whole: its partials would be index
// tensors crossing a dispatch boundary, which IREE rejects.
// CHECK-LABEL: func.func @index_typed
// CHECK-NOT:     scf.forall
// CHECK:         func.return
func.func @index_typed(%x: tensor<4x1000xf32>, %v: tensor<4xf32>, %i: tensor<4xindex>) -> (tensor<4xf32>, tensor<4xindex>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x1000xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xindex>) {
  ^bb0(%in: f32, %out: f32, %out_0: index):
    %5 = linalg.index 1 : index
    %7 = arith.maximumf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %5, %out_0 : index
    linalg.yield %7, %9 : f32, index
  } -> (tensor<4xf32>, tensor<4xindex>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xindex>
}

// -----

// K = 1001 in 4: three static chunks of 251 in the loop, and the tail (248
// columns from 753) beside it, its index shifted by 753, written into the
// partials' last slot so that one merge orders every chunk's index.
// CHECK-LABEL: func.func @argmax_tail
// CHECK:         scf.forall (%{{.*}}) in (3) {{.*}} -> (tensor<4x4xf32>, tensor<4x4xi64>)
// CHECK:           tensor.extract_slice %{{.*}} [4, 251] [1, 1] : tensor<4x1001xf32> to tensor<4x251xf32>
// CHECK:         %[[XT:.*]] = tensor.extract_slice %{{.*}}[0, 753] [4, 248] [1, 1] {xsplit.split_part = "tail"} : tensor<4x1001xf32> to tensor<4x248xf32>
// CHECK:         %[[OFF:.*]] = arith.constant 753 : index
// CHECK:         %[[TV:.*]], %[[TI:.*]] = linalg.generic {{.*}} ins(%[[XT]] : tensor<4x248xf32>)
// CHECK:           %[[IDX:.*]] = linalg.index 1 : index
// CHECK-NEXT:      arith.addi %[[IDX]], %[[OFF]] : index
// CHECK:         %[[PV:.*]] = tensor.insert_slice %[[TV]] into %{{.*}}[0, 3] [4, 1] [1, 1] {xsplit.split_part = "tail"} : tensor<4xf32> into tensor<4x4xf32>
// CHECK:         %[[PI:.*]] = tensor.insert_slice %[[TI]] into %{{.*}}[0, 3] [4, 1] [1, 1] {xsplit.split_part = "tail"} : tensor<4xi64> into tensor<4x4xi64>
// CHECK:         linalg.generic {{.*}} ins(%[[PV]], %[[PI]] : tensor<4x4xf32>, tensor<4x4xi64>) {{.*}} attrs =  {xsplit.split_part = "merge"}
func.func @argmax_tail(%x: tensor<4x1001xf32>, %v: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x1001xf32>) outs(%v, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_0: i64):
    %5 = linalg.index 1 : index
    %6 = arith.index_cast %5 : index to i64
    %7 = arith.maximumf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %6, %out_0 : i64
    linalg.yield %7, %9 : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xi64>
}
