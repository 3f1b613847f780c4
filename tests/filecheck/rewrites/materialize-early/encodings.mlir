// The data tiles come from the target table for the CPU named by XSPLIT_CPU:
// 8x8x1 for f32 on an AVX2 Zen 3, 16x16x1 on an AVX-512 Zen 4.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' --split-input-file | filecheck %s
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'set-encoding,materialize-early' --split-input-file | filecheck %s --check-prefix=ZEN4
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' --split-input-file | iree-opt --split-input-file > /dev/null
// RUN: xsplit-opt %s -p 'set-encoding,materialize-early{target=gfx942}' --split-input-file | filecheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<100x1001xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// CHECK:         %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<100x1001xf32> -> tensor<13x1001x8x1xf32>
// CHECK:         %[[PB:.*]] = linalg.pack %[[B]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %{{.*}} : tensor<1001x70xf32> -> tensor<9x1001x8x1xf32>
// CHECK:         %[[PC:.*]] = linalg.pack %[[C]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<100x70xf32> -> tensor<13x9x8x8xf32>
// CHECK:         %[[M:.*]] = linalg.mmt4d ins(%[[PA]], %[[PB]] : tensor<13x1001x8x1xf32>, tensor<9x1001x8x1xf32>) outs(%[[PC]] : tensor<13x9x8x8xf32>) -> tensor<13x9x8x8xf32>
// CHECK:         %[[U:.*]] = linalg.unpack %[[M]] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// CHECK:         func.return %[[U]]
// ZEN4-LABEL: func.func @matmul
// ZEN4:         linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<7x1001x16x1xf32>, tensor<5x1001x16x1xf32>) outs(%{{.*}} : tensor<7x5x16x16xf32>)
// GPU-LABEL: func.func @matmul
// GPU-NOT:     iree_encoding
// GPU-NOT:     linalg.pack
// GPU:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%{{.*}} : tensor<100x70xf32>)
func.func @matmul(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// -----

// A matvec's missing N is a unit dimension with a narrow tile of 1; i8 packs K by 2.
// CHECK-LABEL: func.func @matvec_i8
// CHECK:         %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3001, 1] : tensor<3001xi8> into tensor<3001x1xi8>
// CHECK:         linalg.pack %[[X]] padding_value(%{{.*}} : i8) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [1, 2] into %{{.*}} : tensor<3001x1xi8> -> tensor<1x1501x1x2xi8>
// CHECK:         linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<8x1501x8x2xi8>, tensor<1x1501x1x2xi8>) outs(%{{.*}} : tensor<8x1x8x1xi32>)
// CHECK:         %[[U:.*]] = linalg.unpack %{{.*}} into %{{.*}} : tensor<8x1x8x1xi32> -> tensor<64x1xi32>
// CHECK:         tensor.collapse_shape %[[U]] {{\[\[}}0, 1]] : tensor<64x1xi32> into tensor<64xi32>
func.func @matvec_i8(%m: tensor<64x3001xi8>, %x: tensor<3001xi8>, %y: tensor<64xi32>) -> tensor<64xi32> {
  %0 = linalg.matvec ins(%m, %x : tensor<64x3001xi8>, tensor<3001xi8>) outs(%y : tensor<64xi32>) -> tensor<64xi32>
  func.return %0 : tensor<64xi32>
}

// -----

// Encodings that cancel fold away before anything is packed.
// CHECK-LABEL: func.func @cancelling
// CHECK-NOT:     iree_encoding
// CHECK-NOT:     linalg.pack
// CHECK:         func.return %{{.*}} : tensor<8x16xf32>
#enc = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [8, 4, 16]>
func.func @cancelling(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = iree_encoding.set_encoding %a : tensor<8x16xf32> -> tensor<8x16xf32, #enc>
  %1 = iree_encoding.unset_encoding %0 : tensor<8x16xf32, #enc> -> tensor<8x16xf32>
  %2 = iree_encoding.set_encoding %1 : tensor<8x16xf32> -> tensor<8x16xf32, #enc>
  %3 = iree_encoding.unset_encoding %2 : tensor<8x16xf32, #enc> -> tensor<8x16xf32>
  func.return %3 : tensor<8x16xf32>
}
