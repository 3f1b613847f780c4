// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @int_kind_on_float(%m: memref<4xf32>, %v: f32, %c: index) {
  %0 = memref.atomic_rmw addi %v, %m[%c] : (f32, memref<4xf32>) -> f32
  func.return
}
// CHECK: invalid.mlir:4:3: error: 'memref.atomic_rmw' op with kind 'addi' expects an integer type

// -----

func.func @rank(%m: memref<4x4xf32>, %v: f32, %c: index) {
  %0 = memref.atomic_rmw addf %v, %m[%c] : (f32, memref<4x4xf32>) -> f32
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.atomic_rmw' op invalid number of indices for accessed memref, expected 2 but got 1

// -----

func.func @kind(%m: memref<4xf32>, %v: f32, %c: index) {
  %0 = memref.atomic_rmw addition %v, %m[%c] : (f32, memref<4xf32>) -> f32
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:26: error: custom op 'memref.atomic_rmw' expected string or keyword containing one of the following enum values for attribute 'kind'

// -----

func.func @copy_shape(%a: memref<4xf32>, %b: memref<5xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<5xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.copy' op requires the same shape for all operands

// -----

func.func @float_kind_on_int(%m: memref<4xi32>, %v: i32, %c: index) {
  %0 = memref.atomic_rmw addf %v, %m[%c] : (i32, memref<4xi32>) -> i32
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.atomic_rmw' op with kind 'addf' expects a floating-point type

// -----

func.func @copy_element(%a: memref<4xf32>, %b: memref<4xf16>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf16>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.copy' op requires the same element type for all operands

// memref.subview: the checks of MLIR's SubViewOp::verify, each with iree-opt's message.

// -----

func.func @subview_layout(%m: memref<8x16x4x5xf32, strided<[40, 10, 5, -1], offset: ?>>) {
  %0 = memref.subview %m[0, 0, 0, 0] [1, 1, 1, 5] [1, 1, 1, 1] : memref<8x16x4x5xf32, strided<[40, 10, 5, -1], offset: ?>> to memref<1x1x1x5xf32, strided<[40, 10, 5, 1], offset: ?>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<1x1x1x5xf32, strided<[40, 10, 5, -1], offset: ?>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<1x1x1x5xf32, strided<[40, 10, 5, 1], offset: ?>>'

// -----

func.func @subview_sizes(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [0, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<0x4xf32, strided<[8, 1]>>' or a rank-reduced version. (mismatch of result sizes), but got 'memref<4x4xf32, strided<[8, 1]>>'

// -----

func.func @subview_dynamic_size(%m: memref<8x8xf32>, %n: index) {
  %0 = memref.subview %m[0, 0] [%n, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<?x4xf32, strided<[8, 1]>>' or a rank-reduced version. (mismatch of result sizes), but got 'memref<4x4xf32, strided<[8, 1]>>'

// -----

func.func @subview_element(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf16, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result element type to be 'f32', but got 'memref<4x4xf16, strided<[8, 1]>>'

// -----

func.func @subview_rank(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4x1xf32, strided<[8, 1, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result rank to be smaller or equal to the source rank, but got 'memref<4x4x1xf32, strided<[8, 1, 1]>>'

// -----

func.func @subview_memory_space(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>, 3>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op different memory spaces specified for base memref type 'memref<8x8xf32>' and subview memref type 'memref<4x4xf32, strided<[8, 1]>, 3{{( : i64)?}}>'

// -----

func.func @subview_not_strided(%m: memref<8x8xf32, affine_map<(d0, d1) -> (d1, d0)>>) {
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32, affine_map<(d0, d1) -> (d1, d0)>> to memref<4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op base type 'memref<8x8xf32, affine_map<(d0, d1) -> (d1, d0)>>' is not strided

// -----

func.func @subview_offset(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[2, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<4x4xf32, strided<[8, 1], offset: 16>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<4x4xf32, strided<[8, 1]>>'

// -----

func.func @subview_dynamic_offset(%m: memref<8x8xf32>, %i: index) {
  %0 = memref.subview %m[%i, 0] [1, 4] [1, 1] : memref<8x8xf32> to memref<4xf32, strided<[1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<1x4xf32, strided<[8, 1], offset: ?>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<4xf32, strided<[1]>>'

// -----

func.func @subview_static_offset_for_dynamic(%m: memref<8x8xf32, strided<[?, 1], offset: ?>>) {
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32, strided<[?, 1], offset: ?>> to memref<4x4xf32, strided<[?, 1], offset: 3>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<4x4xf32, strided<[?, 1], offset: ?>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<4x4xf32, strided<[?, 1], offset: 3>>'

// -----

func.func @subview_strides(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [4, 4] [2, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<4x4xf32, strided<[16, 1]>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<4x4xf32, strided<[8, 1]>>'

// -----

func.func @subview_identity_result(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<4x4xf32, strided<[8, 1]>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<4x4xf32>'

// -----

func.func @subview_unit_stride(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [1, 4] [1, 1] : memref<8x8xf32> to memref<1x4xf32, strided<[99, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<1x4xf32, strided<[8, 1]>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<1x4xf32, strided<[99, 1]>>'

// -----

func.func @subview_dropped_stride(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [1, 1] [1, 1] : memref<8x8xf32> to memref<1xf32, strided<[2]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected result type to be 'memref<1x1xf32, strided<[8, 1]>>' or a rank-reduced version. (mismatch of result layout), but got 'memref<1xf32, strided<[2]>>'

// -----

func.func @subview_past_end(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[6, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 48>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op slice along dimension 0 runs out-of-bounds: 9 >= 8

// -----

func.func @subview_offset_out_of_bounds(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[8, 0] [0, 4] [1, 1] : memref<8x8xf32> to memref<0x4xf32, strided<[8, 1], offset: 64>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op offset 0 is out-of-bounds: 8 >= 8

// -----

func.func @subview_negative_offset(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[-1, 0] [1, 4] [1, 1] : memref<8x8xf32> to memref<1x4xf32, strided<[8, 1], offset: -8>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected offsets to be non-negative, but got -1

// -----

func.func @subview_negative_size(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [-1, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected sizes to be non-negative, but got -1

// -----

func.func @subview_list_ranks(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected mixed offsets rank to match mixed sizes rank (3 vs 2) so the rank of the result type is well-formed.

// -----

func.func @subview_stride_ranks(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0, 0] [4, 4] [1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected mixed sizes rank to match mixed strides rank (2 vs 1) so the rank of the result type is well-formed.

// -----

func.func @subview_source_rank(%m: memref<8x8xf32>) {
  %0 = memref.subview %m[0] [4] [1] : memref<8x8xf32> to memref<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.subview' op expected 2 offset values, got 1

// -----

func.func @prefetch_locality(%m: memref<4x4xf32>, %c: index) {
  memref.prefetch %m[%c, %c], read, locality<4>, data : memref<4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.prefetch' op attribute 'localityHint' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 3
