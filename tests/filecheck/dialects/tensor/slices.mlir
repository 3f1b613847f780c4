// Slices and reshapes MLIR accepts verify in xsplit too, and print back as iree-opt reads them.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s

// CHECK-LABEL: func.func @slices
func.func @slices(%t: tensor<8x8xf32>, %s: tensor<4xf32>, %i: index) -> (tensor<4xf32>, tensor<?x4xf32>, tensor<8x8xf32>) {
  // A unit dimension dropped; a dynamic size; a strided slice ending on the last element.
  // CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<4xf32>
  %0 = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<4xf32>
  // CHECK: tensor.extract_slice %{{.*}}[0, 1] [%{{.*}}, 4] [1, 2] : tensor<8x8xf32> to tensor<?x4xf32>
  %1 = tensor.extract_slice %t[0, 1] [%i, 4] [1, 2] : tensor<8x8xf32> to tensor<?x4xf32>
  // CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[7, 0] [1, 4] [1, 2] : tensor<4xf32> into tensor<8x8xf32>
  %2 = tensor.insert_slice %s into %t[7, 0] [1, 4] [1, 2] : tensor<4xf32> into tensor<8x8xf32>
  func.return %0, %1, %2 : tensor<4xf32>, tensor<?x4xf32>, tensor<8x8xf32>
}

// CHECK-LABEL: func.func @subviews
func.func @subviews(%m: memref<8x8xf32>, %d: memref<8x?xf32>, %i: index) {
  // CHECK: memref.subview %{{.*}}[%{{.*}}, 0] [1, 4] [1, 1] : memref<8x8xf32> to memref<4xf32, strided<[1], offset: ?>>
  %0 = memref.subview %m[%i, 0] [1, 4] [1, 1] : memref<8x8xf32> to memref<4xf32, strided<[1], offset: ?>>
  // Both unit dimensions of a 1x1 view: which one is dropped is told by the stride kept.
  // CHECK: memref.subview %{{.*}}[0, 0] [1, 1] [1, 1] : memref<8x8xf32> to memref<1xf32, strided<[8]>>
  %1 = memref.subview %m[0, 0] [1, 1] [1, 1] : memref<8x8xf32> to memref<1xf32, strided<[8]>>
  // CHECK: memref.subview %{{.*}}[0, 0] [1, 1] [1, 1] : memref<8x8xf32> to memref<1xf32, strided<[1]>>
  %2 = memref.subview %m[0, 0] [1, 1] [1, 1] : memref<8x8xf32> to memref<1xf32, strided<[1]>>
  // CHECK: memref.subview %{{.*}}[0, 0] [1, 1] [1, 1] : memref<8x8xf32> to memref<f32>
  %3 = memref.subview %m[0, 0] [1, 1] [1, 1] : memref<8x8xf32> to memref<f32>
  // The identity layout is the strided one with offset 0.
  // CHECK: memref.subview %{{.*}}[0, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32>
  %4 = memref.subview %m[0, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32>
  // A zero stride, a negative one; a dynamic source dimension is not bounds-checked.
  // CHECK: memref.subview %{{.*}}[0, 0] [4, 4] [0, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[0, 1]>>
  %5 = memref.subview %m[0, 0] [4, 4] [0, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[0, 1]>>
  // CHECK: memref.subview %{{.*}}[7, 0] [4, 4] [-1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[-8, 1], offset: 56>>
  %6 = memref.subview %m[7, 0] [4, 4] [-1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[-8, 1], offset: 56>>
  // CHECK: memref.subview %{{.*}}[0, 9] [4, 4] [1, 1] : memref<8x?xf32> to memref<4x4xf32, strided<[?, 1], offset: 9>>
  %7 = memref.subview %d[0, 9] [4, 4] [1, 1] : memref<8x?xf32> to memref<4x4xf32, strided<[?, 1], offset: 9>>
  func.return
}

// CHECK-LABEL: func.func @affine_layouts
func.func @affine_layouts(%m: memref<8x8xf32, affine_map<(d0, d1) -> (d0 * 8 + d1)>>, %n: memref<8x8xf32, affine_map<(d0, d1)[s0] -> (d0 * 8 + d1 + s0)>>) {
  // CHECK: memref.subview
  %0 = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32, affine_map<(d0, d1) -> (d0 * 8 + d1)>> to memref<4x4xf32, strided<[8, 1]>>
  // CHECK: memref.subview
  %1 = memref.subview %n[0, 0] [4, 4] [1, 1] : memref<8x8xf32, affine_map<(d0, d1)[s0] -> (d0 * 8 + d1 + s0)>> to memref<4x4xf32, strided<[8, 1], offset: ?>>
  func.return
}

// CHECK-LABEL: func.func @reshapes
func.func @reshapes(%t: tensor<4x?x2xf32>, %u: tensor<4x8x2xf32>) -> (tensor<4x?xf32>, tensor<4x16xf32>) {
  // CHECK: tensor.collapse_shape %{{.*}} : tensor<4x?x2xf32> into tensor<4x?xf32>
  %0 = tensor.collapse_shape %t [[0], [1, 2]] : tensor<4x?x2xf32> into tensor<4x?xf32>
  // CHECK: tensor.collapse_shape %{{.*}} : tensor<4x8x2xf32> into tensor<4x16xf32>
  %1 = tensor.collapse_shape %u [[0], [1, 2]] : tensor<4x8x2xf32> into tensor<4x16xf32>
  func.return %0, %1 : tensor<4x?xf32>, tensor<4x16xf32>
}
