// auto{target=NAME}: the target model chooses per op, and each pass says what
// it did and why. On a 2-core Zen 4 (1 MiB L2): the compute-bound square
// matmul is encoded and not split (packs cost little next to its arithmetic);
// the decode is split and not encoded (its packs would cost as much as its
// arithmetic). On a Zen 3, whose 512 KiB L2 does not hold the square's packed
// panels over all of K, the square is split and encoded.
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>/dev/null | filecheck %s
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' --xsplit-explain 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'auto{target=cpu}' 2>&1 | filecheck %s --check-prefix=ZEN3
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
// REMARK-DAG: auto.mlir:[[# @LINE + 19]]:3: remark: not split: encode chosen: 512x512 output, K = 16384 on cpu: split in {{[0-9]+}} {{.*}} ms, encoded {{.*}} ms
// REMARK-DAG: auto.mlir:[[# @LINE + 23]]:3: remark: not encoded: split chosen: 16x4096 output, K = 16384 on cpu: split in {{[0-9]+}}
// REMARK: auto.mlir:[[# @LINE + 22]]:3: remark: split-k: cpu chose {{[0-9]+}} chunks
// EXPLAIN: remark: explain: pattern 'set-encoding' did not match 'linalg.matmul': 'the target model encodes it' failed: split chosen
// EXPLAIN: remark: explain: pattern 'split-k-forall' did not match 'linalg.matmul': 'has no encoded operand (split-k-encoded splits those)' failed: its operands are encoded
// EXPLAIN: remark: explain: pattern 'split-k-encoded' did not match 'iree_encoding.unset_encoding': 'ends an encoded contraction split-k can split' failed: encode chosen
// GFX942-COUNT-2: remark: not encoded: gfx942 drops data-tiling encodings
// GFX942: remark: split-k: gfx942 chose {{[0-9]+}} chunks of {{[0-9]+}}: 608 workgroups, 1 wave at 100% fill
// GFX942-NOT: iree_encoding
// GFX942-NOT: linalg.pack
// ZEN3: remark: split-k: split+encode chosen: 512x512 output, K = 16384 on cpu
// ZEN3-LABEL: func.func @square
// ZEN3:         linalg.pack {{.*}} : tensor<512x{{[0-9]+}}x{{[0-9]+}}xf32> -> tensor<{{[0-9]+}}x64x{{[0-9]+}}x8x1xf32>
// ZEN3:         linalg.batch_mmt4d
// ZEN3:         linalg.reduce
// ZEN3-LABEL: func.func @decode
// ZEN3-NOT:     linalg.pack
// BAD: error: auto: unknown target 'tpu', expected one of cpu, sm_80, sm_90, gfx942, cuda, rocm
func.func @square(%a: tensor<512x16384xf32>, %b: tensor<16384x512xf32>, %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<512x16384xf32>, tensor<16384x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

func.func @decode(%a: tensor<16x16384xf32>, %b: tensor<16384x4096xf32>, %c: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16384xf32>, tensor<16384x4096xf32>) outs(%c : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}
