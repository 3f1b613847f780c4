// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s
// The same IR through iree-opt fails too, with these messages.

func.func @extract_sizes(%t: tensor<8x8xf32>) {
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x5xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)

// -----

func.func @extract_dynamic_size(%t: tensor<8x8xf32>, %n: index) {
  %0 = tensor.extract_slice %t[0, 0] [%n, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op expected type to be 'tensor<?x4xf32>' or a rank-reduced version. (size mismatch)

// -----

func.func @extract_static_for_dynamic(%t: tensor<8x8xf32>) {
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<?x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)

// -----

func.func @extract_dropped_order(%t: tensor<8x8xf32>) {
  %0 = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<4x1xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op expected type to be 'tensor<1x4xf32>' or a rank-reduced version. (size mismatch)

// -----

func.func @extract_element(%t: tensor<8x8xf32>) {
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf16>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op expected element type to be 'f32'

// -----

func.func @extract_rank(%t: tensor<8x8xf32>) {
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4x1xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op expected rank to be smaller or equal to the other rank.

// -----

func.func @extract_past_end(%t: tensor<8x8xf32>) {
  %0 = tensor.extract_slice %t[6, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op slice along dimension 0 runs out-of-bounds: 9 >= 8

// -----

func.func @extract_source_rank(%t: tensor<8x8xf32>) {
  %0 = tensor.extract_slice %t[0] [4] [1] : tensor<8x8xf32> to tensor<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.extract_slice' op expected 2 offset values, got 1

// -----

func.func @insert_sizes(%t: tensor<8x8xf32>, %s: tensor<4x5xf32>) {
  %0 = tensor.insert_slice %s into %t[0, 0] [4, 4] [1, 1] : tensor<4x5xf32> into tensor<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.insert_slice' op expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)

// -----

func.func @insert_element(%t: tensor<8x8xf32>, %s: tensor<4x4xf16>) {
  %0 = tensor.insert_slice %s into %t[0, 0] [4, 4] [1, 1] : tensor<4x4xf16> into tensor<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.insert_slice' op expected element type to be 'f32'

// -----

func.func @insert_past_end(%t: tensor<8x8xf32>, %s: tensor<4xf32>) {
  %0 = tensor.insert_slice %s into %t[0, 6] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.insert_slice' op slice along dimension 1 runs out-of-bounds: 9 >= 8

// -----

func.func @insert_offset_out_of_bounds(%t: tensor<8x8xf32>, %s: tensor<4xf32>) {
  %0 = tensor.insert_slice %s into %t[8, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.insert_slice' op offset 0 is out-of-bounds: 8 >= 8

// -----

func.func @insert_list_ranks(%t: tensor<8x8xf32>, %s: tensor<1x4xf32>) {
  %0 = tensor.insert_slice %s into %t[0, 0] [4] [1, 1] : tensor<1x4xf32> into tensor<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.insert_slice' op expected mixed offsets rank to match mixed sizes rank (2 vs 1) so the rank of the result type is well-formed.

// -----

func.func @insert_negative_size(%t: tensor<8x8xf32>, %s: tensor<1x4xf32>) {
  %0 = tensor.insert_slice %s into %t[0, 0] [-2, 4] [1, 1] : tensor<1x4xf32> into tensor<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.insert_slice' op expected sizes to be non-negative, but got -2

// -----

// Reshapes: MLIR's verifyTensorReshapeOp.
func.func @collapse_size(%t: tensor<4x8xf32>) -> tensor<33xf32> {
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<33xf32>
  func.return %0 : tensor<33xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.collapse_shape' op expected dimension 0 of collapsed type to be static value of 32

// -----

func.func @collapse_static_of_dynamic(%t: tensor<4x?xf32>) -> tensor<32xf32> {
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<4x?xf32> into tensor<32xf32>
  func.return %0 : tensor<32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.collapse_shape' op expected dimension 0 of collapsed type to be dynamic since one or more of the corresponding dimensions in the expanded type is dynamic

// -----

func.func @collapse_dynamic_of_static(%t: tensor<4x8x2xf32>) -> tensor<?xf32> {
  %0 = tensor.collapse_shape %t [[0, 1, 2]] : tensor<4x8x2xf32> into tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.collapse_shape' op expected dimension 0 of collapsed type to be static value of 64

// -----

func.func @collapse_groups(%t: tensor<4x8x2xf32>) -> tensor<32x2xf32> {
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<4x8x2xf32> into tensor<32x2xf32>
  func.return %0 : tensor<32x2xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.collapse_shape' op expected collapsed rank (2) to equal the number of reassociation maps (1).

// -----

func.func @collapse_element(%t: tensor<4x8xf32>) -> tensor<32xf16> {
  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<32xf16>
  func.return %0 : tensor<32xf16>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.collapse_shape' op expected collapsed type to be 'tensor<32xf32>', but got 'tensor<32xf16>'

// -----

func.func @expand_element(%t: tensor<32xf32>) -> tensor<4x8xf16> {
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf16>
  func.return %0 : tensor<4x8xf16>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.expand_shape' op expected collapsed type to be 'tensor<32xf16>', but got 'tensor<32xf32>'

// -----

// To rank 0, a static shape must hold one element.
func.func @collapse_to_rank_zero(%t: tensor<1x2xf32>) -> tensor<f32> {
  %0 = tensor.collapse_shape %t [] : tensor<1x2xf32> into tensor<f32>
  func.return %0 : tensor<f32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.collapse_shape' op number of elements must be preserved: 2 != 1

// -----

func.func @expand_from_rank_zero(%t: tensor<f32>) -> tensor<2x1xf32> {
  %0 = tensor.expand_shape %t [] output_shape [2, 1] : tensor<f32> into tensor<2x1xf32>
  func.return %0 : tensor<2x1xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.expand_shape' op number of elements must be preserved: 2 != 1

// -----

// The groups split the expanded dimensions 0, 1, 2, ... in order.
func.func @groups_out_of_order(%t: tensor<32xf32>) -> tensor<4x8xf32> {
  %0 = "tensor.expand_shape"(%t) <{reassociation = [[1, 0]], static_output_shape = array<i64: 4, 8>}> : (tensor<32xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.expand_shape' op expected reassociation map #0 to be valid and contiguous.

// -----

func.func @groups_skip(%t: tensor<4x8x2xf32>) -> tensor<4x16xf32> {
  %0 = "tensor.collapse_shape"(%t) <{reassociation = [[0], [2]]}> : (tensor<4x8x2xf32>) -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.collapse_shape' op expected reassociation map #1 to be valid and contiguous.

// -----

func.func @empty_group(%t: tensor<4x8xf32>) -> tensor<32x1xf32> {
  %0 = tensor.expand_shape %t [[0, 1], []] output_shape [32, 1] : tensor<4x8xf32> into tensor<32x1xf32>
  func.return %0 : tensor<32x1xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'tensor.expand_shape' op reassociation indices must not be empty
