// Each stage of lower-reduce on one row sum (5 rows of 300: neither a multiple of 256 threads).
// RUN: xsplit-opt %s -p 'lower-reduce{stage=atomic target=gfx942},verify-sync' 2>/dev/null | filecheck %s --check-prefix=ATOMIC
// RUN: xsplit-opt %s -p 'lower-reduce{stage=lds target=gfx942},verify-sync' 2>/dev/null | filecheck %s --check-prefix=LDS
// RUN: xsplit-opt %s -p 'lower-reduce{stage=subgroup target=gfx942},verify-sync' 2>/dev/null | filecheck %s --check-prefix=AMD
// RUN: xsplit-opt %s -p 'lower-reduce{stage=subgroup target=sm_80},verify-sync' 2>/dev/null | filecheck %s --check-prefix=NV
// RUN: xsplit-opt %s -p 'lower-reduce{stage=subgroup target=sm_80 block=32}' 2>/dev/null | filecheck %s --check-prefix=ONEWAVE
// RUN: xsplit-opt %s -p 'lower-reduce{stage=lds target=sm_80 deterministic=true},verify-sync' 2>/dev/null | filecheck %s --check-prefix=DET
// RUN: xsplit-opt %s -p 'lower-reduce{target=cpu}' > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=CPU < %t.0.out
// RUN: xsplit-opt %s -p 'lower-reduce{target=gfx942}' > %t.1.out 2> %t.1.err && filecheck %s --check-prefix=CHOICE-AMD < %t.1.err
// RUN: filecheck %s --check-prefix=CHOICE-CPU < %t.0.err
// RUN: iree-opt < %t.1.out > /dev/null
// RUN: xsplit-opt %s -p 'lower-reduce{target=gfx942 deterministic=true}' | iree-opt > /dev/null

func.func @rows(%x: tensor<5x300xf32>, %o: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %0 = rock.reduce sum %x into %o {axis = 1 : index} : tensor<5x300xf32> into tensor<5x1xf32> -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}

// Stage 1: each thread reduces 16 elements and adds them atomically; 5 x 19 work items on 2 blocks of 256.
// ATOMIC:       func.func @rows(%x: memref<5x300xf32>, %o: memref<5x1xf32>) attributes {gpu.known_block_size = array<i32: 256, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>}
// ATOMIC:       %[[TID:.*]] = gpu.thread_id x
// ATOMIC:       %[[ITEM:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// ATOMIC:       %[[IN:.*]] = arith.cmpi ult, %[[ITEM]], %c95 : index
// ATOMIC:       scf.if %[[IN]] {
// ATOMIC:         %[[PART:.*]] = scf.for
// ATOMIC:         memref.atomic_rmw addf %[[PART]], %o[%{{.*}}, %c0] : (f32, memref<5x1xf32>) -> f32
// ATOMIC-NOT:   gpu.barrier

// Stage 2: a tree in workgroup memory, a barrier before each level, one atomic by thread 0.
// LDS:          %lds = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
// LDS:          memref.store %{{.*}}, %lds[%[[T:.*]]] : memref<256xf32, #gpu.address_space<workgroup>>
// LDS-NEXT:     gpu.barrier
// LDS-NEXT:     %{{.*}} = arith.cmpi ult, %[[T]], %c128 : index
// LDS-COUNT-7:  gpu.barrier
// LDS:          %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0 : index
// LDS-NEXT:     scf.if %[[FIRST]] {
// LDS-NEXT:       %[[TOTAL:.*]] = memref.load %lds[%c0]
// LDS-NEXT:       memref.atomic_rmw addf %[[TOTAL]], %o

// Stage 3 on gfx942: the wave reduces with gpu.subgroup_reduce (DPP), four waves meet in LDS.
// AMD:          %lds = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
// AMD:          %[[SG:.*]] = gpu.subgroup_reduce add %{{.*}} cluster(size = 64) : (f32) -> f32
// AMD:          memref.store %[[SG]], %lds[%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// AMD:          gpu.barrier
// AMD:          memref.atomic_rmw addf

// Stage 3 on sm_80: a shuffle butterfly over 32 lanes, eight warps meet in shared memory.
// NV:           %lds = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
// NV-COUNT-5:   gpu.shuffle xor %{{.*}}, %i{{(16|8|4|2|1)}}, %i32 : f32
// NV:           gpu.barrier
// NV:           memref.atomic_rmw addf

// One warp per block (case 3.1): no workgroup memory, no barrier; lane 0 adds.
// ONEWAVE-NOT:  memref.alloc
// ONEWAVE-NOT:  gpu.barrier
// ONEWAVE:      gpu.shuffle xor
// ONEWAVE:      memref.atomic_rmw addf

// deterministic: a host calls the partials kernel, then the fixed-order merge; no atomics.
// DET:          func.func @rows(%x: memref<5x300xf32>, %o: memref<5x1xf32>) attributes {xsplit.host}
// DET-NEXT:       %partials = memref.alloc() : memref<1x5xf32>
// DET-NEXT:       func.call @rows_partials(%x, %o, %partials)
// DET-NEXT:       func.call @rows_merge(%partials, %o)
// DET:          func.func @rows_partials
// DET-NOT:        atomic_rmw
// DET:            memref.store %{{.*}}, %partials[%{{.*}}, %{{.*}}] : memref<1x5xf32>
// DET:          func.func @rows_merge
// DET:            scf.for %{{.*}} = %c0 to %c1 step %c1 iter_args
// DET-NOT:        atomic_rmw

// On llvm-cpu, workgroup-level code, one thread per workgroup, no thread id.
// CPU:          gpu.known_block_size = array<i32: 1, 1, 1>
// CPU-NOT:      gpu.thread_id
// CPU:          memref.atomic_rmw addf

// CHOICE-AMD: stages.mlir:15:3: remark: lower-reduce: stage subgroup (chosen for gfx942: subgroups of 64 lanes reduce in registers with DPP (gpu.subgroup_reduce); 4 subgroups per block, so their partials meet in workgroup memory (case 3.2); then one atomic per block)
// CHOICE-AMD: stages.mlir:15:3: remark: lower-reduce: distribute: dimension on #gpu.block<x>: exact
// CHOICE-CPU: stages.mlir:15:3: remark: lower-reduce: stage atomic (chosen for cpu: cpu runs workgroup-level code only
