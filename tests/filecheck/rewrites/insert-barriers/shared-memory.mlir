// Barriers for workgroup memory: as few as serve every dependence, none for
// atomics against atomics or private memory, a warning where none can go.
// RUN: xsplit-opt %s --split-input-file -p insert-barriers 2>&1 | filecheck %s

func.func @reduce(%a: memref<4x64xf32>, %o: memref<4xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>} {
  %t = gpu.thread_id x
  %row = gpu.block_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %off = arith.constant 16 : i32
  %w = arith.constant 32 : i32
  %v = memref.load %a[%row, %t] : memref<4x64xf32>
  %r, %valid = gpu.shuffle xor %v, %off, %w : f32
  %s = arith.addf %v, %r : f32
  %total = gpu.subgroup_reduce add %s : (f32) -> f32
  %sm = memref.alloc() : memref<2xf32, #gpu.address_space<workgroup>>
  %warp = arith.divui %t, %c32 : index
  %lane = arith.remui %t, %c32 : index
  %first = arith.cmpi eq, %lane, %c0 : index
  scf.if %first {
    memref.store %total, %sm[%warp] : memref<2xf32, #gpu.address_space<workgroup>>
  }
  %is0 = arith.cmpi eq, %t, %c0 : index
  scf.if %is0 {
    %x = memref.load %sm[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
    %y = memref.load %sm[%c1] : memref<2xf32, #gpu.address_space<workgroup>>
    %z = arith.addf %x, %y : f32
    %h = arith.constant 0.5 : f32
    %zz = arith.mulf %z, %h : f32
    %old = memref.atomic_rmw addf %zz, %o[%row] : (f32, memref<4xf32>) -> f32
  }
  return
}

// -----

func.func @two_buffers_one_barrier(%a: memref<64xf32>, %b: memref<64xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %s1 = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %s2 = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %v = memref.load %a[%t] : memref<64xf32>
  memref.store %v, %s1[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %v, %s2[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  %n = arith.subi %c63, %t : index
  %x = memref.load %s1[%n] : memref<64xf32, #gpu.address_space<workgroup>>
  %y = memref.load %s2[%n] : memref<64xf32, #gpu.address_space<workgroup>>
  %z = arith.addf %x, %y : f32
  memref.store %z, %b[%t] : memref<64xf32>
  return
}

// -----

func.func @neighbours_in_a_loop(%a: memref<4x32xf32>, %b: memref<4x32xf32>) attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %s = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
  scf.for %k = %c0 to %c4 step %c1 {
    %v = memref.load %a[%k, %t] : memref<4x32xf32>
    memref.store %v, %s[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    %t1 = arith.addi %t, %c1 : index
    %n = arith.remui %t1, %c32 : index
    %w = memref.load %s[%n] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %b[%k, %t] : memref<4x32xf32>
  }
  return
}

// -----

func.func @atomics_and_private(%a: memref<64xf32>, %o: memref<4xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %p = memref.alloca() : memref<1xf32, #gpu.address_space<private>>
  %v = memref.load %a[%t] : memref<64xf32>
  memref.store %v, %p[%c0] : memref<1xf32, #gpu.address_space<private>>
  %q = arith.remui %t, %c4 : index
  %w = memref.load %p[%c0] : memref<1xf32, #gpu.address_space<private>>
  %o1 = memref.atomic_rmw addf %w, %o[%q] : (f32, memref<4xf32>) -> f32
  %o2 = memref.atomic_rmw addf %v, %o[%q] : (f32, memref<4xf32>) -> f32
  return
}

// -----

func.func @divergent(%a: memref<64xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %low = arith.cmpi ult, %t, %c32 : index
  scf.if %low {
    %v = memref.load %a[%t] : memref<64xf32>
    memref.store %v, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    %t1 = arith.addi %t, %c1 : index
    %w = memref.load %s[%t1] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %a[%t] : memref<64xf32>
  }
  return
}

// CHECK: shared-memory.mlir:26:3: remark: inserted gpu.barrier before scf.if at {{.*}}: RAW dependence from memref.store at {{.*}}:23:5 to memref.load at {{.*}}:28:5 (threads (32,0,0) and (0,0,0) both touch %sm[1])
// CHECK: shared-memory.mlir:49:3: remark: inserted gpu.barrier before memref.load at {{.*}}:49:3: RAW dependence
// CHECK-NOT: shared-memory.mlir:50:3: remark: inserted
// CHECK: shared-memory.mlir:67:5: remark: inserted gpu.barrier before memref.store at {{.*}}:67:5: WAR dependence across loop iterations from memref.load at {{.*}}:70:5 to memref.store at {{.*}}:67:5
// CHECK: shared-memory.mlir:70:5: remark: inserted gpu.barrier before memref.load at {{.*}}:70:5: RAW dependence from memref.store at {{.*}}:67:5
// CHECK: shared-memory.mlir:104:5: warning: RAW dependence between memref.store at {{.*}}:102:5 and memref.load at {{.*}}:104:5 cannot be ordered by gpu.barrier: a barrier would have to go under thread-dependent control flow ('scf.if' at {{.*}}:100:3)

// CHECK-LABEL: func.func @reduce(
// CHECK:         scf.if %first {
// CHECK-NEXT:      memref.store %total, %sm[%warp]
// CHECK-NEXT:    }
// CHECK-NEXT:    %is0 = arith.cmpi eq
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.if %is0 {
// CHECK-NOT:     gpu.barrier

// One barrier serves both buffers.
// CHECK-LABEL: func.func @two_buffers_one_barrier(
// CHECK:         memref.store %v, %s2[%t]
// CHECK-NEXT:    %n = arith.subi
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    %x = memref.load %s1[%n]
// CHECK-NEXT:    %y = memref.load %s2[%n]
// CHECK-NOT:     gpu.barrier

// The next iteration's store must wait for this iteration's neighbour's load.
// CHECK-LABEL: func.func @neighbours_in_a_loop(
// CHECK:         scf.for %k
// CHECK-NEXT:      %v = memref.load %a[%k, %t]
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      memref.store %v, %s[%t]
// CHECK:           gpu.barrier
// CHECK-NEXT:      %w = memref.load %s[%n]
// CHECK-NOT:     gpu.barrier

// CHECK-LABEL: func.func @atomics_and_private(
// CHECK-NOT:     gpu.barrier
// CHECK:         func.return

// CHECK-LABEL: func.func @divergent(
// CHECK-NOT:     gpu.barrier
// CHECK:         func.return
