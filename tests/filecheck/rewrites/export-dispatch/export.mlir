// A distributed workgroup-level kernel in the custom-dispatch form.
// RUN: xsplit-opt %s -p 'distribute,export-dispatch{target=cpu}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s -p 'distribute,export-dispatch{target=cpu}' 2>/dev/null | iree-opt | filecheck %s --check-prefix=IREE

// CHECK:      hal.executable.source private @rows_dispatch {
// CHECK-NEXT:   hal.executable.export public @rows ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer, ReadOnly>]>) count(%{{.*}}: !hal.device) -> (index, index, index) {
// CHECK-NEXT:     %[[X:.*]] = arith.constant 16 : index
// CHECK-NEXT:     %[[Y:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[Z:.*]] = arith.constant 1 : index
// CHECK-NEXT:     hal.return %[[X]], %[[Y]], %[[Z]] : index, index, index
// CHECK-NEXT:   }
// CHECK-NEXT:   builtin.module {
// CHECK-NEXT:     func.func @rows() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [1, 1, 1]>} {
// CHECK-NEXT:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:       %[[A:.*]] = hal.interface.binding.subspan layout({{.*}}) binding(0) alignment(64) offset(%[[C0]]) flags(ReadOnly) : memref<64x100xf32>
// CHECK-NEXT:       %[[OUT:.*]] = hal.interface.binding.subspan layout({{.*}}) binding(1) alignment(64) offset(%[[C0]]) : memref<64xf32>
// CHECK-NEXT:       %[[SCALE:.*]] = hal.interface.binding.subspan layout({{.*}}) binding(2) alignment(64) offset(%[[C0]]) flags(ReadOnly) : memref<1xf32>
// CHECK:            %[[W:.*]] = hal.interface.workgroup.id[0] : index
// CHECK-NOT:        gpu.
// CHECK:            scf.for %[[M:.*]] = %[[W]] to %{{.*}} step %{{.*}} {
// CHECK:              memref.store %{{.*}}, %[[OUT]][%[[M]]] : memref<64xf32>
// CHECK:          func.return
// CHECK:      func.func @rows(%a: tensor<64x100xf32>, %out: tensor<64xf32>, %scale: tensor<1xf32>) -> tensor<64xf32> {
// CHECK-NEXT:   %[[R:.*]] = flow.dispatch @rows_dispatch::@rows(%a, %out, %scale) : (tensor<64x100xf32>, tensor<64xf32>, tensor<1xf32>) -> %out
// CHECK-NEXT:   func.return %[[R]] : tensor<64xf32>
// IREE: hal.executable.source private @rows_dispatch
// IREE: flow.dispatch @rows_dispatch::@rows(%arg0, %arg1, %arg2) : (tensor<64x100xf32>, tensor<64xf32>, tensor<1xf32>) -> %arg1
func.func @rows(%a: memref<64x100xf32>, %out: memref<64xf32>, %scale: memref<1xf32>) attributes {gpu.known_grid_size = array<i32: 16, 1, 1>} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %f = memref.load %scale[%c0] : memref<1xf32>
  scf.forall (%m) in (64) {
    %s = scf.for %k = %c0 to %c100 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %a[%m, %k] : memref<64x100xf32>
      %r = arith.addf %acc, %v : f32
      scf.yield %r : f32
    }
    %t = arith.mulf %s, %f : f32
    memref.store %t, %out[%m] : memref<64xf32>
  } {mapping = [#gpu.block<x>]}
  func.return
}
