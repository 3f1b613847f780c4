// A 1-D vector.store writes its width of elements along the last index: thread t's vector store
// of elements 4t .. 4t + 3 and its own load of 4t + 3 are one thread's (no race), but a load one
// vector further reads what the next thread's vector stored, unless a barrier orders them.
// RUN: not xsplit-opt %s --split-input-file -p verify-sync 2>&1 | filecheck %s

func.func @race() attributes {gpu.known_block_size = array<i32: 16, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>} {
  %t = gpu.thread_id x
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %ones = arith.constant dense<1.0> : vector<4xf32>
  %sm = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %at = arith.muli %t, %c4 : index
  vector.store %ones, %sm[%at] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  %last = arith.addi %at, %c3 : index
  %own = memref.load %sm[%last] : memref<64xf32, #gpu.address_space<workgroup>>
  %next = arith.addi %at, %c7 : index
  %in = arith.cmpi ult, %next, %c64 : index
  scf.if %in {
    %v = memref.load %sm[%next] : memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}
// Only the neighbour's element races: 4(t + 1) + 3, written by the vector's fourth lane.
// CHECK: vector-store.mlir:21:5: error: unsynchronized RAW dependence: memref.load at {{.*}}vector-store.mlir:21:5 reads what another thread wrote at vector.store at {{.*}}vector-store.mlir:15:3 (threads (1,0,0) and (0,0,0) both touch %sm[7])
// CHECK-NOT: vector-store.mlir:17
// CHECK: error: verify-sync: 1 unsynchronized dependence

// -----

func.func @ordered() attributes {gpu.known_block_size = array<i32: 16, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>} {
  %t = gpu.thread_id x
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %ones = arith.constant dense<1.0> : vector<4xf32>
  %sm = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %at = arith.muli %t, %c4 : index
  vector.store %ones, %sm[%at] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  gpu.barrier
  %next = arith.addi %at, %c7 : index
  %in = arith.cmpi ult, %next, %c64 : index
  scf.if %in {
    %v = memref.load %sm[%next] : memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}
// CHECK-NOT: error
