// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

#enc = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [?, 8, 16]>
func.func @missing_encoding_dims(%a: tensor<?x16xf32>) -> tensor<?x16xf32, #enc> {
  %0 = iree_encoding.set_encoding %a : tensor<?x16xf32> -> tensor<?x16xf32, #enc>
  func.return %0 : tensor<?x16xf32, #enc>
}
// CHECK: invalid.mlir:5:3: error: 'iree_encoding.set_encoding' op encoding expects 1 dynamic encoding dimension(s), but 0 provided

// -----

func.func @shape_changes(%a: tensor<4x16xf32>) -> tensor<4x8xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>> {
  %0 = iree_encoding.set_encoding %a : tensor<4x16xf32> -> tensor<4x8xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>>
  func.return %0 : tensor<4x8xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_encoding.set_encoding' op expected to preserve the logical shape of the tensor

// -----

func.func @no_encoding(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = iree_encoding.set_encoding %a : tensor<4x16xf32> -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_encoding.set_encoding' op result of set_encoding op expected to have a valid tensor encoding

// -----

func.func @bad_index(%a: tensor<4x16xf32>) -> tensor<4x16xf32, #iree_encoding.encoding<operand_index = 3 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]>> {
  %0 = iree_encoding.set_encoding %a : tensor<4x16xf32> -> tensor<4x16xf32, #iree_encoding.encoding<operand_index = 3 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]>>
  func.return %0 : tensor<4x16xf32, #iree_encoding.encoding<operand_index = 3 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]>>
}
// A parse error in an attribute: MLIR's diagnostic.
// CHECK: invalid.mlir:[[# @LINE - 5]]:{{[0-9]+}}: error: `operandIndex` exceeds the size of `user_indexing_maps`

// -----

func.func @unset_dims(%a: tensor<?x16xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>>) -> tensor<?x16xf32> {
  %0 = iree_encoding.unset_encoding %a : tensor<?x16xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>> -> tensor<?x16xf32>
  func.return %0 : tensor<?x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_encoding.unset_encoding' op result type set has 1 dynamic dimensions but only 0 dimension values are attached

// -----

#enc_twice = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>
func.func @set_encoded(%t: tensor<4x8xf32, #enc_twice>) -> tensor<4x8xf32, #enc_twice> {
  %0 = iree_encoding.set_encoding %t : tensor<4x8xf32, #enc_twice> -> tensor<4x8xf32, #enc_twice>
  func.return %0 : tensor<4x8xf32, #enc_twice>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_encoding.set_encoding' op source of set_encoding op cannot have a tensor encoding

// -----

#enc_kept = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>
func.func @unset_encoded(%t: tensor<4x8xf32, #enc_kept>) -> tensor<4x8xf32, #enc_kept> {
  %0 = iree_encoding.unset_encoding %t : tensor<4x8xf32, #enc_kept> -> tensor<4x8xf32, #enc_kept>
  func.return %0 : tensor<4x8xf32, #enc_kept>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_encoding.unset_encoding' op result of unset_encoding op cannot have a tensor encoding

// -----

#enc_shape = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>
func.func @unset_shape(%t: tensor<4x8xf32, #enc_shape>) -> tensor<4x9xf32> {
  %0 = iree_encoding.unset_encoding %t : tensor<4x8xf32, #enc_shape> -> tensor<4x9xf32>
  func.return %0 : tensor<4x9xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_encoding.unset_encoding' op expected to preserve the logical shape of the tensor
