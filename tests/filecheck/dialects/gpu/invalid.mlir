// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @bad_dim() -> index {
  %t = gpu.thread_id w
  func.return %t : index
}
// CHECK: invalid.mlir:4:22: error: expected one of x, y, z

// -----

func.func @bad_cluster(%v: f32) -> f32 {
  %r = gpu.subgroup_reduce add %v cluster(size = 3) : (f32) -> f32
  func.return %r : f32
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'gpu.subgroup_reduce' op cluster_size must be a power of two, got 3

// -----

func.func @bad_space() {
  gpu.barrier memfence [#gpu.address_space<shared>]
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: Expected `global`, `workgroup`, or `private`.

// -----

func.func @bad_shuffle(%v: f32, %o: i64) -> f32 {
  %s, %ok = gpu.shuffle xor %v, %o, %o : f32
  func.return %s : f32
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'gpu.shuffle' op operand 'offset' {{.*}} Expected attribute i32 but got i64
