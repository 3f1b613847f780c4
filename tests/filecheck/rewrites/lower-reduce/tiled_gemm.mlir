// lower-reduce on a GEMM fuse-reduction fused: the tiled kernel (tiled_gemm.py). 70x200x90 is no
// multiple of the 64x64 C tile or of the K step of 16: loads outside A and B read zero, elements
// outside C add the identity, and rows outside C get no atomic.
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=lds target=sm_80},verify-sync' 2>/dev/null | filecheck %s --check-prefix=LDS
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=lds target=sm_80},verify-sync' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=subgroup target=sm_80}' 2>/dev/null | filecheck %s --check-prefix=NV
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=subgroup target=gfx942 deterministic=true},verify-sync' 2>/dev/null | filecheck %s --check-prefix=DET
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

// REMARK: remark: lower-reduce: stage lds: the fused GEMM in 64x64 C tiles, one per workgroup of 256 threads holding 4x4 each in registers; A and B staged through workgroup memory 16 K elements at a time (barriers placed by insert-barriers); grid 4x2x1; the 16 threads of a row meet in workgroup memory, where one thread per row combines them and adds one addf atomic per row and workgroup
// REMARK: remark: lower-reduce: insert-barriers placed 3 gpu.barrier in @rows: 2 in the staged K loop, 1 after it
// REMARK-NOT: warning

// Grid x: tiles along N, y: along M. The reduced axis (N) varies fastest across the threads.
// LDS-LABEL: func.func @rows(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>)
// LDS-SAME:      gpu.known_block_size = array<i32: 256, 1, 1>, gpu.known_grid_size = array<i32: 4, 2, 1>
// LDS-NOT:     linalg.
// LDS:         %a_tile = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
// LDS-NEXT:    %b_tile = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
// LDS-NEXT:    %red_tile = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
// LDS:         %tid = gpu.thread_id x
// LDS:         %n0 = arith.muli %tile_n, %c64 : index
// LDS-NEXT:    %m0 = arith.muli %tile_m, %c64 : index
// LDS-NEXT:    %tn = arith.remui %tid, %c16 : index
// LDS-NEXT:    %tm = arith.divui %tid, %c16 : index
// The staged K loop: 6 steps of 16 over K = 90, 16 accumulators per thread. Each step's loads
// from A and B are guarded (zero outside), then insert-barriers' two barriers: one before the
// stores into the tiles (the previous step's multiply loop read them), one before the reads.
// LDS:         scf.for %kt = %c0 to %c6 step %c1 iter_args({{.*}}) -> ({{(f32, ){15}f}}32) {
// LDS-NEXT:      %k0 = arith.muli %kt, %c16 : index
// LDS:           %[[G:.*]] = scf.if %{{.*}} -> (f32) {
// LDS-NEXT:        memref.load %a[%{{.*}}, %{{.*}}] : memref<70x90xf32>
// LDS-NEXT:        scf.yield
// LDS-NEXT:      } else {
// LDS-NEXT:        scf.yield %cst{{[0-9]+}} : f32
// LDS:           memref.load %b[%{{.*}}, %{{.*}}] : memref<90x200xf32>
// LDS-NOT:       memref.load %a[
// LDS:           gpu.barrier
// LDS-NEXT:      memref.store %[[G]], %a_tile[%{{.*}}, %{{.*}}]
// LDS-COUNT-7:   memref.store %{{.*}}, %{{[ab]}}_tile
// LDS-NEXT:      gpu.barrier
// LDS-NEXT:      scf.for %kk = %c0 to %c16 step %c1
// LDS-NEXT:        memref.load %a_tile[%kk, %tm]
// LDS-COUNT-3:     memref.load %a_tile[%kk,
// LDS-NEXT:        memref.load %b_tile[%kk, %tn]
// LDS-COUNT-3:     memref.load %b_tile[%kk,
// LDS-COUNT-16:    arith.mulf
// The epilogue: elements outside C add nothing; each thread's partial of each of its 4 rows goes
// to workgroup memory, and after the third barrier thread r < 64 combines row r and adds it.
// LDS:         arith.select %{{.*}}, %{{.*}}, %cst{{[0-9]+}} : f32
// LDS:         memref.store %{{.*}}, %red_tile[%tm, %tn]
// LDS-COUNT-3: memref.store %{{.*}}, %red_tile[%{{.*}}, %tn]
// LDS:         %[[LEAD:.*]] = arith.cmpi ult, %tid, %c64 : index
// LDS-NEXT:    gpu.barrier
// LDS-NEXT:    scf.if %[[LEAD]] {
// LDS-NEXT:      scf.for %slot = %c0 to %c16 step %c1
// LDS-NEXT:        memref.load %red_tile[%tid, %slot]
// LDS:           %[[ROW:.*]] = arith.addi %m0, %tid : index
// LDS-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c70 : index
// LDS-NEXT:      scf.if %[[IN]] {
// LDS-NEXT:        memref.atomic_rmw addf %{{.*}}, %o[%[[ROW]]] : (f32, memref<70xf32>) -> f32
// LDS-NOT:     gpu.barrier
// LDS:         func.return

// sm_80: the 16 lanes of a row combine with a shuffle butterfly inside their warp; lane 0 of them adds.
// NV-LABEL: func.func @rows
// NV-NOT:     %red_tile
// NV:         gpu.shuffle xor %{{.*}}, %i8, %i32 : f32
// NV:         gpu.shuffle xor %{{.*}}, %i4, %i32 : f32
// NV:         gpu.shuffle xor %{{.*}}, %i2, %i32 : f32
// NV:         gpu.shuffle xor %{{.*}}, %i1, %i32 : f32
// NV:         %[[LEAD:.*]] = arith.cmpi eq, %tn, %c0 : index
// NV-NEXT:    scf.if %[[LEAD]] {
// NV-COUNT-4:   memref.atomic_rmw addf

// Deterministic: no atomic; each workgroup's partial of each row in partials[tile along N, row],
// merged in the order of the tiles.
// DET-LABEL: func.func @rows(%a: memref<70x90xf32>, %b: memref<90x200xf32>, %o: memref<70xf32>) attributes {xsplit.host}
// DET-NEXT:    %partials = memref.alloc() : memref<4x70xf32>
// DET-NEXT:    func.call @rows_partials(%a, %b, %o, %partials)
// DET-NEXT:    func.call @rows_merge(%partials, %o)
// DET-LABEL: func.func @rows_partials
// DET-NOT:     atomic_rmw
// DET:         gpu.subgroup_reduce add %{{.*}} cluster(size = 16) : (f32) -> f32
// DET:         memref.store %{{.*}}, %partials[%tile_n, %{{.*}}] : memref<4x70xf32>
// DET-LABEL: func.func @rows_merge(%partials: memref<4x70xf32>, %o: memref<70xf32>)
// DET-SAME:      gpu.known_grid_size = array<i32: 1, 1, 1>
// DET:         %[[INIT:.*]] = memref.load %o[%[[E:.*]]] : memref<70xf32>
// DET-NEXT:    scf.for %chunk = %c0 to %c4 step %c1 iter_args(%{{.*}} = %[[INIT]])
// DET-NEXT:      memref.load %partials[%chunk, %[[E]]]
// DET-NOT:     atomic_rmw

// llvm-cpu: one thread per workgroup loops over its 32x32 tile; one atomic per row and workgroup.
// CPU-LABEL: func.func @rows
// CPU-SAME:      gpu.known_block_size = array<i32: 1, 1, 1>, gpu.known_grid_size = array<i32: 7, 3, 1>
// CPU-NOT:     gpu.thread_id
// CPU-NOT:     #gpu.address_space
// CPU:         scf.for %kept = %m0 to %{{.*}} step %c1 {
// CPU-NEXT:      scf.for %along = %n0 to %{{.*}} step %c1 iter_args
// CPU-NEXT:        scf.for %kidx = %c0 to %c90 step %c1
// CPU:           memref.atomic_rmw addf %{{.*}}, %o[%kept]
