// RUN: xsplit-opt %s -p 'split-k{factor=77},materialize-late' | filecheck %s
// RUN: xsplit-opt %s -p 'split-k{factor=77},materialize-late' | iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=host --compile-to=executable-targets - | filecheck %s --check-prefix=COUNT

// The seed's matmul ends as the form iree-compile 3.13 distributes: the split
// loop over 76 static chunks in flow.dispatch.workgroups; the tail (618 of K)
// and the merge left to IREE.
// CHECK-LABEL: func.func @matmul_static
// CHECK-SAME:    (%[[A:.*]]: tensor<123x51234xf32>, %[[B:.*]]: tensor<51234x456xf32>, %[[C:.*]]: tensor<123x456xf32>)
// CHECK:         %[[P:.*]] = flow.dispatch.workgroups(%[[A]], %[[B]]) : (tensor<123x51234xf32>, tensor<51234x456xf32>) -> tensor<123x456x76xf32> =
// CHECK-NEXT:        (%[[IA:.*]]: !iree_tensor_ext.dispatch.tensor<readonly:tensor<123x51234xf32>>, %[[IB:.*]]: !iree_tensor_ext.dispatch.tensor<readonly:tensor<51234x456xf32>>, %[[OUT:.*]]: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<123x456x76xf32>>) {
// CHECK-NEXT:      %[[LA:.*]] = iree_tensor_ext.dispatch.tensor.load %[[IA]], offsets = [0, 0], sizes = [123, 51234], strides = [1, 1]
// CHECK-NEXT:      %[[LB:.*]] = iree_tensor_ext.dispatch.tensor.load %[[IB]], offsets = [0, 0], sizes = [51234, 456], strides = [1, 1]
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<123x456x76xf32>
// CHECK:           %[[L:.*]] = scf.forall (%{{.*}}) in (76) shared_outs(%{{.*}} = %[[E]]) -> (tensor<123x456x76xf32>) {
// CHECK:             tensor.extract_slice %[[LA]]
// CHECK:             tensor.extract_slice %[[LB]]
// CHECK:             linalg.matmul {{.*}} : tensor<123x666xf32>, tensor<666x456xf32>
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:      iree_tensor_ext.dispatch.tensor.store %[[L]], %[[OUT]], offsets = [0, 0, 0], sizes = [123, 456, 76], strides = [1, 1, 1]
// CHECK-NEXT:      flow.return
// CHECK-NEXT:    }
// CHECK:         %[[T:.*]] = linalg.matmul {xsplit.split_part = "tail"} {{.*}} : tensor<123x618xf32>, tensor<618x456xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %[[T]] : tensor<123x456x76xf32>, tensor<123x456xf32>) outs(%[[C]] : tensor<123x456xf32>) attrs =  {xsplit.split_part = "merge"}

// 76 static chunks x 24 tiles: the split is spread over 1824 workgroups
// (unsplit: 24), the tail's 618 over 24 more.
// COUNT:      hal.executable.export public @matmul_static_dispatch_0_matmul_123x456x666_f32
// COUNT-NEXT:   %[[N:.*]] = arith.constant 1824 : index
// COUNT:        hal.return %[[N]], %{{.*}}, %{{.*}} : index, index, index
// COUNT:      hal.executable.export public @matmul_static_dispatch_1_matmul_123x456x618_f32
// COUNT-NEXT:   arith.constant 24 : index
func.func @matmul_static(%arg0: tensor<123x51234xf32>, %arg1: tensor<51234x456xf32>, %arg2: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%arg2 : tensor<123x456xf32>) -> tensor<123x456xf32>
  func.return %0 : tensor<123x456xf32>
}
