// The same CHECK lines hold for xsplit-opt's output, iree-opt's, and the round
// trips through the other tool in both directions.
// RUN: xsplit-opt %s | filecheck %s
// RUN: iree-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s
// Generic form, both ways.
// RUN: xsplit-opt --print-op-generic %s | iree-opt | filecheck %s
// RUN: iree-opt --mlir-print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @pack_unpack
// CHECK:      %{{.*}} = linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0, 2] inner_dims_pos = [0, 2] inner_tiles = [16, 1] into %{{.*}} : tensor<100x3x334xf32> -> tensor<3x7x334x16x1xf32>
// CHECK:      %{{.*}} = linalg.pack %{{.*}} inner_dims_pos = [1, 0] inner_tiles = [8, 4] into %{{.*}} : tensor<64x32xi8> -> tensor<16x4x8x4xi8>
// CHECK:      %{{.*}} = linalg.unpack %{{.*}} outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [16, 16] into %{{.*}} : tensor<7x5x16x16xf32> -> tensor<100x70xf32>
func.func @pack_unpack(%a: tensor<100x3x334xf32>, %b: tensor<64x32xi8>, %c: tensor<7x5x16x16xf32>) -> (tensor<3x7x334x16x1xf32>, tensor<16x4x8x4xi8>, tensor<100x70xf32>) {
  %z = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<3x7x334x16x1xf32>
  %pa = linalg.pack %a padding_value(%z : f32) outer_dims_perm = [1, 0, 2] inner_dims_pos = [0, 2] inner_tiles = [16, 1] into %ea : tensor<100x3x334xf32> -> tensor<3x7x334x16x1xf32>
  %eb = tensor.empty() : tensor<16x4x8x4xi8>
  %pb = linalg.pack %b inner_dims_pos = [1, 0] inner_tiles = [8, 4] into %eb : tensor<64x32xi8> -> tensor<16x4x8x4xi8>
  %ec = tensor.empty() : tensor<100x70xf32>
  %uc = linalg.unpack %c outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [16, 16] into %ec : tensor<7x5x16x16xf32> -> tensor<100x70xf32>
  func.return %pa, %pb, %uc : tensor<3x7x334x16x1xf32>, tensor<16x4x8x4xi8>, tensor<100x70xf32>
}

// Dynamic tiles and sizes, and a discardable attribute.
// CHECK-LABEL: func.func @dynamic
// CHECK:      %{{.*}} = linalg.pack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [%{{.*}}, 1] into %{{.*}} {xsplit.mark} : tensor<100x?xf32> -> tensor<?x?x?x1xf32>
// CHECK:      %{{.*}} = linalg.unpack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [%{{.*}}, 1] into %{{.*}} : tensor<?x?x?x1xf32> -> tensor<100x?xf32>
func.func @dynamic(%a: tensor<100x?xf32>, %t: index) -> tensor<100x?xf32> {
  %e = tensor.empty(%t, %t, %t) : tensor<?x?x?x1xf32>
  %p = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [%t, 1] into %e {xsplit.mark} : tensor<100x?xf32> -> tensor<?x?x?x1xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [%t, 1] into %a : tensor<?x?x?x1xf32> -> tensor<100x?xf32>
  func.return %u : tensor<100x?xf32>
}
