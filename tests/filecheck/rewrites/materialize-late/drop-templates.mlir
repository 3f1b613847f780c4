// On a target that does not data-tile, an encoded plain matmul loses its
// encodings by the templates of materialize_encodings.py (DROP_ENCODINGS),
// early and late alike, not by the builder they specialize.
// RUN: xsplit-opt %s -p 'set-encoding,materialize-late{target=sm_80}' | filecheck %s
// RUN: xsplit-opt %s -p 'set-encoding,materialize-early{target=gfx942}' | filecheck %s
// RUN: xsplit-opt %s -p 'set-encoding,materialize-late{target=sm_80}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=LATE
// RUN: xsplit-opt %s -p 'set-encoding,materialize-early{target=gfx942}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=EARLY
// LATE: materialize-late: drop-matmul-encodings: 1
// LATE: materialize-late: drop-filled-matmul-encodings: 1
// LATE: materialize-late: materialize-encoding-in-dispatches: 0
// EARLY: materialize-early: drop-matmul-encodings: 1
// EARLY: materialize-early: drop-filled-matmul-encodings: 1
// EARLY: materialize-early: materialize-encoding-early: 0

// CHECK-LABEL: func.func @matmul_fill
// CHECK-NOT:     iree_encoding
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<100x70xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<100x70xf32>) -> tensor<100x70xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%[[F]] : tensor<100x70xf32>) -> tensor<100x70xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<100x70xf32>
func.func @matmul_fill(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>) -> tensor<100x70xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x70xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<100x70xf32>) -> tensor<100x70xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%f : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// CHECK-LABEL: func.func @matmul_c
// CHECK-NOT:     iree_encoding
// CHECK:         %[[R:.*]] = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<100x70xf32>
func.func @matmul_c(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}
