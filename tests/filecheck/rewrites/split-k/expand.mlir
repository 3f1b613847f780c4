// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=expand}' 2>&1 | filecheck %s

// Remarks print while the passes run, before the output.
// CHECK: expand.mlir:28:3: remark: expand needs a factor that divides K (4 does not divide K = 255); using forall

// The seed's first IR: K = 4 x 64 through expand_shape, one batched generic
// with a parallel chunk loop, then the merge.
// CHECK-LABEL: func.func @divides
// CHECK:         %[[EA:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 4, 64] : tensor<16x256xf32> into tensor<16x4x64xf32>
// CHECK:         %[[EB:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4, 64, 32] : tensor<256x32xf32> into tensor<4x64x32xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x32x4xf32>) -> tensor<16x32x4xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[EA]], %[[EB]] : tensor<16x4x64xf32>, tensor<4x64x32xf32>) outs(%[[F]] : tensor<16x32x4xf32>)
// CHECK:         linalg.reduce ins(%[[G]]:tensor<16x32x4xf32>) outs(%{{.*}}:tensor<16x32xf32>) dimensions = [2]
func.func @divides(%a: tensor<16x256xf32>, %b: tensor<256x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x256xf32>, tensor<256x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}

// -----

// A factor that does not divide K falls back to forall, with a remark: 3
// static chunks of 64 in the loop and a tail of 63 beside it.
// CHECK-LABEL: func.func @does_not_divide
// CHECK:         scf.forall (%{{.*}}) in (3)
// CHECK:           tensor.extract_slice %{{.*}} [16, 64] [1, 1] : tensor<16x255xf32> to tensor<16x64xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 192] [16, 63] [1, 1] {xsplit.split_part = "tail"} : tensor<16x255xf32> to tensor<16x63xf32>
func.func @does_not_divide(%a: tensor<16x255xf32>, %b: tensor<255x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x255xf32>, tensor<255x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}
