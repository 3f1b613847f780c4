// gemm-kernel's skinny f32 form: a gridwise GEMM with stream_b and the blockwise multiply that
// streams B into registers print as they parse, in their custom and generic forms.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @stream
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 4, 256, 32>, threads = array<i64: 1, 32>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64, thread_columns = 4 : i64, stream_b} : memref<3x999xf32>, memref<999x2048xf32>, memref<3x2048xf32>
// CHECK-NEXT:    %acc = memref.alloca() : memref<4x8xf32, #gpu.address_space<private>>
// CHECK-NEXT:    %at = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.blockwise_stream_gemm %at * %b[%k, %n] into %acc thread %t {threads = 32 : i64, step_k = 32 : i64, vector = 4 : i64} : memref<4x32xf32, #gpu.address_space<workgroup>>, memref<999x2048xf32> into memref<4x8xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.blockwise_stream_gemm %at * %b[%k, %n] into %acc thread %t {threads = 32 : i64, step_k = 32 : i64, ragged_k} : memref<4x32xf32, #gpu.address_space<workgroup>>, memref<999x2048xf32> into memref<4x8xf32, #gpu.address_space<private>>
func.func @stream(%a: memref<3x999xf32>, %b: memref<999x2048xf32>, %c: memref<3x2048xf32>, %k: index, %n: index, %t: index) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 4, 256, 32>, threads = array<i64: 1, 32>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64, thread_columns = 4 : i64, stream_b} : memref<3x999xf32>, memref<999x2048xf32>, memref<3x2048xf32>
  %acc = memref.alloca() : memref<4x8xf32, #gpu.address_space<private>>
  %at = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_stream_gemm %at * %b[%k, %n] into %acc thread %t {threads = 32 : i64, step_k = 32 : i64, vector = 4 : i64} : memref<4x32xf32, #gpu.address_space<workgroup>>, memref<999x2048xf32> into memref<4x8xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_stream_gemm %at * %b[%k, %n] into %acc thread %t {threads = 32 : i64, step_k = 32 : i64, ragged_k} : memref<4x32xf32, #gpu.address_space<workgroup>>, memref<999x2048xf32> into memref<4x8xf32, #gpu.address_space<private>>
  func.return
}
