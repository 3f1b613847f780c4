// memref.copy reads and prints as iree-opt does, in both directions.
// RUN: xsplit-opt %s -p '' | filecheck %s
// RUN: xsplit-opt %s -p '' | iree-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt -p '' | filecheck %s

// CHECK-LABEL: func.func @copy
// CHECK:         memref.copy %{{.*}}, %{{.*}} : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1]>>
func.func @copy(%a: memref<4x8xf32>, %b: memref<4x8xf32, strided<[16, 1]>>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1]>>
  return
}
