// RUN: xsplit-opt --split-input-file --load-patterns %S/../../../../examples/patterns/split_k_unrolled.py -p 'split-k-unrolled{chunks=2}' %s | filecheck %s
// RUN: xsplit-opt --split-input-file --load-patterns %S/../../../../examples/patterns/split_k_unrolled.py -p 'split-k-unrolled{chunks=2}' %s | iree-opt --split-input-file > /dev/null

// docs/dsl-and-api.md's user split-K: one matmul per chunk of K, from zero,
// summed into C by a chain of adds ($for repetition, helpers' offsets).
// CHECK-LABEL: func.func @splits
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x3xf32>, %[[C:.*]]: tensor<4x3xf32>)
// CHECK:         %[[INIT:.*]] = linalg.fill
// CHECK-NEXT:    %[[A0:.*]] = tensor.extract_slice %[[A]][0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
// CHECK-NEXT:    %[[B0:.*]] = tensor.extract_slice %[[B]][0, 0] [4, 3] [1, 1] : tensor<8x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    %[[P0:.*]] = linalg.matmul ins(%[[A0]], %[[B0]] : tensor<4x4xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[A1:.*]] = tensor.extract_slice %[[A]][0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
// CHECK-NEXT:    %[[B1:.*]] = tensor.extract_slice %[[B]][4, 0] [4, 3] [1, 1] : tensor<8x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    %[[P1:.*]] = linalg.matmul ins(%[[A1]], %[[B1]] : tensor<4x4xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[ACC0:.*]] = arith.addf %[[C]], %[[P0]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[ACC1:.*]] = arith.addf %[[ACC0]], %[[P1]] : tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[ACC1]] : tensor<4x3xf32>
func.func @splits(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

// K = 7 does not split in 2: nothing changes.
// CHECK-LABEL: func.func @odd_k
// CHECK-NEXT:    linalg.matmul
// CHECK-NEXT:    func.return
func.func @odd_k(%a: tensor<4x7xf32>, %b: tensor<7x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x7xf32>, tensor<7x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}
