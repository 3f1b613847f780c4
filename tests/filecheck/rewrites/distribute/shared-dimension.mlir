// A loop nest whose loops share one processor dimension: the chunk loop on
// #gpu.block<x> around a tile loop on [#gpu.block<y>, #gpu.block<x>]. The
// shared x is linearized (3 chunks x 2 column tiles, chunk-major); y is
// mapped as it would be alone.
// RUN: xsplit-opt --split-input-file %s -p distribute > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=REMARK < %t.0.err
// RUN: filecheck %s < %t.0.out
// RUN: xsplit-opt --split-input-file %s -p 'distribute{grid=4,2}' 2>&1 | filecheck %s --check-prefix=CYCLIC
// RUN: xsplit-opt --split-input-file %s -p 'distribute{grid=8,5}' 2>&1 | filecheck %s --check-prefix=GUARDED
// RUN: not xsplit-opt --split-input-file %s -p 'distribute{grid=5,4 strategy=exact}' 2>&1 | filecheck %s --check-prefix=UNPROVEN
// RUN: iree-opt --split-input-file < %t.0.out > /dev/null

// REMARK: shared-dimension.mlir:[[# @LINE + 38]]:3: remark: distribute: linearized the nested loop at {{.*}}shared-dimension.mlir:[[# @LINE + 40]]:5 (#gpu.block<x>) with this one (#gpu.block<x>) onto one processor space #gpu.block<x>: 3 x 2 iterations
// REMARK: shared-dimension.mlir:[[# @LINE + 37]]:3: remark: distribute: dimensions on #gpu.block<x>: exact: trip count 6 = 6 processors (gpu.known_grid_size): no loop, no guard
// REMARK: shared-dimension.mlir:[[# @LINE + 36]]:3: remark: distribute: dimension on #gpu.block<y>: exact: trip count 4 = 4 processors (gpu.known_grid_size): no loop, no guard
// CHECK-LABEL: func.func @partials
// CHECK-NOT:   scf.forall
// CHECK:       %[[X:.*]] = gpu.block_id x
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[TILE:.*]] = arith.remui %[[X]], %[[C2]] : index
// CHECK-NEXT:  %[[CHUNK:.*]] = arith.divui %[[X]], %[[C2]] : index
// CHECK-NEXT:  %[[J:.*]] = affine.apply affine_map<(d0) -> ((d0 * 8))> (%[[TILE]])
// CHECK-NEXT:  %[[Y:.*]] = gpu.block_id y
// CHECK-NEXT:  %[[I:.*]] = affine.apply affine_map<(d0) -> ((d0 * 4))> (%[[Y]])
// CHECK-NEXT:  %[[K0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 10))> (%[[CHUNK]])
// CHECK-NEXT:  memref.subview %{{.*}}[%[[I]], %[[K0]]] [4, 10] [1, 1]
// CHECK-NEXT:  memref.subview %{{.*}}[%[[K0]], %[[J]]] [10, 8] [1, 1]
// CHECK-NEXT:  memref.subview %{{.*}}[%[[CHUNK]], %[[I]], %[[J]]] [1, 4, 8] [1, 1, 1]
// CHECK-NEXT:  linalg.fill
// CHECK-NEXT:  linalg.matmul
// CHECK-NEXT:  func.return

// 4 x-blocks for 6 iterations on x, 2 y-blocks for 4 on y: both loop.
// CYCLIC:      remark: distribute: dimensions on #gpu.block<x>: cyclic: trip count 6 > 4 processors
// CYCLIC:      remark: distribute: dimension on #gpu.block<y>: cyclic: trip count 4 > 2 processors
// CYCLIC:      %[[X:.*]] = gpu.block_id x
// CYCLIC:      scf.for %[[L:.*]] = %[[X]] to %{{.*}} step %{{.*}} {
// CYCLIC:        %[[Y:.*]] = gpu.block_id y
// CYCLIC:        scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CYCLIC:          linalg.matmul

// GUARDED:     remark: distribute: dimensions on #gpu.block<x>: oversubscribed: trip count 6 <= 8 processors
// GUARDED:     remark: distribute: dimension on #gpu.block<y>: oversubscribed: trip count 4 <= 5 processors
// GUARDED:     scf.if
// GUARDED:     scf.if
// GUARDED:     linalg.matmul

// UNPROVEN:    error: distribute: strategy=exact needs trip count = processor count, which is not proven: trip count 6, 5 processors
func.func @partials(%a: memref<16x30xf32>, %b: memref<30x16xf32>, %p: memref<3x16x16xf32>) attributes {gpu.known_grid_size = array<i32: 6, 4, 1>} {
  %zero = arith.constant 0.0 : f32
  scf.forall (%c) in (3) {
    %k0 = affine.apply affine_map<(d0) -> (d0 * 10)>(%c)
    scf.forall (%i, %j) = (0, 0) to (16, 16) step (4, 8) {
      %ta = memref.subview %a[%i, %k0] [4, 10] [1, 1] : memref<16x30xf32> to memref<4x10xf32, strided<[30, 1], offset: ?>>
      %tb = memref.subview %b[%k0, %j] [10, 8] [1, 1] : memref<30x16xf32> to memref<10x8xf32, strided<[16, 1], offset: ?>>
      %tp = memref.subview %p[%c, %i, %j] [1, 4, 8] [1, 1, 1] : memref<3x16x16xf32> to memref<4x8xf32, strided<[16, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%tp : memref<4x8xf32, strided<[16, 1], offset: ?>>)
      linalg.matmul ins(%ta, %tb : memref<4x10xf32, strided<[30, 1], offset: ?>>, memref<10x8xf32, strided<[16, 1], offset: ?>>) outs(%tp : memref<4x8xf32, strided<[16, 1], offset: ?>>)
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}

// -----

// Three levels on #gpu.block<x>, linearized level by level into one loop of
// 2 x 3 x 4 iterations: distributing the innermost on its own would give
// each block only the iterations whose ids agree at every level.
// REMARK: shared-dimension.mlir:[[# @LINE + 14]]:3: remark: distribute: linearized the nested loop at {{.*}}shared-dimension.mlir:[[# @LINE + 15]]:5 (#gpu.block<x>) with this one (#gpu.block<x>) onto one processor space #gpu.block<x>: 2 x 3 iterations
// REMARK: shared-dimension.mlir:[[# @LINE + 13]]:3: remark: distribute: linearized the nested loop at {{.*}}shared-dimension.mlir:[[# @LINE + 15]]:7 (#gpu.block<x>) with this one (#gpu.block<x>) onto one processor space #gpu.block<x>: 6 x 4 iterations
// REMARK: shared-dimension.mlir:[[# @LINE + 12]]:3: remark: distribute: dimensions on #gpu.block<x>: exact: trip count 24 = 24 processors
// CHECK-LABEL: func.func @deep
// CHECK:       %[[X:.*]] = gpu.block_id x
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[K:.*]] = arith.remui %[[X]], %[[C4]] : index
// CHECK-NEXT:  %[[R:.*]] = arith.divui %[[X]], %[[C4]] : index
// CHECK-NEXT:  %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:  %[[J:.*]] = arith.remui %[[R]], %[[C3]] : index
// CHECK-NEXT:  %[[I:.*]] = arith.divui %[[R]], %[[C3]] : index
// CHECK-NEXT:  memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]] : memref<2x3x4xf32>
func.func @deep(%out: memref<2x3x4xf32>) attributes {gpu.known_grid_size = array<i32: 24, 1, 1>} {
  %v = arith.constant 1.0 : f32
  scf.forall (%i) in (2) {
    scf.forall (%j) in (3) {
      scf.forall (%k) in (4) {
        memref.store %v, %out[%i, %j, %k] : memref<2x3x4xf32>
      } {mapping = [#gpu.block<x>]}
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}
