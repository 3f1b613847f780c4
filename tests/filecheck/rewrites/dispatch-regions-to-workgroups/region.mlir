// RUN: xsplit-opt --split-input-file %s -p dispatch-regions-to-workgroups 2>&1 | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p dispatch-regions-to-workgroups | iree-opt > /dev/null

// CHECK: region.mlir:34:3: remark: left as a dispatch region: it has dynamic shapes
// CHECK: region.mlir:103:3: remark: left as a dispatch region: it captures a vector<4xf32>, which a flow.dispatch.workgroups cannot take

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

// -----

// What the region's nested regions read from outside is captured too: the
// reduction's body multiplies by %s, which becomes an operand.
// CHECK-LABEL: func.func @nested
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[S:.*]]: f32)
// CHECK:         flow.dispatch.workgroups(%[[A]], %{{.*}}, %[[S]]) : (tensor<4x8xf32>, tensor<4xf32>, f32) -> tensor<4xf32> =
// CHECK-NEXT:        (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8xf32>>, %{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<4xf32>>, %[[IS:.*]]: f32, %{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4xf32>>) {
// CHECK:             arith.mulf %{{.*}}, %[[IS]] : f32
func.func @nested(%a: tensor<4x8xf32>, %s: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = flow.dispatch.region -> (tensor<4xf32>) {
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %m = arith.mulf %x, %s : f32
      %t = arith.addf %m, %acc : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    flow.return %g : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// A region of several blocks is left as it is (xsplit carries it).
// CHECK-LABEL: func.func @blocks
// CHECK:         flow.dispatch.region -> (tensor<4x8xf32>) {
// CHECK:           cf.cond_br
func.func @blocks(%a: tensor<4x8xf32>, %c: i1) -> tensor<4x8xf32> {
  %0 = flow.dispatch.region -> (tensor<4x8xf32>) {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    flow.return %a : tensor<4x8xf32>
  ^bb2:
    %e = tensor.empty() : tensor<4x8xf32>
    flow.return %e : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

// A vector is no operand of a flow.dispatch.workgroups: the region stays.
// CHECK-LABEL: func.func @vector
// CHECK:         flow.dispatch.region
func.func @vector(%v: vector<4xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch.region -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %c0 = arith.constant 0 : index
    %w = vector.transfer_write %v, %e[%c0] {in_bounds = [true]} : vector<4xf32>, tensor<4xf32>
    flow.return %w : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
