// Each op is printed as iree-opt 3.13 prints it: the same CHECK lines hold for
// xsplit-opt's output, for iree-opt's output of the same input, and for the
// round trips through the other tool in both directions.
// RUN: xsplit-opt %s | filecheck %s
// RUN: iree-opt --mlir-print-local-scope %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt --mlir-print-local-scope | filecheck %s
// RUN: iree-opt --mlir-print-local-scope %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | iree-opt --mlir-print-local-scope | filecheck %s
// RUN: iree-opt --mlir-print-op-generic --mlir-print-local-scope %s | xsplit-opt | filecheck %s

#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f16, f16, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [96, 48, 200]>
#acc = #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f16, f16, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [96, 48, 200]>

// CHECK-LABEL: func.func @static_encoding
// CHECK:      %{{.*}} = iree_encoding.set_encoding %{{.*}} : tensor<96x200xf16> -> tensor<96x200xf16, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f16, f16, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [96, 48, 200]>>
// CHECK:      %{{.*}} = iree_encoding.unset_encoding %{{.*}} : tensor<96x48xf32, #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [f16, f16, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [96, 48, 200]>> -> tensor<96x48xf32>
func.func @static_encoding(%a: tensor<96x200xf16>, %c: tensor<96x48xf32, #acc>) -> (tensor<96x200xf16, #lhs>, tensor<96x48xf32>) {
  %0 = iree_encoding.set_encoding %a : tensor<96x200xf16> -> tensor<96x200xf16, #lhs>
  %1 = iree_encoding.unset_encoding %c : tensor<96x48xf32, #acc> -> tensor<96x48xf32>
  func.return %0, %1 : tensor<96x200xf16, #lhs>, tensor<96x48xf32>
}

// Dynamic loop sizes take encoding_dims; a dynamic result takes its sizes after the type.
#dyn = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [i8, i8, i32], user_indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iteration_sizes = [4, ?, 64, ?]>
// CHECK-LABEL: func.func @dynamic_encoding
// CHECK:      %{{.*}} = iree_encoding.set_encoding %{{.*}} encoding_dims{%{{.*}}, %{{.*}}} : tensor<4x?x64xi8> -> tensor<4x?x64xi8, #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [i8, i8, i32], user_indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iteration_sizes = [4, ?, 64, ?]>>
// CHECK:      %{{.*}} = iree_encoding.unset_encoding %{{.*}} encoding_dims{%{{.*}}, %{{.*}}} : tensor<4x?x64xi8, #iree_encoding.encoding<{{.*}}>> -> tensor<4x?x64xi8>{%{{.*}}}
func.func @dynamic_encoding(%b: tensor<4x?x64xi8>, %m: index, %k: index) -> tensor<4x?x64xi8> {
  %0 = iree_encoding.set_encoding %b encoding_dims{%m, %k} : tensor<4x?x64xi8> -> tensor<4x?x64xi8, #dyn>
  %1 = iree_encoding.unset_encoding %0 encoding_dims{%m, %k} : tensor<4x?x64xi8, #dyn> -> tensor<4x?x64xi8>{%k}
  func.return %1 : tensor<4x?x64xi8>
}

// The optional parameters, an i64 operand index, and a map composed with a broadcast.
// CHECK-LABEL: func.func @optional_parameters
// CHECK:      tensor<8x16xf32, #iree_encoding.encoding<operand_index = 0 : i64, op_type = matmul, element_types = [f32, f32, f32]>>
// CHECK:      tensor<8x16xf32, #iree_encoding.encoding<operand_index = 1 : i64, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1) -> (d1, d0)>], affine_map<(d0, d1, d2) -> (d0, d1)>]>>
func.func @optional_parameters(%a: tensor<8x16xf32>) -> (tensor<8x16xf32, #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f32, f32, f32]>>, tensor<8x16xf32, #iree_encoding.encoding<operand_index = 1, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1) -> (d1, d0)>], affine_map<(d0, d1, d2) -> (d0, d1)>]>>) {
  %0 = iree_encoding.set_encoding %a : tensor<8x16xf32> -> tensor<8x16xf32, #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f32, f32, f32]>>
  %1 = iree_encoding.set_encoding %a : tensor<8x16xf32> -> tensor<8x16xf32, #iree_encoding.encoding<operand_index = 1, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1) -> (d1, d0)>], affine_map<(d0, d1, d2) -> (d0, d1)>]>>
  func.return %0, %1 : tensor<8x16xf32, #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f32, f32, f32]>>, tensor<8x16xf32, #iree_encoding.encoding<operand_index = 1, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1) -> (d1, d0)>], affine_map<(d0, d1, d2) -> (d0, d1)>]>>
}
