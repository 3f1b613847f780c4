// The memref form of rock.reduce, rocMLIR's launch attributes and features, any axis.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @memref_form
// CHECK-NEXT:    rock.reduce sum %{{.*}} into %{{.*}} {axis = 2 : index, blockSize = 64 : i32, gridSize = 2 : i32} : memref<2x12x12xf32> into memref<2x12x1xf32>
// CHECK-NEXT:    rock.reduce max %{{.*}} into %{{.*}} features = mfma|dot|atomic_add {axis = 0 : index} : memref<5x3xf32> into memref<1x3xf32>
// CHECK-NEXT:    rock.reduce sum %{{.*}} into %{{.*}} {axis = 1 : index} : memref<2x7x3xf32> into memref<2x1x3xf32>
// CHECK-NEXT:    func.return
func.func @memref_form(%a: memref<2x12x12xf32>, %b: memref<2x12x1xf32>, %c: memref<5x3xf32>, %d: memref<1x3xf32>, %e: memref<2x7x3xf32>, %f: memref<2x1x3xf32>) {
  rock.reduce sum %a into %b {axis = 2 : index, blockSize = 64 : i32, gridSize = 2 : i32} : memref<2x12x12xf32> into memref<2x12x1xf32>
  rock.reduce max %c into %d features = mfma|dot|atomic_add {axis = 0 : index} : memref<5x3xf32> into memref<1x3xf32>
  rock.reduce sum %e into %f {axis = 1 : index} : memref<2x7x3xf32> into memref<2x1x3xf32>
  func.return
}

// The tensor form takes the same attributes.
// CHECK-LABEL: func.func @tensor_form
// CHECK-NEXT:    %{{.*}} = rock.reduce max %{{.*}} into %{{.*}} features = atomic_fmax_f32 {axis = 1 : index, blockSize = 256 : i32, gridSize = 4 : i32} : tensor<3x9xf32> into tensor<3x1xf32> -> tensor<3x1xf32>
func.func @tensor_form(%a: tensor<3x9xf32>, %b: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = rock.reduce max %a into %b features = atomic_fmax_f32 {axis = 1 : index, blockSize = 256 : i32, gridSize = 4 : i32} : tensor<3x9xf32> into tensor<3x1xf32> -> tensor<3x1xf32>
  func.return %0 : tensor<3x1xf32>
}
