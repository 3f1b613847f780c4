// A static vecmat or matvec whose chunks get CPU tiles is lifted to the
// one-row matmul by split-k's template patterns; this checks the lift and
// which pattern fired (vector-contraction.mlir checks the split after it).
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=64 cpu_tiles=true}' | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=64 cpu_tiles=true}' | iree-opt > /dev/null
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=64 cpu_tiles=true}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3 align=64}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=UNTILED

// CHECK-LABEL: func.func @vecmat
// CHECK-NEXT:    %x_row = tensor.expand_shape %x {{\[\[}}0, 1]] output_shape [1, 2000] : tensor<2000xf32> into tensor<1x2000xf32>
// CHECK-NEXT:    %y_row = tensor.expand_shape %y {{\[\[}}0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           tensor.extract_slice %w[%{{.*}}, 0] [704, 64]
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK:         %merged = linalg.generic {{.*}} outs(%y_row : tensor<1x64xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %merged {{\[\[}}0, 1]] : tensor<1x64xf32> into tensor<64xf32>
// CHECK:         return %[[R]]
func.func @vecmat(%x: tensor<2000xf32>, %w: tensor<2000x64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.vecmat ins(%x, %w : tensor<2000xf32>, tensor<2000x64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A matvec reads its matrix transposed; the product keeps its operand order.
// CHECK-LABEL: func.func @matvec
// CHECK-NEXT:    %x_row = tensor.expand_shape %x
// CHECK-NEXT:    %y_row = tensor.expand_shape %y
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           tensor.extract_slice %w[0, %{{.*}}] [64, 704]
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-NEXT:      ^bb0(%[[X:.*]]: f32, %[[W:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:        arith.mulf %[[W]], %[[X]] : f32
// CHECK:         tensor.collapse_shape
func.func @matvec(%w: tensor<64x2000xf32>, %x: tensor<2000xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%w, %x : tensor<64x2000xf32>, tensor<2000xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// STATS: split-k: split-k-lifts-vecmat: 1
// STATS: split-k: split-k-lifts-matvec: 1
// STATS: split-k: split-k-lifts-vector-contraction: 0
// UNTILED: split-k: split-k-lifts-vecmat: 0
// UNTILED: split-k: split-k-lifts-matvec: 0
