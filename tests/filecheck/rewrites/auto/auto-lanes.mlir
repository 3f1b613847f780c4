// auto{target=cpu} on a decode against a transposed weight (K contiguous
// in the matrix): split-k leaves it whole, split-lanes splits its K into
// AVX-512's 16 lanes and says what the model compared; a GPU target leaves
// it to split-k alone.
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>/dev/null | filecheck %s
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt %s -p 'auto{target=sm_80}' 2>/dev/null | filecheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @linear
// CHECK:         %lane_sums = flow.dispatch.workgroups(%x, %w) : (tensor<1x14336xf32>, tensor<4096x14336xf32>) -> tensor<4096x16xf32>
// CHECK:           math.fma
// CHECK-NOT:     scf.forall
// CHECK:         linalg.reduce ins(%lane_sums
// REMARK: auto-lanes.mlir:[[# @LINE + 5]]:3: remark: not split: no split pays on cpu
// REMARK: auto-lanes.mlir:[[# @LINE + 4]]:3: remark: split-lanes: K = 14336 as 896 steps of 16 lanes, each row of the 4096 x 14336 matrix summed into one vector: {{[0-9.]+}} ms modeled {{.*}}, against {{[0-9.]+}} ms left whole to IREE's own tiles
// GPU-LABEL: func.func @linear
// GPU-NOT:     math.fma
func.func @linear(%x: tensor<1x14336xf32>, %w: tensor<4096x14336xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<1x14336xf32>, tensor<4096x14336xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %0 : tensor<1x4096xf32>
}
