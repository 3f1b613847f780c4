// What the analysis cannot decide is a warning, never a silent pass: here a
// workgroup-memory index read from memory.
// RUN: xsplit-opt %s -p verify-sync 2>&1 | filecheck %s

func.func @indirect(%a: memref<64xf32>, %idx: memref<64xindex>, %b: memref<64xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %i = memref.load %idx[%t] : memref<64xindex>
  %v = memref.load %a[%t] : memref<64xf32>
  memref.store %v, %s[%i] : memref<64xf32, #gpu.address_space<workgroup>>
  %w = memref.load %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %w, %b[%t] : memref<64xf32>
  return
}

// CHECK: undecidable.mlir:10:3: warning: cannot decide whether memref.store at {{.*}}:10:3 overwrites what another thread wrote at memref.store at {{.*}}:10:3: an index is not an affine or thread-computable function; no gpu.barrier orders them
// CHECK: undecidable.mlir:11:3: warning: cannot decide whether memref.load at {{.*}}:11:3 reads what another thread wrote at memref.store at {{.*}}:10:3: an index is not an affine or thread-computable function; no gpu.barrier orders them
// CHECK-NOT: error
// CHECK: func.func @indirect
// CHECK-NOT: gpu.barrier
