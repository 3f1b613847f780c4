// scf.parallel with a mapping, warps, lanes, linear ids, and loops left alone.
// RUN: xsplit-opt --split-input-file %s -p distribute 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt --split-input-file %s -p distribute 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p distribute | iree-opt --split-input-file > /dev/null

// An scf.parallel over threads and a sequential dimension (xDSL prints
// scf.parallel in generic form).
// REMARK: levels.mlir:[[# @LINE + 15]]:3: remark: distribute: dimension on #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>: exact: trip count 32 = 32 processors (gpu.known_block_size)
// CHECK-LABEL: func.func @par
// CHECK:       %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:  scf.for %[[J:.*]] = %[[ZERO]] to %[[N]] step %[[ONE]] {
// CHECK-NEXT:    memref.store %{{.*}}, %{{.*}}[%[[T]], %[[J]]] : memref<32x4xf32>
// CHECK-NEXT:  }
func.func @par(%m: memref<32x4xf32>) attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %v = arith.constant 2.0 : f32
  "scf.parallel"(%c0, %c0, %c32, %c4, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    memref.store %v, %m[%i, %j] : memref<32x4xf32>
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index, index, index, index) -> ()
  func.return
}

// -----

// Warps of 32 lanes in a block of 128 threads: warp w = thread_id x / 32, and
// lanes inside: lane = thread_id x mod 32.
// REMARK: levels.mlir:[[# @LINE + 12]]:3: remark: distribute: dimension on #gpu.warp<x>: exact: trip count 4 = 4 processors (gpu.known_block_size)
// REMARK: levels.mlir:[[# @LINE + 12]]:5: remark: distribute: dimension on #gpu.lane<x>: exact: trip count 32 = 32 processors (the warp size)
// CHECK-LABEL: func.func @warps
// CHECK:       %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:  %[[W:.*]] = arith.divui %[[T]], %[[C32]] : index
// CHECK-NEXT:  %[[T2:.*]] = gpu.thread_id x
// CHECK-NEXT:  %[[C32B:.*]] = arith.constant 32 : index
// CHECK-NEXT:  %[[L:.*]] = arith.remui %[[T2]], %[[C32B]] : index
// CHECK-NEXT:  memref.store %{{.*}}, %{{.*}}[%[[W]], %[[L]]] : memref<4x32xf32>
func.func @warps(%m: memref<4x32xf32>) attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
  %v = arith.constant 2.0 : f32
  scf.forall (%w) in (4) {
    scf.forall (%l) in (32) {
      memref.store %v, %m[%w, %l] : memref<4x32xf32>
    } {mapping = [#gpu.lane<x>]}
  } {mapping = [#gpu.warp<x>]}
  func.return
}

// -----

// Linear ids: a 2-D loop over the linearized block of 16 x 4 threads.
// REMARK: levels.mlir:[[# @LINE + 13]]:3: remark: distribute: dimensions on #gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>: exact: trip count 64 = 64 processors (gpu.known_block_size)
// CHECK-LABEL: func.func @linear
// CHECK:       %[[X:.*]] = gpu.thread_id x
// CHECK-NEXT:  %[[Y:.*]] = gpu.thread_id y
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:  %[[YS:.*]] = arith.muli %[[Y]], %[[C16]] : index
// CHECK-NEXT:  %[[LIN:.*]] = arith.addi %[[X]], %[[YS]] : index
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:  %[[J:.*]] = arith.remui %[[LIN]], %[[C8]] : index
// CHECK-NEXT:  %[[I:.*]] = arith.divui %[[LIN]], %[[C8]] : index
// CHECK-NEXT:  memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<8x8xf32>
func.func @linear(%m: memref<8x8xf32>) attributes {gpu.known_block_size = array<i32: 16, 4, 1>} {
  %v = arith.constant 2.0 : f32
  scf.forall (%i, %j) in (8, 8) {
    memref.store %v, %m[%i, %j] : memref<8x8xf32>
  } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
  func.return
}

// -----

// Loops distribute does not handle stay as they are, with a remark; loops
// without a mapping are not its business.
// REMARK: levels.mlir:[[# @LINE + 8]]:3: remark: distribute: loop left as it is: #gpu.warpgroup<x> is not a processor mapping distribute handles
// CHECK-LABEL: func.func @left_alone
// CHECK:       scf.forall (%{{.*}}) in (4) {
// CHECK:       } {mapping = [#gpu.warpgroup<x>]}
// CHECK:       scf.forall (%{{.*}}) in (4) {
// CHECK-NOT:   mapping
func.func @left_alone(%m: memref<4xf32>) {
  %v = arith.constant 2.0 : f32
  scf.forall (%i) in (4) {
    memref.store %v, %m[%i] : memref<4xf32>
  } {mapping = [#gpu.warpgroup<x>]}
  scf.forall (%i) in (4) {
    memref.store %v, %m[%i] : memref<4xf32>
  }
  func.return
}
