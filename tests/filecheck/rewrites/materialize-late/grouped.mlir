// RUN: xsplit-opt --split-input-file %s -p materialize-late | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p materialize-late | iree-opt > /dev/null

// A hand-written grouped op with arbitrary group boundaries and an init that is
// not a fill: the bounds come from a constant table, and each group copies its
// init slot into the loop's output before accumulating (a linalg.generic).
// CHECK-LABEL: func.func @arbitrary_groups
// CHECK:         flow.dispatch.workgroups
// CHECK:           scf.forall (%[[G:.*]]) in (2)
// CHECK-NEXT:        %[[TABLE:.*]] = arith.constant dense<[0, 2, 7]> : tensor<3xindex>
// CHECK:             tensor.extract %[[TABLE]][%[[G]]] : tensor<3xindex>
// CHECK:             linalg.copy
// CHECK-NEXT:        linalg.generic
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
func.func @arbitrary_groups(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 2, 7>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<2x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x5xf32>
  func.return %0 : tensor<2x4x5xf32>
}

// -----

// rock.reduce over axis 0 becomes linalg.reduce into the collapsed init.
// CHECK-LABEL: func.func @rock_reduce
// CHECK:         %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x4x5xf32> into tensor<4x5xf32>
// CHECK:         %[[R:.*]] = linalg.reduce ins(%{{.*}}:tensor<3x4x5xf32>) outs(%[[C]]:tensor<4x5xf32>) dimensions = [0]
// CHECK:           arith.maximumf
// CHECK:         tensor.expand_shape %[[R]]
func.func @rock_reduce(%p: tensor<3x4x5xf32>, %c: tensor<1x4x5xf32>) -> tensor<1x4x5xf32> {
  %0 = rock.reduce max %p into %c {axis = 0 : index} : tensor<3x4x5xf32> into tensor<1x4x5xf32> -> tensor<1x4x5xf32>
  func.return %0 : tensor<1x4x5xf32>
}

// -----

// A dynamic size of the init is read off the reduced tensor for expand_shape.
// CHECK-LABEL: func.func @rock_reduce_dynamic
// CHECK:         %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x?x5xi32> into tensor<?x5xi32>
// CHECK:         %[[R:.*]] = linalg.reduce ins(%{{.*}}:tensor<3x?x5xi32>) outs(%[[C]]:tensor<?x5xi32>) dimensions = [0]  {xsplit.split_part = "merge"}
// CHECK:           arith.addi
// CHECK:         %[[I:.*]] = arith.constant 0 : index
// CHECK:         %[[D:.*]] = tensor.dim %[[R]], %[[I]] : tensor<?x5xi32>
// CHECK:         tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [1, %[[D]], 5] : tensor<?x5xi32> into tensor<1x?x5xi32>
func.func @rock_reduce_dynamic(%p: tensor<3x?x5xi32>, %c: tensor<1x?x5xi32>) -> tensor<1x?x5xi32> {
  %merged = rock.reduce sum %p into %c {axis = 0 : index} : tensor<3x?x5xi32> into tensor<1x?x5xi32> -> tensor<1x?x5xi32>
  func.return %merged : tensor<1x?x5xi32>
}

