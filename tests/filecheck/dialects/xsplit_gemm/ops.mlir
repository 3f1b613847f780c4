// Every xsplit_gemm op prints as it parses, in its custom and its generic form.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @gridwise
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 4 : i64, merge = "atomic"} : memref<100x999xf32>, memref<999x70xf32>, memref<100x70xf32>
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %a, %b, %p {tile = array<i64: 32, 32, 8>, threads = array<i64: 8, 8>, chunks = 4 : i64, merge = "partials"} : memref<100x999xf32>, memref<999x70xf32>, memref<4x100x70xf32>
// CHECK-NEXT:    xsplit_gemm.merge_partials %p into %c {threads = 128 : i64} : memref<4x100x70xf32> into memref<100x70xf32>
func.func @gridwise(%a: memref<100x999xf32>, %b: memref<999x70xf32>, %c: memref<100x70xf32>, %p: memref<4x100x70xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 4 : i64, merge = "atomic"} : memref<100x999xf32>, memref<999x70xf32>, memref<100x70xf32>
  xsplit_gemm.gridwise_gemm %a, %b, %p {tile = array<i64: 32, 32, 8>, threads = array<i64: 8, 8>, chunks = 4 : i64, merge = "partials"} : memref<100x999xf32>, memref<999x70xf32>, memref<4x100x70xf32>
  xsplit_gemm.merge_partials %p into %c {threads = 128 : i64} : memref<4x100x70xf32> into memref<100x70xf32>
  func.return
}

// CHECK-LABEL: func.func @blockwise
// CHECK:         xsplit_gemm.blockwise_copy %a[%r, %k] to %at thread %t {sizes = array<i64: 64, 16>, threads = 256 : i64, transpose} : memref<100x999xf32> to memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.blockwise_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64} : memref<999x70xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.blockwise_gemm %at * %bt into %acc thread %t {threads = array<i64: 16, 16>, step_k = 16 : i64} : memref<16x65xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>> into memref<4x4xf32, #gpu.address_space<private>>
func.func @blockwise(%a: memref<100x999xf32>, %b: memref<999x70xf32>, %r: index, %k: index, %t: index) {
  %at = memref.alloc() : memref<16x65xf32, #gpu.address_space<workgroup>>
  %bt = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_copy %a[%r, %k] to %at thread %t {sizes = array<i64: 64, 16>, threads = 256 : i64, transpose} : memref<100x999xf32> to memref<16x65xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64} : memref<999x70xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_gemm %at * %bt into %acc thread %t {threads = array<i64: 16, 16>, step_k = 16 : i64} : memref<16x65xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>> into memref<4x4xf32, #gpu.address_space<private>>
  func.return
}

// CHECK-LABEL: func.func @threadwise
// CHECK:         xsplit_gemm.threadwise_fill %acc : memref<4x4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.threadwise_read %at[%k, %t] to %ar {stride = 16 : i64} : memref<16x65xf32, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.threadwise_gemm %ar * %br into %acc : memref<4xf32, #gpu.address_space<private>>, memref<4xf32, #gpu.address_space<private>> into memref<4x4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.threadwise_write %acc to %c[%r, %t] {strides = array<i64: 16, 16>, merge = "atomic"} : memref<4x4xf32, #gpu.address_space<private>> to memref<100x70xf32>
// CHECK-NEXT:    xsplit_gemm.threadwise_write %acc to %p[%r, %t] chunk %k {strides = array<i64: 16, 16>, merge = "partials"} : memref<4x4xf32, #gpu.address_space<private>> to memref<4x100x70xf32>
func.func @threadwise(%c: memref<100x70xf32>, %p: memref<4x100x70xf32>, %r: index, %k: index, %t: index) {
  %at = memref.alloc() : memref<16x65xf32, #gpu.address_space<workgroup>>
  %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
  %ar = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
  %br = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_fill %acc : memref<4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_read %at[%k, %t] to %ar {stride = 16 : i64} : memref<16x65xf32, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_gemm %ar * %br into %acc : memref<4xf32, #gpu.address_space<private>>, memref<4xf32, #gpu.address_space<private>> into memref<4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_write %acc to %c[%r, %t] {strides = array<i64: 16, 16>, merge = "atomic"} : memref<4x4xf32, #gpu.address_space<private>> to memref<100x70xf32>
  xsplit_gemm.threadwise_write %acc to %p[%r, %t] chunk %k {strides = array<i64: 16, 16>, merge = "partials"} : memref<4x4xf32, #gpu.address_space<private>> to memref<4x100x70xf32>
  func.return
}

// The asynchronous staged copy returns its group's token.
// CHECK-LABEL: func.func @async_copy
// CHECK:         %{{.*}} = xsplit_gemm.blockwise_async_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<999x72xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64}
func.func @async_copy(%a: memref<100x999xf32>, %b: memref<999x72xf32>, %c: memref<100x72xf32>, %r: index, %k: index, %t: index) {
  %bt = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  %g = xsplit_gemm.blockwise_async_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<999x72xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64} : memref<100x999xf32>, memref<999x72xf32>, memref<100x72xf32>
  func.return
}

// B's copy in pairs of threads a row (`row_threads`), inside the source along its rows.
// CHECK-LABEL: func.func @async_copy_row_threads
// CHECK:         %{{.*}} = xsplit_gemm.blockwise_async_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 64, 128>, threads = 64 : i64, vector = 8 : i64, swizzle, inside = array<i64: 0>, row_threads = 2 : i64} : memref<999x256xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>
func.func @async_copy_row_threads(%b: memref<999x256xf16>, %r: index, %k: index, %t: index) {
  %bt = memref.alloc() : memref<64x128xf16, #gpu.address_space<workgroup>>
  %g = xsplit_gemm.blockwise_async_copy %b[%k, %r] to %bt thread %t {sizes = array<i64: 64, 128>, threads = 64 : i64, vector = 8 : i64, swizzle, inside = array<i64: 0>, row_threads = 2 : i64} : memref<999x256xf16> to memref<64x128xf16, #gpu.address_space<workgroup>>
  func.return
}

// A staged copy split in two through registers (register-prefetch double buffering).
// CHECK-LABEL: func.func @register_prefetch
// CHECK:         xsplit_gemm.blockwise_load %b[%k, %r] to %br thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<999x72xf32> to memref<1x4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.blockwise_store %br to %bt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<1x4xf32, #gpu.address_space<private>> to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.blockwise_store %ar to %at thread %t {sizes = array<i64: 64, 16>, threads = 256 : i64, transpose} : memref<4x1xf32, #gpu.address_space<private>> to memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64, register_prefetch}
func.func @register_prefetch(%a: memref<100x999xf32>, %b: memref<999x72xf32>, %c: memref<100x72xf32>, %r: index, %k: index, %t: index) {
  %bt = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  %at = memref.alloc() : memref<16x65xf32, #gpu.address_space<workgroup>>
  %br = memref.alloca() : memref<1x4xf32, #gpu.address_space<private>>
  %ar = memref.alloca() : memref<4x1xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_load %b[%k, %r] to %br thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<999x72xf32> to memref<1x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_store %br to %bt thread %t {sizes = array<i64: 16, 64>, threads = 256 : i64, vector = 4 : i64} : memref<1x4xf32, #gpu.address_space<private>> to memref<16x64xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_store %ar to %at thread %t {sizes = array<i64: 64, 16>, threads = 256 : i64, transpose} : memref<4x1xf32, #gpu.address_space<private>> to memref<16x65xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64, register_prefetch} : memref<100x999xf32>, memref<999x72xf32>, memref<100x72xf32>
  func.return
}

// Direct-to-LDS staging (gfx942).
// CHECK-LABEL: func.func @gather
// CHECK:         xsplit_gemm.blockwise_gather %b[%k, %r] to %bt thread %t {threads = 256 : i64} : memref<999x72xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64, direct_to_lds}
func.func @gather(%a: memref<100x999xf32>, %b: memref<999x72xf32>, %c: memref<100x72xf32>, %r: index, %k: index, %t: index) {
  %bt = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.blockwise_gather %b[%k, %r] to %bt thread %t {threads = 256 : i64} : memref<999x72xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64, direct_to_lds} : memref<100x999xf32>, memref<999x72xf32>, memref<100x72xf32>
  func.return
}
