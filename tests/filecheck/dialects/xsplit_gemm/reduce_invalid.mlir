// The fused GEMM + reduction's verifiers.
// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @method(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "min", dim = 1 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<70x90xf32>, memref<90x200xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:5:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op method must be one of sum, max

// -----

func.func @out(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<200xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<70x90xf32>, memref<90x200xf32> into memref<200xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op the output must hold 70 elements

// -----

func.func @partials(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %p: memref<4x70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %p {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "atomic", merge = "partials", subgroup = 32 : i64, exchange = "shuffle"} : memref<70x90xf32>, memref<90x200xf32> into memref<4x70xf32>
  func.return
}
// The atomic stage keeps a partial per thread along N: 4 tiles x 16 threads.
// CHECK: reduce_invalid.mlir:[[# @LINE - 4]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op the partials must be 64x70

// -----

func.func @store_c(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", store_c} : memref<70x90xf32>, memref<90x200xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op store_c needs C

// -----

func.func @subgroup(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 48, 24>, threads = array<i64: 16, 12>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<70x90xf32>, memref<90x200xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op the subgroup stage needs a power-of-two thread count along the reduced axis

// -----

func.func @merge(%p: memref<2x200xf32>, %o: memref<2x2x50xf32>) {
  xsplit_gemm.merge_reduced %p into %o {method = "sum", threads = 256 : i64} : memref<2x200xf32> into memref<2x2x50xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.merge_reduced' op the output must be a vector (rank 1, or rank 2 with a dimension of 1) or a matrix (rank 2, or rank 3 with a first dimension of 1)

// -----

func.func @threadwise(%c: memref<70x200xf32>, %r: index) {
  %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
  %parts = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_reduce %acc to %parts[%r, %r] {strides = array<i64: 16, 16>, bounds = array<i64: 70, 200>, method = "sum", dim = 1 : i64} : memref<4x4xf32, #gpu.address_space<private>> to memref<2xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_reduce' op the partials must hold 4 kept registers

// -----

func.func @mma_threads(%a: memref<70x37xf16>, %b: memref<37x75xf16>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 32>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<70x37xf16>, memref<37x75xf16> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op threads must count warps[0] x warps[1] x 32 threads

// -----

func.func @mma_f32(%a: memref<70x37xf32>, %b: memref<37x75xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 32>, threads = array<i64: 8, 16>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<70x37xf32>, memref<37x75xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op m16n8k16 takes A of f16, bf16

// -----

func.func @mma_warps(%a: memref<70x37xf16>, %b: memref<37x75xf16>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 32>, threads = array<i64: 8, 16>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", mma = "m16n8k16"} : memref<70x37xf16>, memref<37x75xf16> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op mma and warps go together

// -----

func.func @read_tile(%r: index) {
  %tile = memref.alloc() : memref<64x68xf32>
  %regs = memref.alloca() : memref<8x4xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_read_tile %tile[%r, %r] to %regs {strides = array<i64: 8, 16>} : memref<64x68xf32> to memref<8x4xf32, #gpu.address_space<private>>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_read_tile' op the tile must be in workgroup memory

// -----

func.func @write_tile(%r: index) {
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  %tile = memref.alloc() : memref<64x68xf32>
  xsplit_gemm.threadwise_write_fragments %acc to %tile[%r, %r] lane %r {mma = "m16n8k16", merge = "tile"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<64x68xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_write_fragments' op C must be in workgroup memory

// -----

// A tile holds the warp tiles whole: no columns are left to another workgroup.
func.func @write_tile_from(%r: index) {
  %acc = memref.alloca() : memref<2x4x4xf32, #gpu.address_space<private>>
  %tile = memref.alloc() : memref<64x68xf32, #gpu.address_space<workgroup>>
  xsplit_gemm.threadwise_write_fragments %acc to %tile[%r, %r] lane %r from %r {mma = "m16n8k16", merge = "tile"} : memref<2x4x4xf32, #gpu.address_space<private>> to memref<64x68xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.threadwise_write_fragments' op a tile holds its columns whole: no from

// -----

// B lies N x K: its K (90) must be A's.
func.func @transposed_k(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", b_transposed} : memref<70x90xf32>, memref<90x200xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op A's K (90) and B's K (200) must agree

// -----

// Transposed copies are the one-stage FMA loop's.
func.func @transposed_mma(%a: memref<37x70xf16>, %b: memref<37x75xf16>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 32>, threads = array<i64: 8, 16>, method = "sum", dim = 1 : i64, stage = "subgroup", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", mma = "m16n8k16", warps = array<i64: 2, 2>, a_transposed} : memref<37x70xf16>, memref<37x75xf16> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op a transposed A or B takes FMAs (no mma) and one stage

// -----

// Along the batch nothing is combined inside a tile: no lds or subgroup step.
func.func @batch_stage(%a: memref<37x29xf32>, %b: memref<29x50xf32>, %o: memref<37x50xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 2 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<37x29xf32>, memref<29x50xf32> into memref<37x50xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op along the batch every element is its own output: the stage is atomic

// -----

// Along the batch the output is C's shape.
func.func @batch_out(%a: memref<37x29xf32>, %b: memref<29x50xf32>, %o: memref<50xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "sum", dim = 2 : i64, stage = "atomic", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<37x29xf32>, memref<29x50xf32> into memref<50xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op the output must be 37x50 or 1x37x50

// -----

// A matrix output's partials are chunks x M x N.
func.func @merge_matrix(%p: memref<2x1850xf32>, %o: memref<37x50xf32>) {
  xsplit_gemm.merge_reduced %p into %o {method = "sum", threads = 256 : i64} : memref<2x1850xf32> into memref<37x50xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.merge_reduced' op the partials must have rank 3

// -----

// A K step of 0 stages nothing: only llvm-cpu's workgroup-level form has it.
func.func @no_step(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 32, 32, 0>, threads = array<i64: 1, 1>, method = "sum", dim = 1 : i64, stage = "atomic", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle"} : memref<70x90xf32>, memref<90x200xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op tile and threads must be positive

// -----

func.func @workgroup_threads(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 32, 32, 0>, threads = array<i64: 16, 16>, method = "sum", dim = 1 : i64, stage = "atomic", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", workgroup_level} : memref<70x90xf32>, memref<90x200xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op workgroup_level runs one thread: threads 1x1

// -----

func.func @workgroup_stage(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 32, 32, 0>, threads = array<i64: 1, 1>, method = "sum", dim = 1 : i64, stage = "lds", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", workgroup_level} : memref<70x90xf32>, memref<90x200xf32> into memref<70xf32>
  func.return
}
// CHECK: reduce_invalid.mlir:[[# @LINE - 3]]:3: error: 'xsplit_gemm.gridwise_gemm_reduce' op workgroup_level exchanges nothing: stage atomic
