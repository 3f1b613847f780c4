// fuse-reduction: a GEMM feeding a reduction along an output axis becomes one kernel with lower-reduce.
// RUN: xsplit-opt %s -p fuse-reduction > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=REMARK < %t.0.err
// RUN: filecheck %s --check-prefix=MARKED < %t.0.out
// RUN: xsplit-opt %s -p 'fuse-reduction,lower-reduce{stage=lds target=gfx942},verify-sync' 2>/dev/null | filecheck %s --check-prefix=KERNEL

// The GEMM's output is returned too: the fused kernel writes it as well.
// REMARK: fuse.mlir:[[# @LINE + 4]]:3: remark: fuse-reduction: fused with linalg.matmul at {{.*}}fuse.mlir:[[# @LINE + 3]]:3: one kernel, each workgroup computes its GEMM elements and reduces them into the result; the GEMM's output is also written (it is returned)
// MARKED: rock.reduce sum %{{.*}} into %{{.*}} {axis = 1 : index, xsplit.fused_producer}
func.func @returned(%a: tensor<13x24xf32>, %b: tensor<24x70xf32>, %c: tensor<13x70xf32>, %o: tensor<13x1xf32>) -> (tensor<13x70xf32>, tensor<13x1xf32>) {
  %mm = linalg.matmul ins(%a, %b : tensor<13x24xf32>, tensor<24x70xf32>) outs(%c : tensor<13x70xf32>) -> tensor<13x70xf32>
  %r = rock.reduce sum %mm into %o {axis = 1 : index} : tensor<13x70xf32> into tensor<13x1xf32> -> tensor<13x1xf32>
  return %mm, %r : tensor<13x70xf32>, tensor<13x1xf32>
}
// The staged GEMM kernel with the reduction as its epilogue: A and B staged
// through workgroup memory along K (A's rows are whole vectors of 4: 128-bit
// loads); each C element is its init plus its dot product, stored where it
// is inside C, then reduced in the epilogue.
// KERNEL-LABEL: func.func @returned(%a: memref<13x24xf32>, %b: memref<24x70xf32>, %c: memref<13x70xf32>, %o: memref<13x1xf32>)
// KERNEL-SAME:    gpu.known_grid_size = array<i32: 2, 1, 1>
// KERNEL-NOT:     linalg.
// KERNEL:         scf.for %k0 =
// KERNEL:           vector.load %a[%{{.*}}, %{{.*}}] : memref<13x24xf32>, vector<4xf32>
// KERNEL:           memref.load %b[%{{.*}}, %{{.*}}] : memref<24x70xf32>
// KERNEL:           memref.store %{{.*}}, %b_tile
// KERNEL:         %[[IN:.*]] = scf.if %{{.*}} -> (f32) {
// KERNEL-NEXT:      %[[INIT:.*]] = memref.load %c[%[[I:.*]], %[[J:.*]]] : memref<13x70xf32>
// KERNEL:         %[[C:.*]] = arith.addf %{{.*}}, %[[IN]] : f32
// KERNEL-NEXT:    scf.if %{{.*}} {
// KERNEL-NEXT:      memref.store %[[C]], %c[%[[I]], %[[J]]] : memref<13x70xf32>
// KERNEL:         gpu.barrier
// KERNEL:         memref.atomic_rmw addf %{{.*}}, %o[%{{.*}}, %{{.*}}] : (f32, memref<13x1xf32>) -> f32

// Not returned: the GEMM's output is never written, its init is the constant.
// REMARK: fuse.mlir:[[# @LINE + 6]]:3: remark: fuse-reduction: fused with linalg.batch_matmul {{.*}} output is never written
func.func @dropped(%a: tensor<2x5x8xf32>, %b: tensor<2x8x9xf32>, %o: tensor<1x5x9xf32>) -> tensor<1x5x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<2x5x8xf32>, tensor<2x8x9xf32>) outs(%f : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %r = rock.reduce max %mm into %o {axis = 0 : index} : tensor<2x5x9xf32> into tensor<1x5x9xf32> -> tensor<1x5x9xf32>
  return %r : tensor<1x5x9xf32>
}
// The batch on grid z, its A and B subviews of the batch's matrices (the
// staged kernel); reduced over it, each element of a tile is its own output,
// merged straight into the whole output.
// KERNEL-LABEL: func.func @dropped(%a: memref<2x5x8xf32>, %b: memref<2x8x9xf32>, %o: memref<1x5x9xf32>)
// KERNEL-SAME:    gpu.known_grid_size = array<i32: 1, 1, 2>
// KERNEL-NOT:     linalg.
// KERNEL:         %block_id_z = gpu.block_id z
// KERNEL-NEXT:    memref.subview %a[%block_id_z, 0, 0] [1, 5, 8] [1, 1, 1] : memref<2x5x8xf32> to memref<5x8xf32, strided<[8, 1], offset: ?>>
// KERNEL-NOT:     memref.store %{{.*}}, %c[
// KERNEL:         memref.atomic_rmw maxnumf %{{.*}}, %o[%{{.*}}, %{{.*}}, %{{.*}}] : (f32, memref<1x5x9xf32>) -> f32

// A contraction generic with A and B transposed in memory: the staged kernel
// copies A[k, i] along its rows into a K-major tile, and B[j, k] along K (128-bit
// loads) transposed into its B tile.
// REMARK: fuse.mlir:[[# @LINE + 11]]:3: remark: fuse-reduction: fused with linalg.generic
#ta = affine_map<(d0, d1, d2) -> (d2, d0)>
#tb = affine_map<(d0, d1, d2) -> (d1, d2)>
#tc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @generic(%a: tensor<24x13xf32>, %b: tensor<70x24xf32>, %c: tensor<13x70xf32>, %o: tensor<1x70xf32>) -> tensor<1x70xf32> {
  %mm = linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<24x13xf32>, tensor<70x24xf32>) outs(%c : tensor<13x70xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x70xf32>
  %r = rock.reduce max %mm into %o {axis = 0 : index} : tensor<13x70xf32> into tensor<1x70xf32> -> tensor<1x70xf32>
  return %r : tensor<1x70xf32>
}
// KERNEL-LABEL: func.func @generic
// KERNEL:         %a_tile = memref.alloc() : memref<16x66xf32, #gpu.address_space<workgroup>>
// KERNEL:         %b_tile = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
// KERNEL:         scf.for %k0 =
// KERNEL:           %[[K:.*]] = arith.addi %k0, %{{.*}} : index
// KERNEL:           memref.load %a[%[[K]], %{{.*}}] : memref<24x13xf32>
// KERNEL:           vector.load %b[%{{.*}}, %{{.*}}] : memref<70x24xf32>, vector<4xf32>
// KERNEL:         memref.load %c[
// KERNEL-NOT:     memref.store %{{.*}}, %c[
// KERNEL:         memref.atomic_rmw maxnumf
