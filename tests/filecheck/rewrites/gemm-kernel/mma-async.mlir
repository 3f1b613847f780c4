// Tensor cores with double-buffered staging (stages=2): f16 rows of 1000 and
// 64 are whole 16-byte vectors, so A's and B's copies are 16-byte cp.async of
// 8 halves into XOR-swizzled tiles (each copy's 16-byte chunk at its
// swizzled place), masked where K runs out (1000 is not a multiple of the
// 16-step).
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 tile=64,64,16 warps=2,2 stages=2},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=GRID
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=3 tile=64,64,16 warps=2,2 stages=2},lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm' 2>/dev/null | filecheck %s --check-prefix=THREAD

// GRID:      %a_tile0 = memref.alloc() : memref<64x16xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %a_tile1 = memref.alloc() : memref<64x16xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %b_tile0 = memref.alloc() : memref<16x64xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %b_tile1 = memref.alloc() : memref<16x64xf16, #gpu.address_space<workgroup>>
// GRID-NEXT: %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
// GRID:      xsplit_gemm.blockwise_async_copy %a[%{{.*}}] to %a_tile0 thread %thread_id_x {sizes = array<i64: 64, 16>, threads = 128 : i64, vector = 8 : i64, swizzle}
// GRID:      scf.for %k0
// GRID-NEXT:   nvgpu.device_async_wait %{{.*}} numGroups = 0
// GRID-NEXT:   gpu.barrier
// GRID:        xsplit_gemm.blockwise_async_copy %b[%{{.*}}] to %b_tile1
// GRID-NEXT:   }
// GRID-NEXT:   xsplit_gemm.blockwise_mma %a_tile0 * %b_tile0 into %acc
// GRID:        xsplit_gemm.blockwise_mma %a_tile1 * %b_tile1 into %acc
// GRID:      xsplit_gemm.threadwise_write_fragments %acc

// THREAD:      arith.xori
// THREAD:      nvgpu.device_async_copy %a[%{{.*}}], %a_tile0[%{{.*}}], 8, %{{.*}} bypassL1 : memref<20x1000xf16> to memref<64x16xf16, #gpu.address_space<workgroup>>
// THREAD:      nvgpu.device_async_copy %b[%{{.*}}], %b_tile0[%{{.*}}], 8{{.*}} bypassL1 : memref<1000x64xf16> to memref<16x64xf16, #gpu.address_space<workgroup>>
// THREAD:      nvgpu.mma.sync
// THREAD-NOT:  xsplit_gemm.
func.func @mm(%a: tensor<20x1000xf16>, %b: tensor<1000x64xf16>, %c: tensor<20x64xf32>) -> tensor<20x64xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<20x1000xf16>, tensor<1000x64xf16>) outs(%c : tensor<20x64xf32>) -> tensor<20x64xf32>
  return %x : tensor<20x64xf32>
}
