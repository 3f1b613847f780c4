// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s
// RUN: iree-opt --mlir-print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | iree-opt | filecheck %s --check-prefix=IREE
// The checks are iree-opt's own printing:
// RUN: iree-opt --mlir-print-local-scope %s | filecheck %s

// CHECK-LABEL: func.func @ids
// CHECK-SAME: attributes {gpu.known_block_size = array<i32: 64, 2, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>}
func.func @ids() -> (index, index, index, index, index, index, index, index, index, index)
    attributes {gpu.known_block_size = array<i32: 64, 2, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>} {
  // CHECK-NEXT: %{{.*}} = gpu.thread_id x
  // CHECK-NEXT: %{{.*}} = gpu.thread_id y upper_bound 2
  // CHECK-NEXT: %{{.*}} = gpu.block_id z
  // CHECK-NEXT: %{{.*}} = gpu.block_dim x
  // CHECK-NEXT: %{{.*}} = gpu.grid_dim y upper_bound 7
  // CHECK-NEXT: %{{.*}} = gpu.global_id x
  // CHECK-NEXT: %{{.*}} = gpu.lane_id
  // CHECK-NEXT: %{{.*}} = gpu.subgroup_id upper_bound 4 : index
  // CHECK-NEXT: %{{.*}} = gpu.subgroup_size : index
  // CHECK-NEXT: %{{.*}} = gpu.num_subgroups : index
  // IREE: %thread_id_x = gpu.thread_id x
  // IREE: %thread_id_y = gpu.thread_id y upper_bound 2
  // IREE: %grid_dim_y = gpu.grid_dim y upper_bound 7
  %t = gpu.thread_id x
  %t2 = gpu.thread_id y upper_bound 2
  %b = gpu.block_id z
  %bd = gpu.block_dim x
  %gd = gpu.grid_dim y upper_bound 7
  %g = gpu.global_id x
  %l = gpu.lane_id
  %s = gpu.subgroup_id upper_bound 4 : index
  %ss = gpu.subgroup_size : index
  %ns = gpu.num_subgroups : index
  func.return %t, %t2, %b, %bd, %gd, %g, %l, %s, %ss, %ns : index, index, index, index, index, index, index, index, index, index
}

// CHECK-LABEL: func.func @sync
func.func @sync(%v: f32, %o: i32, %w: i32, %x: i32) -> (f32, i1, f32, f32, f32, i32) {
  // CHECK-NEXT: gpu.barrier{{$}}
  // CHECK-NEXT: gpu.barrier memfence [#gpu.address_space<workgroup>]{{$}}
  // CHECK-NEXT: gpu.barrier memfence [#gpu.address_space<global>, #gpu.address_space<private>] scope <subgroup>
  // CHECK-NEXT: gpu.barrier scope <cluster>
  // CHECK-NEXT: %[[S:.*]], %[[OK:.*]] = gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
  // CHECK-NEXT: %{{.*}}, %{{.*}} = gpu.shuffle down %{{.*}}, %{{.*}}, %{{.*}} : f32
  // CHECK-NEXT: %{{.*}}, %{{.*}} = gpu.shuffle idx %{{.*}}, %{{.*}}, %{{.*}} : i32
  // CHECK-NEXT: %{{.*}} = gpu.subgroup_reduce add %[[S]] : (f32) -> f32
  // CHECK-NEXT: %{{.*}} = gpu.subgroup_reduce maxnumf %{{.*}} uniform : (f32) -> f32
  // CHECK-NEXT: %{{.*}} = gpu.subgroup_reduce minimumf %{{.*}} cluster(size = 4) : (f32) -> f32
  // CHECK-NEXT: %{{.*}} = gpu.subgroup_reduce xor %{{.*}} uniform cluster(size = 8, stride = 2) : (i32) -> i32
  // IREE: gpu.barrier memfence [#gpu.address_space<global>, #gpu.address_space<private>] scope <subgroup>
  // IREE: %shuffleResult, %valid = gpu.shuffle xor
  gpu.barrier
  gpu.barrier memfence [#gpu.address_space<workgroup>]
  gpu.barrier memfence [#gpu.address_space<global>, #gpu.address_space<private>] scope <subgroup>
  gpu.barrier scope <cluster>
  %s, %ok = gpu.shuffle xor %v, %o, %w : f32
  %d, %okd = gpu.shuffle down %v, %o, %w : f32
  %i, %oki = gpu.shuffle idx %x, %o, %w : i32
  %r = gpu.subgroup_reduce add %s : (f32) -> f32
  %r2 = gpu.subgroup_reduce maxnumf %v uniform : (f32) -> f32
  %r3 = gpu.subgroup_reduce minimumf %v cluster(size = 4) : (f32) -> f32
  %r4 = gpu.subgroup_reduce xor %x uniform cluster(size = 8, stride = 2) : (i32) -> i32
  func.return %s, %ok, %r, %r2, %r3, %r4 : f32, i1, f32, f32, f32, i32
}

// CHECK-LABEL: func.func @workgroup_memory
// CHECK-NEXT: %{{.*}} = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
func.func @workgroup_memory() -> memref<256xf32, #gpu.address_space<workgroup>> {
  %m = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
  func.return %m : memref<256xf32, #gpu.address_space<workgroup>>
}
