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
