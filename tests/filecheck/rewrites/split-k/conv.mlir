// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' | iree-opt > /dev/null
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=expand}' 2>/dev/null | filecheck %s --check-prefix=EXPAND
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=expand}' 2>&1 >/dev/null | filecheck %s --check-prefix=EXPAND-REMARK
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=expand}' | iree-opt > /dev/null

// A forward conv reduces over its 3x3 window and 256 input channels; the
// channels are cut (the longest loop, and slicing it needs no halo), and each
// chunk is the same conv on 64 channels of the input and the filter.
// REMARK: conv.mlir:[[# @LINE + 17]]:3: remark: split-k: cutting reduction loop d6 (c) (extent 256), the longest; d4 (kh), d5 (kw) stay whole in each chunk
// CHECK-LABEL: func.func @nhwc_hwcf
// CHECK-SAME:    (%[[I:.*]]: tensor<1x10x10x256xf32>, %[[K:.*]]: tensor<3x3x256x16xf32>, %[[O:.*]]: tensor<1x8x8x16xf32>)
// CHECK:         scf.forall (%[[S:.*]]) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x8x8x16x4xf32>) {
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 64))> (%[[S]])
// CHECK-NEXT:      %[[IC:.*]] = tensor.extract_slice %[[I]][0, 0, 0, %[[OFF]]] [1, 10, 10, 64] [1, 1, 1, 1] : tensor<1x10x10x256xf32> to tensor<1x10x10x64xf32>
// CHECK-NEXT:      %[[KC:.*]] = tensor.extract_slice %[[K]][0, 0, %[[OFF]], 0] [3, 3, 64, 16] [1, 1, 1, 1] : tensor<3x3x256x16xf32> to tensor<3x3x64x16xf32>
// CHECK:           %[[F:.*]] = linalg.fill
// CHECK-NEXT:      linalg.conv_2d_nhwc_hwcf ins(%[[IC]], %[[KC]] : tensor<1x10x10x64xf32>, tensor<3x3x64x16xf32>) outs(%[[F]] : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:    linalg.reduce ins(%{{.*}}:tensor<1x8x8x16x4xf32>) outs(%[[O]]:tensor<1x8x8x16xf32>) dimensions = [4]
// EXPAND-LABEL: func.func @nhwc_hwcf
// EXPAND:         tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 10, 10, 4, 64] : tensor<1x10x10x256xf32> into tensor<1x10x10x4x64xf32>
// EXPAND:         tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4]] output_shape [3, 3, 4, 64, 16]
// The window loops stay reductions beside the cut channel loop; the chunk loop is parallel.
// EXPAND:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, (d1 + d4), (d2 + d5), d7, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5, d7, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d7)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
func.func @nhwc_hwcf(%i: tensor<1x10x10x256xf32>, %k: tensor<3x3x256x16xf32>, %o: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %k : tensor<1x10x10x256xf32>, tensor<3x3x256x16xf32>) outs(%o : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %0 : tensor<1x8x8x16xf32>
}

// -----

// NCHW with explicit strides and dilations: the chunk's conv keeps them, as
// iree-opt prints them (a splat as dense<1>).
// REMARK: conv.mlir:[[# @LINE + 9]]:3: remark: split-k: cutting reduction loop d4 (c) (extent 100), the longest; d5 (kh), d6 (kw) stay whole in each chunk
// CHECK-LABEL: func.func @nchw_strided
// CHECK:         %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 25))>
// CHECK-NEXT:    %[[IC:.*]] = tensor.extract_slice %{{.*}}[0, %[[OFF]], 0, 0] [2, 25, 17, 10] [1, 1, 1, 1] : tensor<2x100x17x10xf16> to tensor<2x25x17x10xf16>
// CHECK-NEXT:    %[[KC:.*]] = tensor.extract_slice %{{.*}}[0, %[[OFF]], 0, 0] [8, 25, 3, 3] [1, 1, 1, 1] : tensor<8x100x3x3xf16> to tensor<8x25x3x3xf16>
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[IC]], %[[KC]] : tensor<2x25x17x10xf16>, tensor<8x25x3x3xf16>) outs(%{{.*}} : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
// EXPAND-LABEL: func.func @nchw_strided
// EXPAND:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d7, d4, ((d2 * 2) + d5), (d3 + d6))>
func.func @nchw_strided(%i: tensor<2x100x17x10xf16>, %k: tensor<8x100x3x3xf16>, %o: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%i, %k : tensor<2x100x17x10xf16>, tensor<8x100x3x3xf16>) outs(%o : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  func.return %0 : tensor<2x8x8x8xf32>
}

// -----

// A depthwise conv reduces only over its window. The filter rows (9) are cut,
// with a dilation of 3: chunk s reads input rows from 3 * 3s, and 3 filter
// rows need (16 - 1) + (3 - 1) * 3 + 1 = 22 of them.
// REMARK: conv.mlir:[[# @LINE + 13]]:3: remark: split-k: cutting reduction loop d4 (kh) (extent 9), the longest; d5 (kw) stays whole in each chunk
// CHECK-LABEL: func.func @depthwise
// CHECK:         scf.forall (%[[S:.*]]) in (3)
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 3))> (%[[S]])
// CHECK-NEXT:      %[[ROW:.*]] = affine.apply affine_map<(d0) -> ((d0 * 3))> (%[[OFF]])
// CHECK-NEXT:      %[[IC:.*]] = tensor.extract_slice %{{.*}}[0, %[[ROW]], 0, 0] [1, 22, 20, 8] [1, 1, 1, 1] : tensor<1x40x20x8xf32> to tensor<1x22x20x8xf32>
// CHECK-NEXT:      %[[KC:.*]] = tensor.extract_slice %{{.*}}[%[[OFF]], 0, 0] [3, 5, 8] [1, 1, 1] : tensor<9x5x8xf32> to tensor<3x5x8xf32>
// CHECK:           linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[3, 1]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[IC]], %[[KC]] : tensor<1x22x20x8xf32>, tensor<3x5x8xf32>)
// expand_shape cannot cut a window dimension of the input.
// EXPAND-REMARK: conv.mlir:[[# @LINE + 4]]:3: remark: expand cannot express this split (the split loop indexes an input inside a window); using forall
// EXPAND-LABEL: func.func @depthwise
// EXPAND:         scf.forall
func.func @depthwise(%i: tensor<1x40x20x8xf32>, %k: tensor<9x5x8xf32>, %o: tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[3, 1]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %k : tensor<1x40x20x8xf32>, tensor<9x5x8xf32>) outs(%o : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  func.return %0 : tensor<1x16x16x8xf32>
}

// -----

// A static tail: 7 filter rows in 3 chunks of 2 and a tail of 1 (row 6),
// which reads the 8 input rows from 6 that its one filter row touches.
// CHECK-LABEL: func.func @depthwise_uneven
// CHECK:         scf.forall (%{{.*}}) in (3)
// CHECK:           %[[ROWS:.*]] = tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [1, 9, 12, 4] [1, 1, 1, 1] : tensor<1x14x12x4xf32> to tensor<1x9x12x4xf32>
// CHECK-NEXT:      tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [2, 3, 4] [1, 1, 1] : tensor<7x3x4xf32> to tensor<2x3x4xf32>
// CHECK:         %[[IT:.*]] = tensor.extract_slice %{{.*}}[0, 6, 0, 0] [1, 8, 12, 4] [1, 1, 1, 1] {xsplit.split_part = "tail"} : tensor<1x14x12x4xf32> to tensor<1x8x12x4xf32>
// CHECK-NEXT:    %[[KT:.*]] = tensor.extract_slice %{{.*}}[6, 0, 0] [1, 3, 4] [1, 1, 1] {xsplit.split_part = "tail"} : tensor<7x3x4xf32> to tensor<1x3x4xf32>
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {xsplit.split_part = "tail"} ins(%[[IT]], %[[KT]] : tensor<1x8x12x4xf32>, tensor<1x3x4xf32>)
func.func @depthwise_uneven(%i: tensor<1x14x12x4xf32>, %k: tensor<7x3x4xf32>, %o: tensor<1x8x10x4xf32>) -> tensor<1x8x10x4xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc ins(%i, %k : tensor<1x14x12x4xf32>, tensor<7x3x4xf32>) outs(%o : tensor<1x8x10x4xf32>) -> tensor<1x8x10x4xf32>
  func.return %0 : tensor<1x8x10x4xf32>
}
