// A barrier between the store and the neighbour's load, but none between the
// load and the next iteration's store: a WAR dependence across iterations.
// RUN: not xsplit-opt %s -p verify-sync 2>&1 | filecheck %s

func.func @neighbours(%a: memref<4x32xf32>, %b: memref<4x32xf32>) attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %s = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
  scf.for %k = %c0 to %c4 step %c1 {
    %v = memref.load %a[%k, %t] : memref<4x32xf32>
    memref.store %v, %s[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %t1 = arith.addi %t, %c1 : index
    %n = arith.remui %t1, %c32 : index
    %w = memref.load %s[%n] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %b[%k, %t] : memref<4x32xf32>
  }
  return
}

// CHECK: war-loop.mlir:14:5: error: unsynchronized WAR dependence across loop iterations: memref.store at {{.*}}war-loop.mlir:14:5 overwrites what another thread read at memref.load at {{.*}}war-loop.mlir:18:5 (threads (0,0,0) and (31,0,0) both touch %s[0]); no gpu.barrier between them
// CHECK-NEXT: war-loop.mlir:5:1: error: verify-sync: 1 unsynchronized dependence
