// A 0-d buffer has one element: thread 0's fill and every thread's atomic
// touch it, so a barrier orders them, and verify-sync proves the result.
// RUN: xsplit-opt %s -p 'insert-barriers' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s -p 'insert-barriers,verify-sync' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @zero_d
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%o : memref<f32>)
// CHECK:         }
// CHECK-NEXT:    %{{.*}} = memref.load %a
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.atomic_rmw addf %{{.*}}, %o[] : (f32, memref<f32>) -> f32
// REMARK: zero-d.mlir:[[# @LINE + 11]]:3: remark: inserted gpu.barrier before memref.atomic_rmw {{.*}} WAW dependence from linalg.fill {{.*}} both touch %o[0]
// REMARK-NOT: cannot decide
func.func @zero_d(%a: memref<64xf32>, %o: memref<f32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %tid, %c0 : index
  scf.if %first {
    %z = arith.constant 0.0 : f32
    linalg.fill ins(%z : f32) outs(%o : memref<f32>)
  }
  %v = memref.load %a[%tid] : memref<64xf32>
  %old = memref.atomic_rmw addf %v, %o[] : (f32, memref<f32>) -> f32
  return
}
