// What stream_b and blockwise_stream_gemm refuse, one line each with its place.
// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @threads_along_m(%a: memref<3x96xf32>, %b: memref<96x64xf32>, %c: memref<3x64xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 8, 32, 8>, threads = array<i64: 2, 4>, chunks = 1 : i64, merge = "store", stages = 2 : i64, stream_b} : memref<3x96xf32>, memref<96x64xf32>, memref<3x64xf32>
  func.return
}
// CHECK: stream_invalid.mlir:5:3: error: 'xsplit_gemm.gridwise_gemm' op stream_b takes one thread along M (each thread has every row)

// -----

func.func @one_stage(%a: memref<3x96xf32>, %b: memref<96x64xf32>, %c: memref<3x64xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 4, 32, 8>, threads = array<i64: 1, 4>, chunks = 1 : i64, merge = "store", stream_b} : memref<3x96xf32>, memref<96x64xf32>, memref<3x64xf32>
  func.return
}
// CHECK: stream_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op stream_b stages A in 2 stages

// -----

func.func @runs(%a: memref<3x96xf32>, %b: memref<96x66xf32>, %c: memref<3x66xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 4, 32, 8>, threads = array<i64: 1, 4>, chunks = 1 : i64, merge = "store", stages = 2 : i64, thread_columns = 4 : i64, stream_b} : memref<3x96xf32>, memref<96x66xf32>, memref<3x66xf32>
  func.return
}
// CHECK: stream_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op stream_b loads runs of 4: B's rows must be whole runs

// -----

func.func @vector(%b: memref<40x24xf32>, %at: memref<2x4xf32, #gpu.address_space<workgroup>>, %acc: memref<2x6xf32, #gpu.address_space<private>>, %k: index, %t: index) {
  xsplit_gemm.blockwise_stream_gemm %at * %b[%k, %k] into %acc thread %t {threads = 2 : i64, step_k = 2 : i64, vector = 4 : i64} : memref<2x4xf32, #gpu.address_space<workgroup>>, memref<40x24xf32> into memref<2x6xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: stream_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_stream_gemm' op vector must divide each thread's columns

// -----

func.func @rows(%b: memref<40x24xf32>, %at: memref<2x4xf32, #gpu.address_space<workgroup>>, %acc: memref<4x4xf32, #gpu.address_space<private>>, %k: index, %t: index) {
  xsplit_gemm.blockwise_stream_gemm %at * %b[%k, %k] into %acc thread %t {threads = 2 : i64, step_k = 2 : i64} : memref<2x4xf32, #gpu.address_space<workgroup>>, memref<40x24xf32> into memref<4x4xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: stream_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_stream_gemm' op the A tile has fewer rows than the accumulator

// -----

func.func @steps(%b: memref<40x24xf32>, %at: memref<2x4xf32, #gpu.address_space<workgroup>>, %acc: memref<2x4xf32, #gpu.address_space<private>>, %k: index, %t: index) {
  xsplit_gemm.blockwise_stream_gemm %at * %b[%k, %k] into %acc thread %t {threads = 2 : i64, step_k = 8 : i64} : memref<2x4xf32, #gpu.address_space<workgroup>>, memref<40x24xf32> into memref<2x4xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: stream_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.blockwise_stream_gemm' op step_k exceeds the A tile

// -----

func.func @halves(%a: memref<3x96xf16>, %b: memref<96x64xf16>, %c: memref<3x64xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 4, 32, 8>, threads = array<i64: 1, 4>, chunks = 1 : i64, merge = "store", stages = 2 : i64, stream_b} : memref<3x96xf16>, memref<96x64xf16>, memref<3x64xf32>
  func.return
}
// CHECK: stream_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm' op stream_b takes f32 A and B (A's copies are 4 bytes an element)
