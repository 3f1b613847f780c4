// A thread-level kernel of linalg tiles, synchronized by insert-barriers and
// exported for a GPU: the linalg ops become loops and the barrier stays
// between the loops that write workgroup memory and those that read it.
// RUN: xsplit-opt %s -p 'distribute,insert-barriers,export-dispatch{target=sm_80}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s -p 'distribute,insert-barriers,export-dispatch{target=gfx942}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s -p 'distribute,insert-barriers,export-dispatch{target=sm_80}' | iree-opt > /dev/null

// CHECK:       func.func @stage() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [64, 1, 1]>}
// CHECK-NOT:   linalg.
// CHECK:       %[[TILE:.*]] = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK:       %[[T:.*]] = gpu.thread_id x
// CHECK:       %[[DST:.*]] = memref.subview %[[TILE]][0, %[[T]]] [16, 1] [1, 1]
// CHECK-NOT:   gpu.barrier
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<16x1xf32, strided<[64, 1], offset: ?>>
// CHECK-NEXT:      memref.store %[[X]], %[[DST]][%[[I]], %[[J]]] : memref<16x1xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   memref.load %[[TILE]]
// CHECK:       gpu.barrier
// CHECK-NOT:   gpu.barrier
// CHECK:       %[[ROW:.*]] = memref.subview %[[TILE]]
// CHECK:       scf.for
// CHECK:       memref.load %[[ROW]]
// CHECK-NOT:   gpu.barrier
// CHECK:       func.return
func.func @stage(%a: memref<32x64xf32>, %out: memref<32xf32>) attributes {gpu.known_grid_size = array<i32: 2, 1, 1>, gpu.known_block_size = array<i32: 64, 1, 1>} {
  %tile = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  %zero = arith.constant 0.0 : f32
  scf.forall (%b) in (2) {
    %r = affine.apply affine_map<(d0) -> (d0 * 16)>(%b)
    scf.forall (%t) in (64) {
      %src = memref.subview %a[%r, %t] [16, 1] [1, 1] : memref<32x64xf32> to memref<16x1xf32, strided<[64, 1], offset: ?>>
      %dst = memref.subview %tile[0, %t] [16, 1] [1, 1] : memref<16x64xf32, #gpu.address_space<workgroup>> to memref<16x1xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
      linalg.copy ins(%src : memref<16x1xf32, strided<[64, 1], offset: ?>>) outs(%dst : memref<16x1xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
    } {mapping = [#gpu.thread<x>]}
    scf.forall (%t) in (16) {
      %row = memref.subview %tile[%t, 0] [1, 64] [1, 1] : memref<16x64xf32, #gpu.address_space<workgroup>> to memref<1x64xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
      %i = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%r, %t)
      %o = memref.subview %out[%i] [1] [1] : memref<32xf32> to memref<1xf32, strided<[1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%o : memref<1xf32, strided<[1], offset: ?>>)
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x64xf32, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%o : memref<1xf32, strided<[1], offset: ?>>) {
      ^bb0(%x: f32, %acc: f32):
        %s = arith.addf %acc, %x : f32
        linalg.yield %s : f32
      }
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}
