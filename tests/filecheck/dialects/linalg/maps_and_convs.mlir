// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt --mlir-print-op-generic > %t.xsplit
// RUN: iree-opt --mlir-print-op-generic %s > %t.iree
// RUN: cmp %t.iree %t.xsplit
// RUN: xsplit-opt --print-op-generic %s | filecheck %s --check-prefix=GENERIC

// matmul and batch_matmul print `indexing_maps` only when they differ from the
// defaults, as iree-opt does; the generic form always carries them.
// CHECK-LABEL: func.func @mt
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<8x3xf32>) outs(%{{.*}} : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-LABEL: func.func @mdef
// CHECK: linalg.matmul ins(
// GENERIC-LABEL: sym_name = "mdef"
// GENERIC: "linalg.matmul"(%{{.*}}) <{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>}>
// CHECK-LABEL: func.func @bmt
// CHECK: linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(
// CHECK-LABEL: func.func @bbcast
// CHECK: linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(
// Absent strides and dilations stay absent; given ones print sorted by name.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.conv_2d_nhwc_hwcf ins(
// CHECK: linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<3> : tensor<2xi64>} ins(
// CHECK-LABEL: func.func @dw
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>} ins(
// CHECK-LABEL: func.func @nchw
// CHECK: linalg.conv_2d_nchw_fchw {foo = 1 : i32} ins(
// GENERIC-LABEL: sym_name = "nchw"
// GENERIC:       "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT:  "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT:  "arith.mulf"
// GENERIC-NEXT:  "arith.addf"
// CHECK-LABEL: func.func @brm
// CHECK: linalg.batch_reduce_matmul ins(
// CHECK-LABEL: func.func @contract
// CHECK: linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(

#mA = affine_map<(m, n, k) -> (k, m)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @mt(%a: tensor<8x4xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%a, %b : tensor<8x4xf32>, tensor<8x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
func.func @mdef(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
func.func @bmt(%a: tensor<2x4x8xf32>, %b: tensor<2x3x8xf32>, %c: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%a, %b : tensor<2x4x8xf32>, tensor<2x3x8xf32>) outs(%c : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
func.func @bbcast(%a: tensor<4x8xf32>, %b: tensor<2x8x3xf32>, %c: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%a, %b : tensor<4x8xf32>, tensor<2x8x3xf32>) outs(%c : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
func.func @conv(%i: tensor<1x10x10x8xf32>, %f: tensor<3x3x8x4xf32>, %o: tensor<1x8x8x4xf32>, %o2: tensor<1x3x3x4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x3x3x4xf32>) {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x10x10x8xf32>, tensor<3x3x8x4xf32>) outs(%o : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {strides = dense<3> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>} ins(%i, %f : tensor<1x10x10x8xf32>, tensor<3x3x8x4xf32>) outs(%o2 : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %0, %1 : tensor<1x8x8x4xf32>, tensor<1x3x3x4xf32>
}
func.func @dw(%i: tensor<1x10x10x8xf32>, %f: tensor<3x3x8xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>} ins(%i, %f : tensor<1x10x10x8xf32>, tensor<3x3x8xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}
func.func @nchw(%i: tensor<1x8x10x10xf16>, %f: tensor<4x8x3x3xf16>, %o: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {foo = 1 : i32} ins(%i, %f : tensor<1x8x10x10xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}
func.func @brm(%a: tensor<5x4x8xf32>, %b: tensor<5x8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.batch_reduce_matmul ins(%a, %b : tensor<5x4x8xf32>, tensor<5x8x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
func.func @contract(%a: tensor<8x4xf16>, %b: tensor<8x3xf16>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<8x4xf16>, tensor<8x3xf16>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
