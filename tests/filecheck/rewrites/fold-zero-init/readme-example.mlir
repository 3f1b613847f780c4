// RUN: xsplit-opt --split-input-file --load-patterns %S/../../../../examples/patterns/fold_zero_init.py -p fold-zero-init %s | filecheck %s
// RUN: xsplit-opt --split-input-file --load-patterns %S/../../../../examples/patterns/fold_zero_init.py -p fold-zero-init %s | iree-opt > /dev/null

// The README's user pattern: C + A*B with a zero-filled matmul init becomes
// one matmul accumulating into C.
// CHECK-LABEL: func.func @folds
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x3xf32>, %[[C:.*]]: tensor<4x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x3xf32>) outs(%[[C]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x3xf32>
func.func @folds(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%zero : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = arith.addf %mm, %c : tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

// A fill of 1 is not a zero init: nothing changes.
// CHECK-LABEL: func.func @fill_of_one
// CHECK:         linalg.fill
// CHECK:         linalg.matmul
// CHECK:         arith.addf
func.func @fill_of_one(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %cst = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %one = linalg.fill ins(%cst : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%one : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = arith.addf %mm, %c : tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

// The matmul has another use: folding would compute it twice, so it stays.
// CHECK-LABEL: func.func @shared_matmul
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         arith.addf %[[MM]]
func.func @shared_matmul(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%zero : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = arith.addf %mm, %c : tensor<4x3xf32>
  func.return %r, %mm : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// The matmul on the right of the add folds too.
// CHECK-LABEL: func.func @matmul_on_the_right
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x3xf32>) outs(%{{.*}} : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @matmul_on_the_right(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%zero : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = arith.addf %c, %mm : tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}
