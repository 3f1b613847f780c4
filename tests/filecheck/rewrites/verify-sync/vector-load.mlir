// A 1-D vector.load reads its width of elements along the last index: thread t's store of
// element 4t + 3 and thread t's vector load of elements 4t .. 4t + 3 are one thread's (no race),
// but a load one vector further reads what the next thread stored, and the barrier orders it.
// RUN: not xsplit-opt %s --split-input-file -p verify-sync 2>&1 | filecheck %s

func.func @race() attributes {gpu.known_block_size = array<i32: 16, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>} {
  %t = gpu.thread_id x
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c60 = arith.constant 60 : index
  %one = arith.constant 1.0 : f32
  %sm = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %at = arith.muli %t, %c4 : index
  %last = arith.addi %at, %c3 : index
  memref.store %one, %sm[%last] : memref<64xf32, #gpu.address_space<workgroup>>
  %own = vector.load %sm[%at] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  %next = arith.addi %at, %c4 : index
  %in = arith.cmpi ult, %next, %c60 : index
  scf.if %in {
    %v = vector.load %sm[%next] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  }
  return
}
// Only the neighbour's load races: at its fourth element (4(t + 1) + 3).
// CHECK: vector-load.mlir:20:5: error: unsynchronized RAW dependence: vector.load at {{.*}}vector-load.mlir:20:5 reads what another thread wrote at memref.store at {{.*}}vector-load.mlir:15:3 (threads (1,0,0) and (0,0,0) both touch %sm[7])
// CHECK-NOT: vector-load.mlir:16
// CHECK: error: verify-sync: 1 unsynchronized dependence

// -----

func.func @ordered() attributes {gpu.known_block_size = array<i32: 16, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>} {
  %t = gpu.thread_id x
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c60 = arith.constant 60 : index
  %one = arith.constant 1.0 : f32
  %sm = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %at = arith.muli %t, %c4 : index
  %last = arith.addi %at, %c3 : index
  memref.store %one, %sm[%last] : memref<64xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %next = arith.addi %at, %c4 : index
  %in = arith.cmpi ult, %next, %c60 : index
  scf.if %in {
    %v = vector.load %sm[%next] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  }
  return
}
// CHECK-NOT: error
