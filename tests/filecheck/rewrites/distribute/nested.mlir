// A split-K chunk loop around a tile loop, both on #gpu.block<x>, is
// linearized onto one processor space; a nest that maps levels
// inconsistently is an error at the inner loop.
// RUN: xsplit-opt %s -p distribute 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt %s -p distribute 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s -p 'distribute{grid=6}' 2>/dev/null | filecheck %s --check-prefix=CYCLIC
// RUN: xsplit-opt %s -p distribute | iree-opt > /dev/null

// 4 chunks of K x 8 tiles of 2 rows = 32 iterations on 32 blocks: block b
// takes chunk b / 8 and tile b mod 8.
// REMARK: nested.mlir:[[# @LINE + 23]]:3: remark: distribute: linearized the nested loop at {{.*}}nested.mlir:[[# @LINE + 26]]:5 (#gpu.block<x>) with this one (#gpu.block<x>) onto one processor space #gpu.block<x>: 4 x 8 iterations
// REMARK: nested.mlir:[[# @LINE + 22]]:3: remark: distribute: dimensions on #gpu.block<x>: exact: trip count 32 = 32 processors (gpu.known_grid_size): no loop, no guard
// CHECK-LABEL: func.func @splitk
// CHECK-NOT:   scf.forall
// CHECK:       %[[B:.*]] = gpu.block_id x
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:  %[[TILE:.*]] = arith.remui %[[B]], %[[C8]] : index
// CHECK-NEXT:  %[[CHUNK:.*]] = arith.divui %[[B]], %[[C8]] : index
// CHECK-NEXT:  %[[K0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 25))> (%[[CHUNK]])
// CHECK-NEXT:  %{{.*}} = affine.apply affine_map<(d0) -> (((d0 * 25) + 25))> (%[[CHUNK]])
// CHECK-NEXT:  %[[M0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 2))> (%[[TILE]])
// CHECK-NOT:   scf.forall
// CHECK:       memref.atomic_rmw addf
// CYCLIC:      %[[B:.*]] = gpu.block_id x
// CYCLIC-NEXT: %[[T:.*]] = arith.constant 32 : index
// CYCLIC-NEXT: %[[P:.*]] = arith.constant 6 : index
// CYCLIC-NEXT: scf.for %[[L:.*]] = %[[B]] to %[[T]] step %[[P]] {
// CYCLIC-NEXT:   %[[C8:.*]] = arith.constant 8 : index
// CYCLIC-NEXT:   %{{.*}} = arith.remui %[[L]], %[[C8]] : index
// CYCLIC-NEXT:   %{{.*}} = arith.divui %[[L]], %[[C8]] : index
func.func @splitk(%a: memref<16x100xf32>, %b: memref<100xf32>, %out: memref<16xf32>) attributes {gpu.known_grid_size = array<i32: 32, 1, 1>} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%chunk) in (4) {
    %k0 = affine.apply affine_map<(d0) -> (d0 * 25)>(%chunk)
    %k1 = affine.apply affine_map<(d0) -> (d0 * 25 + 25)>(%chunk)
    scf.forall (%tile) in (8) {
      %m0 = affine.apply affine_map<(d0) -> (d0 * 2)>(%tile)
      %m1 = affine.apply affine_map<(d0) -> (d0 * 2 + 2)>(%tile)
      scf.for %m = %m0 to %m1 step %c1 {
        %s = scf.for %k = %k0 to %k1 step %c1 iter_args(%acc = %zero) -> (f32) {
          %x = memref.load %a[%m, %k] : memref<16x100xf32>
          %y = memref.load %b[%k] : memref<100xf32>
          %p = arith.mulf %x, %y : f32
          %r = arith.addf %acc, %p : f32
          scf.yield %r : f32
        }
        %old = memref.atomic_rmw addf %s, %out[%m] : (f32, memref<16xf32>) -> f32
      }
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}

// Chunks on z and tiles on x are two axes of the grid: nothing to linearize,
// and a thread loop inside is the next level down.
// REMARK: nested.mlir:[[# @LINE + 11]]:3: remark: distribute: dimension on #iree_linalg_ext.split_reduction_mapping<0>: exact
// REMARK: nested.mlir:[[# @LINE + 11]]:5: remark: distribute: dimension on #gpu.block<x>: exact
// REMARK: nested.mlir:[[# @LINE + 11]]:7: remark: distribute: dimension on #gpu.thread<x>: exact
// CHECK-LABEL: func.func @axes
// CHECK:       %[[Z:.*]] = gpu.block_id z
// CHECK-NEXT:  %[[X:.*]] = gpu.block_id x
// CHECK-NEXT:  %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT:  %[[I:.*]] = affine.apply affine_map<(d0, d1, d2) -> ((((d0 * 64) + (d1 * 8)) + d2))> (%[[Z]], %[[X]], %[[T]])
// CHECK-NEXT:  memref.store %{{.*}}, %{{.*}}[%[[I]]]
func.func @axes(%out: memref<256xf32>) attributes {gpu.known_grid_size = array<i32: 8, 1, 4>, gpu.known_block_size = array<i32: 8, 1, 1>} {
  %v = arith.constant 1.0 : f32
  scf.forall (%c) in (4) {
    scf.forall (%t) in (8) {
      scf.forall (%l) in (8) {
        %i = affine.apply affine_map<(d0, d1, d2) -> (d0 * 64 + d1 * 8 + d2)>(%c, %t, %l)
        memref.store %v, %out[%i] : memref<256xf32>
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
  func.return
}
