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

// A tied result carries the sizes of its own type, and `as` gives it a type
// other than its argument's.
// CHECK-LABEL: func.func @tied
func.func @tied(%a: tensor<?x4xf32>, %n: index, %b: tensor<8xf32>, %c: tensor<?x?xf32>) -> (tensor<?x4xf32>, tensor<?x?xf32>, tensor<4x?xf32>, tensor<?xf32>) {
  // CHECK:      %[[W:.*]] = flow.dispatch.workgroups[%[[N:.*]], %[[N]]](%[[A:.*]], %[[N]]) : (tensor<?x4xf32>{%[[N]]}, index) -> %[[A]]{%[[N]]} =
  // CHECK-NEXT:     (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>, %{{.*}}: index) {
  %w = flow.dispatch.workgroups[%n, %n](%a, %n) : (tensor<?x4xf32>{%n}, index) -> %a{%n} =
      (%x: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>, %m: index) {
    %t = iree_tensor_ext.dispatch.tensor.load %x, offsets = [0, 0], sizes = [%m, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%m} -> tensor<?x4xf32>
    iree_tensor_ext.dispatch.tensor.store %t, %x, offsets = [0, 0], sizes = [%m, 4], strides = [1, 1] : tensor<?x4xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%m}
    flow.return
  }
  // CHECK:      flow.dispatch.workgroups(%[[C:.*]], %{{.*}}) : (tensor<?x?xf32>{%[[N]], %[[N]]}, tensor<8xf32>) -> (%[[C]]{%[[N]], %[[N]]}, tensor<?x4xf32>{%[[N]]}) =
  // CHECK-NEXT:     (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x?xf32>>, %{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>, %{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x4xf32>>) {
  %v:2 = flow.dispatch.workgroups(%c, %b) : (tensor<?x?xf32>{%n, %n}, tensor<8xf32>) -> (%c{%n, %n}, tensor<?x4xf32>{%n}) =
      (%x: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x?xf32>>, %y: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>, %o: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x4xf32>>) {
    flow.return
  }
  // CHECK:      flow.dispatch.workgroups(%[[A]]) : (tensor<?x4xf32>{%[[N]]}) -> %[[A]] as tensor<4x?xf32>{%[[N]]} =
  %s = flow.dispatch.workgroups(%a) : (tensor<?x4xf32>{%n}) -> %a as tensor<4x?xf32>{%n} =
      (%x: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>) {
    flow.return
  }
  // CHECK:      flow.dispatch @ex::@k(%[[C]], %{{.*}}) : (tensor<?x?xf32>{%[[N]], %[[N]]}, tensor<8xf32>) -> %[[C]]{%[[N]], %[[N]]}
  %d = flow.dispatch @ex::@k(%c, %b) : (tensor<?x?xf32>{%n, %n}, tensor<8xf32>) -> %c{%n, %n}
  // CHECK:      flow.dispatch @ex::@k[%[[N]]](%[[C]], %[[A]]) : (tensor<?x?xf32>{%[[N]], %[[N]]}, tensor<?x4xf32>{%[[N]]}) -> (tensor<?xf32>{%[[N]]}, %[[C]]{%[[N]], %[[N]]}, %[[A]] as tensor<8xi32>)
  %e:3 = flow.dispatch @ex::@k[%n](%c, %a) : (tensor<?x?xf32>{%n, %n}, tensor<?x4xf32>{%n}) -> (tensor<?xf32>{%n}, %c{%n, %n}, %a as tensor<8xi32>)
  func.return %w, %v#0, %s, %e#0 : tensor<?x4xf32>, tensor<?x?xf32>, tensor<4x?xf32>, tensor<?xf32>
}
