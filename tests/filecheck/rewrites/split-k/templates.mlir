// A plain static matmul goes through split-k's template patterns, whose IR
// the other tests here check; this says which pattern fired.
// RUN: xsplit-opt %s -p 'split-k{factor=4}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=WHOLE
// RUN: xsplit-opt %s -p 'split-k{factor=3}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=TAIL
// RUN: xsplit-opt %s -p 'split-k{factor=4 strategy=expand}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=EXPAND
// RUN: xsplit-opt %s -p 'split-k{factor=4 strategy=grouped}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=GROUPED
// RUN: xsplit-opt %s -p 'split-k{factor=4 strategy=expand}' | filecheck %s --check-prefix=EXPAND-IR
// RUN: xsplit-opt %s -p 'split-k{factor=4 strategy=expand}' | iree-opt > /dev/null

// WHOLE: split-k: split-k-static-chunks: 1
// WHOLE: split-k: split-k-static-chunks-and-tail: 0
// WHOLE: split-k: split-k-forall: 0
// TAIL: split-k: split-k-static-chunks: 0
// TAIL: split-k: split-k-static-chunks-and-tail: 1
// TAIL: split-k: split-k-forall: 0
// EXPAND: split-k: split-k-expand-matmul: 1
// EXPAND: split-k: split-k-expand: 0
// GROUPED: split-k: split-k-grouped-matmul: 1
// GROUPED: split-k: split-k-grouped: 0

// EXPAND-IR-LABEL: func.func @mm
// EXPAND-IR-SAME:    (%[[A:.*]]: tensor<16x1000xf32>, %[[B:.*]]: tensor<1000x32xf32>, %[[C:.*]]: tensor<16x32xf32>)
// EXPAND-IR:         %[[EA:.*]] = tensor.expand_shape %[[A]] {{\[}}[0], [1, 2]] output_shape [16, 4, 250] : tensor<16x1000xf32> into tensor<16x4x250xf32>
// EXPAND-IR-NEXT:    %[[EB:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1], [2]] output_shape [4, 250, 32] : tensor<1000x32xf32> into tensor<4x250x32xf32>
// EXPAND-IR:         %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[EA]], %[[EB]] : tensor<16x4x250xf32>, tensor<4x250x32xf32>)
// EXPAND-IR:           arith.mulf
// EXPAND-IR-NEXT:      arith.addf
// EXPAND-IR:         %[[M:.*]] = linalg.reduce ins(%[[P]]:tensor<16x32x4xf32>) outs(%[[C]]:tensor<16x32xf32>) dimensions = [2]
// EXPAND-IR:         func.return %[[M]]
func.func @mm(%a: tensor<16x1000xf32>, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  func.return %r : tensor<16x32xf32>
}
