// The folds as templates that replace the root by a captured value.
// RUN: xsplit-opt %s -p materialize-early --split-input-file | filecheck %s
// RUN: xsplit-opt %s -p materialize-early --split-input-file | iree-opt --split-input-file > /dev/null

// pack(unpack(x)) with the same layout and whole tiles is x.
// CHECK-LABEL: func.func @unpack_pack
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8x16x4xf32>)
// CHECK-NOT:     linalg.pack
// CHECK:         func.return %[[X]] : tensor<4x8x16x4xf32>
func.func @unpack_pack(%x: tensor<4x8x16x4xf32>) -> tensor<4x8x16x4xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %u = linalg.unpack %x inner_dims_pos = [0, 1] inner_tiles = [16, 4] into %e : tensor<4x8x16x4xf32> -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<4x8x16x4xf32>
  %p = linalg.pack %u inner_dims_pos = [0, 1] inner_tiles = [16, 4] into %e2 : tensor<64x32xf32> -> tensor<4x8x16x4xf32>
  func.return %p : tensor<4x8x16x4xf32>
}

// -----

// Other tiles: the pack is no inverse, nothing folds.
// CHECK-LABEL: func.func @other_tiles
// CHECK:         linalg.unpack
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 8]
func.func @other_tiles(%x: tensor<4x8x16x4xf32>) -> tensor<8x4x8x8xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %u = linalg.unpack %x inner_dims_pos = [0, 1] inner_tiles = [16, 4] into %e : tensor<4x8x16x4xf32> -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<8x4x8x8xf32>
  %p = linalg.pack %u inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %e2 : tensor<64x32xf32> -> tensor<8x4x8x8xf32>
  func.return %p : tensor<8x4x8x8xf32>
}

// -----

// Partial tiles: the unpack drops padding the pack would refill, nothing folds.
// CHECK-LABEL: func.func @partial_tiles
// CHECK:         linalg.unpack
// CHECK:         linalg.pack
func.func @partial_tiles(%x: tensor<4x8x16x4xf32>, %z: f32) -> tensor<4x8x16x4xf32> {
  %e = tensor.empty() : tensor<60x32xf32>
  %u = linalg.unpack %x inner_dims_pos = [0, 1] inner_tiles = [16, 4] into %e : tensor<4x8x16x4xf32> -> tensor<60x32xf32>
  %e2 = tensor.empty() : tensor<4x8x16x4xf32>
  %p = linalg.pack %u padding_value(%z : f32) inner_dims_pos = [0, 1] inner_tiles = [16, 4] into %e2 : tensor<60x32xf32> -> tensor<4x8x16x4xf32>
  func.return %p : tensor<4x8x16x4xf32>
}
