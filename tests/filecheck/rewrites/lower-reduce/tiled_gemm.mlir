// lower-reduce on a GEMM fuse-reduction fused. On GPU targets: xsplit's staged GEMM kernel
// (xsplit_gemm.gridwise_gemm_reduce through lower-{gridwise,blockwise,threadwise}-gemm) with the
// reduction as its epilogue; on the CPU the same op with workgroup_level. 70x200x90 is no multiple
// of the 64x64 C tile or of the K step of 16: loads outside A and B read zero, elements outside C
// add the identity, and rows outside C get no atomic.
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=lds target=sm_80},verify-sync' > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=LDS < %t.0.out
// RUN: filecheck %s --check-prefix=REMARK < %t.0.err
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=subgroup target=sm_80}' 2>/dev/null | filecheck %s --check-prefix=NV
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=subgroup target=gfx942 deterministic=true},verify-sync' 2>/dev/null | filecheck %s --check-prefix=DET
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=subgroup target=gfx942},verify-sync' 2>/dev/null | filecheck %s --check-prefix=COLS
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{target=cpu}' 2>/dev/null | filecheck %s --check-prefix=CPU
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=lds target=gfx942}' | iree-opt > /dev/null
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{target=gfx942 deterministic=true}' | iree-opt > /dev/null

func.func @rows(%a: tensor<70x90xf32>, %b: tensor<90x200xf32>, %o: tensor<70xf32>) -> tensor<70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<70x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<70x200xf32>) -> tensor<70x200xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<70x90xf32>, tensor<90x200xf32>) outs(%f : tensor<70x200xf32>) -> tensor<70x200xf32>
  %r = linalg.reduce ins(%mm : tensor<70x200xf32>) outs(%o : tensor<70xf32>) dimensions = [1]
    (%p: f32, %q: f32) {
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  return %r : tensor<70xf32>
}

func.func @cols(%a: tensor<70x90xf32>, %b: tensor<90x200xf32>, %o: tensor<200xf32>) -> tensor<200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<70x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<70x200xf32>) -> tensor<70x200xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<70x90xf32>, tensor<90x200xf32>) outs(%f : tensor<70x200xf32>) -> tensor<70x200xf32>
  %r = linalg.reduce ins(%mm : tensor<70x200xf32>) outs(%o : tensor<200xf32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %s = arith.maxnumf %p, %q : f32
      linalg.yield %s : f32
    }
  return %r : tensor<200xf32>
}

// REMARK: remark: lower-reduce: stage lds: the fused GEMM in xsplit's staged kernel (xsplit_gemm.gridwise_gemm_reduce): 64x64 C tiles, one per workgroup of 256 threads holding 4x4 each in registers; A and B staged through workgroup memory 16 K elements at a time; grid 4x2x1; the 16 threads of a row meet in workgroup memory, where one thread per row combines them and adds one addf atomic per row and workgroup
// REMARK-NOT: warning

// Grid x: tiles along N, y: along M. Thread t holds rows t / 16 + 16 i and columns t % 16 + 16 j
// of its tile: the 16 threads of a row are consecutive lanes.
// LDS-LABEL: func.func @rows(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>)
// LDS-SAME:      gpu.known_block_size = array<i32: 256, 1, 1>, gpu.known_grid_size = array<i32: 4, 2, 1>
// LDS-NOT:     linalg.
// LDS-NOT:     xsplit_gemm.
// LDS:         %red_tile = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
// LDS:         %a_tile = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
// LDS-NEXT:    %b_tile = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
// LDS-NEXT:    %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
// The staged K loop over K = 90 in steps of 16: A's loads guarded (zero outside), B's rows are
// whole vectors of 4 (128-bit loads), then the two barriers around the multiply.
// LDS:         scf.for %k0 = %{{.*}} to %{{.*}} step %{{.*}} {
// LDS:           scf.if %{{.*}} -> (f32) {
// LDS-NEXT:        memref.load %a[%{{.*}}, %{{.*}}] : memref<70x90xf32>
// LDS:           vector.load %b[%{{.*}}, %{{.*}}] : memref<90x200xf32>, vector<4xf32>
// LDS:           gpu.barrier
// LDS-NEXT:      arith.constant
// LDS-NOT:       scf.for %kk =
// LDS:           arith.mulf {{.*}} fastmath<contract>
// LDS:           gpu.barrier
// LDS-NEXT:    }
// The epilogue: C's elements outside C count as 0; each thread's partial of each of its 4 rows
// goes to workgroup memory, and after the third barrier thread r < 64 combines row r in the
// order of its 16 threads and adds it to OUT, if the row is inside C.
// LDS:         %tm = arith.divui %thread_id_x, %[[C16:.*]] : index
// LDS-NEXT:    %tn = arith.remui %thread_id_x, %[[C16]] : index
// LDS:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// LDS:         memref.store %{{.*}}, %parts[
// LDS:         memref.store %{{.*}}, %red_tile[%tm, %tn]
// LDS-COUNT-3: memref.store %{{.*}}, %red_tile[%{{.*}}, %tn]
// LDS-NEXT:    gpu.barrier
// LDS-NEXT:    %[[LEAD:.*]] = arith.cmpi ult, %thread_id_x, %{{.*}} : index
// LDS-NEXT:    scf.if %[[LEAD]] {
// LDS-COUNT-16:  memref.load %red_tile[%thread_id_x, %{{.*}}]
// LDS:           %[[ROW:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// LDS:           %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : index
// LDS-NEXT:      scf.if %[[IN]] {
// LDS-NEXT:        memref.atomic_rmw addf %{{.*}}, %o[%[[ROW]]] : (f32, memref<70xf32>) -> f32
// LDS-NOT:     gpu.barrier
// LDS:         func.return

// sm_80: the 16 lanes of a row combine with a shuffle butterfly inside their warp (offsets 8, 4,
// 2, 1 of width 32); lane 0 of them adds, one atomic per row and workgroup.
// NV-LABEL: func.func @rows
// NV-NOT:     %red_tile
// NV-DAG:     %[[I8:.*]] = arith.constant 8 : i32
// NV-DAG:     %[[I32:.*]] = arith.constant 32 : i32
// NV:         gpu.shuffle xor %{{.*}}, %[[I8]], %[[I32]] : f32
// NV:         gpu.shuffle xor
// NV:         gpu.shuffle xor
// NV:         gpu.shuffle xor
// NV:         %[[LEAD:.*]] = arith.cmpi ult, %tn, %{{.*}} : index
// NV-NEXT:    scf.if %[[LEAD]] {
// NV-COUNT-4:   memref.atomic_rmw addf
// NV-NOT:     gpu.barrier
// NV-LABEL: func.func @cols

// Deterministic: no atomic; each workgroup's partial of each row in partials[tile along N, row],
// merged in the order of the tiles.
// DET-LABEL: func.func @rows(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) attributes {xsplit.host}
// DET-NEXT:    %partials = memref.alloc() : memref<4x70xf32>
// DET-NEXT:    func.call @rows_partials(%a, %b, %o, %partials)
// DET-NEXT:    func.call @rows_merge(%partials, %o)
// DET-LABEL: func.func @rows_partials
// DET-NOT:     atomic_rmw
// DET:         %tile = arith.divui
// DET-NEXT:    gpu.subgroup_reduce add %{{.*}} cluster(size = 16) : (f32) -> f32
// DET:         memref.store %{{.*}}, %partials[%tile, %{{.*}}] : memref<4x70xf32>
// DET-LABEL: func.func @rows_merge(%partials: memref<4x70xf32>, %o: memref<70xf32>)
// DET-SAME:      gpu.known_grid_size = array<i32: 1, 1, 1>
// DET:         %[[INIT:.*]] = memref.load %o[%[[E:.*]]] : memref<70xf32>
// DET-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// DET-NEXT:    memref.load %partials[%[[C0]], %[[E]]]
// DET-NEXT:    arith.addf %[[INIT]]
// DET-COUNT-3: memref.load %partials[%{{.*}}, %[[E]]]
// DET-NOT:     atomic_rmw

// Columns on gfx942: the 16 threads of a column are 16 lanes apart, 4 to a wave of 64: they
// combine in a strided cluster, then the 4 waves' partials meet in workgroup memory (case 3.2)
// and one thread per column adds one maxnumf atomic.
// COLS-LABEL: func.func @cols(
// COLS:         %wave_tile = memref.alloc() : memref<64x4xf32, #gpu.address_space<workgroup>>
// COLS:         gpu.subgroup_reduce maxnumf %{{.*}} cluster(size = 4, stride = 16) : (f32) -> f32
// COLS:         memref.store %{{.*}}, %wave_tile[
// COLS:         gpu.barrier
// COLS-COUNT-4: memref.load %wave_tile[%thread_id_x,
// COLS:         memref.atomic_rmw maxnumf %{{.*}}, %o[%{{.*}}] : (f32, memref<200xf32>) -> f32

// llvm-cpu: the same gridwise op with workgroup_level: one thread per workgroup loops over its
// 32x32 tile (the last tile's ends cut at C's); one atomic per row and workgroup.
// CPU-LABEL: func.func @rows
// CPU-SAME:      gpu.known_block_size = array<i32: 1, 1, 1>, gpu.known_grid_size = array<i32: 7, 3, 1>
// CPU-NOT:     gpu.thread_id
// CPU-NOT:     #gpu.address_space
// CPU:         %[[M1:.*]] = arith.minui
// CPU:         scf.for %kept = %m0 to %[[M1]] step %{{.*}} {
// CPU:           scf.for %along = %n0 to %{{.*}} step %{{.*}} iter_args
// CPU:             %[[K:.*]] = arith.constant 90 : index
// CPU:             scf.for %k = %{{.*}} to %[[K]] step
// CPU-NEXT:          memref.load %a[%kept, %k]
// CPU-NEXT:          memref.load %b[%k, %along]
// CPU:           memref.atomic_rmw addf %{{.*}}, %o[%kept]
