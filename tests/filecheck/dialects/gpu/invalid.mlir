// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @bad_dim() -> index {
  %t = gpu.thread_id w
  func.return %t : index
}
// CHECK: invalid.mlir:4:22: error: custom op 'gpu.thread_id' expected string or keyword containing one of the following enum values for attribute 'dimension' [x, y, z]

// -----

func.func @bad_cluster(%v: f32) -> f32 {
  %r = gpu.subgroup_reduce add %v cluster(size = 3) : (f32) -> f32
  func.return %r : f32
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'gpu.subgroup_reduce' op cluster size 3 is not a power of two

// -----

func.func @bad_space() {
  gpu.barrier memfence [#gpu.address_space<shared>]
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: expected ::mlir::gpu::AddressSpace to be one of: global, workgroup, private, constant

// -----

func.func @bad_shuffle(%v: f32, %o: i64) -> f32 {
  %s, %ok = gpu.shuffle xor %v, %o, %o : f32
  func.return %s : f32
}
// The offset is an i32 by the op's syntax, as iree-opt reads it.
// CHECK: invalid.mlir:[[# @LINE - 4]]:33: error: use of value '%o' expects different type than prior uses: 'i32' vs 'i64'

// -----

func.func @float_reduction_on_int(%v: i32) -> i32 {
  %0 = gpu.subgroup_reduce minnumf %v : (i32) -> i32
  func.return %0 : i32
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'gpu.subgroup_reduce' op `minnumf` reduction operation is not compatible with type 'i32'

// -----

func.func @int_reduction_on_float(%v: vector<4xf32>) -> vector<4xf32> {
  %0 = gpu.subgroup_reduce xor %v : (vector<4xf32>) -> vector<4xf32>
  func.return %0 : vector<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'gpu.subgroup_reduce' op `xor` reduction operation is not compatible with type 'vector<4xf32>'

// -----

func.func @cluster_stride(%v: f32) -> f32 {
  %0 = gpu.subgroup_reduce add %v cluster(size = 4, stride = 3) : (f32) -> f32
  func.return %0 : f32
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'gpu.subgroup_reduce' op cluster stride 3 is not a power of two
