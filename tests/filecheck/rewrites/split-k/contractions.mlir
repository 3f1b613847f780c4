// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' | iree-opt > /dev/null
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=expand}' | iree-opt > /dev/null

// A named matmul with both operands transposed through `indexing_maps`: each
// operand is cut along the dimension its map gives K, and the chunk's matmul
// keeps the maps.
// CHECK-LABEL: func.func @matmul_transposed
// CHECK:         %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 250))>
// CHECK-NEXT:    %[[AC:.*]] = tensor.extract_slice %{{.*}}[%[[OFF]], 0] [250, 16] [1, 1] : tensor<1000x16xf32> to tensor<250x16xf32>
// CHECK-NEXT:    %[[BC:.*]] = tensor.extract_slice %{{.*}}[0, %[[OFF]]] [32, 250] [1, 1] : tensor<32x1000xf32> to tensor<32x250xf32>
// CHECK:         linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[AC]], %[[BC]] : tensor<250x16xf32>, tensor<32x250xf32>)
func.func @matmul_transposed(%a: tensor<1000x16xf32>, %b: tensor<32x1000xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<1000x16xf32>, tensor<32x1000xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}

// -----

// batch_matmul with a shared (broadcast) A and a transposed B.
// CHECK-LABEL: func.func @batch_matmul_broadcast
// CHECK:         tensor.extract_slice %{{.*}}[0, %[[OFF:.*]]] [16, 250] [1, 1] : tensor<16x1000xf32> to tensor<16x250xf32>
// CHECK-NEXT:    tensor.extract_slice %{{.*}}[0, 0, %[[OFF]]] [3, 24, 250] [1, 1, 1] : tensor<3x24x1000xf32> to tensor<3x24x250xf32>
// CHECK:         linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK:         linalg.reduce ins(%{{.*}}:tensor<3x16x24x4xf32>) outs(%{{.*}}:tensor<3x16x24xf32>) dimensions = [3]
func.func @batch_matmul_broadcast(%a: tensor<16x1000xf32>, %b: tensor<3x24x1000xf32>, %c: tensor<3x16x24xf32>) -> tensor<3x16x24xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : tensor<16x1000xf32>, tensor<3x24x1000xf32>) outs(%c : tensor<3x16x24xf32>) -> tensor<3x16x24xf32>
  func.return %0 : tensor<3x16x24xf32>
}

// -----

// linalg.contract with two reduction loops (300 and 7): the longer is cut.
// REMARK: contractions.mlir:[[# @LINE + 6]]:3: remark: split-k: cutting reduction loop d2 (extent 300), the longest; d3 stays whole in each chunk
// CHECK-LABEL: func.func @contract_two_reductions
// CHECK:         tensor.extract_slice %{{.*}}[0, %[[OFF:.*]], 0] [16, 75, 7] [1, 1, 1] : tensor<16x300x7xf16> to tensor<16x75x7xf16>
// CHECK-NEXT:    tensor.extract_slice %{{.*}}[%[[OFF]], 0, 0] [75, 7, 24] [1, 1, 1] : tensor<300x7x24xf16> to tensor<75x7x24xf16>
// CHECK:         linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>] ins(%{{.*}}, %{{.*}} : tensor<16x75x7xf16>, tensor<75x7x24xf16>) outs(%{{.*}} : tensor<16x24xf32>)
func.func @contract_two_reductions(%a: tensor<16x300x7xf16>, %b: tensor<300x7x24xf16>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>] ins(%a, %b : tensor<16x300x7xf16>, tensor<300x7x24xf16>) outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  func.return %0 : tensor<16x24xf32>
}

// -----

// batch_reduce_matmul sums over the batch and k; k (600) is longer than the
// batch (4), so each chunk still sums all four batches over its 150 of k.
// REMARK: contractions.mlir:[[# @LINE + 5]]:3: remark: split-k: cutting reduction loop d3 (k) (extent 600), the longest; d0 (b) stays whole in each chunk
// CHECK-LABEL: func.func @batch_reduce_matmul
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, %{{.*}}] [4, 16, 150] [1, 1, 1] : tensor<4x16x600xf32> to tensor<4x16x150xf32>
// CHECK:         linalg.batch_reduce_matmul ins(%{{.*}}, %{{.*}} : tensor<4x16x150xf32>, tensor<4x150x24xf32>) outs(%{{.*}} : tensor<16x24xf32>)
func.func @batch_reduce_matmul(%a: tensor<4x16x600xf32>, %b: tensor<4x600x24xf32>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.batch_reduce_matmul ins(%a, %b : tensor<4x16x600xf32>, tensor<4x600x24xf32>) outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  func.return %0 : tensor<16x24xf32>
}

// -----

// mmt4d: the K tiles (200) are cut, each k0 tile (4) stays whole. The chunk's
// op is mmt4d's generic form: IREE 3.13 computes a linalg.mmt4d wrongly as
// a split-reduction partial.
// REMARK: contractions.mlir:[[# @LINE + 6]]:3: remark: split-k: cutting reduction loop d2 (k) (extent 200), the longest; d5 (k0) stays whole in each chunk
// CHECK-LABEL: func.func @mmt4d
// CHECK:         tensor.extract_slice %{{.*}}[0, %[[OFF:.*]], 0, 0] [4, 50, 8, 4] [1, 1, 1, 1] : tensor<4x200x8x4xf32> to tensor<4x50x8x4xf32>
// CHECK-NEXT:    tensor.extract_slice %{{.*}}[0, %[[OFF]], 0, 0] [3, 50, 8, 4] [1, 1, 1, 1] : tensor<3x200x8x4xf32> to tensor<3x50x8x4xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
func.func @mmt4d(%a: tensor<4x200x8x4xf32>, %b: tensor<3x200x8x4xf32>, %c: tensor<4x3x8x8xf32>) -> tensor<4x3x8x8xf32> {
  %0 = linalg.mmt4d ins(%a, %b : tensor<4x200x8x4xf32>, tensor<3x200x8x4xf32>) outs(%c : tensor<4x3x8x8xf32>) -> tensor<4x3x8x8xf32>
  func.return %0 : tensor<4x3x8x8xf32>
}

// -----

// K tiles 101 = 3 x 26 + 23: static chunks of 26 and a tail of 23, both in generic form.
// CHECK-LABEL: func.func @batch_mmt4d
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, 0, 0] [2, 3, 26, 8, 4] [1, 1, 1, 1, 1] : tensor<2x3x101x8x4xi8> to tensor<2x3x26x8x4xi8>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]
// CHECK:           arith.extsi
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 78, 0, 0] [2, 3, 23, 8, 4] [1, 1, 1, 1, 1] {xsplit.split_part = "tail"} : tensor<2x3x101x8x4xi8> to tensor<2x3x23x8x4xi8>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]
// CHECK-SAME:      xsplit.split_part = "tail"
func.func @batch_mmt4d(%a: tensor<2x3x101x8x4xi8>, %b: tensor<2x2x101x8x4xi8>, %c: tensor<2x3x2x8x8xi32>) -> tensor<2x3x2x8x8xi32> {
  %0 = linalg.batch_mmt4d ins(%a, %b : tensor<2x3x101x8x4xi8>, tensor<2x2x101x8x4xi8>) outs(%c : tensor<2x3x2x8x8xi32>) -> tensor<2x3x2x8x8xi32>
  func.return %0 : tensor<2x3x2x8x8xi32>
}
