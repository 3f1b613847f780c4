// A static matmul whose aligned chunks leave no rest of K, or an aligned
// one, and whose M needs no padding, goes through split-k's aligned
// templates; aligned.mlir checks the forms the builder makes (padded M,
// padded tail, tiles).
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=16 pad_m=8}' | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=16 pad_m=8}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=16 pad_m=8}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=16 pad_m=8 cpu_tiles=true}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=TILED

// Three chunks of 32 cover K = 96: the chunk index leads the partials.
// CHECK-LABEL: func.func @exact
// CHECK:         %[[P:.*]] = scf.forall (%[[S:.*]]) in (3) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<3x16x20xf32>) {
// CHECK-NEXT:      affine.apply affine_map<(d0) -> ((d0 * 32))> (%[[S]])
// CHECK:           tensor.extract_slice %{{.*}}[%[[S]], 0, 0] [1, 16, 20] [1, 1, 1] : tensor<3x16x20xf32> to tensor<16x20xf32>
// CHECK:           linalg.generic {{.*}} ins(%a_chunk, %b_chunk : tensor<16x32xf32>, tensor<32x20xf32>)
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:    %merged = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[P]] : tensor<3x16x20xf32>) outs(%c : tensor<16x20xf32>)
// CHECK:         return %merged
func.func @exact(%a: tensor<16x96xf32>, %b: tensor<96x20xf32>, %c: tensor<16x20xf32>) -> tensor<16x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x96xf32>, tensor<96x20xf32>) outs(%c : tensor<16x20xf32>) -> tensor<16x20xf32>
  func.return %0 : tensor<16x20xf32>
}

// -----

// K = 256 in chunks of 96 (ceil(256/3) = 86, rounded up to 16): two in the
// loop and a rest of 64, a multiple of 16, beside it unpadded. M = 5 is
// shorter than pad_m and stays.
// CHECK-LABEL: func.func @aligned_rest
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:         %arg0_tail = tensor.extract_slice %arg0[0, 192] [5, 64] [1, 1] {xsplit.split_part = "tail"} : tensor<5x256xf16> to tensor<5x64xf16>
// CHECK-NEXT:    %arg1_tail = tensor.extract_slice %arg1[192, 0] [64, 20] [1, 1] {xsplit.split_part = "tail"} : tensor<256x20xf16> to tensor<64x20xf16>
// CHECK:         %tail = linalg.generic {{.*}} ins(%arg0_tail, %arg1_tail : tensor<5x64xf16>, tensor<64x20xf16>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %tail : tensor<2x5x20xf16>, tensor<5x20xf16>) outs(%arg2 : tensor<5x20xf16>)
// CHECK:           linalg.index 2 : index
func.func @aligned_rest(%arg0: tensor<5x256xf16>, %arg1: tensor<256x20xf16>, %arg2: tensor<5x20xf16>) -> tensor<5x20xf16> {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<5x256xf16>, tensor<256x20xf16>) outs(%arg2 : tensor<5x20xf16>) -> tensor<5x20xf16>
  func.return %0 : tensor<5x20xf16>
}

// -----

// M = 10 pads to 16: the builder's.
// CHECK-LABEL: func.func @padded_m
// CHECK:         tensor.pad %a
func.func @padded_m(%a: tensor<10x96xf32>, %b: tensor<96x20xf32>, %c: tensor<10x20xf32>) -> tensor<10x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<10x96xf32>, tensor<96x20xf32>) outs(%c : tensor<10x20xf32>) -> tensor<10x20xf32>
  func.return %0 : tensor<10x20xf32>
}

// STATS: split-k: split-k-aligned-matmul: 1
// STATS: split-k: split-k-aligned-matmul-and-tail: 1
// STATS: split-k: split-k-aligned: 1
// TILED: split-k: split-k-aligned-matmul: 0
// TILED: split-k: split-k-aligned-matmul-and-tail: 0
// TILED: split-k: split-k-aligned: 3
