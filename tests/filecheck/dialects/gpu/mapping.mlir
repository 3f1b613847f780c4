// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s

// Mapping attributes of one level but different ids are different attributes.
// CHECK: } {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK: } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
func.func @mapping(%m: memref<8x8xf32>) {
  scf.forall (%i, %j) in (8, 8) {
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  scf.forall (%i, %j) in (8, 8) {
  } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
  func.return
}
