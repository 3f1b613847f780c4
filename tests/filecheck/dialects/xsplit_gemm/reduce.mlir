// The fused GEMM + reduction's ops print as they parse, in their custom and generic forms.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @gridwise
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm_reduce %a, %b init %c into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", store_c} : memref<70x90xf32>, memref<90x200xf32>, memref<70x200xf32> into memref<70xf32>
func.func @gridwise(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %c: memref<70x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b init %c into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", store_c} : memref<70x90xf32>, memref<90x200xf32>, memref<70x200xf32> into memref<70xf32>
  func.return
}

// A constant init, f16 operands, partials of the subgroup stage along M.
// CHECK-LABEL: func.func @partials
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm_reduce %a, %b into %p {{{.*}}merge = "partials", subgroup = 64 : i64, exchange = "cluster", init = -3.750000e-01 : f32} : memref<70x90xf16>, memref<90x200xf16> into memref<2x200xf32>
// CHECK-NEXT:    xsplit_gemm.merge_reduced %p into %o {method = "max", threads = 256 : i64} : memref<2x200xf32> into memref<1x200xf32>
func.func @partials(%a: memref<70x90xf16>, %b: memref<90x200xf16>, %p: memref<2x200xf32>, %o: memref<1x200xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %p {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "max", dim = 0 : i64, stage = "subgroup", merge = "partials", subgroup = 64 : i64, exchange = "cluster", init = -3.750000e-01 : f32} : memref<70x90xf16>, memref<90x200xf16> into memref<2x200xf32>
  xsplit_gemm.merge_reduced %p into %o {method = "max", threads = 256 : i64} : memref<2x200xf32> into memref<1x200xf32>
  func.return
}

// CHECK-LABEL: func.func @blockwise
// CHECK:         xsplit_gemm.blockwise_reduce %acc init %c to %o[%m0, %n0] thread %t {threads = array<i64: 16, 16>, bounds = array<i64: 70, 200>, method = "sum", dim = 1 : i64, stage = "atomic", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<4x4xf32, #gpu.address_space<private>>, memref<70x200xf32> to memref<70xf32>
// CHECK-NEXT:    xsplit_gemm.threadwise_reduce %acc to %parts[%m0, %n0] {strides = array<i64: 16, 16>, bounds = array<i64: 70, 200>, method = "max", dim = 0 : i64, init = 5.000000e-01 : f32} : memref<4x4xf32, #gpu.address_space<private>> to memref<4xf32, #gpu.address_space<private>>
func.func @blockwise(%c: memref<70x200xf32>, %o: memref<70xf32>, %m0: index, %n0: index, %t: index) {
  %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
  %parts = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_reduce %acc init %c to %o[%m0, %n0] thread %t {threads = array<i64: 16, 16>, bounds = array<i64: 70, 200>, method = "sum", dim = 1 : i64, stage = "atomic", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<4x4xf32, #gpu.address_space<private>>, memref<70x200xf32> to memref<70xf32>
  xsplit_gemm.threadwise_reduce %acc to %parts[%m0, %n0] {strides = array<i64: 16, 16>, bounds = array<i64: 70, 200>, method = "max", dim = 0 : i64, init = 5.000000e-01 : f32} : memref<4x4xf32, #gpu.address_space<private>> to memref<4xf32, #gpu.address_space<private>>
  func.return
}

// On tensor cores: the intrinsic and warps; `threads` is the epilogue's layout (4 warps of 32
// lanes, rows of 16). The fragments go to a workgroup C tile (merge "tile") and each thread's
// register tile comes back from it.
// CHECK-LABEL: func.func @mma
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 32>, threads = array<i64: 8, 16>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<70x37xf16>, memref<37x75xf16> into memref<70xf32>
// CHECK:         xsplit_gemm.threadwise_write_fragments %acc to %tile[%r, %r] lane %r {mma = "m16n8k16", merge = "tile"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<64x68xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    xsplit_gemm.threadwise_read_tile %tile[%r, %r] to %regs {strides = array<i64: 8, 16>} : memref<64x68xf32, #gpu.address_space<workgroup>> to memref<8x4xf32, #gpu.address_space<private>>
func.func @mma(%a: memref<70x37xf16>, %b: memref<37x75xf16>, %o: memref<70xf32>, %r: index) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 32>, threads = array<i64: 8, 16>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<70x37xf16>, memref<37x75xf16> into memref<70xf32>
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  %tile = memref.alloc() : memref<64x68xf32, #gpu.address_space<workgroup>>
  %regs = memref.alloca() : memref<8x4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_write_fragments %acc to %tile[%r, %r] lane %r {mma = "m16n8k16", merge = "tile"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<64x68xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.threadwise_read_tile %tile[%r, %r] to %regs {strides = array<i64: 8, 16>} : memref<64x68xf32, #gpu.address_space<workgroup>> to memref<8x4xf32, #gpu.address_space<private>>
  func.return
}

// A transposed A (K x M) staged K-major, and a transposed B (N x K).
// CHECK:         xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "max", dim = 0 : i64, stage = "lds", merge = "atomic", subgroup = 64 : i64, exchange = "cluster", a_k_major, a_transposed, b_transposed} : memref<90x70xf32>, memref<200x90xf32> into memref<200xf32>
func.func @transposed(%a: memref<90x70xf32>, %b: memref<200x90xf32>, %o: memref<200xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "max", dim = 0 : i64, stage = "lds", merge = "atomic", subgroup = 64 : i64, exchange = "cluster", a_k_major, a_transposed, b_transposed} : memref<90x70xf32>, memref<200x90xf32> into memref<200xf32>
  func.return
}

// Reduced along the batch (dim 2): one batch's C, each element its own
// output, here stored into the batch's M x N partials; their merge into a
// matrix output (a kept batch dimension of 1 in front).
// CHECK:         xsplit_gemm.gridwise_gemm_reduce %a, %b into %p {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "max", dim = 2 : i64, stage = "atomic", merge = "partials", subgroup = 32 : i64, exchange = "shuffle"} : memref<37x29xf32>, memref<29x50xf32> into memref<37x50xf32>
// CHECK-NEXT:    xsplit_gemm.merge_reduced %parts into %o {method = "max", threads = 256 : i64} : memref<2x37x50xf32> into memref<1x37x50xf32>
func.func @batch(%a: memref<37x29xf32>, %b: memref<29x50xf32>, %p: memref<37x50xf32>, %o: memref<1x37x50xf32>, %parts: memref<2x37x50xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %p {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "max", dim = 2 : i64, stage = "atomic", merge = "partials", subgroup = 32 : i64, exchange = "shuffle"} : memref<37x29xf32>, memref<29x50xf32> into memref<37x50xf32>
  xsplit_gemm.merge_reduced %parts into %o {method = "max", threads = 256 : i64} : memref<2x37x50xf32> into memref<1x37x50xf32>
  func.return
}

// llvm-cpu's form: one thread a workgroup, nothing staged (K step 0).
// CHECK-LABEL: func.func @workgroup_level
// CHECK-NEXT:    xsplit_gemm.gridwise_gemm_reduce %a, %b init %c into %p {tile = array<i64: 32, 32, 0>, threads = array<i64: 1, 1>, method = "sum", dim = 0 : i64, stage = "atomic", merge = "partials", subgroup = 32 : i64, exchange = "shuffle", store_c, a_transposed, workgroup_level} : memref<90x70xf32>, memref<90x200xf32>, memref<70x200xf32> into memref<3x200xf32>
// CHECK-NEXT:    xsplit_gemm.merge_reduced %p into %o {method = "sum", threads = 64 : i64, workgroup_level} : memref<3x200xf32> into memref<200xf32>
func.func @workgroup_level(%a: memref<90x70xf32>, %b: memref<90x200xf32>, %c: memref<70x200xf32>, %p: memref<3x200xf32>, %o: memref<200xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b init %c into %p {tile = array<i64: 32, 32, 0>, threads = array<i64: 1, 1>, method = "sum", dim = 0 : i64, stage = "atomic", merge = "partials", subgroup = 32 : i64, exchange = "shuffle", store_c, a_transposed, workgroup_level} : memref<90x70xf32>, memref<90x200xf32>, memref<70x200xf32> into memref<3x200xf32>
  xsplit_gemm.merge_reduced %p into %o {method = "sum", threads = 64 : i64, workgroup_level} : memref<3x200xf32> into memref<200xf32>
  func.return
}
