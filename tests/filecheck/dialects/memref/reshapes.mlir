// memref reshapes print their reassociation as iree-opt does, `[[0, 1]]`.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @reshapes
func.func @reshapes(%m: memref<4x8xf32>, %d: memref<?x8xf32>, %n: index) {
  // CHECK:      memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<4x8xf32> into memref<32xf32>{{$}}
  // CHECK-NEXT: memref.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 2, 8] : memref<4x8xf32> into memref<2x2x8xf32>{{$}}
  // CHECK-NEXT: memref.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 2, 4] : memref<?x8xf32> into memref<?x2x4xf32>{{$}}
  %0 = memref.collapse_shape %m [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %1 = memref.expand_shape %m [[0 : i64, 1 : i64], [2 : i64]] output_shape [2, 2, 8] : memref<4x8xf32> into memref<2x2x8xf32>
  %2 = memref.expand_shape %d [[0], [1, 2]] output_shape [%n, 2, 4] : memref<?x8xf32> into memref<?x2x4xf32>
  func.return
}
