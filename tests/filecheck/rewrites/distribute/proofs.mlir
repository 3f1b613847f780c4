// Where the facts come from: affine.min bounds, id upper bounds, a dispatch's
// workgroup count and workgroup size, and nothing (cyclic with runtime counts).
// RUN: xsplit-opt --split-input-file %s -p distribute 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt --split-input-file %s -p distribute 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p distribute | iree-opt --split-input-file > /dev/null

// A tile of at most 334 rows (the last chunk of 1000 is 332) on 512 threads:
// affine.min bounds the trip count, so one guarded row per thread.
// REMARK: proofs.mlir:[[# @LINE + 11]]:3: remark: distribute: dimension on #gpu.thread<x>: oversubscribed: trip count [0, 334] <= 512 processors (gpu.known_block_size): one iteration per processor under a guard
// CHECK-LABEL: func.func @tile_rows
// CHECK:       %[[N:.*]] = affine.min
// CHECK:       %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[TRIPS:.*]] = arith.maxsi %[[N]], %[[ZERO]] : index
// CHECK-NEXT:  %[[IN:.*]] = arith.cmpi ult, %[[T]], %[[TRIPS]] : index
// CHECK-NEXT:  scf.if %[[IN]] {
func.func @tile_rows(%chunk: index, %out: memref<1000xf32>) attributes {gpu.known_block_size = array<i32: 512, 1, 1>} {
  %n = affine.min affine_map<(d0) -> (334, d0 * -334 + 1000)>(%chunk)
  %v = arith.constant 1.0 : f32
  scf.forall (%i) in (%n) {
    memref.store %v, %out[%i] : memref<1000xf32>
  } {mapping = [#gpu.thread<x>]}
  func.return
}

// -----

// The same loop without a known block: no proof, a cyclic loop over gpu.block_dim.
// REMARK: proofs.mlir:[[# @LINE + 9]]:3: remark: distribute: dimension on #gpu.thread<x>: cyclic: cannot prove trip count <= processor count (trip count [0, 334], [1, inf] processors (the launch, unknown here)): a loop strided by the processor count
// CHECK-LABEL: func.func @unknown_block
// CHECK:       %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT:  %[[P:.*]] = gpu.block_dim x
// CHECK-NEXT:  scf.for %[[I:.*]] = %[[T]] to %{{.*}} step %[[P]] {
// CHECK-NEXT:    memref.store %{{.*}}, %{{.*}}[%[[I]]]
func.func @unknown_block(%chunk: index, %out: memref<1000xf32>) {
  %n = affine.min affine_map<(d0) -> (334, d0 * -334 + 1000)>(%chunk)
  %v = arith.constant 1.0 : f32
  scf.forall (%i) in (%n) {
    memref.store %v, %out[%i] : memref<1000xf32>
  } {mapping = [#gpu.thread<x>]}
  func.return
}

// -----

// A loop bounded by an id with an upper bound: at most 16 trips for at least 16 processors.
// REMARK: proofs.mlir:[[# @LINE + 7]]:3: remark: distribute: dimension on #gpu.block<y>: oversubscribed: trip count [0, 15] <= 16 processors (gpu.known_grid_size)
// CHECK-LABEL: func.func @id_bound
// CHECK: gpu.block_id y
// CHECK: scf.if
func.func @id_bound(%out: memref<16xf32>) attributes {gpu.known_grid_size = array<i32: 1, 16, 1>} {
  %n = gpu.thread_id x upper_bound 16
  %v = arith.constant 1.0 : f32
  scf.forall (%i) in (%n) {
    memref.store %v, %out[%i] : memref<16xf32>
  } {mapping = [#gpu.block<y>]}
  func.return
}

// -----

// In a dispatch the ids are the workgroup's, and the count region is the proof.
// REMARK: proofs.mlir:[[# @LINE + 20]]:7: remark: distribute: dimension on #gpu.block<x>: exact: trip count 64 = 64 processors (the workgroup count of @k): no loop, no guard
// REMARK: proofs.mlir:[[# @LINE + 22]]:7: remark: distribute: dimension on #iree_linalg_ext.split_reduction_mapping<0>: exact: trip count 7 = 7 processors (the workgroup count of @k): no loop, no guard
// CHECK-LABEL: func.func @k
// CHECK:       %[[W:.*]] = hal.interface.workgroup.id[0] : index
// CHECK-NEXT:  memref.store %{{.*}}, %{{.*}}[%[[W]]]
// CHECK-NEXT:  %[[Z:.*]] = hal.interface.workgroup.id[2] : index
// CHECK-NEXT:  %[[K:.*]] = affine.apply affine_map<(d0) -> ((d0 * 143))> (%[[Z]])
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @ex {
  hal.executable.export public @k ordinal(0) layout(#layout) count(%device: !hal.device) -> (index, index, index) {
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    hal.return %c64, %c1, %c7 : index, index, index
  }
  builtin.module {
    func.func @k() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [1, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %out = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) : memref<1001xf32>
      %v = arith.constant 1.0 : f32
      scf.forall (%m) in (64) {
        memref.store %v, %out[%m] : memref<1001xf32>
      } {mapping = [#gpu.block<x>]}
      scf.forall (%k) = (0) to (1001) step (143) {
        memref.store %v, %out[%k] : memref<1001xf32>
      } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
      return
    }
  }
}

// -----

// Threads in a dispatch: the translation_info workgroup size is the block.
// REMARK: proofs.mlir:[[# @LINE + 15]]:7: remark: distribute: dimension on #gpu.thread<x>: exact: trip count 128 = 128 processors (the translation_info workgroup size)
// CHECK-LABEL: func.func @t
// CHECK:       %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT:  memref.store %{{.*}}, %{{.*}}[%[[T]]]
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @ex {
  hal.executable.export public @t ordinal(0) layout(#layout) count(%device: !hal.device) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @t() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [128, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %out = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) : memref<128xf32>
      %v = arith.constant 1.0 : f32
      scf.forall (%i) in (128) {
        memref.store %v, %out[%i] : memref<128xf32>
      } {mapping = [#gpu.thread<x>]}
      return
    }
  }
}
