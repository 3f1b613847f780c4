// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=77 strategy=grouped}' 2>&1 | filecheck %s --check-prefixes=CHECK,REMARK
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=77 strategy=grouped}' | xsplit-opt | filecheck %s

// A min reduction cannot merge through rock.reduce (sum | max): forall, with a remark.
// REMARK: grouped.mlir:40:3: remark: grouped cannot express this split (rock.reduce merges only sum and max); using forall

// The seed's matmul as one grouped op over 77 groups (76 of 666, one of 618) on
// zero-filled partials, merged by rock.reduce into the original init %c.
// CHECK-LABEL: func.func @seed
// CHECK-SAME:    (%[[A:.*]]: tensor<123x51234xf32>, %[[B:.*]]: tensor<51234x456xf32>, %[[C:.*]]: tensor<123x456xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<77x123x456xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<77x123x456xf32>)
// CHECK:         %[[P:.*]] = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 666, 1332, {{.*}}, 50616, 51234>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%[[A]], %[[B]] : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%[[INIT]] : tensor<77x123x456xf32>)
// CHECK:         } -> tensor<77x123x456xf32>
// CHECK:         %[[C1:.*]] = tensor.expand_shape %[[C]] {{\[}}[0, 1], [2]] output_shape [1, 123, 456]
// CHECK:         %[[R:.*]] = rock.reduce sum %[[P]] into %[[C1]] {axis = 0 : index} : tensor<77x123x456xf32> into tensor<1x123x456xf32> -> tensor<1x123x456xf32>
// CHECK:         %[[OUT:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0, 1], [2]] : tensor<1x123x456xf32> into tensor<123x456xf32>
// CHECK:         func.return %[[OUT]]
func.func @seed(%a: tensor<123x51234xf32>, %b: tensor<51234x456xf32>, %c: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%c : tensor<123x456xf32>) -> tensor<123x456xf32>
  func.return %0 : tensor<123x456xf32>
}

// -----

// A dynamic K: the groups are a count.
// CHECK-LABEL: func.func @dynamic
// CHECK:         linalg_ext.split_grouped_gemm {group_count = 77 : i64, {{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4x?xf32>, tensor<?x8xf32>) outs(%{{.*}} : tensor<77x4x8xf32>)
func.func @dynamic(%a: tensor<4x?xf32>, %b: tensor<?x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x?xf32>, tensor<?x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_min
// CHECK:         scf.forall
func.func @reduce_min(%a: tensor<8x1000xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.reduce ins(%a : tensor<8x1000xf32>) outs(%c : tensor<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %m = arith.minimumf %in, %init : f32
      linalg.yield %m : f32
    }
  func.return %0 : tensor<8xf32>
}
