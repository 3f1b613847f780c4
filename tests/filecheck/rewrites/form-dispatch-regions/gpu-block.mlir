// RUN: xsplit-opt %s -p form-dispatch-regions 2>&1 | filecheck %s

// The seed's step-1 loop maps to #gpu.block<z>: IREE would run it serially in
// each workgroup, so it is left alone and a remark says why.
// CHECK: gpu-block.mlir:[[# @LINE + 4]]:3: remark: #gpu.block mapping stays a serial loop in each IREE workgroup; use #iree_linalg_ext.split_reduction_mapping to distribute it
// CHECK-NOT: flow.dispatch.region
func.func @serial(%t: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = scf.forall (%i) in (4) shared_outs(%o = %e) -> (tensor<4x8xf32>) {
    %s = tensor.extract_slice %t[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    }
  } {mapping = [#gpu.block<z>]}
  func.return %r : tensor<4x8xf32>
}
