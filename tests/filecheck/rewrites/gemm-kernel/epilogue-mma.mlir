// The fused GEMM + reduction on tensor cores: gridwise_gemm_reduce with `mma` multiplies f16 A and
// B with the intrinsic, then puts each warp's C fragments into a workgroup-memory C tile (rows
// padded to 68 words), meets the others at a barrier and reads back each thread's register tile in
// the FMA epilogue's layout (`threads`), which the stage's blockwise_reduce takes as before.
// 70x75x37 (ragged M, N and K). @rows: sm_80 (m16n8k16, four warps, 128 threads in rows of 16:
// 8x4 registers), C's init an operand written back, row sums by shuffles and atomics. @cols:
// gfx942 (MFMA 16x16x16, four wavefronts, 256 threads: 4x4 registers), column max through
// workgroup memory into partials.
// RUN: xsplit-opt %s -p 'lower-gridwise-gemm' | filecheck %s --check-prefix=GRID
// RUN: xsplit-opt %s -p 'lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm' | filecheck %s --check-prefix=THREAD

func.func @rows(%a: memref<70x37xf16>, %b: memref<37x75xf16>, %c: memref<70x75xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b init %c into %o {tile = array<i64: 64, 64, 32>, threads = array<i64: 8, 16>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", store_c, mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<70x37xf16>, memref<37x75xf16>, memref<70x75xf32> into memref<70xf32>
  func.return
}

func.func @cols(%a: memref<70x37xf16>, %b: memref<37x75xf16>, %p: memref<2x75xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %p {tile = array<i64: 64, 64, 32>, threads = array<i64: 16, 16>, method = "max", dim = 0 : i64, stage = "lds", merge = "partials", subgroup = 64 : i64, exchange = "cluster", init = 5.000000e-01 : f32, mma = "mfma_f32_16x16x16", warps = array<i64: 2, 2>} : memref<70x37xf16>, memref<37x75xf16> into memref<2x75xf32>
  func.return
}

// GRID-LABEL: func.func @rows
// GRID:         %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
// GRID:         scf.for %k0 =
// GRID:           xsplit_gemm.blockwise_mma %a_tile * %b_tile into %acc thread %thread_id_x {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 32 : i64, a_swizzle, b_swizzle}
// GRID:         }
// GRID-NEXT:    %c_tile = memref.alloc() : memref<64x68xf32, #gpu.address_space<workgroup>>
// GRID:         xsplit_gemm.threadwise_write_fragments %acc to %c_tile[%{{.*}}, %{{.*}}] lane %{{.*}} {mma = "m16n8k16", merge = "tile"}
// GRID-NEXT:    gpu.barrier
// GRID-NEXT:    %regs = memref.alloca() : memref<8x4xf32, #gpu.address_space<private>>
// GRID:         %[[TM:.*]] = arith.divui %thread_id_x, %[[SIXTEEN:.*]] : index
// GRID-NEXT:    %[[TN:.*]] = arith.remui %thread_id_x, %[[SIXTEEN]] : index
// GRID-NEXT:    xsplit_gemm.threadwise_read_tile %c_tile[%[[TM]], %[[TN]]] to %regs {strides = array<i64: 8, 16>}
// GRID-NEXT:    xsplit_gemm.blockwise_reduce %regs init %c to %o[%{{.*}}, %{{.*}}] thread %thread_id_x {threads = array<i64: 8, 16>, bounds = array<i64: 70, 75>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", store_c}
// GRID-NEXT:    func.return
// GRID-LABEL: func.func @cols
// GRID:         xsplit_gemm.blockwise_mma %a_tile * %b_tile into %acc thread %thread_id_x {mma = "mfma_f32_16x16x16", warps = array<i64: 2, 2>, step_k = 32 : i64, a_swizzle, b_kpack = 4 : i64}
// GRID:         xsplit_gemm.threadwise_write_fragments %acc to %c_tile[%{{.*}}, %{{.*}}] lane %{{.*}} {mma = "mfma_f32_16x16x16", merge = "tile"} : memref<2x2x4xf32, #gpu.address_space<private>> to memref<64x68xf32, #gpu.address_space<workgroup>>
// GRID-NEXT:    gpu.barrier
// GRID-NEXT:    %regs = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
// GRID:         xsplit_gemm.threadwise_read_tile %c_tile[%{{.*}}, %{{.*}}] to %regs {strides = array<i64: 16, 16>}
// GRID-NEXT:    xsplit_gemm.blockwise_reduce %regs to %p[%{{.*}}, %{{.*}}] thread %thread_id_x {threads = array<i64: 16, 16>, bounds = array<i64: 70, 75>, method = "max", dim = 0 : i64, stage = "lds", merge = "partials", subgroup = 64 : i64, exchange = "cluster", init = 5.000000e-01 : f32}

// The fragments' stores need no mask (the tile holds the warp tiles whole): 32 a lane on sm_80
// (2x4 blocks of 4), 16 on gfx942 (2x2 of 4); then one load per register.
// THREAD-LABEL: func.func @rows
// THREAD-NOT:   xsplit_gemm.
// THREAD-COUNT-8: nvgpu.mma.sync
// THREAD:       gpu.barrier
// THREAD-NEXT:  }
// THREAD-NEXT:  %c_tile = memref.alloc()
// THREAD-NOT:   scf.if
// THREAD-COUNT-32: memref.store %{{.*}}, %c_tile[
// THREAD-NEXT:  gpu.barrier
// THREAD-NEXT:  %regs = memref.alloca()
// THREAD-COUNT-32: memref.load %c_tile[
// THREAD:       gpu.shuffle xor
// THREAD:       memref.atomic_rmw addf
// THREAD-LABEL: func.func @cols
// THREAD-NOT:   xsplit_gemm.
// THREAD-COUNT-4: amdgpu.mfma 16x16x16
// THREAD:       %c_tile = memref.alloc()
// THREAD-NOT:   scf.if
// THREAD-COUNT-16: memref.store %{{.*}}, %c_tile[
// THREAD-NEXT:  gpu.barrier
// THREAD-NEXT:  %regs = memref.alloca()
// THREAD-COUNT-16: memref.load %c_tile[
// THREAD:       gpu.barrier
// THREAD:       memref.store %{{.*}}, %p[%tile, %{{.*}}] : memref<2x75xf32>
// THREAD-NOT:   atomic_rmw
