// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_90}' 2>/dev/null | filecheck %s --check-prefix=SM90
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_90}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80},materialize-late{target=sm_80}' 2>/dev/null | filecheck %s --check-prefix=SM80
// RUN: xsplit-opt --split-input-file %s -p 'auto{target=gfx942}' 2>/dev/null | filecheck %s --check-prefix=GFX942
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=cpu}' 2>/dev/null | filecheck %s --check-prefix=CPU

// A decode (M = 1) on a GPU is left to IREE's own split, 4x faster than
// static chunks on an H200: split-k marks the op with the chunk that
// --iree-dispatch-creation-enable-split-reduction picks (a divisor of K:
// 128 chunks of 112 here), and iree-compile, without the flag, forms the
// split dispatch and its merge. The op is otherwise untouched, through
// materialize-late. The CPU model splits it itself.
// REMARK: decode-to-iree.mlir:[[# @LINE + 16]]:3: remark: split-k: a one-row contraction (1x4096 output, K = 14336) is left to IREE's own split: iree_linalg_ext.split_reduction = [112 : index] on it, the chunk --iree-dispatch-creation-enable-split-reduction picks, and IREE forms the split dispatch and its merge (128 chunks of 112
// SM90-LABEL: func.func @decode(%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32>
// SM90-NEXT:    %r = linalg.matmul {iree_linalg_ext.split_reduction = [112 : index]} ins(%a, %b : tensor<1x14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
// SM90-NEXT:    func.return %r : tensor<1x4096xf32>
// SM80-LABEL: func.func @decode
// SM80-NOT:     flow.dispatch
// SM80:         linalg.matmul {iree_linalg_ext.split_reduction = [112 : index]} ins(%a, %b
// SM80-NEXT:    func.return %r
// GFX942-LABEL: func.func @decode
// GFX942-NEXT:  linalg.matmul {iree_linalg_ext.split_reduction = [112 : index]} ins(%a, %b
// CPU-LABEL: func.func @decode
// CPU-NOT:     iree_linalg_ext.split_reduction =
// CPU:         scf.forall
// CPU-NOT:     iree_linalg_ext.split_reduction =
// CPU:         return
func.func @decode(%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}

// -----

// A prime K has no divisor for IREE's chunks; another chunk leaves IREE a
// remainder of dynamic size, which its CUDA code can miscompile. Whole.
// REMARK: remark: not split: a one-row contraction (1x4096 output, K = 14327) is left whole on a GPU: K = 14327 has no divisor from 112 to 14326, the chunks IREE's own split takes; other chunks leave IREE a remainder chunk of dynamic size
// SM90-LABEL: func.func @prime_k
// SM90-NOT:     iree_linalg_ext.split_reduction =
// SM90:         linalg.matmul ins(%a, %b
// SM80-LABEL: func.func @prime_k
// SM80-NOT:     iree_linalg_ext.split_reduction =
// SM80-NOT:     flow.dispatch
// SM80:         return
func.func @prime_k(%a: tensor<1x14327xf32>, %b: tensor<14327x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x14327xf32>, tensor<14327x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}

// -----

// The vector form is priced as the one-row matmul it is and marked alike
// (IREE's flag would not split a vecmat: it has one parallel loop).
// REMARK: remark: split-k: a one-row contraction (1x4096 output, K = 14336) is left to IREE's own split: iree_linalg_ext.split_reduction = [112 : index]
// SM90-LABEL: func.func @vecmat
// SM90-NEXT:    linalg.vecmat {iree_linalg_ext.split_reduction = [112 : index]} ins(%a, %b
// GFX942-LABEL: func.func @vecmat
// GFX942-NEXT:  linalg.vecmat {iree_linalg_ext.split_reduction = [112 : index]} ins(%a, %b
func.func @vecmat(%a: tensor<14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.vecmat ins(%a, %b : tensor<14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

// A matrix that lies along K (a matvec's, a transposed B) is read a row a
// workgroup by IREE alone; IREE's split would give each lane a row. Whole.
// REMARK: remark: not split: a one-row contraction (1x4096 output, K = 14336) is left whole on a GPU: its matrix lies along K
// SM90-LABEL: func.func @matvec
// SM90-NOT:     iree_linalg_ext.split_reduction =
// SM90:         return
func.func @matvec(%a: tensor<4096x14336xf32>, %b: tensor<14336xf32>, %c: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.matvec ins(%a, %b : tensor<4096x14336xf32>, tensor<14336xf32>) outs(%c : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

// IREE 3.13 drops the attribute from a linalg.generic (it folds the unit
// row and rebuilds the op), and its flag leaves the generic whole: whole.
// REMARK: remark: not split: a one-row contraction (1x4096 output, K = 14336) is left whole on a GPU: IREE 3.13 drops iree_linalg_ext.split_reduction from a linalg.generic (it folds the unit row and rebuilds the op)
// SM90-LABEL: func.func @generic
// SM90-NOT:     iree_linalg_ext.split_reduction =
// SM90:         return
func.func @generic(%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<1x4096xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}

// -----

// A short K under a wide row: IREE's own split leaves it whole too.
// REMARK: remark: not split: a one-row contraction (1x14336 output, K = 4096) is left whole on a GPU: IREE's own split leaves it whole too: K = 4096 is short against the output
// SM90-LABEL: func.func @up_projection
// SM90-NOT:     iree_linalg_ext.split_reduction =
// SM90:         return
func.func @up_projection(%a: tensor<1x4096xf32>, %b: tensor<4096x14336xf32>, %c: tensor<1x14336xf32>) -> tensor<1x14336xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf32>, tensor<4096x14336xf32>) outs(%c : tensor<1x14336xf32>) -> tensor<1x14336xf32>
  return %r : tensor<1x14336xf32>
}

// -----

// An op that already carries a chunk keeps it; with no target split-k
// cuts it as asked.
// SM90-LABEL: func.func @already_marked
// SM90:         linalg.matmul {iree_linalg_ext.split_reduction = [64 : index]} ins(%a, %b
// CPU-LABEL: func.func @already_marked
// CPU:         scf.forall
func.func @already_marked(%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %r = linalg.matmul {iree_linalg_ext.split_reduction = [64 : index]} ins(%a, %b : tensor<1x14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}
