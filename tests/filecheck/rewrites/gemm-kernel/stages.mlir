// The GEMM kernel's stages, each one pass: gridwise -> blockwise/threadwise
// ops on GPU ids -> per-thread loads and threadwise ops -> scalar memref/arith.
// 20x64x997: M is ragged against the 32-row tile, N is not, K is prime, and
// the last of three 336-chunks is short. Most checks stage A K-major
// (a_layout=k, transposed, as the fused text kernel does); the M prefixes
// check the default, A as it is in memory.
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 tile=32,64,16 threads=8,16 stages=1},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=MGRID
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 tile=32,64,16 threads=8,16 stages=1},lower-gridwise-gemm,lower-blockwise-gemm' 2>/dev/null | filecheck %s --check-prefix=MBLOCK

// MGRID:      %a_tile = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
// MGRID:        xsplit_gemm.blockwise_copy %a[%{{.*}}, %k0] to %a_tile thread %{{.*}} {sizes = array<i64: 32, 16>, threads = 128 : i64} :
// MGRID:        xsplit_gemm.blockwise_gemm %a_tile * %b_tile into %acc thread %{{.*}} {threads = array<i64: 8, 16>, step_k = 16 : i64, a_m_major}
// MBLOCK:     memref.store %{{.*}}, %a_tile[%[[I:.*]], %[[J:.*]]] : memref<32x16xf32
// The K step is unrolled: 16 reads of A's rows at constant K, no loop.
// MBLOCK-NOT:    scf.for %kk
// MBLOCK-COUNT-16: xsplit_gemm.threadwise_read %a_tile[%{{.*}}, %{{.*}}] to %a_regs {stride = 8 : i64, down}
// MBLOCK-NOT:    xsplit_gemm.threadwise_read %a_tile
// MBLOCK:        gpu.barrier
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=GRID
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm,lower-blockwise-gemm' 2>/dev/null | filecheck %s --check-prefix=BLOCK
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm' 2>/dev/null | filecheck %s --check-prefix=THREAD
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 merge=deterministic tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=MERGE

// Workgroup (x, y, z): the C tile at (32 y, 64 x), K from 336 z to min(336 (z + 1), 997).
// GRID:      %[[TID:.*]] = gpu.thread_id x
// GRID:      %[[M0:.*]] = arith.muli %block_id_y, %{{.*}} : index
// GRID:      %[[N0:.*]] = arith.muli %block_id_x, %{{.*}} : index
// GRID:      %[[KB:.*]] = arith.muli %block_id_z, %{{.*}} : index
// GRID:      %[[KE0:.*]] = arith.addi %[[KB]], %{{.*}} : index
// GRID:      %[[KE:.*]] = arith.minui %[[KE0]], %{{.*}} : index
// GRID:      %a_tile = memref.alloc() : memref<16x34xf32, #gpu.address_space<workgroup>>
// GRID-NEXT: %b_tile = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
// GRID-NEXT: %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
// GRID-NEXT: xsplit_gemm.threadwise_fill %acc
// GRID:      scf.for %k0 = %[[KB]] to %[[KE]] step %{{.*}} {
// GRID-NEXT:   xsplit_gemm.blockwise_copy %a[%[[M0]], %k0] to %a_tile thread %[[TID]] {sizes = array<i64: 32, 16>, threads = 128 : i64, transpose}
// GRID-NEXT:   xsplit_gemm.blockwise_copy %b[%k0, %[[N0]]] to %b_tile thread %[[TID]] {sizes = array<i64: 16, 64>, threads = 128 : i64, vector = 4 : i64}
// GRID-NEXT:   gpu.barrier
// GRID-NEXT:   xsplit_gemm.blockwise_gemm %a_tile * %b_tile into %acc thread %[[TID]] {threads = array<i64: 8, 16>, step_k = 16 : i64}
// GRID-NEXT:   gpu.barrier
// GRID-NEXT: }
// GRID:      xsplit_gemm.threadwise_write %acc to %c[%{{.*}}, %{{.*}}] {strides = array<i64: 8, 16>, merge = "atomic"}

// Register buffers at the function's start; each copy's loads (masked where
// the tile overhangs: rows of A past 20, K past 997; B's columns never) come
// before its stores; A lands transposed. B's rows are whole vectors of 4:
// 128-bit loads (A's, 997 long, are not).
// BLOCK:      func.func @mm
// BLOCK-NEXT:   %a_regs = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// BLOCK-NEXT:   %b_regs = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// BLOCK:      scf.for %k0
// BLOCK:        %[[I:.*]] = arith.divui %thread_id_x, %{{.*}} : index
// BLOCK-NEXT:   %[[J:.*]] = arith.remui %thread_id_x, %{{.*}} : index
// BLOCK-NEXT:   %[[K:.*]] = arith.addi %k0, %[[J]] : index
// BLOCK:        %[[KIN:.*]] = arith.cmpi ult, %[[K]], %{{.*}} : index
// BLOCK-NEXT:   %[[R:.*]] = arith.addi %{{.*}}, %[[I]] : index
// BLOCK:        %[[RIN:.*]] = arith.cmpi ult, %[[R]], %{{.*}} : index
// BLOCK-NEXT:   %[[IN:.*]] = arith.andi %[[RIN]], %[[KIN]] : i1
// BLOCK-NEXT:   %[[V:.*]] = scf.if %[[IN]] -> (f32) {
// BLOCK-NEXT:     memref.load %a[%[[R]], %[[K]]] : memref<20x997xf32>
// BLOCK:        } else {
// BLOCK-NEXT:     arith.constant 0.000000e+00 : f32
// BLOCK:        memref.store %[[V]], %a_tile[%[[J]], %[[I]]]
// BLOCK-NOT:    memref.load %a
// BLOCK:        %[[BK:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// BLOCK-NEXT:   %{{.*}} = scf.if %[[BK]] -> (f32, f32, f32, f32) {
// BLOCK-NEXT:     %[[BV:.*]] = vector.load %b[%{{.*}}, %{{.*}}] : memref<997x64xf32>, vector<4xf32>
// BLOCK-NEXT:     vector.extract %[[BV]][0] : f32 from vector<4xf32>
// BLOCK:        gpu.barrier
// The K step unrolled: 16 K elements, each its two reads and outer product.
// BLOCK-NOT:    scf.for %kk
// BLOCK:        xsplit_gemm.threadwise_read %a_tile[%{{.*}}, %{{.*}}] to %a_regs {stride = 8 : i64}
// BLOCK-NEXT:   xsplit_gemm.threadwise_read %b_tile[%{{.*}}, %{{.*}}] to %b_regs {stride = 16 : i64}
// BLOCK-NEXT:   xsplit_gemm.threadwise_gemm %a_regs * %b_regs into %acc
// BLOCK-COUNT-15: xsplit_gemm.threadwise_gemm %a_regs * %b_regs into %acc
// BLOCK-NEXT:   gpu.barrier

// Unrolled: 16 contracted multiply-adds per K element, 16 masked atomics.
// THREAD-NOT:  xsplit_gemm.
// THREAD-COUNT-4: memref.load %a_tile
// THREAD-COUNT-4: memref.load %b_tile
// THREAD:      %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// THREAD-NEXT: arith.addf %{{.*}}, %[[P]] fastmath<contract> : f32
// THREAD-COUNT-16: memref.atomic_rmw addf
// THREAD-NOT:  xsplit_gemm.

// The partials go to their chunk's slice; the merge adds them to C in order.
// MERGE:      xsplit_gemm.threadwise_write %acc to %partials[%{{.*}}, %{{.*}}] chunk %block_id_z {strides = array<i64: 8, 16>, merge = "partials"}
// MERGE:      func.func @mm_merge
// MERGE:      %[[COL:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// MERGE:      %[[ROW:.*]] = gpu.block_id y
// MERGE:      %[[IN:.*]] = arith.cmpi ult, %[[COL]], %{{.*}} : index
// MERGE-NEXT: scf.if %[[IN]] {
// MERGE-NEXT:   %[[C:.*]] = memref.load %c[%[[ROW]], %[[COL]]]
// MERGE:        %[[P0:.*]] = memref.load %partials[%{{.*}}, %[[ROW]], %[[COL]]]
// MERGE-NEXT:   %[[S0:.*]] = arith.addf %[[C]], %[[P0]] : f32
// MERGE:        %[[P1:.*]] = memref.load %partials[%{{.*}}, %[[ROW]], %[[COL]]]
// MERGE-NEXT:   %[[S1:.*]] = arith.addf %[[S0]], %[[P1]] : f32
// MERGE:        %[[P2:.*]] = memref.load %partials[%{{.*}}, %[[ROW]], %[[COL]]]
// MERGE-NEXT:   %[[S2:.*]] = arith.addf %[[S1]], %[[P2]] : f32
// MERGE-NEXT:   memref.store %[[S2]], %c[%[[ROW]], %[[COL]]]
// stages=2: two tile pairs and one barrier a step. At the top of each step
// the thread waits for its copies of that step (none other is in flight),
// the barrier makes everyone's visible and frees the other pair, into which
// the next step is copied (skipped past the chunk) while this one multiplies.
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=2 tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=ASYNC
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=2 tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm,lower-blockwise-gemm' 2>/dev/null | filecheck %s --check-prefix=ASYNC-BLOCK
// ASYNC:      %a_tile0 = memref.alloc() : memref<16x34xf32, #gpu.address_space<workgroup>>
// ASYNC-NEXT: %a_tile1 = memref.alloc()
// ASYNC-NEXT: %b_tile0 = memref.alloc()
// ASYNC-NEXT: %b_tile1 = memref.alloc()
// ASYNC:      xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %[[KB:.*]]] to %a_tile0
// ASYNC-NEXT: %[[FIRST:.*]] = xsplit_gemm.blockwise_async_copy %b[%[[KB]], %{{.*}}] to %b_tile0
// ASYNC-NEXT: scf.for %k0 = %[[KB]] to %[[KE:.*]] step %{{.*}} {
// ASYNC-NEXT:   nvgpu.device_async_wait %[[FIRST]] numGroups = 0
// ASYNC-NEXT:   gpu.barrier
// ASYNC:        %[[N1:.*]] = arith.addi %k0, %{{.*}} : index
// ASYNC-NEXT:   %[[IN1:.*]] = arith.cmpi ult, %[[N1]], %[[KE]] : index
// ASYNC-NEXT:   scf.if %[[IN1]] {
// ASYNC-NEXT:     xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %[[N1]]] to %a_tile1
// ASYNC-NEXT:     xsplit_gemm.blockwise_async_copy %b[%[[N1]], %{{.*}}] to %b_tile1
// ASYNC-NEXT:   }
// ASYNC-NEXT:   xsplit_gemm.blockwise_gemm %a_tile0 * %b_tile0
// ASYNC-NEXT:   nvgpu.device_async_wait %[[FIRST]] numGroups = 0
// ASYNC-NEXT:   gpu.barrier
// ASYNC:        %[[N2:.*]] = arith.addi %k0, %{{.*}} : index
// ASYNC-NEXT:   %[[IN2:.*]] = arith.cmpi ult, %[[N2]], %[[KE]] : index
// ASYNC-NEXT:   scf.if %[[IN2]] {
// ASYNC-NEXT:     xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %[[N2]]] to %a_tile0
// ASYNC-NEXT:     xsplit_gemm.blockwise_async_copy %b[%[[N2]], %{{.*}}] to %b_tile0
// ASYNC-NEXT:   }
// ASYNC:        %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[KE]] : index
// ASYNC-NEXT:   scf.if %[[IN]] {
// ASYNC-NEXT:     xsplit_gemm.blockwise_gemm %a_tile1 * %b_tile1
// ASYNC-NEXT:   }
// ASYNC-NEXT: }
// ASYNC-NOT:  gpu.barrier
// ASYNC:      xsplit_gemm.threadwise_write %acc

// stages=3: the copies run two steps ahead, clamped to the chunk's last
// step so that every step commits its two groups: the wait leaves the next
// step's two in flight. The chunks end at K - (2 - z) * 336 (325, 661, 997)
// and each chunk's steps end at its end: only chunk 0's first step, at
// -11, is ragged (its copies masked, before the loop); every later copy is
// inside K, unmasked along it (`inside`).
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 stages=3 tile=32,64,16 threads=8,16},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=THREE
// THREE:      %[[Z:.*]] = arith.muli %block_id_z, %{{.*}} : index
// THREE-NEXT: %[[R:.*]] = arith.constant 325 : index
// THREE-NEXT: %[[KE:.*]] = arith.addi %[[Z]], %[[R]] : index
// THREE:      %[[KB:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// THREE:      %a_tile2 = memref.alloc()
// THREE:      %[[LAST:.*]] = arith.subi %[[KE]], %{{.*}} : index
// THREE-NEXT: xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %[[KB]]] to %a_tile0 thread %thread_id_x {sizes = array<i64: 32, 16>, threads = 128 : i64} :
// THREE-NEXT: %[[FIRST:.*]] = xsplit_gemm.blockwise_async_copy %b[%[[KB]], %{{.*}}] to %b_tile0 thread %thread_id_x {sizes = array<i64: 16, 64>, threads = 128 : i64, vector = 4 : i64} :
// THREE:      arith.minui %{{.*}}, %[[LAST]] : index
// THREE-NEXT: xsplit_gemm.blockwise_async_copy %a[%{{.*}}] to %a_tile1 {{.*}}inside = array<i64: 1>}
// THREE-NEXT: xsplit_gemm.blockwise_async_copy %b[%{{.*}}] to %b_tile1 {{.*}}inside = array<i64: 0>}
// THREE:      scf.for %k0 = %[[KB]] to %[[KE]]
// THREE-NEXT:   nvgpu.device_async_wait %[[FIRST]] numGroups = 2
// THREE-NEXT:   gpu.barrier
// THREE:        arith.minui %{{.*}}, %[[LAST]] : index
// THREE-NEXT:   xsplit_gemm.blockwise_async_copy %a[%{{.*}}] to %a_tile2 {{.*}}inside = array<i64: 1>}
// THREE-NEXT:   xsplit_gemm.blockwise_async_copy %b[%{{.*}}] to %b_tile2 {{.*}}inside = array<i64: 0>}
// THREE-NEXT:   xsplit_gemm.blockwise_gemm %a_tile0 * %b_tile0
// THREE-COUNT-2: gpu.barrier
// THREE-NOT:    gpu.barrier
// THREE:      nvgpu.device_async_wait %[[FIRST]] numGroups = 0

// A's elements (they land transposed) in 4-byte copies, B's vectors in 16
// bytes; a masked copy reads nothing (srcElements 0) at a clamped index.
// ASYNC-BLOCK:      %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// ASYNC-BLOCK:      %[[R:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : index
// ASYNC-BLOCK-NEXT: %[[C:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : index
// ASYNC-BLOCK:      %[[N:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : index
// ASYNC-BLOCK-NEXT: %{{.*}} = nvgpu.device_async_copy %a[%[[R]], %[[C]]], %a_tile0[%{{.*}}, %{{.*}}], 1, %[[N]] : memref<20x997xf32> to memref<16x34xf32, #gpu.address_space<workgroup>>
// ASYNC-BLOCK:      nvgpu.device_async_copy %b[%{{.*}}, %{{.*}}], %b_tile0[%{{.*}}, %{{.*}}], 4, %{{.*}} bypassL1 : memref<997x64xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
// ASYNC-BLOCK:      %{{.*}} = nvgpu.device_async_create_group %{{.*}}, %{{.*}}


// stages=2 on gfx942: through registers. Each step loads the step ahead into
// the registers (if it is inside the chunk), multiplies the staged pair,
// stores the registers into the idle pair, and meets the others at one barrier.
// Rows of 997 are not whole vectors, but gfx942 loads 16 bytes at any 4-byte
// address: A's copies are 16-byte and `ragged`. K = 997 is peeled: the loop
// runs the chunk's whole steps (to min(chunk end, 992)), where A's loads need
// no mask along K and B's none along its rows (`inside`); the last chunk's
// ragged step follows, staged once with every mask. Each thread holds its
// columns in runs of 4 (`columns`), written back in the same runs (`group`).
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=2 tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=PREFETCH
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=2 tile=32,64,16 threads=8,16 a_layout=k},lower-gridwise-gemm,lower-blockwise-gemm' 2>/dev/null | filecheck %s --check-prefix=PREFETCH-BLOCK
// PREFETCH:      %a_next = memref.alloca() : memref<1x4xf32, #gpu.address_space<private>>
// PREFETCH-NEXT: %b_next = memref.alloca() : memref<2x4xf32, #gpu.address_space<private>>
// PREFETCH-NEXT: %[[WHOLE:.*]] = arith.constant 992 : index
// PREFETCH-NEXT: %[[KL:.*]] = arith.minui %[[KE:.*]], %[[WHOLE]] : index
// PREFETCH-NEXT: xsplit_gemm.blockwise_copy %a[%{{.*}}, %[[KB:.*]]] to %a_tile0 {{.*}}transpose, vector = 4 : i64, ragged, clamp = array<i64: 0>}
// PREFETCH-NEXT: xsplit_gemm.blockwise_copy %b[%[[KB]], %{{.*}}] to %b_tile0
// PREFETCH-NEXT: gpu.barrier
// PREFETCH:      scf.for %k0 = %[[KB]] to %[[KL]] step %{{.*}} {
// PREFETCH:        %[[N1:.*]] = arith.addi %k0, %{{.*}} : index
// PREFETCH-NEXT:   %[[IN1:.*]] = arith.cmpi ult, %[[N1]], %[[KL]] : index
// PREFETCH-NEXT:   scf.if %[[IN1]] {
// PREFETCH-NEXT:     xsplit_gemm.blockwise_load %a[%{{.*}}, %[[N1]]] to %a_next {{.*}}vector = 4 : i64, ragged, inside = array<i64: 1>, clamp = array<i64: 0>}
// PREFETCH-NEXT:     xsplit_gemm.blockwise_load %b[%[[N1]], %{{.*}}] to %b_next {{.*}}inside = array<i64: 0>}
// PREFETCH-NEXT:   }
// PREFETCH-NEXT:   xsplit_gemm.blockwise_gemm %a_tile0 * %b_tile0 {{.*}}columns = 4 : i64}
// PREFETCH-NEXT:   scf.if %[[IN1]] {
// PREFETCH-NEXT:     xsplit_gemm.blockwise_store %a_next to %a_tile1 {{.*}}transpose
// PREFETCH-NEXT:     xsplit_gemm.blockwise_store %b_next to %b_tile1
// PREFETCH-NEXT:   }
// PREFETCH-NEXT:   gpu.barrier
// PREFETCH:        %[[N2:.*]] = arith.addi %k0, %{{.*}} : index
// PREFETCH-NEXT:   %[[IN2:.*]] = arith.cmpi ult, %[[N2]], %[[KL]] : index
// PREFETCH-NEXT:   scf.if %[[IN2]] {
// PREFETCH-NEXT:     xsplit_gemm.blockwise_load %a[%{{.*}}, %[[N2]]] to %a_next
// PREFETCH-NEXT:     xsplit_gemm.blockwise_load %b[%[[N2]], %{{.*}}] to %b_next
// PREFETCH-NEXT:   }
// PREFETCH-NEXT:   scf.if %[[IN1]] {
// PREFETCH-NEXT:     xsplit_gemm.blockwise_gemm %a_tile1 * %b_tile1
// PREFETCH-NEXT:   }
// PREFETCH-NEXT:   scf.if %[[IN2]] {
// PREFETCH-NEXT:     xsplit_gemm.blockwise_store %a_next to %a_tile0
// PREFETCH-NEXT:     xsplit_gemm.blockwise_store %b_next to %b_tile0
// PREFETCH-NEXT:   }
// PREFETCH-NEXT:   gpu.barrier
// PREFETCH-NEXT: }
// PREFETCH-NEXT: %[[RAGGED:.*]] = arith.cmpi ult, %[[KL]], %[[KE]] : index
// PREFETCH-NEXT: scf.if %[[RAGGED]] {
// PREFETCH-NEXT:   xsplit_gemm.blockwise_copy %a[%{{.*}}, %[[KL]]] to %a_tile0 {{.*}}ragged, clamp = array<i64: 0>}
// PREFETCH-NEXT:   xsplit_gemm.blockwise_copy %b[%[[KL]], %{{.*}}] to %b_tile0
// PREFETCH-NEXT:   gpu.barrier
// PREFETCH-NEXT:   xsplit_gemm.blockwise_gemm %a_tile0 * %b_tile0
// PREFETCH-NEXT: }
// PREFETCH-NOT:  gpu.barrier
// PREFETCH:      xsplit_gemm.threadwise_write %acc to %c[%{{.*}}, %{{.*}}] {strides = array<i64: 8, 64>, merge = "atomic", group = 4 : i64}

// In the loop the loads go into the registers unmasked, A's four K in one
// vector: A's rows past M = 20 read its last row (`clamp`: they make only
// rows of C that are never written), with no branch and no zeros; the
// stores take them out in the same order, A's transposed.
// PREFETCH-BLOCK:      scf.for %k0
// PREFETCH-BLOCK:      %[[LAST:.*]] = arith.constant 19 : index
// PREFETCH-BLOCK-NEXT: %[[RM:.*]] = arith.minui %{{.*}}, %[[LAST]] : index
// PREFETCH-BLOCK-NEXT: %[[VA:.*]] = vector.load %a[%[[RM]], %{{.*}}] : memref<20x997xf32>, vector<4xf32>
// PREFETCH-BLOCK-NEXT: %[[V:.*]] = vector.extract %[[VA]][0] : f32 from vector<4xf32>
// PREFETCH-BLOCK-NOT:  arith.constant 0.000000e+00 : f32
// PREFETCH-BLOCK:      memref.store %[[V]], %a_next[%{{.*}}, %{{.*}}] : memref<1x4xf32, #gpu.address_space<private>>
// PREFETCH-BLOCK:      %[[W:.*]] = vector.load %b[%{{.*}}, %{{.*}}] : memref<997x64xf32>, vector<4xf32>
// PREFETCH-BLOCK:      memref.store %{{.*}}, %b_next[%{{.*}}, %{{.*}}] : memref<2x4xf32, #gpu.address_space<private>>
// PREFETCH-BLOCK:      xsplit_gemm.threadwise_read %a_tile0
// PREFETCH-BLOCK:      %[[R:.*]] = memref.load %a_next[%{{.*}}, %{{.*}}] : memref<1x4xf32, #gpu.address_space<private>>
// PREFETCH-BLOCK:      memref.store %[[R]], %a_tile1[%{{.*}}, %{{.*}}] : memref<16x34xf32, #gpu.address_space<workgroup>>
// After the loop, the ragged step's A vectors load at min(k, 997 - 4): the
// one straddling K's end ends at it and its element moves down by 3 (997 =
// 249 x 4 + 1); one past the end is zeros.
// PREFETCH-BLOCK:      %[[K4:.*]] = arith.constant 993 : index
// PREFETCH-BLOCK-NEXT: %[[AT:.*]] = arith.minui %{{.*}}, %[[K4]] : index
// PREFETCH-BLOCK-NEXT: vector.load %a[%{{.*}}, %[[AT]]] : memref<20x997xf32>, vector<4xf32>
// PREFETCH-BLOCK:      %[[E:.*]] = arith.select %{{.*}}, %[[L3:.*]], %{{.*}} : f32
// PREFETCH-BLOCK-NEXT: %{{.*}} = arith.select %{{.*}}, %{{.*}}, %[[E]] : f32


// stages=2 prefetch=lds on gfx942: direct-to-LDS loads into unpadded tiles.
// Each wavefront fills runs of 64 words; a lane outside A or B stores a
// zero instead; one barrier a step, by which the loads have landed.
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=2 prefetch=lds tile=32,64,16 threads=8,16},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=LDS
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=2 prefetch=lds tile=32,64,16 threads=8,16},lower-gridwise-gemm,lower-blockwise-gemm' 2>/dev/null | filecheck %s --check-prefix=LDS-BLOCK
// LDS:      %a_tile0 = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
// LDS:      xsplit_gemm.blockwise_gather %a[%{{.*}}, %[[KB:.*]]] to %a_tile0 thread %thread_id_x {threads = 128 : i64}
// LDS-NEXT: xsplit_gemm.blockwise_gather %b[%[[KB]], %{{.*}}] to %b_tile0
// LDS-NEXT: gpu.barrier
// LDS:      scf.for %k0
// LDS:        scf.if %[[IN1:.*]] {
// LDS-NEXT:     xsplit_gemm.blockwise_gather %a[%{{.*}}, %{{.*}}] to %a_tile1
// LDS-NEXT:     xsplit_gemm.blockwise_gather %b[%{{.*}}, %{{.*}}] to %b_tile1
// LDS-NEXT:   }
// LDS-NEXT:   xsplit_gemm.blockwise_gemm %a_tile0 * %b_tile0
// LDS-NEXT:   gpu.barrier
// LDS:        scf.if %{{.*}} {
// LDS-NEXT:     xsplit_gemm.blockwise_gather %a[%{{.*}}, %{{.*}}] to %a_tile0
// LDS-NEXT:     xsplit_gemm.blockwise_gather %b[%{{.*}}, %{{.*}}] to %b_tile0
// LDS-NEXT:   }
// LDS-NEXT:   scf.if %[[IN1]] {
// LDS-NEXT:     xsplit_gemm.blockwise_gemm %a_tile1 * %b_tile1
// LDS-NEXT:   }
// LDS-NEXT:   gpu.barrier
// LDS-NEXT: }

// LDS-BLOCK:      %[[LANE:.*]] = arith.remui %thread_id_x, %{{.*}} : index
// LDS-BLOCK:      scf.if %{{.*}} {
// LDS-BLOCK-NEXT:   amdgpu.gather_to_lds %a[%{{.*}}, %{{.*}}], %a_tile0[%{{.*}}, %{{.*}}] : f32, memref<20x997xf32>, memref<32x16xf32, #gpu.address_space<workgroup>>
// LDS-BLOCK-NEXT: } else {
// LDS-BLOCK-NEXT:   %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// LDS-BLOCK-NEXT:   memref.store %[[Z]], %a_tile0[%{{.*}}, %{{.*}}] : memref<32x16xf32, #gpu.address_space<workgroup>>
// LDS-BLOCK-NEXT: }

func.func @mm(%a: tensor<20x997xf32>, %b: tensor<997x64xf32>, %c: tensor<20x64xf32>) -> tensor<20x64xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<20x997xf32>, tensor<997x64xf32>) outs(%c : tensor<20x64xf32>) -> tensor<20x64xf32>
  return %x : tensor<20x64xf32>
}
