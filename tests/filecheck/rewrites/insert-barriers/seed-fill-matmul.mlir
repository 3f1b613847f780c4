// The seed's fill + matmul, tiled and distributed to threads one op at a time.
// Same tiling: each thread reads back only what it filled, so no barrier, and
// a remark that proves it. Different tiling (the fill cyclic over rows): a
// barrier before the matmul. The seed's full form (workgroup loops, shared
// memory staged in the K loop) with its barriers removed gets exactly IREE's
// two back: before the copies (WAR on the previous iteration's reads) and
// before the matmul (RAW on the copies).
// RUN: xsplit-opt %s --split-input-file -p insert-barriers 2>&1 | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p insert-barriers,verify-sync 2>/dev/null | xsplit-opt --split-input-file -p insert-barriers 2>/dev/null | filecheck %s --check-prefix=STABLE

func.func @fill_matmul(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) attributes {gpu.known_block_size = array<i32: 8, 8, 1>} {
  %tx = gpu.thread_id x
  %ty = gpu.thread_id y
  %cst = arith.constant 0.0 : f32
  %i = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%ty]
  %j = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%tx]
  %cf = memref.subview %c[%i, %j] [4, 4] [1, 1] : memref<32x32xf32> to memref<4x4xf32, strided<[32, 1], offset: ?>>
  linalg.fill ins(%cst : f32) outs(%cf : memref<4x4xf32, strided<[32, 1], offset: ?>>)
  %av = memref.subview %a[%i, 0] [4, 64] [1, 1] : memref<32x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
  %bv = memref.subview %b[0, %j] [64, 4] [1, 1] : memref<64x32xf32> to memref<64x4xf32, strided<[32, 1], offset: ?>>
  %cm = memref.subview %c[%i, %j] [4, 4] [1, 1] : memref<32x32xf32> to memref<4x4xf32, strided<[32, 1], offset: ?>>
  linalg.matmul ins(%av, %bv : memref<4x64xf32, strided<[64, 1], offset: ?>>, memref<64x4xf32, strided<[32, 1], offset: ?>>) outs(%cm : memref<4x4xf32, strided<[32, 1], offset: ?>>)
  return
}

// -----

func.func @fill_matmul_rows(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) attributes {gpu.known_block_size = array<i32: 8, 8, 1>} {
  %tx = gpu.thread_id x
  %ty = gpu.thread_id y
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %lin = affine.apply affine_map<()[s0, s1] -> (s0 * 8 + s1)>()[%ty, %tx]
  scf.for %r = %lin to %c32 step %c64 {
    %cf = memref.subview %c[%r, 0] [1, 32] [1, 1] : memref<32x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%cf : memref<1x32xf32, strided<[32, 1], offset: ?>>)
  }
  %i = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%ty]
  %j = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%tx]
  %av = memref.subview %a[%i, 0] [4, 64] [1, 1] : memref<32x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
  %bv = memref.subview %b[0, %j] [64, 4] [1, 1] : memref<64x32xf32> to memref<64x4xf32, strided<[32, 1], offset: ?>>
  %cm = memref.subview %c[%i, %j] [4, 4] [1, 1] : memref<32x32xf32> to memref<4x4xf32, strided<[32, 1], offset: ?>>
  linalg.matmul ins(%av, %bv : memref<4x64xf32, strided<[64, 1], offset: ?>>, memref<64x4xf32, strided<[32, 1], offset: ?>>) outs(%cm : memref<4x4xf32, strided<[32, 1], offset: ?>>)
  return
}

// -----

func.func @dot(%lhs: memref<64x64xf32>, %rhs: memref<64x64xf32>, %out: memref<64x64xf32>) attributes {gpu.known_block_size = array<i32: 8, 8, 1>, gpu.known_grid_size = array<i32: 1, 2, 1>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.0 : f32
  %sa = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
  %sb = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %tx = gpu.thread_id x
  %ty = gpu.thread_id y
  %row0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%by]
  %rstep = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%gy]
  scf.for %i = %row0 to %c64 step %rstep {
    %col0 = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bx]
    %cstep = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%gx]
    scf.for %j = %col0 to %c64 step %cstep {
      %ti = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%ty]
      %tj = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%tx]
      %fi = arith.addi %i, %ti : index
      %fj = arith.addi %j, %tj : index
      %cf = memref.subview %out[%fi, %fj] [4, 4] [1, 1] : memref<64x64xf32> to memref<4x4xf32, strided<[64, 1], offset: ?>>
      linalg.fill ins(%cst : f32) outs(%cf : memref<4x4xf32, strided<[64, 1], offset: ?>>)
      scf.for %k = %c0 to %c64 step %c16 {
        %ai = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%ty]
        %ak = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%tx]
        %gai = arith.addi %i, %ai : index
        %gak = arith.addi %k, %ak : index
        %asrc = memref.subview %lhs[%gai, %gak] [4, 2] [1, 1] : memref<64x64xf32> to memref<4x2xf32, strided<[64, 1], offset: ?>>
        %adst = memref.subview %sa[%ai, %ak] [4, 2] [1, 1] : memref<32x16xf32, #gpu.address_space<workgroup>> to memref<4x2xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%asrc : memref<4x2xf32, strided<[64, 1], offset: ?>>) outs(%adst : memref<4x2xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>)
        %bk = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%ty]
        %bj = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%tx]
        %gbk = arith.addi %k, %bk : index
        %gbj = arith.addi %j, %bj : index
        %bsrc = memref.subview %rhs[%gbk, %gbj] [2, 4] [1, 1] : memref<64x64xf32> to memref<2x4xf32, strided<[64, 1], offset: ?>>
        %bdst = memref.subview %sb[%bk, %bj] [2, 4] [1, 1] : memref<16x32xf32, #gpu.address_space<workgroup>> to memref<2x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%bsrc : memref<2x4xf32, strided<[64, 1], offset: ?>>) outs(%bdst : memref<2x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>)
        %mi = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%ty]
        %mj = affine.apply affine_map<()[s0] -> (s0 * 4)>()[%tx]
        %av = memref.subview %sa[%mi, 0] [4, 16] [1, 1] : memref<32x16xf32, #gpu.address_space<workgroup>> to memref<4x16xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>
        %bv = memref.subview %sb[0, %mj] [16, 4] [1, 1] : memref<16x32xf32, #gpu.address_space<workgroup>> to memref<16x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
        %gi = arith.addi %i, %mi : index
        %gj = arith.addi %j, %mj : index
        %cv = memref.subview %out[%gi, %gj] [4, 4] [1, 1] : memref<64x64xf32> to memref<4x4xf32, strided<[64, 1], offset: ?>>
        linalg.matmul ins(%av, %bv : memref<4x16xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<16x4xf32, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%cv : memref<4x4xf32, strided<[64, 1], offset: ?>>)
      }
    }
  }
  return
}

// CHECK: seed-fill-matmul.mlir:22:3: remark: no barrier needed between linalg.fill at {{.*}}seed-fill-matmul.mlir:18:3 and linalg.matmul at {{.*}}seed-fill-matmul.mlir:22:3: every element both touch is touched by one thread only, which wrote it itself: write %c[r0 + 4*ty, r1 + 4*tx], read %c[r0 + 4*ty, r1 + 4*tx] (checked for all 64 threads of the block)
// CHECK: seed-fill-matmul.mlir:45:3: remark: inserted gpu.barrier before linalg.matmul at {{.*}}:45:3: RAW dependence from linalg.fill at {{.*}}seed-fill-matmul.mlir:38:5 to linalg.matmul at {{.*}}:45:3 (threads (0,0,0) and (1,0,0) both touch %c[0, 4])
// CHECK: seed-fill-matmul.mlir:99:9: remark: no barrier needed between linalg.fill at {{.*}}seed-fill-matmul.mlir:76:7 and linalg.matmul at {{.*}}seed-fill-matmul.mlir:99:9: {{.*}}: write %out[i + r0 + 4*ty, j + r1 + 4*tx], read %out[i + r0 + 4*ty, j + r1 + 4*tx]
// CHECK: seed-fill-matmul.mlir:84:9: remark: inserted gpu.barrier before linalg.copy at {{.*}}:84:9: WAR dependence across loop iterations from linalg.matmul at {{.*}}:99:9 to linalg.copy at {{.*}}:84:9
// CHECK: seed-fill-matmul.mlir:99:9: remark: inserted gpu.barrier before linalg.matmul at {{.*}}:99:9: RAW dependence from linalg.copy at {{.*}}:84:9 to linalg.matmul

// CHECK-LABEL: func.func @fill_matmul(
// CHECK-NOT:     gpu.barrier
// CHECK:         linalg.fill
// CHECK-NOT:     gpu.barrier
// CHECK:         linalg.matmul
// CHECK-NOT:     gpu.barrier
// CHECK:         func.return

// CHECK-LABEL: func.func @fill_matmul_rows(
// CHECK-NOT:     gpu.barrier
// CHECK:         scf.for
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:    }
// CHECK-NOT:     gpu.barrier
// CHECK:         memref.subview %c
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    linalg.matmul
// CHECK-NOT:     gpu.barrier
// CHECK:         func.return

// CHECK-LABEL: func.func @dot(
// CHECK-NOT:     gpu.barrier
// CHECK:         linalg.fill
// CHECK-NOT:     gpu.barrier
// CHECK:         scf.for %k
// CHECK-NOT:       gpu.barrier
// CHECK:           memref.subview %sa
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      linalg.copy
// CHECK-NOT:       gpu.barrier
// CHECK:           linalg.copy
// CHECK-NOT:       gpu.barrier
// CHECK:           memref.subview %out
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      linalg.matmul
// CHECK-NOT:     gpu.barrier
// CHECK:         func.return

// Running it again on its own output adds nothing.
// STABLE-LABEL: func.func @fill_matmul(
// STABLE-NOT:   gpu.barrier
// STABLE-LABEL: func.func @fill_matmul_rows(
// STABLE-COUNT-1: gpu.barrier
// STABLE-NOT:   gpu.barrier
// STABLE-LABEL: func.func @dot(
// STABLE-COUNT-2: gpu.barrier
// STABLE-NOT:   gpu.barrier
