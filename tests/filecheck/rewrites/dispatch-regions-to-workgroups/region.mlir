// RUN: xsplit-opt --split-input-file %s -p dispatch-regions-to-workgroups 2>&1 | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p dispatch-regions-to-workgroups | iree-opt > /dev/null

// CHECK: region.mlir:33:3: remark: left as a dispatch region: it has dynamic shapes

// Captured tensors become readonly placeholders loaded whole, the result a
// writeonly one stored whole; captured constants are rebuilt inside.
// CHECK-LABEL: func.func @static
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>)
// CHECK:         flow.dispatch.workgroups(%[[A]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> =
// CHECK-NEXT:        (%[[IN:.*]]: !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8xf32>>, %[[OUT:.*]]: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x8xf32>>) {
// CHECK-NEXT:      %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[T:.*]] = iree_tensor_ext.dispatch.tensor.load %[[IN]], offsets = [0, 0], sizes = [4, 8], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8xf32>> -> tensor<4x8xf32>
// CHECK-NEXT:      %[[F:.*]] = linalg.fill ins(%[[C]] : f32) outs(%[[T]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      iree_tensor_ext.dispatch.tensor.store %[[F]], %[[OUT]], offsets = [0, 0], sizes = [4, 8], strides = [1, 1] : tensor<4x8xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x8xf32>>
// CHECK-NEXT:      flow.return
// CHECK-NEXT:    }
func.func @static(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = arith.constant 2.0 : f32
  %r = flow.dispatch.region -> (tensor<4x8xf32>) {
    %f = linalg.fill ins(%c : f32) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
    flow.return %f : tensor<4x8xf32>
  }
  func.return %r : tensor<4x8xf32>
}

// -----

// Dynamic shapes stay a region, which iree-compile turns into workgroups itself.
// CHECK-LABEL: func.func @dynamic
// CHECK:         flow.dispatch.region -> (tensor<?xf32>{%{{.*}}})
func.func @dynamic(%a: tensor<?xf32>, %d: index) -> tensor<?xf32> {
  %r = flow.dispatch.region -> (tensor<?xf32>{%d}) {
    flow.return %a : tensor<?xf32>
  }
  func.return %r : tensor<?xf32>
}

// -----

// No result is tied, and the op says so, as MLIR's flow dialect does once it
// has read the op: without it, a module that xsplit carried and prints
// through iree-opt would not print as the same program.
// RUN: xsplit-opt --split-input-file %s -p dispatch-regions-to-workgroups --print-op-generic 2>/dev/null | filecheck %s --check-prefix=GENERIC
// GENERIC-LABEL: "func.func"() <{sym_name = "untied"
// GENERIC: "flow.dispatch.workgroups"(%{{.*}}) <{tied_operands = [-1 : index], operandSegmentSizes = array<i32: 0, 1, 0, 0>}>
func.func @untied(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = flow.dispatch.region -> (tensor<8xf32>) {
    %e = math.exp %a : tensor<8xf32>
    flow.return %e : tensor<8xf32>
  }
  func.return %r : tensor<8xf32>
}
