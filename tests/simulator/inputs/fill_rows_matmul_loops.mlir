// The seed's fill and matmul before distribution, tiled differently: the fill
// one row per thread (linear ids), the matmul 4x4 per thread of an 8x8 block.
func.func @fill_matmul(%a: memref<32x64xf32>, %b: memref<64x32xf32>, %c: memref<32x32xf32>) attributes {gpu.known_block_size = array<i32: 8, 8, 1>} {
  %cst = arith.constant 0.0 : f32
  scf.forall (%r) in (32) {
    %i = affine.apply affine_map<(d0) -> (d0)>(%r)
    %j = arith.constant 0 : index
    %cf = memref.subview %c[%i, %j] [1, 32] [1, 1] : memref<32x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%cf : memref<1x32xf32, strided<[32, 1], offset: ?>>)
  } {mapping = [#gpu.thread<linear_dim_0>]}
  scf.forall (%ty, %tx) in (8, 8) {
    %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%ty)
    %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%tx)
    %av = memref.subview %a[%i, 0] [4, 64] [1, 1] : memref<32x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    %bv = memref.subview %b[0, %j] [64, 4] [1, 1] : memref<64x32xf32> to memref<64x4xf32, strided<[32, 1], offset: ?>>
    %cm = memref.subview %c[%i, %j] [4, 4] [1, 1] : memref<32x32xf32> to memref<4x4xf32, strided<[32, 1], offset: ?>>
    linalg.matmul ins(%av, %bv : memref<4x64xf32, strided<[64, 1], offset: ?>>, memref<64x4xf32, strided<[32, 1], offset: ?>>) outs(%cm : memref<4x4xf32, strided<[32, 1], offset: ?>>)
  } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
  return
}
