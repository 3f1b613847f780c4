// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @mismatched_k(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}
// CHECK: invalid.mlir:4:3: error: 'linalg.matmul' op inferred size 8 for loop d2 but operand tensor<7x3xf32> has 7

// -----

func.func @rank(%a: tensor<4x8xf32>, %x: tensor<8x1xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<4x8xf32>, tensor<8x1xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.matvec' op operand of type tensor<8x1xf32> should have rank 1
