// auto{target=NAME}: the target model chooses per op, and each pass says what
// it did and why. On a 2-core Zen 4: the compute-bound 4096x4096 matmul is
// encoded and not split (packs cost little next to its arithmetic); the
// decode is split and not encoded (its packs would cost as much as its
// arithmetic). auto-many-cores.mlir has split plus encode.
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>/dev/null | filecheck %s
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' --xsplit-explain 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// On a GPU, encodings are dropped and only the split is chosen.
// RUN: xsplit-opt %s -p 'auto{target=gfx942}' 2>&1 | filecheck %s --check-prefix=GFX942
// RUN: not xsplit-opt %s -p 'auto{target=tpu}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @square
// CHECK:         flow.dispatch.workgroups
// CHECK:           linalg.pack
// CHECK:         linalg.mmt4d
// CHECK-NOT:     scf.forall
// CHECK:         linalg.unpack
// CHECK-LABEL: func.func @decode
// CHECK-NOT:     linalg.pack
// CHECK:         scf.forall
// CHECK:         {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]
// REMARK-DAG: auto.mlir:[[# @LINE + 13]]:3: remark: not split: encode chosen: 4096x4096 output, K = 16384 on cpu: {{.*}} ms, encoded {{.*}} ms
// REMARK-DAG: auto.mlir:[[# @LINE + 17]]:3: remark: not encoded: split chosen: 16x4096 output, K = 16384 on cpu: split in {{[0-9]+}}
// REMARK: auto.mlir:[[# @LINE + 16]]:3: remark: split-k: cpu chose {{[0-9]+}} chunks
// EXPLAIN: remark: explain: pattern 'set-encoding' did not match 'linalg.matmul': 'the target model encodes it' failed: split chosen
// EXPLAIN: remark: explain: pattern 'split-k-forall' did not match 'linalg.matmul': 'has no encoded operand (split-k-encoded splits those)' failed: its operands are encoded
// EXPLAIN: remark: explain: pattern 'split-k-encoded' did not match 'iree_encoding.unset_encoding': 'ends an encoded contraction split-k can split' failed: encode chosen
// GFX942-COUNT-2: remark: not encoded: gfx942 drops data-tiling encodings
// GFX942: remark: split-k: gfx942 chose factor 8, 8 chunks of 2048: 32768 workgroups
// GFX942: remark: split-k: gfx942 chose factor 32, 32 chunks of 512: 2048 workgroups
// GFX942-NOT: iree_encoding
// GFX942-NOT: linalg.pack
// BAD: error: auto: unknown target 'tpu', expected one of cpu, sm_80, sm_90, gfx942, cuda, rocm
func.func @square(%a: tensor<4096x16384xf32>, %b: tensor<16384x4096xf32>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4096x16384xf32>, tensor<16384x4096xf32>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}

func.func @decode(%a: tensor<16x16384xf32>, %b: tensor<16384x4096xf32>, %c: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16384xf32>, tensor<16384x4096xf32>) outs(%c : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}
