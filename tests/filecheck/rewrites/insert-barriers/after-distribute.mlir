// The seed's question asked before distribution: a fill and a matmul, each an
// scf.forall mapped to threads. insert-barriers works on the loops (a barrier
// between them where distributing them would race) or on what `distribute`
// makes of them.
// RUN: xsplit-opt %s --split-input-file -p distribute,insert-barriers 2>&1 | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p insert-barriers 2>&1 | filecheck %s --check-prefix=LOOPS

func.func @fill_matmul(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) attributes {gpu.known_block_size = array<i32: 8, 8, 1>} {
  %cst = arith.constant 0.0 : f32
  scf.forall (%ty, %tx) in (8, 8) {
    %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%ty)
    %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%tx)
    %cf = memref.subview %c[%i, %j] [4, 4] [1, 1] : memref<32x32xf32> to memref<4x4xf32, strided<[32, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%cf : memref<4x4xf32, strided<[32, 1], offset: ?>>)
  } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
  scf.forall (%ty, %tx) in (8, 8) {
    %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%ty)
    %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%tx)
    %av = memref.subview %a[%i, 0] [4, 64] [1, 1] : memref<32x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    %bv = memref.subview %b[0, %j] [64, 4] [1, 1] : memref<64x32xf32> to memref<64x4xf32, strided<[32, 1], offset: ?>>
    %cm = memref.subview %c[%i, %j] [4, 4] [1, 1] : memref<32x32xf32> to memref<4x4xf32, strided<[32, 1], offset: ?>>
    linalg.matmul ins(%av, %bv : memref<4x64xf32, strided<[64, 1], offset: ?>>, memref<64x4xf32, strided<[32, 1], offset: ?>>) outs(%cm : memref<4x4xf32, strided<[32, 1], offset: ?>>)
  } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
  return
}

// -----

func.func @fill_rows_matmul(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) attributes {gpu.known_block_size = array<i32: 8, 8, 1>} {
  %cst = arith.constant 0.0 : f32
  scf.forall (%r) in (32) {
    %i = affine.apply affine_map<(d0) -> (d0)>(%r)
    %j = arith.constant 0 : index
    %cf = memref.subview %c[%i, %j] [1, 32] [1, 1] : memref<32x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%cf : memref<1x32xf32, strided<[32, 1], offset: ?>>)
  } {mapping = [#gpu.thread<linear_dim_0>]}
  scf.forall (%ty, %tx) in (8, 8) {
    %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%ty)
    %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%tx)
    %av = memref.subview %a[%i, 0] [4, 64] [1, 1] : memref<32x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    %bv = memref.subview %b[0, %j] [64, 4] [1, 1] : memref<64x32xf32> to memref<64x4xf32, strided<[32, 1], offset: ?>>
    %cm = memref.subview %c[%i, %j] [4, 4] [1, 1] : memref<32x32xf32> to memref<4x4xf32, strided<[32, 1], offset: ?>>
    linalg.matmul ins(%av, %bv : memref<4x64xf32, strided<[64, 1], offset: ?>>, memref<64x4xf32, strided<[32, 1], offset: ?>>) outs(%cm : memref<4x4xf32, strided<[32, 1], offset: ?>>)
  } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
  return
}

// CHECK: after-distribute.mlir:22:5: remark: no barrier needed between linalg.fill at {{.*}}:14:5 and linalg.matmul at {{.*}}:22:5: every element both touch is touched by one thread only, which wrote it itself: write %c[r0 + 4*ty, r1 + 4*tx], read %c[r0 + 4*ty, r1 + 4*tx] (checked for all 64 threads of the block)
// CHECK: after-distribute.mlir:43:5: remark: inserted gpu.barrier before linalg.matmul at {{.*}}:43:5: RAW dependence from linalg.fill at {{.*}}:35:5 to linalg.matmul at {{.*}}:43:5 (threads (0,0,0) and (1,0,0) both touch %c[0, 4])
// CHECK-LABEL: func.func @fill_matmul(
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.thread_id
// CHECK-NOT:     gpu.barrier
// CHECK:         func.return
// CHECK-LABEL: func.func @fill_rows_matmul(
// CHECK:         scf.if
// CHECK:           linalg.fill
// CHECK:         gpu.barrier
// CHECK-NEXT:    linalg.matmul
// CHECK-NOT:     gpu.barrier

// LOOPS: after-distribute.mlir:22:5: remark: no barrier needed between linalg.fill at {{.*}}:14:5 and linalg.matmul at {{.*}}:22:5
// LOOPS: after-distribute.mlir:37:3: remark: inserted gpu.barrier before scf.forall at {{.*}}:37:3: RAW dependence from linalg.fill at {{.*}}:35:5 to linalg.matmul at {{.*}}:43:5
// LOOPS-LABEL: func.func @fill_matmul(
// LOOPS-NOT:     gpu.barrier
// LOOPS:         func.return
// LOOPS-LABEL: func.func @fill_rows_matmul(
// LOOPS:         scf.forall (%r) in (32)
// LOOPS:         } {mapping = [#gpu.thread<linear_dim_0>]}
// LOOPS-NEXT:    gpu.barrier
// LOOPS-NEXT:    scf.forall (%ty, %tx) in (8, 8)
// LOOPS-NOT:     gpu.barrier
