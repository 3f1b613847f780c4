// The tensor-core ops of xsplit_gemm print as they parse, custom and generic.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @gridwise
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<1000x72xf16>, memref<100x72xf32>
func.func @gridwise(%a: memref<100x1000xf16>, %b: memref<1000x72xf16>, %c: memref<100x72xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<1000x72xf16>, memref<100x72xf32>
  func.return
}

// CHECK-LABEL: func.func @blockwise
// CHECK:         xsplit_gemm.blockwise_mma %at * %bt into %acc thread %t {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 32 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, memref<32x72xf16, #gpu.address_space<workgroup>> into memref<2x4x4xf32, #gpu.address_space<private>>
func.func @blockwise(%t: index) {
  %at = memref.alloc() : memref<64x40xf16, #gpu.address_space<workgroup>>
  %bt = memref.alloc() : memref<32x72xf16, #gpu.address_space<workgroup>>
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_mma %at * %bt into %acc thread %t {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 32 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, memref<32x72xf16, #gpu.address_space<workgroup>> into memref<2x4x4xf32, #gpu.address_space<private>>
  func.return
}

// CHECK-LABEL: func.func @threadwise
// CHECK:         xsplit_gemm.threadwise_fill %acc : memref<2x4x4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    %fa = xsplit_gemm.threadwise_fragment %at[%r, %k] lane %l {mma = "m16n8k16", operand = "a"} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NEXT:    %fb = xsplit_gemm.threadwise_fragment %bt[%k, %r] lane %l {mma = "m16n8k16", operand = "b"} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK-NEXT:    xsplit_gemm.threadwise_mma %fa * %fb into %acc {mma = "m16n8k16", at = array<i64: 1, 3>} : vector<4x2xf16>, vector<2x2xf16> into memref<2x4x4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.threadwise_write_fragments %acc to %c[%r, %k] lane %l {mma = "m16n8k16", merge = "atomic"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<100x72xf32>
// CHECK-NEXT:    xsplit_gemm.threadwise_write_fragments %acc to %p[%r, %k] lane %l chunk %t {mma = "m16n8k16", merge = "partials"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<4x100x72xf32>
// CHECK-NEXT:    xsplit_gemm.threadwise_write_fragments %acc to %c[%r, %k] lane %l from %t {mma = "m16n8k16", merge = "atomic"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<100x72xf32>
// CHECK-NEXT:    xsplit_gemm.threadwise_write_fragments %acc to %p[%r, %k] lane %l chunk %t from %k {mma = "m16n8k16", merge = "partials"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<4x100x72xf32>
func.func @threadwise(%c: memref<100x72xf32>, %p: memref<4x100x72xf32>, %r: index, %k: index, %l: index, %t: index) {
  %at = memref.alloc() : memref<64x40xf16, #gpu.address_space<workgroup>>
  %bt = memref.alloc() : memref<32x72xf16, #gpu.address_space<workgroup>>
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_fill %acc : memref<2x4x4xf32, #gpu.address_space<private>>
  %fa = xsplit_gemm.threadwise_fragment %at[%r, %k] lane %l {mma = "m16n8k16", operand = "a"} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %fb = xsplit_gemm.threadwise_fragment %bt[%k, %r] lane %l {mma = "m16n8k16", operand = "b"} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  xsplit_gemm.threadwise_mma %fa * %fb into %acc {mma = "m16n8k16", at = array<i64: 1, 3>} : vector<4x2xf16>, vector<2x2xf16> into memref<2x4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_write_fragments %acc to %c[%r, %k] lane %l {mma = "m16n8k16", merge = "atomic"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<100x72xf32>
  xsplit_gemm.threadwise_write_fragments %acc to %p[%r, %k] lane %l chunk %t {mma = "m16n8k16", merge = "partials"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<4x100x72xf32>
  xsplit_gemm.threadwise_write_fragments %acc to %c[%r, %k] lane %l from %t {mma = "m16n8k16", merge = "atomic"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<100x72xf32>
  xsplit_gemm.threadwise_write_fragments %acc to %p[%r, %k] lane %l chunk %t from %k {mma = "m16n8k16", merge = "partials"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<4x100x72xf32>
  func.return
}

// The workgroup-memory layouts: XOR-swizzled tiles (sm_80) and a K-packed B
// tile (gfx942), on the copies, the blockwise multiply and the fragment reads.
// CHECK-LABEL: func.func @layouts
// CHECK:         xsplit_gemm.blockwise_copy %a[%r, %k] to %at thread %t {sizes = array<i64: 64, 32>, threads = 128 : i64, vector = 8 : i64, swizzle} : memref<100x1000xf16> to memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %{{.*}} = xsplit_gemm.blockwise_async_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 32, 64>, threads = 128 : i64, vector = 8 : i64, swizzle} : memref<1000x72xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.blockwise_mma %at * %bt into %acc thread %t {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 32 : i64, a_swizzle, b_swizzle}
// CHECK-NEXT:    %{{.*}} = xsplit_gemm.threadwise_fragment %at[%r, %k] lane %l {mma = "m16n8k16", operand = "a", swizzle}
// CHECK-NEXT:    xsplit_gemm.blockwise_copy %b[%k, %r] to %kt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, kpack = 4 : i64} : memref<1000x72xf16> to memref<4x256xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.blockwise_load %b[%k, %r] to %regs thread %t {sizes = array<i64: 32, 64>, threads = 256 : i64, vector = 2 : i64, kpack = 4 : i64} : memref<1000x72xf16> to memref<1x8xf16, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.blockwise_store %regs to %kt2 thread %t {sizes = array<i64: 32, 64>, threads = 256 : i64, vector = 2 : i64, kpack = 4 : i64}
// CHECK-NEXT:    %{{.*}} = xsplit_gemm.threadwise_fragment %kt[%k, %r] lane %l {mma = "mfma_f32_16x16x16", operand = "b", kpack = 4 : i64} : memref<4x256xf16, #gpu.address_space<workgroup>> -> vector<4xf16>
func.func @layouts(%a: memref<100x1000xf16>, %b: memref<1000x72xf16>, %r: index, %k: index, %l: index, %t: index) {
  %at = memref.alloc() : memref<64x32xf16, #gpu.address_space<workgroup>>
  %bt = memref.alloc() : memref<32x64xf16, #gpu.address_space<workgroup>>
  %kt = memref.alloc() : memref<4x256xf16, #gpu.address_space<workgroup>>
  %kt2 = memref.alloc() : memref<8x256xf16, #gpu.address_space<workgroup>>
  %regs = memref.alloca() : memref<1x8xf16, #gpu.address_space<private>>
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_copy %a[%r, %k] to %at thread %t {sizes = array<i64: 64, 32>, threads = 128 : i64, vector = 8 : i64, swizzle} : memref<100x1000xf16> to memref<64x32xf16, #gpu.address_space<workgroup>>
  %tok = xsplit_gemm.blockwise_async_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 32, 64>, threads = 128 : i64, vector = 8 : i64, swizzle} : memref<1000x72xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_mma %at * %bt into %acc thread %t {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 32 : i64, a_swizzle, b_swizzle} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>> into memref<2x4x4xf32, #gpu.address_space<private>>
  %fa = xsplit_gemm.threadwise_fragment %at[%r, %k] lane %l {mma = "m16n8k16", operand = "a", swizzle} : memref<64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  xsplit_gemm.blockwise_copy %b[%k, %r] to %kt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, kpack = 4 : i64} : memref<1000x72xf16> to memref<4x256xf16, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_load %b[%k, %r] to %regs thread %t {sizes = array<i64: 32, 64>, threads = 256 : i64, vector = 2 : i64, kpack = 4 : i64} : memref<1000x72xf16> to memref<1x8xf16, #gpu.address_space<private>>
  xsplit_gemm.blockwise_store %regs to %kt2 thread %t {sizes = array<i64: 32, 64>, threads = 256 : i64, vector = 2 : i64, kpack = 4 : i64} : memref<1x8xf16, #gpu.address_space<private>> to memref<8x256xf16, #gpu.address_space<workgroup>>
  %fb = xsplit_gemm.threadwise_fragment %kt[%k, %r] lane %l {mma = "mfma_f32_16x16x16", operand = "b", kpack = 4 : i64} : memref<4x256xf16, #gpu.address_space<workgroup>> -> vector<4xf16>
  func.return
}

// Rows of an odd length widened to whole 16-byte vectors, and a GEMM that
// reads A padded past B's K and B padded past C's N.
// CHECK-LABEL: func.func @padded
// CHECK-NEXT:    xsplit_gemm.pad_rows %a into %ap {threads = 256 : i64} : memref<100x997xf16> into memref<100x1000xf16>
// CHECK-NEXT:    xsplit_gemm.pad_rows %b into %bp {threads = 256 : i64} : memref<997x71xf16> into memref<997x72xf16>
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %ap, %bp, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", stages = 2 : i64, mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<997x72xf16>, memref<100x71xf32>
func.func @padded(%a: memref<100x997xf16>, %b: memref<997x71xf16>, %ap: memref<100x1000xf16>, %bp: memref<997x72xf16>, %c: memref<100x71xf32>) {
  xsplit_gemm.pad_rows %a into %ap {threads = 256 : i64} : memref<100x997xf16> into memref<100x1000xf16>
  xsplit_gemm.pad_rows %b into %bp {threads = 256 : i64} : memref<997x71xf16> into memref<997x72xf16>
  xsplit_gemm.gridwise_gemm %ap, %bp, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", stages = 2 : i64, mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<997x72xf16>, memref<100x71xf32>
  func.return
}
