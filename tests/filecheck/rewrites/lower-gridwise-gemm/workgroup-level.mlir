// lower-gridwise-gemm on llvm-cpu's form of the fused GEMM + reduction (`workgroup_level`): one
// thread a workgroup loops over its 32x32 C tile (cut at C's end), each element's dot product read
// from A as it lies (K x M here) and B, C's init added and C written back, each column combined
// in order into one partial at [tile along M, column]; the merge one thread's loop over 64
// outputs, the partials in chunk order. No thread id, no workgroup memory, no barrier.
// RUN: xsplit-opt %s --split-input-file -p lower-gridwise-gemm | filecheck %s

func.func @partials(%a: memref<90x70xf32>, %b: memref<90x200xf32>, %c: memref<70x200xf32>, %p: memref<3x200xf32>) attributes {gpu.known_block_size = array<i32: 1, 1, 1>, gpu.known_grid_size = array<i32: 7, 3, 1>} {
  xsplit_gemm.gridwise_gemm_reduce %a, %b init %c into %p {tile = array<i64: 32, 32, 0>, threads = array<i64: 1, 1>, method = "sum", dim = 0 : i64, stage = "atomic", merge = "partials", subgroup = 32 : i64, exchange = "shuffle", store_c, a_transposed, workgroup_level} : memref<90x70xf32>, memref<90x200xf32>, memref<70x200xf32> into memref<3x200xf32>
  func.return
}

// CHECK-LABEL: func.func @partials
// CHECK-NOT:     gpu.thread_id
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     #gpu.address_space
// CHECK:         %block_id_x = gpu.block_id x
// CHECK-NEXT:    %block_id_y = gpu.block_id y
// CHECK-NEXT:    %[[T:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %m0 = arith.muli %block_id_y, %[[T]] : index
// CHECK-NEXT:    %n0 = arith.muli %block_id_x, %[[T]] : index
// CHECK:         %[[M1:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:         %[[N1:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:         scf.for %kept = %n0 to %[[N1]] step %{{.*}} {
// CHECK:           %[[SUM:.*]] = scf.for %along = %m0 to %[[M1]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:             %[[DOT:.*]] = scf.for %k = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:          %[[A:.*]] = memref.load %a[%k, %along] : memref<90x70xf32>
// CHECK-NEXT:          %[[B:.*]] = memref.load %b[%k, %kept] : memref<90x200xf32>
// CHECK-NEXT:          %[[P:.*]] = arith.mulf %[[A]], %[[B]] fastmath<contract> : f32
// CHECK-NEXT:          %[[Q:.*]] = arith.addf %[[S]], %[[P]] fastmath<contract> : f32
// CHECK-NEXT:          scf.yield %[[Q]] : f32
// CHECK:             %[[C0:.*]] = memref.load %c[%along, %kept] : memref<70x200xf32>
// CHECK-NEXT:        %[[CV:.*]] = arith.addf %[[DOT]], %[[C0]] : f32
// CHECK-NEXT:        memref.store %[[CV]], %c[%along, %kept] : memref<70x200xf32>
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addf %[[ACC]], %[[CV]] : f32
// CHECK-NEXT:        scf.yield %[[NEXT]] : f32
// CHECK:           memref.store %[[SUM]], %p[%block_id_y, %kept] : memref<3x200xf32>

// -----

func.func @merge(%p: memref<3x200xf32>, %o: memref<200xf32>) attributes {gpu.known_block_size = array<i32: 1, 1, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>} {
  xsplit_gemm.merge_reduced %p into %o {method = "max", threads = 64 : i64, workgroup_level} : memref<3x200xf32> into memref<200xf32>
  func.return
}

// CHECK-LABEL: func.func @merge
// CHECK-NOT:     gpu.thread_id
// CHECK:         %[[FIRST:.*]] = arith.muli %block_id_x, %{{.*}} : index
// CHECK:         %[[END:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:         scf.for %elem = %[[FIRST]] to %[[END]] step %{{.*}} {
// CHECK-NEXT:      %[[O:.*]] = memref.load %o[%elem] : memref<200xf32>
// CHECK:           %[[X0:.*]] = memref.load %p[%{{.*}}, %elem] : memref<3x200xf32>
// CHECK-NEXT:      %[[M0:.*]] = arith.maxnumf %[[O]], %[[X0]] : f32
// CHECK:           %[[X1:.*]] = memref.load %p[%{{.*}}, %elem] : memref<3x200xf32>
// CHECK-NEXT:      %[[M1:.*]] = arith.maxnumf %[[M0]], %[[X1]] : f32
// CHECK:           %[[X2:.*]] = memref.load %p[%{{.*}}, %elem] : memref<3x200xf32>
// CHECK-NEXT:      %[[M2:.*]] = arith.maxnumf %[[M1]], %[[X2]] : f32
// CHECK-NEXT:      memref.store %[[M2]], %o[%elem] : memref<200xf32>
