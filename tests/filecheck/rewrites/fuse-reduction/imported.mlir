// Reductions as IREE imports ONNX's: ReduceMax is a max that also tracks the
// argmax index. With the index unused, the generic loses that result and the
// body ops only it needed, and the max fuses with its GEMM; a keepdims sum
// fuses as it is.
// RUN: xsplit-opt %s --split-input-file -p 'fuse-reduction' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'fuse-reduction' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// CHECK-LABEL: util.func public @reduce_max
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [{{.*}} -> (d0, d1)>, {{.*}} -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[MM]] : tensor<8x48xf32>) outs(%{{.*}} : tensor<8xf32>) attrs ={{ +}}{xsplit.fused_producer} {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK-NEXT:    } -> tensor<8xf32>
// CHECK:         tensor.expand_shape %[[MAX]]
// REMARK: remark: fuse-reduction: fused with linalg.matmul
util.func public @reduce_max(%x: tensor<8x64xf32>, %w: tensor<64x48xf32>) -> tensor<8x1xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x48xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x48xf32>) -> tensor<8x48xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x48xf32>) outs(%f : tensor<8x48xf32>) -> tensor<8x48xf32>
  %ie = tensor.empty() : tensor<8xi64>
  %if = linalg.fill ins(%c0_i64 : i64) outs(%ie : tensor<8xi64>) -> tensor<8xi64>
  %ve = tensor.empty() : tensor<8xf32>
  %vf = linalg.fill ins(%ninf : f32) outs(%ve : tensor<8xf32>) -> tensor<8xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%mm : tensor<8x48xf32>) outs(%vf, %if : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %gt, %i64, %idx : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  %x1 = tensor.expand_shape %r#0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  util.return %x1 : tensor<8x1xf32>
}

// -----

// The index is read: the generic stays whole, and is not fused.
// CHECK-LABEL: util.func public @argmax_read
// CHECK:         linalg.generic
// CHECK-SAME:        outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xi64>)
// CHECK-NOT:     xsplit.fused_producer
util.func public @argmax_read(%x: tensor<8x64xf32>, %w: tensor<64x48xf32>) -> tensor<8xi64> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x48xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x48xf32>) -> tensor<8x48xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x48xf32>) outs(%f : tensor<8x48xf32>) -> tensor<8x48xf32>
  %ie = tensor.empty() : tensor<8xi64>
  %if = linalg.fill ins(%c0_i64 : i64) outs(%ie : tensor<8xi64>) -> tensor<8xi64>
  %ve = tensor.empty() : tensor<8xf32>
  %vf = linalg.fill ins(%ninf : f32) outs(%ve : tensor<8xf32>) -> tensor<8xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%mm : tensor<8x48xf32>) outs(%vf, %if : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %sel = arith.select %gt, %i64, %idx : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  util.return %r#1 : tensor<8xi64>
}
