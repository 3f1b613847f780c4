// gemm-kernel: a matmul in destination-passing form becomes one gridwise GEMM
// on memrefs, with the launch it implies; three merges; bad options and
// matmuls it cannot take.
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3}' 2>&1 | filecheck %s --check-prefix=ATOMIC
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942}' 2>&1 | filecheck %s --check-prefix=STORE
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 merge=deterministic tile=32,64,16 threads=8,16}' 2>&1 | filecheck %s --check-prefix=DET
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=100}' 2>&1 | filecheck %s --check-prefix=FEWER
// RUN: not xsplit-opt %s -p 'gemm-kernel{target=cpu}' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=2 merge=store}' 2>&1 | filecheck %s --check-prefix=STORE2
// RUN: not xsplit-opt %s -p 'gemm-kernel{target=sm_80 threads=12,16}' 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not xsplit-opt %s -p 'gemm-kernel' 2>&1 | filecheck %s --check-prefix=NO-TARGET
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 stages=2 mma=none}' 2>&1 | filecheck %s --check-prefix=PREFETCH
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942}' 2>&1 | filecheck %s --check-prefix=SHORT
// RUN: not xsplit-opt %s -p 'gemm-kernel{target=sm_80 stages=2 prefetch=lds}' 2>&1 | filecheck %s --check-prefix=LDS-SM80
// RUN: not xsplit-opt %s -p 'gemm-kernel{target=gfx942 stages=2 prefetch=lds tile=16,16,8 threads=4,4}' 2>&1 | filecheck %s --check-prefix=LDS-WAVES

// On sm_80 every K is pipelined: an odd K's rows are cp.async'd 4 bytes an element.
// ATOMIC: gridwise.mlir:[[# @LINE + 37]]:3: remark: gemm-kernel: on sm_80, 64x64 C tiles over 3 K chunks of 336 (grid 1x1x3, 128 threads, K steps of 16, double-buffered with cp.async); merge atomic
// ATOMIC:      func.func @mm(%a: memref<20x997xf32>, %b: memref<997x64xf32>, %c: memref<20x64xf32>) attributes {gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 3>} {
// ATOMIC-NEXT:   xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 8, 16>, chunks = 3 : i64, merge = "atomic", stages = 2 : i64} : memref<20x997xf32>, memref<997x64xf32>, memref<20x64xf32>
// ATOMIC-NEXT:   func.return

// STORE: merge store
// STORE: gpu.known_grid_size = array<i32: 1, 1, 1>
// STORE: chunks = 1 : i64, merge = "store"

// DET:      func.func @mm_partials(%a: memref<20x997xf32>, %b: memref<997x64xf32>, %partials: memref<3x20x64xf32>) attributes {gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 3>}
// DET-NEXT:   xsplit_gemm.gridwise_gemm %a, %b, %partials {tile = array<i64: 32, 64, 16>, threads = array<i64: 8, 16>, chunks = 3 : i64, merge = "partials", stages = 2 : i64}
// DET:      func.func @mm_merge(%partials: memref<3x20x64xf32>, %c: memref<20x64xf32>) attributes {gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 1, 20, 1>}
// DET-NEXT:   xsplit_gemm.merge_partials %partials into %c {threads = 128 : i64}
// DET:      func.func @mm(%a: memref<20x997xf32>, %b: memref<997x64xf32>, %c: memref<20x64xf32>) attributes {xsplit.host}
// DET-NEXT:   %partials = memref.alloc() : memref<3x20x64xf32>
// DET-NEXT:   func.call @mm_partials(%a, %b, %partials)
// DET-NEXT:   func.call @mm_merge(%partials, %c)
// DET-NEXT:   memref.dealloc %partials

// 997 is 63 steps of 16: at most 63 chunks.
// FEWER: 63 K chunks of 16 (grid 1x1x63

// CPU: gridwise.mlir:[[# @LINE + 15]]:3: error: gemm-kernel: target cpu is not a GPU
// STORE2: error: gemm-kernel: merge=store takes one chunk
// THREADS: error: gemm-kernel: threads must divide the tile (tile=64,64,16, threads=12,16)
// NO-TARGET: gemm-kernel: target is required
// gfx942 has no asynchronous copy to overlap: its second stage goes through registers.
// Its vector loads take any 4-byte address (rows of 997 still load 16 bytes), and
// each thread holds its columns in runs of 4 (one ds_read_b128 of B a run).
// PREFETCH: K steps of 16, double-buffered through registers); merge store
// By default M = 20 under 64 beside N = 64 multiplies on gfx942's f32 MFMA (the
// SHORT entry: 32 rows, 2 wavefronts along N).
// SHORT: 32x128 C tiles over 1 K chunk of 1024 (grid 1x1x1, 128 threads, K steps of 32, double-buffered through registers, tensor cores (mfma_f32_16x16x4_f32)); merge store
// PREFETCH: xsplit_gemm.gridwise_gemm %a, %b, %c {{{.*}}, stages = 2 : i64, register_prefetch, misaligned_vectors, thread_columns = 4 : i64}
// LDS-SM80: error: gemm-kernel: prefetch=lds (direct-to-LDS loads) takes stages=2 on gfx942
// LDS-WAVES: error: gemm-kernel: prefetch=lds cannot copy A: the threads are not whole 64-lane wavefronts (tile=16,16,8, threads=4,4)
func.func @mm(%a: tensor<20x997xf32>, %b: tensor<997x64xf32>, %c: tensor<20x64xf32>) -> tensor<20x64xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<20x997xf32>, tensor<997x64xf32>) outs(%c : tensor<20x64xf32>) -> tensor<20x64xf32>
  return %x : tensor<20x64xf32>
}

// -----

// Left as it is, with a remark, when the function holds more than the matmul.
// RUN: xsplit-opt %s --split-input-file -p 'gemm-kernel{target=sm_80}' 2>&1 | filecheck %s --check-prefix=LEFT
// LEFT: gridwise.mlir:[[# @LINE + 3]]:3: remark: gemm-kernel: left as it is: the function must return only the matmul's result
// LEFT: linalg.matmul
func.func @two(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = linalg.add ins(%x, %c : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
