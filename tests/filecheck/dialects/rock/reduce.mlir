// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @reduce
// CHECK:         rock.reduce sum %{{.*}} into %{{.*}} {axis = 0 : index} : tensor<77x123x456xf32> into tensor<1x123x456xf32> -> tensor<1x123x456xf32>
// CHECK:         rock.reduce max %{{.*}} into %{{.*}} {axis = 1 : index, blockSize = 256 : i32, gridSize = 8 : i32} : tensor<2x100x10xf32> into tensor<2x1x10xf32> -> tensor<2x1x10xf32>
func.func @reduce(%p: tensor<77x123x456xf32>, %c: tensor<1x123x456xf32>, %q: tensor<2x100x10xf32>, %d: tensor<2x1x10xf32>) -> (tensor<1x123x456xf32>, tensor<2x1x10xf32>) {
  %0 = rock.reduce sum %p into %c {axis = 0 : index} : tensor<77x123x456xf32> into tensor<1x123x456xf32> -> tensor<1x123x456xf32>
  %1 = rock.reduce max %q into %d {axis = 1 : index, blockSize = 256 : i32, gridSize = 8 : i32} : tensor<2x100x10xf32> into tensor<2x1x10xf32> -> tensor<2x1x10xf32>
  func.return %0, %1 : tensor<1x123x456xf32>, tensor<2x1x10xf32>
}
