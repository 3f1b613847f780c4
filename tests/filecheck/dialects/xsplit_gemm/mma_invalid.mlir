// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @unknown(%a: memref<100x1000xf16>, %b: memref<1000x72xf16>, %c: memref<100x72xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", mma = "m8n8k4", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<1000x72xf16>, memref<100x72xf32>
  func.return
}
// CHECK: mma_invalid.mlir:4:3: error: 'xsplit_gemm.gridwise_gemm' op mma must be one of m16n8k16

// -----

func.func @f32(%a: memref<100x1000xf32>, %b: memref<1000x72xf32>, %c: memref<100x72xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf32>, memref<1000x72xf32>, memref<100x72xf32>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op m16n8k16 takes A of f16

// -----

func.func @threads(%a: memref<100x1000xf16>, %b: memref<1000x72xf16>, %c: memref<100x72xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 16, 16>, chunks = 4 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<1000x72xf16>, memref<100x72xf32>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op threads must be [warps[0], warps[1] * 32]

// -----

func.func @blocks(%a: memref<100x1000xf16>, %b: memref<1000x72xf16>, %c: memref<100x72xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 8>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<1000x72xf16>, memref<100x72xf32>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op the tile must be whole 16x8x16 blocks per warp

// -----

func.func @fragment(%r: index, %l: index) {
  %at = memref.alloc() : memref<64x40xf16, #gpu.address_space<workgroup>>
  %fa = xsplit_gemm.threadwise_fragment %at[%r, %r] lane %l {mma = "m16n8k16", operand = "a"} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_fragment' op the fragment must be a vector of 4x2 of the tile's elements

// -----

func.func @acc(%fa: vector<4x2xf16>, %fb: vector<2x2xf16>) {
  %acc = memref.alloca() : memref<2x4x2xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_mma %fa * %fb into %acc {mma = "m16n8k16", at = array<i64: 0, 0>} : vector<4x2xf16>, vector<2x2xf16> into memref<2x4x2xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_mma' op the accumulator holds 4 elements of C per 16x8 block

// -----

func.func @at(%fa: vector<4x2xf16>, %fb: vector<2x2xf16>) {
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_mma %fa * %fb into %acc {mma = "m16n8k16", at = array<i64: 2, 0>} : vector<4x2xf16>, vector<2x2xf16> into memref<2x4x4xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_mma' op at is outside the accumulator

// -----

func.func @step(%t: index) {
  %at = memref.alloc() : memref<64x40xf16, #gpu.address_space<workgroup>>
  %bt = memref.alloc() : memref<32x72xf16, #gpu.address_space<workgroup>>
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_mma %at * %bt into %acc thread %t {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 24 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, memref<32x72xf16, #gpu.address_space<workgroup>> into memref<2x4x4xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_mma' op step_k must be whole K blocks of 16

// -----

func.func @swizzle_rows(%a: memref<100x1000xf16>, %t: index, %r: index) {
  %at = memref.alloc() : memref<64x48xf16, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_copy %a[%r, %r] to %at thread %t {sizes = array<i64: 64, 48>, threads = 128 : i64, vector = 8 : i64, swizzle} : memref<100x1000xf16> to memref<64x48xf16, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_copy' op a swizzled tile's rows must be 2, 4, 8, ... 16-byte chunks

// -----

func.func @kpack_rows(%b: memref<1000x72xf16>, %t: index, %r: index) {
  %kt = memref.alloc() : memref<4x256xf16, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_copy %b[%r, %r] to %kt thread %t {sizes = array<i64: 18, 64>, threads = 64 : i64, kpack = 4 : i64} : memref<1000x72xf16> to memref<4x256xf16, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_copy' op kpack 4 must divide the copy's rows

// -----

func.func @kpack_ldmatrix(%r: index, %l: index) {
  %kt = memref.alloc() : memref<4x32xf16, #gpu.address_space<workgroup>>
  %fb = xsplit_gemm.threadwise_fragment %kt[%r, %r] lane %l {mma = "m16n8k16", operand = "b", kpack = 4 : i64} : memref<4x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_fragment' op a K-packed tile is read with the lanes' own loads

// -----

func.func @pad_narrower(%a: memref<100x997xf16>, %ap: memref<100x996xf16>) {
  xsplit_gemm.pad_rows %a into %ap {threads = 256 : i64} : memref<100x997xf16> into memref<100x996xf16>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.pad_rows' op the destination's rows must be the source's, widened

// -----

func.func @pad_element(%a: memref<100x997xf16>, %ap: memref<100x1000xbf16>) {
  xsplit_gemm.pad_rows %a into %ap {threads = 256 : i64} : memref<100x997xf16> into memref<100x1000xbf16>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.pad_rows' op the destination must hold the source's element type

// -----

func.func @padded_too_far(%a: memref<100x1008xf16>, %b: memref<997x72xf16>, %c: memref<100x72xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1008xf16>, memref<997x72xf16>, memref<100x72xf32>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op A's K (1008) and B's K (997) must agree, or A's rows be padded to 1000

// -----

func.func @b_padded_too_far(%a: memref<100x1000xf16>, %b: memref<1000x80xf16>, %c: memref<100x71xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 32>, threads = array<i64: 2, 64>, chunks = 4 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<100x1000xf16>, memref<1000x80xf16>, memref<100x71xf32>
  func.return
}
// CHECK: mma_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op C must be 100x80, or B's rows C's padded to whole vectors
