// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4 align=16 pad_m=8 cpu_tiles=true}' | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=4}' | filecheck %s --check-prefix=PLAIN
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s --split-input-file -p 'split-k{target=cpu}' 2>&1 | filecheck %s --check-prefix=CPU

// A vector against a matrix, with no M loop (linalg.vecmat, linalg.matvec,
// ONNX MatMul of a 1-D input). Where the chunks get IREE CPU tiles, which
// are a matmul's, the op is cut as the one-row matmul: the vector and the
// init gain a unit row, the merge's result loses it.

// The remarks come first, one per op, each as its one-row matmul says it.
// CPU: vector-contraction.mlir:[[# @LINE + 29]]:3: remark: split-k: cpu chose {{[0-9]+}} chunks of {{[0-9]+}}: 
// CPU: vector-contraction.mlir:[[# @LINE + 64]]:3: remark: not split: no split pays on cpu: unsplit 1 chunk of 14336: {{.*}} (streamed at {{[0-9]+}} GB/s, the {{assumed|measured}} read rate)

// CHECK-LABEL: func.func @vecmat(%x: tensor<2000xf32>, %w: tensor<2000x64xf32>) -> tensor<64xf32>
// CHECK:         %[[Y:.*]] = linalg.fill
// CHECK:         %x_row = tensor.expand_shape %x {{\[\[}}0{{.*}}, 1{{.*}}]] output_shape [1, 2000] : tensor<2000xf32> into tensor<1x2000xf32>
// CHECK:         %y_row = tensor.expand_shape %[[Y]] {{\[\[}}0{{.*}}, 1{{.*}}]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
// CHECK:         scf.forall (%{{.*}}) in (3)
// CHECK:           %x_row_chunk = tensor.extract_slice %x_row[0, %{{.*}}] [1, 512] [1, 1] : tensor<1x2000xf32> to tensor<1x512xf32>
// CHECK:           %w_chunk = tensor.extract_slice %w[%{{.*}}, 0] [512, 64] [1, 1] : tensor<2000x64xf32> to tensor<512x64xf32>
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x_row_chunk, %w_chunk : tensor<1x512xf32>, tensor<512x64xf32>) outs(%{{.*}} : tensor<1x64xf32>)
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         %merged = linalg.generic {{.*}} outs(%y_row : tensor<1x64xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %merged {{\[\[}}0{{.*}}, 1{{.*}}]] : tensor<1x64xf32> into tensor<64xf32>
// CHECK:         return %[[R]] : tensor<64xf32>

// Without CPU tiles the chunks stay vecmats.
// PLAIN-LABEL: func.func @vecmat
// PLAIN-NOT:     tensor.expand_shape
// PLAIN:         linalg.vecmat ins(%x_chunk, %w_chunk : tensor<500xf32>, tensor<500x64xf32>)
// PLAIN-NOT:     tensor.collapse_shape
// PLAIN:         return

// CPU-LABEL: func.func @vecmat
// CPU:         scf.forall
func.func @vecmat(%x: tensor<2000xf32>, %w: tensor<2000x64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.vecmat ins(%x, %w : tensor<2000xf32>, tensor<2000x64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// The matrix first and read as W[n, k]: the vector becomes the first input
// and the body takes its arguments in that order.
// CHECK-LABEL: func.func @matvec_generic(%w: tensor<64x2000xf16>, %x: tensor<2000xf32>, %y: tensor<64xf32>) -> tensor<64xf32>
// CHECK:         %x_row = tensor.expand_shape %x
// CHECK:         scf.forall
// CHECK:           %w_chunk = tensor.extract_slice %w[0, %{{.*}}] [64, 512] [1, 1] : tensor<64x2000xf16> to tensor<64x512xf16>
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], {{.*}} ins(%x_row_chunk, %w_chunk : tensor<1x512xf32>, tensor<64x512xf16>)
// CHECK-NEXT:      ^bb0(%v: f32, %m: f16, %acc: f32):
// CHECK-NEXT:        %e = arith.extf %m : f16 to f32
// CHECK-NEXT:        %p = arith.mulf %e, %v : f32
// CHECK:         tensor.collapse_shape
func.func @matvec_generic(%w: tensor<64x2000xf16>, %x: tensor<2000xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%w, %x : tensor<64x2000xf16>, tensor<2000xf32>) outs(%y : tensor<64xf32>) {
  ^bb0(%m: f16, %v: f32, %acc: f32):
    %e = arith.extf %m : f16 to f32
    %p = arith.mulf %e, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// On Zen 4, a decode-sized matvec (B transposed) is left whole, as the
// 1 x 14336 row against the same transposed matrix is.
// CPU-LABEL: func.func @long_matvec
// CPU-NOT:     scf.forall
// CPU:         linalg.matvec
func.func @long_matvec(%w: tensor<4096x14336xf32>, %x: tensor<14336xf32>, %y: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.matvec ins(%w, %x : tensor<4096x14336xf32>, tensor<14336xf32>) outs(%y : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
