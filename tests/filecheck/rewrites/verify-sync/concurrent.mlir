// Every thread stores to one element: a WAW race inside one op, which no
// barrier can order, and a WAR against the loads before it.
// RUN: not xsplit-opt %s -p verify-sync 2>&1 | filecheck %s

func.func @everyone_writes_one(%a: memref<64xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%t] : memref<64xf32>
  memref.store %v, %a[%c0] : memref<64xf32>
  return
}

// CHECK: concurrent.mlir:9:3: error: unsynchronized WAR dependence: memref.store at {{.*}}:9:3 overwrites what another thread read at memref.load at {{.*}}:8:3 (threads (0,0,0) and (63,0,0) both touch %a[0]); no gpu.barrier between them
// CHECK: concurrent.mlir:9:3: error: unsynchronized WAW dependence: memref.store at {{.*}}:9:3 overwrites what another thread wrote at memref.store at {{.*}}:9:3 (threads (0,0,0) and (63,0,0) both touch %a[0]); the two accesses run concurrently in different threads (one op, or exclusive branches)
// CHECK: concurrent.mlir:5:1: error: verify-sync: 2 unsynchronized dependences
