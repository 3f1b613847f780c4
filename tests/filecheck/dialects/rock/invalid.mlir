// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @keepdim(%p: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = rock.reduce sum %p into %c {axis = 0 : index} : tensor<4x8xf32> into tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}
// CHECK: invalid.mlir:4:3: error: 'rock.reduce' op init dimension 0 is 4, expected 1

// -----

func.func @axis(%p: tensor<4x8xf32>, %c: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = rock.reduce sum %p into %c {axis = 2 : index} : tensor<4x8xf32> into tensor<1x8xf32> -> tensor<1x8xf32>
  func.return %0 : tensor<1x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'rock.reduce' op axis 2 is out of range for rank 2

// -----

func.func @method(%p: tensor<4x8xf32>, %c: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = rock.reduce prod %p into %c {axis = 0 : index} : tensor<4x8xf32> into tensor<1x8xf32> -> tensor<1x8xf32>
  func.return %0 : tensor<1x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: {{.*}}sum{{.*}}max

// -----

func.func @mixed(%p: memref<4x8xf32>, %c: tensor<1x8xf32>) {
  %0 = rock.reduce sum %p into %c {axis = 0 : index} : memref<4x8xf32> into tensor<1x8xf32> -> tensor<1x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: 'rock.reduce' op input and init must both be tensors or both be memrefs

// -----

func.func @memref_result(%p: memref<4x8xf32>, %c: memref<1x8xf32>) {
  %0 = rock.reduce sum %p into %c {axis = 0 : index} : memref<4x8xf32> into memref<1x8xf32> -> memref<1x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: on memrefs rock.reduce has no result

// -----

func.func @feature(%p: memref<4x8xf32>, %c: memref<1x8xf32>) {
  rock.reduce sum %p into %c features = warp_magic {axis = 0 : index} : memref<4x8xf32> into memref<1x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: unknown feature 'warp_magic'

// -----

func.func @memref_shape(%p: memref<4x8xf32>, %c: memref<1x7xf32>) {
  rock.reduce max %p into %c {axis = 0 : index} : memref<4x8xf32> into memref<1x7xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'rock.reduce' op init dimension 1 is 7, expected 8

// -----

func.func @block(%p: memref<4x8xf32>, %c: memref<1x8xf32>) {
  rock.reduce max %p into %c {axis = 0 : index, blockSize = 0 : i32} : memref<4x8xf32> into memref<1x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'rock.reduce' op blockSize and gridSize must be positive
