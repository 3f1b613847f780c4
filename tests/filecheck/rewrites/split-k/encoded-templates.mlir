// An f32 matmul that set-encoding put between set_encoding and
// unset_encoding splits through split-k's encoded templates
// (encoded_split.ENCODED_MATMUL, ENCODED_MATMUL_PADDED); a zero-filled init
// or an integer matmul stays with the split-k-encoded builder, into the same
// form.
// RUN: xsplit-opt %s --split-input-file -p 'set-encoding,split-k{factor=7}' | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'set-encoding,split-k{factor=7}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'set-encoding,split-k{factor=7}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// K = 1001 in 7 chunks of 143: A and B reshaped, no pad.
// CHECK-LABEL: func.func @whole
// CHECK-NOT:     tensor.pad
// CHECK:         %[[EA:.*]] = tensor.expand_shape %a {{\[\[}}0], [1, 2]] output_shape [100, 7, 143] : tensor<100x1001xf32> into tensor<100x7x143xf32>
// CHECK-NEXT:    %[[EB:.*]] = tensor.expand_shape %b {{\[\[}}0, 1], [2]] output_shape [7, 143, 70] : tensor<1001x70xf32> into tensor<7x143x70xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    iree_encoding.set_encoding %[[EA]] : tensor<100x7x143xf32> -> tensor<100x7x143xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d0, d1)>], iteration_sizes = [100, 70, 143, 7]>>
// CHECK-NEXT:    iree_encoding.set_encoding %[[EB]] : tensor<7x143x70xf32> -> tensor<7x143x70xf32, #iree_encoding.encoding<operand_index = 1 : index
// CHECK-NEXT:    tensor.empty() : tensor<7x100x70xf32, #iree_encoding.encoding<operand_index = 2 : index
// CHECK-NEXT:    linalg.fill ins(%[[Z]] : f32)
// CHECK-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]} {{.*}} attrs =  {xsplit.split_chunks = 7 : i64}
// CHECK:         %[[P:.*]] = iree_encoding.unset_encoding %{{.*}} -> tensor<7x100x70xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.reduce ins(%[[P]]:tensor<7x100x70xf32>) outs(%c:tensor<100x70xf32>) dimensions = [0]
// CHECK:         func.return %[[R]]
func.func @whole(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// -----

// K = 1009 (prime): 7 chunks of 145, K zero-padded to 1015 first.
// CHECK-LABEL: func.func @padded
// CHECK:         %a_padded = tensor.pad %a low[0, 0] high[0, 6] {
// CHECK:         } : tensor<32x1009xf32> to tensor<32x1015xf32>
// CHECK-NEXT:    tensor.expand_shape %a_padded {{\[\[}}0], [1, 2]] output_shape [32, 7, 145]
// CHECK-NEXT:    %b_padded = tensor.pad %b low[0, 0] high[6, 0] {
// CHECK:         } : tensor<1009x48xf32> to tensor<1015x48xf32>
// CHECK-NEXT:    tensor.expand_shape %b_padded {{\[\[}}0, 1], [2]] output_shape [7, 145, 48]
// CHECK:         iteration_sizes = [32, 48, 145, 7]
// CHECK:         linalg.reduce ins(%{{.*}}:tensor<7x32x48xf32>) outs(%c:tensor<32x48xf32>) dimensions = [0]
func.func @padded(%a: tensor<32x1009xf32>, %b: tensor<1009x48xf32>, %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x1009xf32>, tensor<1009x48xf32>) outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  func.return %r : tensor<32x48xf32>
}

// -----

// A zero-filled init is encoded as a filled empty tensor: the builder's.
// CHECK-LABEL: func.func @filled
// CHECK:         output_shape [64, 7, 429]
// CHECK:         linalg.reduce ins(%{{.*}}:tensor<7x64x48xf32>)
func.func @filled(%a: tensor<64x3003xf32>, %b: tensor<3003x48xf32>) -> tensor<64x48xf32> {
  %e = tensor.empty() : tensor<64x48xf32>
  %z = arith.constant 0.0 : f32
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x3003xf32>, tensor<3003x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  func.return %r : tensor<64x48xf32>
}

// STATS: split-k-encoded-matmul: 1
// STATS: split-k-encoded-matmul-padded: 1
// STATS: split-k-encoded: 1
