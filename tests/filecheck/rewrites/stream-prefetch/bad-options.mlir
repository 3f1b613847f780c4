// RUN: not xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on tile_rows=-1}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on tile_rows=17}' 2>&1 | filecheck %s --check-prefix=OVER
// RUN: not xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on k_block=abc}' 2>&1 | filecheck %s --check-prefix=WORD
// RUN: not xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on k_block=3}' 2>&1 | filecheck %s --check-prefix=ODD
// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on chunks=4 tile_rows=0}' 2>&1 | filecheck %s --check-prefix=EVERY
// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on chunks=4 tile_rows=5}' 2>&1 | filecheck %s --check-prefix=FIVE
// RUN: xsplit-opt %s --split-input-file -p 'stream-prefetch{prefetch=on chunks=4 k_block=8}' 2>&1 | filecheck %s --check-prefix=UNUSED

// A bad value of a new option is a one-line error whatever the product's
// rows, never a traceback; tile_rows=0 is every row in one tile, and a
// tile_rows over the product's rows is every row too. A k_block with one
// tile of every row has no blocks to size: the remark says so.

// NEGATIVE: error: stream-prefetch: tile_rows must be an integer from 0 to 16, got '-1'
// NEGATIVE-NOT: Traceback
// OVER: error: stream-prefetch: tile_rows must be an integer from 0 to 16, got '17'
// OVER-NOT: Traceback
// WORD: error: stream-prefetch: k_block must be an integer >= 0 and even, got 'abc'
// WORD-NOT: Traceback
// ODD: error: stream-prefetch: k_block must be an integer >= 0 and even, got '3'
// ODD-NOT: Traceback

// EVERY: remark: {{.*}} register tiles of 12 x 32, B prefetched
// FIVE: remark: {{.*}} register tiles of 5 x 64 over blocks of 32 rows of B, B prefetched
// UNUSED: remark: {{.*}} register tiles of 12 x 32 (k_block=8 unused: one tile holds every row), B prefetched
func.func @twelve_rows(%a: tensor<12x1021xf32>, %b: tensor<1021x128xf32>, %c: tensor<12x128xf32>) -> tensor<12x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<12x1021xf32>, tensor<1021x128xf32>) outs(%c : tensor<12x128xf32>) -> tensor<12x128xf32>
  return %r : tensor<12x128xf32>
}

// -----

// EVERY: remark: {{.*}} register tiles of 2 x 128, B prefetched
// FIVE: remark: {{.*}} register tiles of 2 x 128, B prefetched
// UNUSED: remark: {{.*}} register tiles of 2 x 128 (k_block=8 unused: one tile holds every row), B prefetched
func.func @two_rows(%a: tensor<2x1021xf32>, %b: tensor<1021x128xf32>, %c: tensor<2x128xf32>) -> tensor<2x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x1021xf32>, tensor<1021x128xf32>) outs(%c : tensor<2x128xf32>) -> tensor<2x128xf32>
  return %r : tensor<2x128xf32>
}
