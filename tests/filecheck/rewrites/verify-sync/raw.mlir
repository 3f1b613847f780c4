// A read of workgroup memory another thread wrote, with no barrier between.
// RUN: not xsplit-opt %s -p verify-sync 2>&1 | filecheck %s

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

// CHECK: raw.mlir:27:5: error: unsynchronized RAW dependence: memref.load at {{.*}}raw.mlir:27:5 reads what another thread wrote at memref.store at {{.*}}raw.mlir:22:5 (threads (32,0,0) and (0,0,0) both touch %sm[1]); no gpu.barrier between them
// CHECK-NEXT: raw.mlir:4:1: error: verify-sync: 1 unsynchronized dependence
// CHECK-NOT: builtin.module
