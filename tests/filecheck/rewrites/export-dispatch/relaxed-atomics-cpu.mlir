// llvm-cpu keeps memref.atomic_rmw: it has no GPU sync scope to relax to.
// RUN: xsplit-opt %s -p 'export-dispatch{target=cpu}' | filecheck %s

// CHECK-LABEL: func.func @merge()
// CHECK-NOT:   llvm.atomicrmw
// CHECK:       memref.atomic_rmw addf
// CHECK-NOT:   llvm.atomicrmw
func.func @merge(%out: memref<4x8xf32>, %x: memref<f32>) {
  %i = arith.constant 1 : index
  %v = memref.load %x[] : memref<f32>
  %0 = memref.atomic_rmw addf %v, %out[%i, %i] : (f32, memref<4x8xf32>) -> f32
  func.return
}
