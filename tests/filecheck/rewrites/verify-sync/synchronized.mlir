// A correctly synchronized kernel passes unchanged: the seed's staged matmul.
// RUN: xsplit-opt %s -p verify-sync 2>&1 | filecheck %s

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
        gpu.barrier
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
        gpu.barrier
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

// CHECK-NOT: error
// CHECK-NOT: warning
// CHECK:     scf.for %k
// CHECK-NEXT:  gpu.barrier
// CHECK:       linalg.copy
// CHECK:       linalg.copy
// CHECK:       gpu.barrier
// CHECK:       linalg.matmul
