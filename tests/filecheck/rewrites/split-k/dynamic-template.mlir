// A matmul whose K is dynamic, cut by tile=, goes through split-k's template
// pattern (dynamic.mlir checks the other dynamic forms, the builder's).
// RUN: xsplit-opt %s --split-input-file -p 'split-k{tile=128}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'split-k{tile=128}' 2>/dev/null | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{tile=128}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=6}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=FACTOR

// STATS: dynamic-template.mlir:[[# @LINE + 16]]:3: remark: split-k: K is dynamic, so the chunks are too
// CHECK-LABEL: func.func @dynamic_k
// CHECK:         %[[K:.*]] = tensor.dim %a, %{{.*}} : tensor<16x?xf32>
// CHECK:         %[[N:.*]] = affine.apply affine_map<()[s0] -> ((s0 ceildiv 128))> ()[%[[K]]]
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[N]]) : tensor<16x32x?xf32>
// CHECK-NEXT:    %[[P:.*]] = scf.forall (%[[S:.*]]) in (%[[N]]) shared_outs(%{{.*}} = %[[E]]) -> (tensor<16x32x?xf32>) {
// CHECK-NEXT:      %[[O:.*]] = affine.apply affine_map<(d0) -> ((d0 * 128))> (%[[S]])
// CHECK-NEXT:      %[[Z:.*]] = affine.min affine_map<(d0)[s0] -> (128, ((d0 * -128) + s0))> (%[[S]])[%[[K]]]
// CHECK-NEXT:      tensor.extract_slice %a[0, %[[O]]] [16, %[[Z]]] [1, 1] : tensor<16x?xf32> to tensor<16x?xf32>
// CHECK-NEXT:      tensor.extract_slice %b[%[[O]], 0] [%[[Z]], 32] [1, 1] : tensor<?x32xf32> to tensor<?x32xf32>
// CHECK:           linalg.matmul
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:    %[[M:.*]] = linalg.reduce ins(%[[P]]:tensor<16x32x?xf32>) outs(%c:tensor<16x32xf32>) dimensions = [2]
// CHECK:           arith.addf
// CHECK:         return %[[M]]
func.func @dynamic_k(%a: tensor<16x?xf32>, %b: tensor<?x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x?xf32>, tensor<?x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}

// -----

// An integer matmul: the integer identity and combiner.
// CHECK-LABEL: func.func @dynamic_k_i32
// CHECK:         arith.constant 0 : i32
// CHECK:         linalg.reduce
// CHECK:           arith.addi
func.func @dynamic_k_i32(%a: tensor<4x?xi32>, %b: tensor<?x8xi32>, %c: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x?xi32>, tensor<?x8xi32>) outs(%c : tensor<4x8xi32>) -> tensor<4x8xi32>
  func.return %0 : tensor<4x8xi32>
}

// -----

// A dynamic M is the builder's.
// CHECK-LABEL: func.func @dynamic_m
// CHECK:         scf.forall
func.func @dynamic_m(%a: tensor<?x?xf32>, %b: tensor<?x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  func.return %0 : tensor<?x32xf32>
}

// STATS: split-k: split-k-dynamic-tiles: 2
// STATS: split-k: split-k-forall: 1
// FACTOR: split-k: split-k-dynamic-tiles: 0
// FACTOR: split-k: split-k-forall: 3
