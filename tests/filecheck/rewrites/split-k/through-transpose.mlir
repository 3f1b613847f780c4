// RUN: xsplit-opt %s --split-input-file -p 'split-k{factor=3}' | filecheck %s
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s --split-input-file -p 'split-k{target=cpu}' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s --split-input-file -p 'auto{target=cpu}' 2>&1 >/dev/null | filecheck %s --check-prefix=AUTO

// xsplit-opt's remarks come before the output. The two CPU cases at the end:
// CPU: through-transpose.mlir:[[# @LINE + 79]]:3: remark: not split: no split pays on cpu: unsplit 1 chunk of 11008
// CPU: through-transpose.mlir:[[# @LINE + 97]]:3: remark: split-k: cpu chose {{[0-9]+}} chunks
// auto's encoding choice prices the same op as split-k does:
// AUTO: through-transpose.mlir:[[# @LINE + 76]]:3: remark: not encoded: none chosen: 8x4096 output, K = 11008 on cpu: left whole [[T:[0-9.]+ [mu]?s]],
// AUTO-NEXT: through-transpose.mlir:[[# @LINE + 75]]:3: remark: stream-prefetch: left to split-k: the prefetching dispatch took 0.96x the CPU time of split-k's IREE tiles (8 rows, measured), not under 0.95x
// AUTO-NEXT: through-transpose.mlir:[[# @LINE + 74]]:3: remark: not split: no split pays on cpu: unsplit 1 chunk of 11008: {{.*}}, [[T]];
// AUTO: through-transpose.mlir:[[# @LINE + 92]]:3: remark: not encoded: split chosen: 48x800 output, K = 30011 on cpu: split in [[N:[0-9]+]] [[S:[0-9.]+ [mu]?s]],
// AUTO-NEXT: through-transpose.mlir:[[# @LINE + 91]]:3: remark: split-k: cpu chose [[N]] chunks of {{[0-9]+}}: {{.*}}, [[S]];

// A transposed weight, as ONNX's Gemm transB=1 imports: the split reads the
// weight itself, row n and columns of chunk s (two of 34, and the tail of
// 32 beside the loop), and the transpose is gone.
// CHECK-LABEL: func.func @linear
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.forall (%[[S:.*]]) in (2)
// CHECK:           tensor.extract_slice %w[0, %{{.*}}] [6, 34] [1, 1] : tensor<6x100xf32> to tensor<6x34xf32>
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         tensor.extract_slice %w[0, 68] [6, 32] [1, 1] {xsplit.split_part = "tail"} : tensor<6x100xf32> to tensor<6x32xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return
func.func @linear(%x: tensor<4x100xf32>, %w: tensor<6x100xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x6xf32>
  %wt = linalg.transpose ins(%w : tensor<6x100xf32>) outs(%e : tensor<100x6xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<4x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%o : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = linalg.matmul ins(%x, %wt : tensor<4x100xf32>, tensor<100x6xf32>) outs(%init : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// A transpose that something else also reads stays for that reader.
// CHECK-LABEL: func.func @shared
// CHECK:         %[[T:.*]] = linalg.transpose ins(%w
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %w[0, %{{.*}}] [6, 34] [1, 1]
// CHECK:         return %{{.*}}, %[[T]]
func.func @shared(%x: tensor<4x100xf32>, %w: tensor<6x100xf32>, %c: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<100x6xf32>) {
  %e = tensor.empty() : tensor<100x6xf32>
  %wt = linalg.transpose ins(%w : tensor<6x100xf32>) outs(%e : tensor<100x6xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %wt : tensor<4x100xf32>, tensor<100x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r, %wt : tensor<4x6xf32>, tensor<100x6xf32>
}

// -----

// A rank-3 permutation under a reduction: the generic reads the source through
// the composed map (source dims (d2, d0, d1) hold the transposed (d0, d1, d2)).
// CHECK-LABEL: func.func @sum_of_permuted
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      ins(%{{.*}} : tensor<300x5x7xf32>)
func.func @sum_of_permuted(%src: tensor<900x5x7xf32>, %c: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7x900xf32>
  %t = linalg.transpose ins(%src : tensor<900x5x7xf32>) outs(%e : tensor<5x7x900xf32>) permutation = [1, 2, 0]
  %r = linalg.reduce ins(%t : tensor<5x7x900xf32>) outs(%c : tensor<5x7xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<5x7xf32>
}

// -----

// On the CPU the model prices the matmul on the weight as it lies (B
// transposed, 8 rows: a stream of B on IREE's own tiles) and leaves it whole:
// IREE fuses the transpose into it. Split through the copy it took 10x as long.
// CPU-LABEL: func.func @decode_linear
// CPU:         linalg.transpose
// CPU:         linalg.matmul ins(%x, %wt
func.func @decode_linear(%x: tensor<8x11008xf32>, %w: tensor<4096x11008xf32>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<11008x4096xf32>
  %wt = linalg.transpose ins(%w : tensor<4096x11008xf32>) outs(%e : tensor<11008x4096xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<8x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%o : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.matmul ins(%x, %wt : tensor<8x11008xf32>, tensor<11008x4096xf32>) outs(%init : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  return %r : tensor<8x4096xf32>
}

// -----

// 48 rows over a prime K: split, each chunk reading the weight in place (the
// source's k_strides, not the copy's, priced).
// CPU-LABEL: func.func @prefill_linear
// CPU-NOT:     linalg.transpose
// CPU:         tensor.extract_slice %w{{.*}}[0, %{{.*}}] [800, {{[0-9]+}}] [1, 1] : tensor<800x30011xf32>
// CPU:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CPU-NOT:     linalg.transpose
func.func @prefill_linear(%x: tensor<48x30011xf32>, %w: tensor<800x30011xf32>) -> tensor<48x800xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<30011x800xf32>
  %wt = linalg.transpose ins(%w : tensor<800x30011xf32>) outs(%e : tensor<30011x800xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<48x800xf32>
  %init = linalg.fill ins(%zero : f32) outs(%o : tensor<48x800xf32>) -> tensor<48x800xf32>
  %r = linalg.matmul ins(%x, %wt : tensor<48x30011xf32>, tensor<30011x800xf32>) outs(%init : tensor<48x800xf32>) -> tensor<48x800xf32>
  return %r : tensor<48x800xf32>
}

// -----

// A batched B read transposed: the generic reads the weight itself through
// (d0, d1, d2, d3) -> (d0, d2, d3) and keeps batch_matmul's body, then the
// split cuts K = 100 into chunks of 34 and a tail of 32.
// CPU-LABEL: func.func @batch_weight
// CHECK-LABEL: func.func @batch_weight
// CHECK-NOT:     linalg.transpose
// CHECK:         tensor.extract_slice %w[0, 0, %{{.*}}] [2, 6, 34] [1, 1, 1] : tensor<2x6x100xf32> to tensor<2x6x34xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.addf
func.func @batch_weight(%a: tensor<2x4x100xf32>, %w: tensor<2x6x100xf32>, %c: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %e = tensor.empty() : tensor<2x100x6xf32>
  %wt = linalg.transpose ins(%w : tensor<2x6x100xf32>) outs(%e : tensor<2x100x6xf32>) permutation = [0, 2, 1]
  %r = linalg.batch_matmul ins(%a, %wt : tensor<2x4x100xf32>, tensor<2x100x6xf32>) outs(%c : tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  return %r : tensor<2x4x6xf32>
}

// -----

// An arg-max over a transposed input: two inits, the body's three block
// arguments and two yields written out one per line in the template, the
// body (its own names) copied.
// CHECK-LABEL: func.func @argmax_of_transposed
// CHECK-NOT:     linalg.transpose
// CHECK:         %src_chunk = tensor.extract_slice %src[%chunk_offset, 0] [300, 5] [1, 1] : tensor<900x5xf32> to tensor<300x5xf32>
// CHECK:         %partial, %partial_index = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%src_chunk : tensor<300x5xf32>) outs(%partial_init, %partial_index_init : tensor<5xf32>, tensor<5xi64>) {
// CHECK-NEXT:    ^bb0(%in: f32, %best: f32, %idx: i64):
// CHECK:           linalg.yield %nv, %ni : f32, i64
// CHECK-NEXT:    } -> (tensor<5xf32>, tensor<5xi64>)
func.func @argmax_of_transposed(%src: tensor<900x5xf32>, %v: tensor<5xf32>, %i: tensor<5xi64>) -> (tensor<5xf32>, tensor<5xi64>) {
  %e = tensor.empty() : tensor<5x900xf32>
  %t = linalg.transpose ins(%src : tensor<900x5xf32>) outs(%e : tensor<5x900xf32>) permutation = [1, 0]
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%t : tensor<5x900xf32>) outs(%v, %i : tensor<5xf32>, tensor<5xi64>) {
  ^bb0(%in: f32, %best: f32, %idx: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %nv = arith.select %gt, %in, %best : f32
    %ni = arith.select %gt, %ki, %idx : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<5xf32>, tensor<5xi64>)
  return %r#0, %r#1 : tensor<5xf32>, tensor<5xi64>
}
