// The GEMM kernel's stages with gfx942's tensor cores (f16 A and B:
// amdgpu.mfma 16x16x16, 64-lane wavefronts). 20x64x997: M ragged against the
// 32-row tile, K prime, three chunks of 336. Four wavefronts (2x2), each a
// 16x32 warp tile of 1x2 blocks of 16x16. A lane's A fragment is four
// contiguous K of one row (one vector.load, from A's XOR-swizzled tile); its
// B fragment four K of one column, one vector.load too: B's tile is K-packed
// ([K/4, N*4], each column's 4 K side by side), and each thread copies a
// slice of 4 K x 1 column into it with one 64-bit store. The last stage
// parses in iree-opt as it prints.
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=1 tile=32,64,16 warps=2,2}' 2>&1 | filecheck %s --check-prefix=KERNEL
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=1 tile=32,64,16 warps=2,2},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=GRID
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=1 tile=32,64,16 warps=2,2},lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm' > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=THREAD < %t.0.out
// RUN: iree-opt < %t.0.out | filecheck %s --check-prefix=IREE
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=3 stages=2 tile=32,64,16 warps=2,2},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=PREFETCH

// KERNEL:      remark: gemm-kernel: on gfx942, 32x64 C tiles over 3 K chunks of 336 (grid 1x1x3, 256 threads, K steps of 16, tensor cores (mfma_f32_16x16x16)); merge atomic
// KERNEL:      xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 32, 64, 16>, threads = array<i64: 2, 128>, chunks = 3 : i64, merge = "atomic", mma = "mfma_f32_16x16x16", warps = array<i64: 2, 2>, misaligned_vectors}

// GRID:      %a_tile = memref.alloc() : memref<32x16xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %b_tile = memref.alloc() : memref<4x256xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %acc = memref.alloca() : memref<1x2x4xf32, #gpu.address_space<private>>
// GRID:      scf.for %k0
// GRID:        xsplit_gemm.blockwise_copy %a[%{{.*}}, %k0] to %a_tile thread %thread_id_x {sizes = array<i64: 32, 16>, threads = 256 : i64, swizzle}
// GRID-NEXT:   xsplit_gemm.blockwise_copy %b[%k0, %{{.*}}] to %b_tile thread %thread_id_x {sizes = array<i64: 16, 64>, threads = 256 : i64, kpack = 4 : i64}
// GRID:        xsplit_gemm.blockwise_mma %a_tile * %b_tile into %acc thread %thread_id_x {mma = "mfma_f32_16x16x16", warps = array<i64: 2, 2>, step_k = 16 : i64, a_swizzle, b_kpack = 4 : i64}
// GRID:      xsplit_gemm.threadwise_write_fragments %acc to %c[%{{.*}}, %{{.*}}] lane %{{.*}} {mma = "mfma_f32_16x16x16", merge = "atomic"}

// THREAD:      vector.store %{{.*}}, %b_tile[%{{.*}}, %{{.*}}] : memref<4x256xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// THREAD:      arith.xori
// THREAD:      %[[A:.*]] = vector.load %a_tile[%{{.*}}, %{{.*}}] : memref<32x16xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// THREAD:      %a_frag = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf16>
// THREAD-NOT:  memref.load %b_tile
// THREAD:      vector.load %b_tile[%{{.*}}, %{{.*}}] : memref<4x256xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// THREAD:      %b_frag = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf16>
// THREAD:      %[[C:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// THREAD-NEXT: %[[D:.*]] = amdgpu.mfma 16x16x16 %a_frag * %b_frag + %[[C]] : vector<4xf16>, vector<4xf16>, vector<4xf32>
// THREAD-NEXT: %{{.*}} = vector.extract %[[D]][0] : f32 from vector<4xf32>
// THREAD:      amdgpu.mfma 16x16x16 %a_frag * %b_frag_1 + %{{.*}}
// THREAD-NOT:  amdgpu.mfma
// THREAD:      memref.atomic_rmw addf
// THREAD-NOT:  xsplit_gemm.

// IREE-COUNT-2: amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>

// stages=2: the register-prefetched loop multiplies each pair with MFMAs.
// PREFETCH:      scf.for %k0
// PREFETCH:        xsplit_gemm.blockwise_load %a[%{{.*}}, %{{.*}}] to %a_next
// PREFETCH:        xsplit_gemm.blockwise_mma %a_tile0 * %b_tile0
// PREFETCH:        xsplit_gemm.blockwise_store %a_next to %a_tile1
// PREFETCH:        xsplit_gemm.blockwise_mma %a_tile1 * %b_tile1
// PREFETCH:        xsplit_gemm.blockwise_store %a_next to %a_tile0
func.func @mm(%a: tensor<20x997xf16>, %b: tensor<997x64xf16>, %c: tensor<20x64xf32>) -> tensor<20x64xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<20x997xf16>, tensor<997x64xf16>) outs(%c : tensor<20x64xf32>) -> tensor<20x64xf32>
  return %x : tensor<20x64xf32>
}
