// Late materialization: a dispatch forms around each encoded op (each
// set_encoding, and the contraction with its unset_encoding), and the encoding
// is materialized inside it: one pack per dispatch, and the mmt4d with its unpack.
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' --split-input-file | filecheck %s
// On a GPU the encodings are dropped: no dispatch is formed for a relayout.
// RUN: xsplit-opt %s -p 'set-encoding,materialize-late{target=sm_80}' --split-input-file | filecheck %s --check-prefix=GPU
// RUN: xsplit-opt %s -p 'set-encoding,materialize-late{target=gfx942}' --split-input-file | filecheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @matmul_fill
// CHECK:         %[[PA:.*]] = flow.dispatch.workgroups(%{{.*}}) : (tensor<100x1001xf32>) -> tensor<13x1001x8x1xf32> =
// CHECK-NOT:       linalg.mmt4d
// CHECK:           linalg.pack
// CHECK:           flow.return
// CHECK:         %[[PB:.*]] = flow.dispatch.workgroups(%{{.*}}) : (tensor<1001x70xf32>) -> tensor<9x1001x8x1xf32> =
// CHECK:           linalg.pack
// CHECK:           flow.return
// The zero-filled accumulator is filled in the mmt4d's dispatch, never
// packed, and the result is unpacked there, as IREE's own data tiling does.
// CHECK:         %[[M:.*]] = flow.dispatch.workgroups(%[[PA]], %[[PB]]) : (tensor<13x1001x8x1xf32>, tensor<9x1001x8x1xf32>) -> tensor<100x70xf32> =
// CHECK:           linalg.fill
// CHECK-NEXT:      %[[P:.*]] = linalg.mmt4d
// CHECK:           linalg.unpack %[[P]]
// CHECK:           flow.return
// CHECK-NOT:     flow.dispatch.workgroups
// CHECK:         func.return %[[M]]
// GPU-LABEL: func.func @matmul_fill
// GPU-NOT:     flow.dispatch
// GPU-NOT:     iree_encoding
// GPU:         linalg.fill
// GPU:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%{{.*}} : tensor<100x70xf32>)
func.func @matmul_fill(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>) -> tensor<100x70xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x70xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<100x70xf32>) -> tensor<100x70xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%f : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// -----

// Two batch loops are collapsed into the one batch_mmt4d has, and expanded back.
// CHECK-LABEL: func.func @two_batch_loops
// CHECK:         linalg.pack {{.*}} : tensor<2x3x16x40xf32> -> tensor<2x3x2x40x8x1xf32>
// CHECK-NEXT:    tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4], [5]] : tensor<2x3x2x40x8x1xf32> into tensor<6x2x40x8x1xf32>
// CHECK:         linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<6x2x40x8x1xf32>, tensor<6x3x40x8x1xf32>) outs(%{{.*}} : tensor<6x2x3x8x8xf32>)
// CHECK:         tensor.expand_shape %{{.*}} output_shape [2, 3, 2, 3, 8, 8] : tensor<6x2x3x8x8xf32> into tensor<2x3x2x3x8x8xf32>
// CHECK-NEXT:    linalg.unpack
func.func @two_batch_loops(%a: tensor<2x3x16x40xf32>, %b: tensor<2x3x40x24xf32>, %c: tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x16x40xf32>, tensor<2x3x40x24xf32>) outs(%c : tensor<2x3x16x24xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x16x24xf32>
  func.return %r : tensor<2x3x16x24xf32>
}
