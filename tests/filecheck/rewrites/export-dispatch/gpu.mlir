// Thread-level code for a GPU: block ids become workgroup ids, the block size
// becomes the workgroup size, and subgroup ops ask for the target's subgroup.
// RUN: xsplit-opt %s -p 'distribute,export-dispatch{target=sm_80}' 2>/dev/null | filecheck %s --check-prefixes=CHECK,SM80
// RUN: xsplit-opt %s -p 'distribute,export-dispatch{target=gfx942}' 2>/dev/null | filecheck %s --check-prefixes=CHECK,GFX
// RUN: xsplit-opt %s -p 'distribute,export-dispatch{target=sm_80}' | iree-opt > /dev/null

// CHECK:      hal.return %{{.*}}, %{{.*}}, %{{.*}} : index, index, index
// SM80:       func.func @wsum() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [64, 1, 1] subgroup_size = 32>}
// GFX:        func.func @wsum() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [64, 1, 1] subgroup_size = 64>}
// CHECK:      %[[W:.*]] = hal.interface.workgroup.id[0] : index
// CHECK-NEXT: %[[T:.*]] = gpu.thread_id x
// CHECK:      gpu.subgroup_reduce add
// CHECK:      func.func @wsum(%a: tensor<256xf32>, %out: tensor<4xf32>) -> tensor<4xf32>
func.func @wsum(%a: memref<256xf32>, %out: memref<4xf32>) attributes {gpu.known_grid_size = array<i32: 4, 1, 1>, gpu.known_block_size = array<i32: 64, 1, 1>} {
  scf.forall (%b) in (4) {
    scf.forall (%t) in (64) {
      %i = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%b, %t)
      %v = memref.load %a[%i] : memref<256xf32>
      %s = gpu.subgroup_reduce add %v : (f32) -> f32
      %old = memref.atomic_rmw addf %s, %out[%b] : (f32, memref<4xf32>) -> f32
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}
