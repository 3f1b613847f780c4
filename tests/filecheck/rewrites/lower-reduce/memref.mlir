// rocMLIR's own form: rock.reduce on memrefs, its blockSize and gridSize the launch.
// RUN: xsplit-opt %s -p 'lower-reduce{target=gfx942 stage=lds},verify-sync' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s -p 'lower-reduce{target=gfx942 stage=lds}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

func.func @test_reduce_sum(%arg0: memref<2x12x12xf32>, %arg1: memref<2x12x1xf32>) {
  rock.reduce max %arg0 into %arg1 {axis = 2 : index, blockSize = 64 : i32, gridSize = 8 : i32} : memref<2x12x12xf32> into memref<2x12x1xf32>
  func.return
}
// 24 work items on 8 blocks: a loop per block, and a barrier before each item reuses workgroup memory.
// CHECK:      func.func @test_reduce_sum(%arg0: memref<2x12x12xf32>, %arg1: memref<2x12x1xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>}
// CHECK:        %lds = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK:        scf.for %w = %block_id_x to
// CHECK-NEXT:     gpu.barrier
// CHECK:          memref.atomic_rmw maxnumf %{{.*}}, %arg1[%{{.*}}, %{{.*}}, %c0] : (f32, memref<2x12x1xf32>) -> f32
// CHECK-NOT:    rock.reduce
// REMARK: memref.mlir:6:3: remark: lower-reduce: distribute: dimension on #gpu.block<x>: cyclic: trip count 24 > 8 processors
