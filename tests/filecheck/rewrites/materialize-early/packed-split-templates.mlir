// An encoded split of a matmul and its merge, early: the common root goes
// through materialize-packed-split-early (PACKED_SPLIT), in either order of
// split-k and set-encoding; a matvec's through the builder it comes before.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-early' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'split-k{factor=7},set-encoding,materialize-early' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,split-k{factor=7},materialize-early' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// CHECK-LABEL: func.func @aligned
// CHECK-SAME:    (%[[A:.*]]: tensor<100x1001xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// CHECK:         %[[XA:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0], [1, 2]] output_shape [100, 7, 143]
// CHECK:         %[[XB:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1], [2]] output_shape [7, 143, 70]
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[PA:.*]] = linalg.pack %[[XA]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0, 2] inner_dims_pos = [0, 2] inner_tiles = [8, 1] into %{{.*}} : tensor<100x7x143xf32> -> tensor<7x13x143x8x1xf32>
// CHECK:         %[[PB:.*]] = linalg.pack %[[XB]] padding_value(%{{.*}} : f32) outer_dims_perm = [0, 2, 1] inner_dims_pos = [2, 1] inner_tiles = [8, 1] into %{{.*}} : tensor<7x143x70xf32> -> tensor<7x9x143x8x1xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<7x13x9x8x8xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<7x13x9x8x8xf32>)
// CHECK-NEXT:    %[[P:.*]] = linalg.batch_mmt4d ins(%[[PA]], %[[PB]] : tensor<7x13x143x8x1xf32>, tensor<7x9x143x8x1xf32>) outs(%[[F]] : tensor<7x13x9x8x8xf32>)
// CHECK:         %[[PC:.*]] = linalg.pack %[[C]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<100x70xf32> -> tensor<13x9x8x8xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.reduce ins(%[[P]]:tensor<7x13x9x8x8xf32>) outs(%[[PC]]:tensor<13x9x8x8xf32>) dimensions = [0]
// CHECK:         %[[M:.*]] = linalg.unpack %[[R]] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %{{.*}} : tensor<13x9x8x8xf32> -> tensor<100x70xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @aligned(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// CHECK-LABEL: func.func @matvec
// CHECK:         tensor.expand_shape
// CHECK:         linalg.batch_mmt4d
// CHECK:         linalg.reduce
// CHECK:         linalg.unpack
func.func @matvec(%a: tensor<64x1001xf32>, %x: tensor<1001xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x1001xf32>, tensor<1001xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// STATS: xsplit-stats: materialize-early: materialize-packed-split-early: 1
// STATS: xsplit-stats: materialize-early: materialize-encoded-split-early: 1
