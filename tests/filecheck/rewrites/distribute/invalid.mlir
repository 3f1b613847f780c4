// RUN: xsplit-opt --split-input-file --verify-diagnostics %s -p distribute 2>&1 | filecheck %s

// A block loop inside a thread loop maps the hierarchy upside down.
// CHECK: invalid.mlir:[[# @LINE + 4]]:5: error: distribute: a loop mapped to blocks is nested in a loop mapped to threads ({{.*}}invalid.mlir:[[# @LINE + 3]]:3): the nest maps the processor hierarchy inconsistently
func.func @upside_down(%out: memref<64xf32>) {
  %v = arith.constant 1.0 : f32
  scf.forall (%t) in (8) {
    scf.forall (%b) in (8) {
      %i = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%t, %b)
      memref.store %v, %out[%i] : memref<64xf32>
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.thread<x>]}
  func.return
}

// -----

// Threads inside a warp loop would be all the block's threads, not the warp's lanes.
// CHECK: invalid.mlir:[[# @LINE + 4]]:5: error: distribute: a loop mapped to threads is nested in a loop mapped to warps
func.func @thread_in_warp(%out: memref<64xf32>) {
  %v = arith.constant 1.0 : f32
  scf.forall (%w) in (2) {
    scf.forall (%t) in (32) {
      %i = affine.apply affine_map<(d0, d1) -> (d0 * 32 + d1)>(%w, %t)
      memref.store %v, %out[%i] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.warp<x>]}
  func.return
}

// -----

// One loop on two levels.
// CHECK: invalid.mlir:[[# @LINE + 3]]:3: error: distribute: one loop maps dimensions to different levels (block, thread); nest one loop per level
func.func @mixed(%out: memref<8x8xf32>) {
  %v = arith.constant 1.0 : f32
  scf.forall (%b, %t) in (8, 8) {
    memref.store %v, %out[%b, %t] : memref<8x8xf32>
  } {mapping = [#gpu.block<x>, #gpu.thread<x>]}
  func.return
}

// -----

// Linearizing would run the fill once per tile, racing with the other tiles.
// CHECK: invalid.mlir:[[# @LINE + 5]]:5: error: distribute: cannot linearize the nested loop on #gpu.block<x>: 'linalg.fill' in the enclosing loop writes memory, and every iteration of the linearized loop would run it
func.func @outer_writes(%out: memref<4x8xf32>) {
  %v = arith.constant 0.0 : f32
  scf.forall (%c) in (4) {
    %row = memref.subview %out[%c, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.fill ins(%v : f32) outs(%row : memref<8xf32, strided<[1], offset: ?>>)
    scf.forall (%t) in (8) {
      memref.store %v, %out[%c, %t] : memref<4x8xf32>
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}

// -----

// The inner trip count must not depend on the outer iteration.
// CHECK: invalid.mlir:[[# @LINE + 5]]:5: error: distribute: cannot linearize the nested loop: its bounds depend on the enclosing loop
func.func @dependent_bounds(%out: memref<4x8xf32>) {
  %v = arith.constant 0.0 : f32
  scf.forall (%c) in (4) {
    %n = affine.apply affine_map<(d0) -> (d0 + 1)>(%c)
    scf.forall (%t) in (%n) {
      memref.store %v, %out[%c, %t] : memref<4x8xf32>
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}

// -----

// The innermost loop shares #gpu.block<x> with the outermost, but a loop on
// #gpu.block<y> stands between them: it cannot join the outer's linearized
// loop, and distributed on its own it would run only the iterations whose
// block ids agree.
// CHECK: invalid.mlir:[[# @LINE + 5]]:7: error: distribute: cannot linearize this loop with the enclosing loop on the same processors: it is nested in the loop at {{.*}}invalid.mlir:[[# @LINE + 4]]:5, which maps other processors
func.func @x_y_x(%out: memref<2x3x4xf32>) attributes {gpu.known_grid_size = array<i32: 8, 3, 1>} {
  %v = arith.constant 1.0 : f32
  scf.forall (%i) in (2) {
    scf.forall (%j) in (3) {
      scf.forall (%k) in (4) {
        memref.store %v, %out[%i, %j, %k] : memref<2x3x4xf32>
      } {mapping = [#gpu.block<x>]}
    } {mapping = [#gpu.block<y>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}

// -----

// Linear block ids cover the x axis too: the inner loop would run, on each
// block, only the iterations whose x id agrees with the outer's linear one.
// CHECK: invalid.mlir:[[# @LINE + 4]]:5: error: distribute: this loop on #gpu.block<x> is nested in the loop at {{.*}}invalid.mlir:[[# @LINE + 3]]:3 on #gpu.block<linear_dim_0>, and the two share processors without being on the same ones: map both on axes or both on linear ids
func.func @linear_then_x(%out: memref<4x3xf32>) attributes {gpu.known_grid_size = array<i32: 2, 2, 1>} {
  %v = arith.constant 1.0 : f32
  scf.forall (%a) in (4) {
    scf.forall (%c) in (3) {
      memref.store %v, %out[%a, %c] : memref<4x3xf32>
    } {mapping = [#gpu.block<x>]}
  } {mapping = [#gpu.block<linear_dim_0>]}
  func.return
}
