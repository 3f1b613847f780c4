// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @mapping_rank(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> (tensor<8xf32>) {
  } {mapping = [#gpu.block<x>, #gpu.block<y>]}
  func.return %r : tensor<8xf32>
}
// CHECK: invalid.mlir:4:3: error: 'scf.forall' op mapping has 2 entries for 1 loop dimensions

// -----

func.func @mapping_kind(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> (tensor<8xf32>) {
  } {mapping = [1 : i32]}
  func.return %r : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'scf.forall' op {{.*}}mapping entry 1 : i32 is not a device mapping attribute

// -----

func.func @result_types(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> (tensor<4xf32>) {
  }
  func.return %r : tensor<8xf32>
}
// A parse error: MLIR's diagnostic is the one given.
// CHECK: invalid.mlir:[[# @LINE - 5]]:{{[0-9]+}}: error: use of value '%t' expects different type than prior uses: 'tensor<4xf32>' vs 'tensor<8xf32>'

// -----

func.func @insert_target(%t: tensor<8xf32>, %u: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> (tensor<8xf32>) {
    %s = tensor.extract_slice %u[%i] [1] [1] : tensor<8xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %u[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  }
  func.return %r : tensor<8xf32>
}
// CHECK: error: {{.*}}must insert into a shared output of the enclosing scf.forall

// -----

func.func @bad_mapping_id() {
  scf.forall (%i) in (8) {
  } {mapping = [#gpu.block<w>]}
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: expected ::mlir::gpu::MappingId to be one of: x, y, z

// -----

func.func @slice_rank(%t: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> (tensor<8x4xf32>) {
    %s = tensor.extract_slice %o[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i] [4] [1] : tensor<4xf32> into tensor<8x4xf32>
    }
  }
  func.return %r : tensor<8x4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:7: error: 'tensor.parallel_insert_slice' op expected 2 offset values, got 1
