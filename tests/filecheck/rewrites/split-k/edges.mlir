// RUN: xsplit-opt %s -p 'split-k{factor=20}' 2>&1 | filecheck %s --check-prefix=BIG
// RUN: xsplit-opt %s -p 'split-k{factor=1}' 2>&1 | filecheck %s --check-prefix=ONE
// RUN: xsplit-opt %s -p 'split-k{tile=13}' 2>&1 | filecheck %s --check-prefix=WHOLE
// RUN: xsplit-opt %s -p 'split-k' 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: not xsplit-opt %s -p 'split-k{factor=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not xsplit-opt %s -p 'split-k{factor=-3}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not xsplit-opt %s -p 'split-k{factor=4 tile=8}' 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not xsplit-opt %s -p 'split-k{strategy=loops}' 2>&1 | filecheck %s --check-prefix=STRATEGY
// RUN: not xsplit-opt %s -p 'split-k{factor=four}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not xsplit-opt %s -p 'split-k{fctor=4}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// A factor above K = 13 gives 13 chunks of one.
// BIG: edges.mlir:[[# @LINE + 7]]:3: remark: factor = 20 exceeds K = 13; using 13 chunks of 1
// BIG: scf.forall (%{{.*}}) in (13)
// ONE: edges.mlir:[[# @LINE + 5]]:3: remark: not split: factor = 1 leaves one chunk
// ONE-NOT: scf.forall
// WHOLE: remark: not split: tile = 13 covers all of K = 13
// DEFAULT: remark: not split: K = 13 is shorter than two chunks of 1024, the default rule's smallest; give factor= or tile= to split it
func.func @small_k(%a: tensor<8x13xf32>, %b: tensor<13x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x13xf32>, tensor<13x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}

// ZERO: error: split-k: factor must be an integer >= 1, got '0'
// NEGATIVE: error: split-k: factor must be an integer >= 1, got '-3'
// BOTH: error: split-k: give one of factor=, tile= and target=, not factor and tile
// STRATEGY: error: split-k: strategy must be one of forall, expand, grouped, got 'loops'
// TYPE: error: split-k: factor must be an integer >= 1, got 'four'
// UNKNOWN: error: split-k: unknown option 'fctor'; its options are factor, tile, strategy, balanced, align, pad_m, cpu_tiles, merge, kernel, target
