// The GEMM kernel's stages with tensor cores (f16 A and B on sm_80:
// nvgpu.mma.sync m16n8k16). 20x64x997: M ragged against the 32-row tile, K
// prime, three chunks of 336. Four warps (2x2), each a 16x32 warp tile of
// 1x4 blocks of 16x8; A's and B's tiles XOR-swizzled (their 16-byte chunks
// per row XOR a phase of the row), so that their 128-bit stores and their
// ldmatrix reads are both free of bank conflicts.
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=1 tile=32,64,16 warps=2,2}' 2>&1 | filecheck %s --check-prefix=KERNEL
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=1 tile=32,64,16 warps=2,2},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=GRID
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=1 tile=32,64,16 warps=2,2},lower-gridwise-gemm,lower-blockwise-gemm' 2>/dev/null | filecheck %s --check-prefix=BLOCK
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=1 tile=32,64,16 warps=2,2},lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm' 2>/dev/null | filecheck %s --check-prefix=THREAD
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=1 merge=deterministic tile=32,64,16 warps=2,2},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=PARTIALS
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=1 tile=32,64,16 mma=none},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=NONE
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 tile=32,64,16 mma=none},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=NONE
// RUN: not xsplit-opt %s -p 'gemm-kernel{target=sm_80 tile=32,64,16 warps=4,1}' 2>&1 | filecheck %s --check-prefix=WARPS
// RUN: not xsplit-opt %s -p 'gemm-kernel{target=sm_80 warps=0,2}' 2>&1 | filecheck %s --check-prefix=WARPS0
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 stages=2 pad=none}' 2>&1 | filecheck %s --check-prefix=ASYNC16
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 stages=2}' 2>&1 | filecheck %s --check-prefix=PAD

// KERNEL:      remark: gemm-kernel: on sm_80, 32x64 C tiles over 3 K chunks of 336 (grid 1x1x3, 128 threads, K steps of 16, tensor cores (m16n8k16)); merge atomic
// KERNEL:      xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 32, 64, 16>, threads = array<i64: 2, 64>, chunks = 3 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>}

// GRID:      %thread_id_x = gpu.thread_id x
// GRID:      %a_tile = memref.alloc() : memref<32x16xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %b_tile = memref.alloc() : memref<16x64xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %acc = memref.alloca() : memref<1x4x4xf32, #gpu.address_space<private>>
// GRID-NEXT: xsplit_gemm.threadwise_fill %acc
// GRID:      scf.for %k0
// GRID-NEXT:   xsplit_gemm.blockwise_copy %a[%{{.*}}, %k0] to %a_tile thread %thread_id_x {sizes = array<i64: 32, 16>, threads = 128 : i64, swizzle} :
// GRID-NEXT:   xsplit_gemm.blockwise_copy %b[%k0, %{{.*}}] to %b_tile thread %thread_id_x {sizes = array<i64: 16, 64>, threads = 128 : i64, vector = 8 : i64, swizzle} :
// GRID-NEXT:   gpu.barrier
// GRID-NEXT:   xsplit_gemm.blockwise_mma %a_tile * %b_tile into %acc thread %thread_id_x {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 16 : i64, a_swizzle, b_swizzle}
// GRID-NEXT:   gpu.barrier
// GRID-NEXT: }
// Warp w = thread / 32 writes at (m0 + (w / 2) * 16, n0 + (w % 2) * 32).
// GRID:      %[[W:.*]] = arith.divui %thread_id_x, %[[C32:.*]] : index
// GRID-NEXT: %[[LANE:.*]] = arith.remui %thread_id_x, %[[C32]] : index
// GRID:      xsplit_gemm.threadwise_write_fragments %acc to %c[%{{.*}}, %{{.*}}] lane %[[LANE]] {mma = "m16n8k16", merge = "atomic"}

// One K block of 16: the warp's one A fragment and its four B fragments, two
// blocks a read (pair), read once each, then 1x4 multiply-adds, each on its
// half of a pair.
// BLOCK-NOT:  scf.for %kk
// BLOCK:        %a_frag = xsplit_gemm.threadwise_fragment %a_tile[%{{.*}}, %[[KK:.*]]] lane %{{.*}} {mma = "m16n8k16", operand = "a", swizzle} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// BLOCK-NEXT:   %b_frag = xsplit_gemm.threadwise_fragment %b_tile[%[[KK]], %{{.*}}] lane %{{.*}} {mma = "m16n8k16", operand = "b", pair, swizzle} : memref<16x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// BLOCK:        %b_frag_1 = xsplit_gemm.threadwise_fragment %b_tile
// BLOCK-NEXT:   xsplit_gemm.threadwise_mma %a_frag * %b_frag into %acc {mma = "m16n8k16", at = array<i64: 0, 0>, b_half = 0 : i64}
// BLOCK-NEXT:   xsplit_gemm.threadwise_mma %a_frag * %b_frag into %acc {mma = "m16n8k16", at = array<i64: 0, 1>, b_half = 1 : i64}
// BLOCK-NEXT:   xsplit_gemm.threadwise_mma %a_frag * %b_frag_1 into %acc {mma = "m16n8k16", at = array<i64: 0, 2>, b_half = 0 : i64}
// BLOCK-NEXT:   xsplit_gemm.threadwise_mma %a_frag * %b_frag_1 into %acc {mma = "m16n8k16", at = array<i64: 0, 3>, b_half = 1 : i64}

// Each fragment is one ldmatrix: A's four 8x8 matrices (x4), lane l giving
// the start of row l % 8 + 8 ((l / 8) % 2) at column 8 (l / 16); B's two
// (x2, transposed: B is staged K-major) per block, lane l giving K row l % 16. Each
// row's 16-byte chunk is swizzled: chunk (col / 8) XOR (row / 4) % 2 for
// A's rows of 2 chunks, XOR row % 8 for B's rows of 8.
// THREAD:      gpu.barrier
// THREAD:        %[[L:.*]] = arith.remui %thread_id_x, %{{.*}} : index
// THREAD:        %[[R8:.*]] = arith.remui %[[L]], %[[C8:.*]] : index
// THREAD-NEXT:   %[[Q8:.*]] = arith.divui %[[L]], %[[C8]] : index
// THREAD-NEXT:   %[[C2:.*]] = arith.constant 2 : index
// THREAD-NEXT:   %[[H:.*]] = arith.remui %[[Q8]], %[[C2]] : index
// THREAD-NEXT:   %[[H8:.*]] = arith.muli %[[H]], %[[C8]] : index
// THREAD-NEXT:   %[[AR:.*]] = arith.addi %[[R8]], %[[H8]] : index
// THREAD-NEXT:   %[[C16:.*]] = arith.constant 16 : index
// THREAD-NEXT:   %[[Q16:.*]] = arith.divui %[[L]], %[[C16]] : index
// THREAD-NEXT:   %[[AC:.*]] = arith.muli %[[Q16]], %[[C8]] : index
// THREAD-NEXT:   %[[ROW:.*]] = arith.addi %{{.*}}, %[[AR]] : index
// THREAD-NEXT:   %[[COL:.*]] = arith.addi %{{.*}}, %[[AC]] : index
// THREAD-NEXT:   %[[C4:.*]] = arith.constant 4 : index
// THREAD-NEXT:   %[[LINE:.*]] = arith.divui %[[ROW]], %[[C4]] : index
// THREAD-NEXT:   %[[PHASE:.*]] = arith.remui %[[LINE]], %[[C2]] : index
// THREAD-NEXT:   %[[CHUNK:.*]] = arith.divui %[[COL]], %[[C8]] : index
// THREAD-NEXT:   %[[SW:.*]] = arith.xori %[[CHUNK]], %[[PHASE]] : index
// THREAD-NEXT:   %[[SW8:.*]] = arith.muli %[[SW]], %[[C8]] : index
// THREAD-NEXT:   %[[IN:.*]] = arith.remui %[[COL]], %[[C8]] : index
// THREAD-NEXT:   %[[SCOL:.*]] = arith.addi %[[SW8]], %[[IN]] : index
// THREAD-NEXT:   %a_frag = nvgpu.ldmatrix %a_tile[%[[ROW]], %[[SCOL]]] numTiles = 4 transpose = false : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// A pair of B blocks: lanes 0-15 address the first block's K rows, lanes
// 16-31 the next block's (8 columns on), in one x4 transposed ldmatrix.
// THREAD:        %[[BL:.*]] = arith.remui %[[L]], %[[C16B:.*]] : index
// THREAD-NEXT:   %[[BB:.*]] = arith.divui %[[L]], %[[C16B]] : index
// THREAD:        %[[BOFF:.*]] = arith.muli %[[BB]], %{{.*}} : index
// THREAD-NEXT:   %{{.*}} = arith.addi %{{.*}}, %[[BOFF]] : index
// THREAD-NEXT:   %[[BK:.*]] = arith.remui %[[BL]], %{{.*}} : index
// THREAD-NEXT:   %[[K:.*]] = arith.addi %{{.*}}, %[[BK]] : index
// THREAD-NEXT:   %[[BPHASE:.*]] = arith.remui %[[K]], %{{.*}} : index
// THREAD-NEXT:   %{{.*}} = arith.divui %{{.*}}, %{{.*}} : index
// THREAD-NEXT:   %{{.*}} = arith.xori %{{.*}}, %[[BPHASE]] : index
// THREAD:        %b_frag = nvgpu.ldmatrix %b_tile[%[[K]], %{{.*}}] numTiles = 4 transpose = true : memref<16x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// THREAD-COUNT-1: nvgpu.ldmatrix %b_tile
// THREAD-NOT:    nvgpu.ldmatrix
// Each multiply takes its half of the pair: rows 0-1 (block 0), 2-3 (block 1).
// THREAD:        %[[C:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// THREAD-NEXT:   %[[B00:.*]] = vector.extract %b_frag[0, 0] : f16 from vector<4x2xf16>
// THREAD-NEXT:   %[[B01:.*]] = vector.extract %b_frag[0, 1] : f16 from vector<4x2xf16>
// THREAD-NEXT:   %[[B10:.*]] = vector.extract %b_frag[1, 0] : f16 from vector<4x2xf16>
// THREAD-NEXT:   %[[B11:.*]] = vector.extract %b_frag[1, 1] : f16 from vector<4x2xf16>
// THREAD-NEXT:   %[[B:.*]] = vector.from_elements %[[B00]], %[[B01]], %[[B10]], %[[B11]] : vector<2x2xf16>
// THREAD-NEXT:   %[[D:.*]] = nvgpu.mma.sync(%a_frag, %[[B]], %[[C]]) mmaShape = [16, 8, 16] : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// THREAD-NEXT:   vector.extract %[[D]][0, 0] : f32 from vector<2x2xf32>
// THREAD-NEXT:   memref.store
// THREAD-COUNT-3: nvgpu.mma.sync
// Each C element is written under its mask: rows past 20, never columns (64 = N).
// THREAD:      arith.cmpi ult, %{{.*}}, %{{.*}} : index
// THREAD:      scf.if
// THREAD:        memref.load %acc
// THREAD-NEXT:   memref.atomic_rmw addf
// THREAD-NOT:  xsplit_gemm.

// PARTIALS:   xsplit_gemm.threadwise_write_fragments %acc to %partials[%{{.*}}, %{{.*}}] lane %{{.*}} chunk %block_id_z {mma = "m16n8k16", merge = "partials"}

// One-line diagnostics at the matmul for options the tensor cores cannot take.
// WARPS:      mma.mlir:[[# @LINE + 24]]:3: error: gemm-kernel: the tile must be whole 16x8x16 blocks per warp (tile=32,64,16, warps=4,1: 128 threads)
// WARPS0:     mma.mlir:[[# @LINE + 23]]:3: error: gemm-kernel: warps takes two positive counts M,N
// K = 997 is not whole 16-byte vectors of halves: with pad=none A goes through
// registers, B (N = 64) by cp.async; by default a first kernel copies A into
// rows of 1000 (3 zeros, A's row, zeros: whole vectors, and each K step, which
// starts 3 before a multiple of 64, on one) and the GEMM stages both by cp.async.
// ASYNC16:    mma.mlir:[[# @LINE + 18]]:3: remark: gemm-kernel: on sm_80, 64x64 C tiles over 1 K chunk of 1024 (grid 1x1x1, 128 threads, K steps of 64, double-buffered through registers (B with cp.async), tensor cores (m16n8k16)); merge store
// PAD:        mma.mlir:[[# @LINE + 17]]:3: remark: gemm-kernel: on sm_80, 64x64 C tiles over 1 K chunk of 1024 (grid 1x1x1, 128 threads, K steps of 64, double-buffered with cp.async, tensor cores (m16n8k16)); merge store; A's rows of 997 padded to 1000 first (0.08 MB moved)
// PAD:        func.func @mm_pad_a(%a: memref<20x997xf16>, %a_padded: memref<20x1000xf16>) attributes {gpu.known_block_size = array<i32: 256, 1, 1>, gpu.known_grid_size = array<i32: 79, 1, 1>} {
// PAD-NEXT:     xsplit_gemm.pad_rows %a into %a_padded {threads = 256 : i64, front = 3 : i64} : memref<20x997xf16> into memref<20x1000xf16>
// PAD:        func.func @mm_gemm(%a: memref<20x1000xf16>, %b: memref<997x64xf16>, %c: memref<20x64xf32>)
// PAD-NEXT:     xsplit_gemm.gridwise_gemm %a, %b, %c {{.*}}stages = 2 : i64, mma = "m16n8k16"
// PAD-NOT:      register_prefetch
// PAD:        func.func @mm(%a: memref<20x997xf16>, %b: memref<997x64xf16>, %c: memref<20x64xf32>) attributes {xsplit.host} {
// PAD-NEXT:     %a_padded = memref.alloc() : memref<20x1000xf16>
// PAD-NEXT:     func.call @mm_pad_a(%a, %a_padded)
// PAD-NEXT:     func.call @mm_gemm(%a_padded, %b, %c)
// PAD-NEXT:     memref.dealloc %a_padded
// PAD-NEXT:     func.return

// NONE-NOT:   mma
// NONE:       xsplit_gemm.blockwise_gemm
// NONE-NOT:   mma
func.func @mm(%a: tensor<20x997xf16>, %b: tensor<997x64xf16>, %c: tensor<20x64xf32>) -> tensor<20x64xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<20x997xf16>, tensor<997x64xf16>) outs(%c : tensor<20x64xf32>) -> tensor<20x64xf32>
  return %x : tensor<20x64xf32>
}
