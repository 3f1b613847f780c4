// RUN: xsplit-opt %s -p 'split-k{tile=128}' | filecheck %s --check-prefix=TILE
// RUN: xsplit-opt %s -p 'split-k{factor=6}' | filecheck %s --check-prefix=FACTOR
// RUN: xsplit-opt %s -p 'split-k{factor=6 balanced=true}' | filecheck %s --check-prefix=BALANCED
// RUN: xsplit-opt %s -p 'split-k{tile=128},materialize-late' | iree-opt > /dev/null
// RUN: xsplit-opt %s -p 'split-k{factor=6}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt %s -p 'auto{target=sm_80}' 2>&1 >/dev/null | filecheck %s --check-prefix=MODEL

// A dynamic K is the one place xsplit's chunks stay dynamic, and split-k says
// what that costs on a GPU.
// REMARK: dynamic.mlir:[[# @LINE + 25]]:3: remark: split-k: K is dynamic, so the chunks are too; IREE 3.13's CUDA code for a matmul with a dynamic K can be wrong (a 123x?x456 f32 matmul with K = 6399 at run time was off by 14% to 38% of the result's scale on an H200, differently in each of four runs; with a static K it was right) and gets no K tile
// The cost model leaves it whole.
// MODEL: remark: not split: the cost model needs static sizes
// MODEL-NOT: split-k: K is dynamic

// TILE-LABEL: func.func @dynamic_k
// TILE:         %[[K:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<16x?xf32>
// TILE:         %[[N:.*]] = affine.apply affine_map<()[s0] -> ((s0 ceildiv 128))> ()[%[[K]]]
// TILE:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<16x32x?xf32>
// TILE:         scf.forall (%[[S:.*]]) in (%[[N]]) shared_outs(%{{.*}} = %[[E]]) -> (tensor<16x32x?xf32>)
// TILE:           affine.min affine_map<(d0)[s0] -> (128, ((d0 * -128) + s0))> (%[[S]])[%[[K]]]

// FACTOR-LABEL: func.func @dynamic_k
// FACTOR:         scf.forall (%[[S:.*]]) in (6)
// FACTOR:           %[[CH:.*]] = affine.apply affine_map<()[s0] -> ((s0 ceildiv 6))> ()[%{{.*}}]
// FACTOR-NEXT:      %[[OFF:.*]] = arith.muli %[[S]], %[[CH]] : index
// FACTOR-NEXT:      %[[MIN:.*]] = affine.min affine_map<(d0)[s0, s1] -> (s0, ((d0 * -1) + s1))> (%[[OFF]])[%[[CH]], %{{.*}}]
// FACTOR-NEXT:      affine.max affine_map<(d0) -> (d0, 0)>(%[[MIN]])

// BALANCED-LABEL: func.func @dynamic_k
// BALANCED:         scf.forall (%[[S:.*]]) in (6)
// BALANCED-NEXT:      %[[SK:.*]] = arith.muli %[[S]], %[[K:.*]] : index
// BALANCED-NEXT:      affine.apply affine_map<(d0) -> ((d0 floordiv 6))> (%[[SK]])
// BALANCED-NEXT:      affine.apply affine_map<(d0)[s0] -> (((d0 + s0) floordiv 6))> (%[[SK]])[%[[K]]]
func.func @dynamic_k(%a: tensor<16x?xf32>, %b: tensor<?x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x?xf32>, tensor<?x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}
