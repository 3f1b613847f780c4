// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @k_mismatch(%a: memref<8x9xf32>, %b: memref<10x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 1 : i64, merge = "store"} : memref<8x9xf32>, memref<10x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:4:3: error: 'xsplit_gemm.gridwise_gemm' op A's K (9) and B's K (10) must agree

// -----

func.func @store_chunks(%a: memref<8x99xf32>, %b: memref<99x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "store"} : memref<8x99xf32>, memref<99x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op merge store takes one chunk

// -----

func.func @empty_chunk(%a: memref<8x100xf32>, %b: memref<100x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 8 : i64, merge = "atomic"} : memref<8x100xf32>, memref<100x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op 8 chunks of whole 16-steps leave an empty chunk of K = 100

// -----

func.func @threads(%a: memref<8x100xf32>, %b: memref<100x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 12, 16>, chunks = 1 : i64, merge = "atomic"} : memref<8x100xf32>, memref<100x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op threads must divide the tile

// -----

func.func @partials_rank(%a: memref<8x100xf32>, %b: memref<100x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "partials"} : memref<8x100xf32>, memref<100x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op C must have rank 3

// -----

func.func @merge_kind(%a: memref<8x100xf32>, %b: memref<100x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "sum"} : memref<8x100xf32>, memref<100x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op merge must be one of store, atomic, partials

// -----

func.func @copy_space(%a: memref<8x100xf32>, %t: memref<16x64xf32>, %i: index) {
  xsplit_gemm.blockwise_copy %a[%i, %i] to %t thread %i {sizes = array<i64: 16, 64>, threads = 256 : i64} : memref<8x100xf32> to memref<16x64xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_copy' op the tile must be in workgroup memory

// -----

func.func @copy_room(%a: memref<8x100xf32>, %t: memref<16x64xf32, #gpu.address_space<workgroup>>, %i: index) {
  xsplit_gemm.blockwise_copy %a[%i, %i] to %t thread %i {sizes = array<i64: 64, 16>, threads = 256 : i64} : memref<8x100xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_copy' op the tile is smaller than the copy

// -----

func.func @outer(%acc: memref<4x4xf32, #gpu.address_space<private>>, %a: memref<4xf32, #gpu.address_space<private>>, %b: memref<2xf32, #gpu.address_space<private>>) {
  xsplit_gemm.threadwise_gemm %a * %b into %acc : memref<4xf32, #gpu.address_space<private>>, memref<2xf32, #gpu.address_space<private>> into memref<4x4xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_gemm' op the accumulator must be |a| x |b|

// -----

func.func @write_chunk(%acc: memref<4x4xf32, #gpu.address_space<private>>, %c: memref<8x8xf32>, %i: index) {
  xsplit_gemm.threadwise_write %acc to %c[%i, %i] chunk %i {strides = array<i64: 16, 16>, merge = "atomic"} : memref<4x4xf32, #gpu.address_space<private>> to memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_write' op a chunk index is given with merge partials, and only then

// -----

func.func @vector(%a: memref<8x99xf32>, %t: memref<16x64xf32, #gpu.address_space<workgroup>>, %i: index) {
  xsplit_gemm.blockwise_copy %a[%i, %i] to %t thread %i {sizes = array<i64: 16, 64>, threads = 64 : i64, vector = 4 : i64} : memref<8x99xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_copy' op a vector of 4 must divide the source's rows

// -----

func.func @stages(%a: memref<8x100xf32>, %b: memref<100x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 16, 16, 2>, threads = array<i64: 4, 4>, chunks = 1 : i64, merge = "store", stages = 2 : i64} : memref<8x100xf32>, memref<100x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op stages 2 needs K steps of a multiple of 4

// -----

func.func @registers(%b: memref<999x72xf32>, %i: index) {
  %r = memref.alloca() : memref<2x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_load %b[%i, %i] to %r thread %i {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<999x72xf32> to memref<2x4xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_load' op the registers must be 1x4

// -----

func.func @store_room(%r: memref<1x4xf32, #gpu.address_space<private>>, %t: memref<8x64xf32, #gpu.address_space<workgroup>>, %i: index) {
  xsplit_gemm.blockwise_store %r to %t thread %i {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<1x4xf32, #gpu.address_space<private>> to memref<8x64xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_store' op the tile is smaller than the copy

// -----

func.func @prefetch_one_stage(%a: memref<8x100xf32>, %b: memref<100x8xf32>, %c: memref<8x8xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 16, 16, 4>, threads = array<i64: 4, 4>, chunks = 1 : i64, merge = "store", register_prefetch} : memref<8x100xf32>, memref<100x8xf32>, memref<8x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op register_prefetch is a way of double buffering: it needs stages 2

// -----

func.func @gather_runs(%b: memref<999x72xf32>, %i: index) {
  %t = memref.alloc() : memref<8x20xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_gather %b[%i, %i] to %t thread %i {threads = 64 : i64} : memref<999x72xf32> to memref<8x20xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_gather' op the 8x20 tile is not whole loads of 64 elements a wavefront

// -----

func.func @gather_k_major(%a: memref<64x128xf32>, %b: memref<128x64xf32>, %c: memref<64x64xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 1 : i64, merge = "store", stages = 2 : i64, a_k_major, direct_to_lds} : memref<64x128xf32>, memref<128x64xf32>, memref<64x64xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op direct_to_lds stages A as it is (M-major)

// -----

func.func @row_threads_divide(%b: memref<999x72xf32>, %t: memref<16x64xf32, #gpu.address_space<workgroup>>, %i: index) {
  %g = xsplit_gemm.blockwise_async_copy %b[%i, %i] to %t thread %i {sizes = array<i64: 16, 64>, threads = 32 : i64, vector = 4 : i64, row_threads = 3 : i64} : memref<999x72xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_async_copy' op row_threads must divide the vectors of a row and the threads, and the rows they cover at once the copy's rows
