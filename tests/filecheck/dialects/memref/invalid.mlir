// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @int_kind_on_float(%m: memref<4xf32>, %v: f32, %c: index) {
  %0 = memref.atomic_rmw addi %v, %m[%c] : (f32, memref<4xf32>) -> f32
  func.return
}
// CHECK: invalid.mlir:4:3: error: 'memref.atomic_rmw' op addi expects an integer value, got f32

// -----

func.func @rank(%m: memref<4x4xf32>, %v: f32, %c: index) {
  %0 = memref.atomic_rmw addf %v, %m[%c] : (f32, memref<4x4xf32>) -> f32
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.atomic_rmw' op expects 2 indices, got 1

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
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'memref.copy' op source memref<4xf32> and target memref<5xf32> differ in shape or element type
