// Branches of a uniform scf.if never run together; those of a thread-dependent
// one do, and no barrier can order them.
// RUN: not xsplit-opt %s -p verify-sync 2>&1 | filecheck %s

func.func @branches(%a: memref<64xf32>, %flag: memref<1xi1>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c32 = arith.constant 32 : index
  %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %bid = gpu.block_id x
  %uni = arith.cmpi eq, %bid, %c0 : index
  %n = arith.subi %c63, %t : index
  scf.if %uni {
    memref.store %cst, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  } else {
    %v = memref.load %s[%n] : memref<64xf32, #gpu.address_space<workgroup>>
  }
  %low = arith.cmpi ult, %t, %c32 : index
  scf.if %low {
    memref.store %cst, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  } else {
    %w = memref.load %s[%n] : memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// CHECK-NOT: memref.load at {{.*}}branches.mlir:19:5 reads
// CHECK: branches.mlir:25:5: error: unsynchronized RAW dependence: memref.load at {{.*}}:25:5 reads what another thread wrote at memref.store at {{.*}}:17:5 (threads (0,0,0) and (63,0,0) both touch %s[0]); no gpu.barrier between them
// CHECK: branches.mlir:23:5: error: unsynchronized WAR dependence: memref.store at {{.*}}:23:5 overwrites what another thread read at memref.load at {{.*}}:19:5
// CHECK: branches.mlir:25:5: error: unsynchronized RAW dependence: memref.load at {{.*}}:25:5 reads what another thread wrote at memref.store at {{.*}}:23:5 (threads (0,0,0) and (63,0,0) both touch %s[0]); the two accesses run concurrently in different threads (one op, or exclusive branches)
// CHECK: branches.mlir:5:1: error: verify-sync: 3 unsynchronized dependences
