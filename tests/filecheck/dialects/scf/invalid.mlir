// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @mapping_rank(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (8) shared_outs(%o = %t) -> (tensor<8xf32>) {
  } {mapping = [#gpu.block<x>, #gpu.block<y>]}
  func.return %r : tensor<8xf32>
}
// CHECK: invalid.mlir:4:3: error: 'scf.forall' op mapping attribute size must match op rank

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
// CHECK: invalid.mlir:[[# @LINE - 5]]:7: error: 'tensor.parallel_insert_slice' op may only insert into an output block argument

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

// -----

// The generic form can say what the custom syntax cannot.
func.func @forall_results(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r:2 = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 8>}> ({
  ^bb0(%i: index, %o: tensor<8xf32>):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  func.return %r#0 : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.forall' op produces 2 results, but has only 1 outputs

// -----

func.func @forall_result_type(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 8>}> ({
  ^bb0(%i: index, %o: tensor<8xf32>):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (tensor<8xf32>) -> (tensor<8xf16>)
  func.return %t : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.forall' op expected type of operand #0 ('tensor<8xf32>') to match type of corresponding result ('tensor<8xf16>')

// -----

func.func @forall_region_arguments(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 8>}> ({
  ^bb0(%i: index):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (tensor<8xf32>) -> (tensor<8xf32>)
  func.return %r : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.forall' op region expects 1 arguments

// -----

func.func @forall_index(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 8>}> ({
  ^bb0(%i: i32, %o: tensor<8xf32>):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (tensor<8xf32>) -> (tensor<8xf32>)
  func.return %r : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.forall' op expects 0-th block argument to be an index

// -----

func.func @forall_block_argument_type(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 8>}> ({
  ^bb0(%i: index, %o: tensor<4xf32>):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (tensor<8xf32>) -> (tensor<8xf32>)
  func.return %r : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.forall' op type mismatch between 0-th output and corresponding block argument

// -----

func.func @forall_bounds(%t: tensor<8xf32>) -> tensor<8xf32> {
  %r = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 8, 4>}> ({
  ^bb0(%i: index, %o: tensor<8xf32>):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (tensor<8xf32>) -> (tensor<8xf32>)
  func.return %r : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.forall' op expected 1 upper bound values, got 2

// -----

func.func @parallel_insert_sizes(%t: tensor<8x8xf32>, %s: tensor<4xf32>) -> tensor<8x8xf32> {
  %r = scf.forall (%i) in (2) shared_outs(%o = %t) -> (tensor<8x8xf32>) {
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[0, 0] [1, 5] [1, 1] : tensor<4xf32> into tensor<8x8xf32>
    }
  }
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:7: error: 'tensor.parallel_insert_slice' op expected type to be 'tensor<1x5xf32>' or a rank-reduced version. (size mismatch)

// -----

func.func @parallel_insert_past_end(%t: tensor<8x8xf32>, %s: tensor<4xf32>) -> tensor<8x8xf32> {
  %r = scf.forall (%i) in (2) shared_outs(%o = %t) -> (tensor<8x8xf32>) {
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[0, 6] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x8xf32>
    }
  }
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:7: error: 'tensor.parallel_insert_slice' op slice along dimension 1 runs out-of-bounds: 9 >= 8
