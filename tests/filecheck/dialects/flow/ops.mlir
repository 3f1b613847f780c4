// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @region
func.func @region(%a: tensor<?x4xf32>, %d: index, %b: tensor<8xf32>) -> (tensor<?x4xf32>, tensor<8xf32>) {
  // CHECK:      = flow.dispatch.region[%{{.*}}] -> (tensor<?x4xf32>{%{{.*}}}, tensor<8xf32>) {
  // CHECK-NEXT:   flow.return %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<8xf32>
  // CHECK-NEXT: } count(%{{.*}}: index) -> (index, index, index) {
  // CHECK:        flow.return %{{.*}}, %{{.*}}, %{{.*}} : index, index, index
  // CHECK-NEXT: }
  %r:2 = flow.dispatch.region[%d] -> (tensor<?x4xf32>{%d}, tensor<8xf32>) {
    flow.return %a, %b : tensor<?x4xf32>, tensor<8xf32>
  } count(%w: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    flow.return %w, %c1, %c1 : index, index, index
  }
  // CHECK:      flow.dispatch.region -> (tensor<8xf32>) attributes {foo = 1 : i32} {
  // CHECK-NEXT:   flow.return %{{.*}} : tensor<8xf32>
  // CHECK-NEXT: }
  %s = flow.dispatch.region -> (tensor<8xf32>) attributes {foo = 1 : i32} {
    flow.return %b : tensor<8xf32>
  }
  func.return %r#0, %s : tensor<?x4xf32>, tensor<8xf32>
}

// CHECK-LABEL: func.func @workgroups
func.func @workgroups(%a: tensor<?x4xf32>, %d: index, %b: tensor<8xf32>) -> (tensor<?x4xf32>, tensor<8xf32>) {
  // CHECK:      = flow.dispatch.workgroups[%{{.*}}](%{{.*}}, %{{.*}}, %[[B:.*]]) : (tensor<?x4xf32>{%{{.*}}}, index, tensor<8xf32>) -> (tensor<?x4xf32>{%{{.*}}}, %[[B]]) =
  // CHECK-NEXT:     (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x4xf32>>, %{{.*}}: index, %{{.*}}: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<8xf32>>, %{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x4xf32>>) {
  // CHECK-NEXT:   %[[T:.*]] = iree_tensor_ext.dispatch.tensor.load %{{.*}}, offsets = [0, 0], sizes = [%{{.*}}, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x4xf32>>{%{{.*}}} -> tensor<?x4xf32>
  // CHECK-NEXT:   iree_tensor_ext.dispatch.tensor.store %[[T]], %{{.*}}, offsets = [0, 0], sizes = [%{{.*}}, 4], strides = [1, 1] : tensor<?x4xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x4xf32>>{%{{.*}}}
  // CHECK-NEXT:   flow.return
  // CHECK-NEXT: } count(%{{.*}}: index) -> (index, index, index) {
  %w:2 = flow.dispatch.workgroups[%d](%a, %d, %b) : (tensor<?x4xf32>{%d}, index, tensor<8xf32>) -> (tensor<?x4xf32>{%d}, %b) =
      (%x: !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x4xf32>>, %dd: index, %y: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<8xf32>>, %o: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x4xf32>>) {
    %t = iree_tensor_ext.dispatch.tensor.load %x, offsets = [0, 0], sizes = [%dd, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x4xf32>>{%dd} -> tensor<?x4xf32>
    iree_tensor_ext.dispatch.tensor.store %t, %o, offsets = [0, 0], sizes = [%dd, 4], strides = [1, 1] : tensor<?x4xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x4xf32>>{%dd}
    flow.return
  } count(%w0: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    flow.return %w0, %c1, %c1 : index, index, index
  }
  // CHECK:      flow.dispatch.workgroups(%{{.*}}) : (tensor<8xf32>) -> tensor<8xf32> =
  // CHECK-NEXT:     (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>, %{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf32>>) {
  // CHECK-NEXT:   flow.return
  // CHECK-NEXT: }
  %n = flow.dispatch.workgroups(%b) : (tensor<8xf32>) -> tensor<8xf32> =
      (%y: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>, %o: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf32>>) {
    flow.return
  }
  // CHECK:      flow.dispatch.workgroups() : () -> tensor<8xf32> =
  // CHECK-NEXT:     (%{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf32>>) {
  %e = flow.dispatch.workgroups() : () -> tensor<8xf32> =
      (%o: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf32>>) {
    flow.return
  }
  func.return %w#0, %n : tensor<?x4xf32>, tensor<8xf32>
}
