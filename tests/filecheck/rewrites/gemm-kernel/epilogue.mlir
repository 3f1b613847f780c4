// The fused GEMM + reduction through the GEMM kernel's stages: gridwise_gemm_reduce -> the K loop
// of blockwise ops and a blockwise_reduce -> each thread's threadwise_reduce and the stage's
// exchange -> scalar memref/arith. 70x200x90 reduced by max along M (one output per column) into
// partials, on sm_80: the 16 threads of a column are 16 lanes apart, two to a warp, so a shuffle
// at offset 16 pairs them and the 8 warps' partials meet in workgroup memory (case 3.2).
// RUN: xsplit-opt %s -p 'lower-gridwise-gemm' | filecheck %s --check-prefix=GRID
// RUN: xsplit-opt %s -p 'lower-gridwise-gemm,lower-blockwise-gemm' | filecheck %s --check-prefix=BLOCK
// RUN: xsplit-opt %s -p 'lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm' | filecheck %s --check-prefix=THREAD

func.func @cols(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %p: memref<2x200xf32>) {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %p {tile = array<i64: 64, 64, 16>, threads = array<i64: 16, 16>, method = "max", dim = 0 : i64, stage = "subgroup", merge = "partials", subgroup = 32 : i64, exchange = "shuffle", init = 5.000000e-01 : f32} : memref<70x90xf32>, memref<90x200xf32> into memref<2x200xf32>
  func.return
}

func.func @merge(%p: memref<2x200xf32>, %o: memref<200xf32>) {
  xsplit_gemm.merge_reduced %p into %o {method = "max", threads = 256 : i64} : memref<2x200xf32> into memref<200xf32>
  func.return
}

// GRID-LABEL: func.func @cols
// GRID:         %[[M0:.*]] = arith.muli %block_id_y
// GRID:         %[[N0:.*]] = arith.muli %block_id_x
// GRID:         xsplit_gemm.threadwise_fill %acc
// GRID:         scf.for %k0 =
// GRID:           xsplit_gemm.blockwise_copy %a[%[[M0]], %k0] to %a_tile
// GRID:           xsplit_gemm.blockwise_copy %b[%k0, %[[N0]]] to %b_tile {{.*}}vector = 4
// GRID:           gpu.barrier
// GRID-NEXT:      xsplit_gemm.blockwise_gemm %a_tile * %b_tile into %acc
// GRID-NEXT:      gpu.barrier
// GRID-NEXT:    }
// GRID-NEXT:    xsplit_gemm.blockwise_reduce %acc to %p[%[[M0]], %[[N0]]] thread %thread_id_x {threads = array<i64: 16, 16>, bounds = array<i64: 70, 200>, method = "max", dim = 0 : i64, stage = "subgroup", merge = "partials", subgroup = 32 : i64, exchange = "shuffle", init = 5.000000e-01 : f32}
// GRID-NEXT:    func.return
// The merge: one thread per output, the partials in chunk order.
// GRID-LABEL: func.func @merge
// GRID:         %[[E:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// GRID:         scf.if %{{.*}} {
// GRID-NEXT:      %[[O:.*]] = memref.load %o[%[[E]]] : memref<200xf32>
// GRID-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// GRID-NEXT:      %[[P0:.*]] = memref.load %p[%[[C0]], %[[E]]]
// GRID-NEXT:      %[[X0:.*]] = arith.maxnumf %[[O]], %[[P0]] : f32
// GRID-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// GRID-NEXT:      %[[P1:.*]] = memref.load %p[%[[C1]], %[[E]]]
// GRID-NEXT:      %[[X1:.*]] = arith.maxnumf %[[X0]], %[[P1]] : f32
// GRID-NEXT:      memref.store %[[X1]], %o[%[[E]]] : memref<200xf32>

// BLOCK-LABEL: func.func @cols
// BLOCK:         %parts = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// BLOCK:         %wave_tile = memref.alloc() : memref<64x8xf32, #gpu.address_space<workgroup>>
// BLOCK:         %tm = arith.divui %thread_id_x
// BLOCK-NEXT:    %tn = arith.remui %thread_id_x
// BLOCK:         xsplit_gemm.threadwise_reduce %acc to %parts[%{{.*}}, %{{.*}}] {strides = array<i64: 16, 16>, bounds = array<i64: 70, 200>, method = "max", dim = 0 : i64, init = 5.000000e-01 : f32}
// BLOCK:         %tile = arith.divui %{{.*}}, %{{.*}} : index
// BLOCK-NEXT:    %[[OFF:.*]] = arith.constant 16 : i32
// BLOCK-NEXT:    %[[W:.*]] = arith.constant 32 : i32
// BLOCK-NEXT:    %{{.*}}, %{{.*}} = gpu.shuffle xor %{{.*}}, %[[OFF]], %[[W]] : f32
// BLOCK-NEXT:    arith.maxnumf
// BLOCK-COUNT-3: gpu.shuffle xor %{{.*}}, %[[OFF]], %[[W]] : f32
// BLOCK:         scf.if %{{.*}} {
// BLOCK-NEXT:      memref.store %{{.*}}, %wave_tile[%tn, %{{.*}}]
// BLOCK-COUNT-3:   memref.store %{{.*}}, %wave_tile
// BLOCK-NEXT:    }
// BLOCK-NEXT:    gpu.barrier
// BLOCK:         scf.if %{{.*}} {
// BLOCK-COUNT-8:   memref.load %wave_tile[%thread_id_x,
// BLOCK:           memref.store %{{.*}}, %p[%tile, %{{.*}}] : memref<2x200xf32>

// Each element: its register plus the constant init, or -inf outside C; a thread's four
// elements of each column combined with maxnumf.
// THREAD-LABEL: func.func @cols
// THREAD-NOT:   xsplit_gemm.
// THREAD-DAG:   %[[INIT:.*]] = arith.constant 5.000000e-01 : f32
// THREAD-DAG:   %[[NEG:.*]] = arith.constant {{0xff800000|0xFF800000}} : f32
// THREAD:       %[[X:.*]] = memref.load %acc[
// THREAD-NEXT:  %[[Y:.*]] = arith.addf %[[X]], %[[INIT]] : f32
// THREAD-NEXT:  arith.select %{{.*}}, %[[Y]], %[[NEG]] : f32
// THREAD:       arith.maxnumf
// THREAD:       memref.store %{{.*}}, %parts[
// THREAD:       gpu.shuffle xor
// THREAD-NOT:   xsplit_gemm.
