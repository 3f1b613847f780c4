// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=77},form-dispatch-regions' 2>&1 | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=77},form-dispatch-regions' | iree-opt > /dev/null

// The split loop moves into a dispatch region with its tensor.empty and the
// constants it uses (iree-compile needs the empty tensor inside); the tail,
// with the constant it fills from, and the merge stay out.
// CHECK-LABEL: func.func @seed
// CHECK:         %[[R:.*]] = flow.dispatch.region -> (tensor<123x456x76xf32>) {
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<123x456x76xf32>
// CHECK-NEXT:      %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[L:.*]] = scf.forall (%{{.*}}) in (76) shared_outs(%{{.*}} = %[[E]])
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:      flow.return %[[L]] : tensor<123x456x76xf32>
// CHECK-NEXT:    }
// CHECK:         %[[T:.*]] = linalg.matmul {xsplit.split_part = "tail"}
// CHECK:         linalg.generic {{.*}} ins(%[[R]], %[[T]] : tensor<123x456x76xf32>, tensor<123x456xf32>)
func.func @seed(%a: tensor<123x51234xf32>, %b: tensor<51234x456xf32>, %c: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%c : tensor<123x456xf32>) -> tensor<123x456xf32>
  func.return %0 : tensor<123x456xf32>
}

// -----

// A dynamic partial buffer carries its size out of the region (K = 1000 in
// 76 chunks of 13 and a tail of 12).
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[M:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x8xf32>
// CHECK:         flow.dispatch.region -> (tensor<?x8x76xf32>{%[[M]]}) {
// CHECK-NEXT:      tensor.empty(%[[M]]) : tensor<?x8x76xf32>
func.func @dynamic(%a: tensor<?x1000xf32>, %b: tensor<1000x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x1000xf32>, tensor<1000x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %0 : tensor<?x8xf32>
}
