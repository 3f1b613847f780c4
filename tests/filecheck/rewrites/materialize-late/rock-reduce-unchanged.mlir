// RUN: xsplit-opt --split-input-file %s -p materialize-late | filecheck %s

// What lower-rock-reduce does not handle passes through (iree-opt knows no rock).

// Only axis 0 is lowered: another passes through.
// CHECK-LABEL: func.func @rock_reduce_axis_1
// CHECK:         rock.reduce sum
func.func @rock_reduce_axis_1(%p: tensor<4x3xf32>, %c: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = rock.reduce sum %p into %c {axis = 1 : index} : tensor<4x3xf32> into tensor<4x1xf32> -> tensor<4x1xf32>
  func.return %0 : tensor<4x1xf32>
}

// -----

// rock.reduce on memrefs updates its init in place and has no result.
// CHECK-LABEL: func.func @rock_reduce_memref
// CHECK:         rock.reduce sum
func.func @rock_reduce_memref(%p: memref<3x4xf32>, %c: memref<1x4xf32>) {
  rock.reduce sum %p into %c {axis = 0 : index} : memref<3x4xf32> into memref<1x4xf32>
  func.return
}
