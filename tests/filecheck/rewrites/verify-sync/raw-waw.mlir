// The seed's fill and matmul tiled differently, with no barrier: RAW and WAW.
// RUN: not xsplit-opt %s -p verify-sync 2>&1 | filecheck %s

func.func @fill_matmul(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) attributes {gpu.known_block_size = array<i32: 8, 8, 1>} {
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

// CHECK: raw-waw.mlir:21:3: error: unsynchronized RAW dependence: linalg.matmul at {{.*}}raw-waw.mlir:21:3 reads what another thread wrote at linalg.fill at {{.*}}raw-waw.mlir:14:5 (threads (0,0,0) and (1,0,0) both touch %c[0, 4]); no gpu.barrier between them
// CHECK-NEXT: raw-waw.mlir:21:3: error: unsynchronized WAW dependence: linalg.matmul at {{.*}}raw-waw.mlir:21:3 overwrites what another thread wrote at linalg.fill at {{.*}}raw-waw.mlir:14:5
// CHECK-NEXT: raw-waw.mlir:4:1: error: verify-sync: 2 unsynchronized dependences
