// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @mismatched_k(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}
// CHECK: invalid.mlir:4:3: error: 'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 8, but found 7

// -----

func.func @rank(%a: tensor<4x8xf32>, %x: tensor<8x1xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<4x8xf32>, tensor<8x1xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.matvec' op expected operand #1 rank (2) to match the result rank of indexing_map (1)

// -----

// mmt4d's A and B must agree on the reduction tile k0 (their last dimension).
func.func @mmt4d_k0(%a: tensor<2x8x4x2xf32>, %b: tensor<3x8x5x3xf32>, %c: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = linalg.mmt4d ins(%a, %b : tensor<2x8x4x2xf32>, tensor<3x8x5x3xf32>) outs(%c : tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %0 : tensor<2x3x4x5xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.mmt4d' op inferred input/output operand #1 has shape's dimension #3 to be 2, but found 3

// -----

func.func @batch_mmt4d_rank(%a: tensor<2x8x4x2xf32>, %b: tensor<1x3x8x5x2xf32>, %c: tensor<1x2x3x4x5xf32>) -> tensor<1x2x3x4x5xf32> {
  %0 = linalg.batch_mmt4d ins(%a, %b : tensor<2x8x4x2xf32>, tensor<1x3x8x5x2xf32>) outs(%c : tensor<1x2x3x4x5xf32>) -> tensor<1x2x3x4x5xf32>
  func.return %0 : tensor<1x2x3x4x5xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.batch_mmt4d' op expected operand #0 rank (4) to match the result rank of indexing_map (5)

// -----

func.func @conv_window(%i: tensor<1x9x10x8xf32>, %f: tensor<3x3x8x4xf32>, %o: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x9x10x8xf32>, tensor<3x3x8x4xf32>) outs(%o : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %0 : tensor<1x8x8x4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.conv_2d_nhwc_hwcf' op inferred input/output operand #0 has shape's dimension #1 to be greater than or equal to 10, but found 9

// -----

func.func @transposed_k(%a: tensor<8x4xf32>, %b: tensor<7x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<8x4xf32>, tensor<7x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 8, but found 7

// -----

func.func @pack_artificial_padding(%a: tensor<100x1201xf32>, %d: tensor<13x152x8x8xf32>) -> tensor<13x152x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %p = linalg.pack %a padding_value(%z : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %d : tensor<100x1201xf32> -> tensor<13x152x8x8xf32>
  func.return %p : tensor<13x152x8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: 'linalg.pack' op expected 'tensor<13x151x8x8xf32>' for the packed domain value, got 'tensor<13x152x8x8xf32>'

// -----

func.func @unpack_rank(%a: tensor<13x151x8xf32>, %d: tensor<100x1201xf32>) -> tensor<100x1201xf32> {
  %u = linalg.unpack %a inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %d : tensor<13x151x8xf32> -> tensor<100x1201xf32>
  func.return %u : tensor<100x1201xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: 'linalg.unpack' op packed rank != (unpacked rank + num tiling factors), got 3 != 4

// -----

func.func @pack_perm(%a: tensor<16x16xf32>, %d: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
  %p = linalg.pack %a outer_dims_perm = [0, 0] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %d : tensor<16x16xf32> -> tensor<2x2x8x8xf32>
  func.return %p : tensor<2x2x8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: 'linalg.pack' op invalid outer_dims_perm vector

// -----

// MLIR's DestinationStyleOpInterface: one result per tensor output, of its type.
func.func @result_type(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf16> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf16>
  func.return %0 : tensor<4x16xf16>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.matmul' op expected type of operand #2 ('tensor<4x16xf32>') to match type of corresponding result ('tensor<4x16xf16>')

// -----

func.func @result_on_memref(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %0 = linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) -> tensor<4x16xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.matmul' op expected the number of tensor results (1) to be equal to the number of output tensors (0)

// -----

func.func @result_count(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0:2 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>)
  func.return %0#0 : tensor<4x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.matmul' op expected the number of tensor results (2) to be equal to the number of output tensors (1)

// -----

func.func @output_extent(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<5x16xf32>) -> tensor<5x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<5x16xf32>) -> tensor<5x16xf32>
  func.return %0 : tensor<5x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'linalg.matmul' op inferred input/output operand #2 has shape's dimension #0 to be 4, but found 5
