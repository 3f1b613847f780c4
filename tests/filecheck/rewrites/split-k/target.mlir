// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=gfx942}' 2>/dev/null | filecheck %s --check-prefix=GFX942
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=gfx942}' 2>&1 >/dev/null | filecheck %s --check-prefix=GFX942-REMARK
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=rocm}' 2>/dev/null | filecheck %s --check-prefix=GFX942
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80}' 2>&1 | filecheck %s --check-prefix=SM80
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=cpu},materialize-late' --xsplit-explain 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not xsplit-opt %s -p 'split-k{target=cpu factor=4}' 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not xsplit-opt %s -p 'split-k{target=tpu}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// The seed on MI300X: IREE's own 16 tiles of 32x128 leave 288 of 304 CUs
// idle; the GPU model (fitted on an H200, scaled to 304 CUs) takes the
// sweep's 128 chunks: 114 static chunks of 448 and a tail, M padded to 128,
// 2 x 8 tiles of 64x64 each. So does A100's 108 SMs.
// GFX942-REMARK: target.mlir:[[# @LINE + 16]]:3: remark: split-k: gfx942 chose factor 128, 115 chunks of 448: 1840 workgroups
// GFX942-REMARK-SAME: unsplit 1 chunk of 51234: 16 workgroups, 1 wave at 3% fill
// GFX942-LABEL: func.func @seed
// GFX942:      %[[PARTIALS:.*]] = scf.forall (%{{.*}}) in (128) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<123x456x128xf32>)
// GFX942:      } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>], xsplit.split_factor = 128 : i64}
// GFX942:      linalg.reduce ins(%[[PARTIALS]]
// SM80: remark: split-k: sm_80 chose factor 128, 115 chunks of 448: 1840 workgroups
// SM80: scf.forall (%{{.*}}) in (128)
// SM80: xsplit.split_factor = 128 : i64
// CPU: remark: split-k: cpu chose {{[0-9]+}} chunks
// CPU: remark: not split: no split pays on cpu
// CPU: remark: explain: pattern 'split-k-forall' did not match 'linalg.matmul': 'K splits into more than one chunk' failed: no split pays on cpu
// CPU: remark: not split: the cost model needs static sizes
// CPU-LABEL: func.func @seed
// CPU: flow.dispatch.workgroups
func.func @seed(%a: tensor<123x51234xf32>, %b: tensor<51234x456xf32>, %c: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%c : tensor<123x456xf32>) -> tensor<123x456xf32>
  return %0 : tensor<123x456xf32>
}

// -----

// A large output already fills every target many times over: on a GPU, 8
// chunks' partials would be 16 copies of the operands and 32 chunks too
// short, so the op stays whole and --xsplit-explain says why.
// GFX942-REMARK: remark: not split: no split on gfx942: 8 chunks' partials ({{.*}} MiB) would outgrow the operands (128 MiB); 32 or 128 chunks of K = 4096 would be shorter than 256
// GFX942-LABEL: func.func @large_output
// GFX942-NOT: scf.forall
// GFX942: linalg.matmul
// CPU-LABEL: func.func @large_output
// CPU-NOT: scf.forall
func.func @large_output(%a: tensor<8192x4096xf16>, %b: tensor<4096x8192xf16>, %c: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8192x4096xf16>, tensor<4096x8192xf16>) outs(%c : tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
  return %0 : tensor<8192x8192xf32>
}

// -----

// The model needs static sizes.
// GFX942-REMARK: remark: not split: the cost model needs static sizes; give factor= or tile=
// GFX942-LABEL: func.func @dynamic_k
// GFX942-NOT: scf.forall
func.func @dynamic_k(%a: tensor<64x?xf32>, %b: tensor<?x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x?xf32>, tensor<?x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// BOTH: error: split-k: give one of factor=, tile= and target=, not factor and target
// UNKNOWN: error: split-k: target must be one of cpu, sm_80, sm_90, gfx942, cuda, rocm, device, got 'tpu'
