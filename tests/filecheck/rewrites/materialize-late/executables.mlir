// RUN: xsplit-opt %s -p 'split-k{factor=7},materialize-late' | filecheck %s
// RUN: xsplit-opt %s -p 'split-k{factor=7},materialize-late' | iree-opt > /dev/null

// A `--compile-to=flow` module: dispatches outlined into executables. split-k
// splits the matmul in the executable's function, which is a dispatch's code
// already: materialize-late forms no dispatch in it, and the split loop stays
// as IREE's own split reductions are inside a dispatch.
// CHECK-LABEL: flow.executable private @ex
// CHECK:         func.func @mm
// CHECK-NOT:       flow.dispatch
// CHECK:           scf.forall
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NOT:       flow.dispatch
// CHECK:           linalg.generic {{.*}}xsplit.split_part = "merge"
// CHECK:         util.func public @main
flow.executable private @ex {
  flow.executable.export public @mm workgroups() -> (index, index, index) {
    %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
    flow.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @mm(%a: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x100xf32>>, %b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<100x8xf32>>, %c: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16x8xf32>>) {
      %cst = arith.constant 0.0 : f32
      %0 = iree_tensor_ext.dispatch.tensor.load %a, offsets = [0, 0], sizes = [16, 100], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x100xf32>> -> tensor<16x100xf32>
      %1 = iree_tensor_ext.dispatch.tensor.load %b, offsets = [0, 0], sizes = [100, 8], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<100x8xf32>> -> tensor<100x8xf32>
      %2 = tensor.empty() : tensor<16x8xf32>
      %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x8xf32>) -> tensor<16x8xf32>
      %4 = linalg.matmul ins(%0, %1 : tensor<16x100xf32>, tensor<100x8xf32>) outs(%3 : tensor<16x8xf32>) -> tensor<16x8xf32>
      iree_tensor_ext.dispatch.tensor.store %4, %c, offsets = [0, 0], sizes = [16, 8], strides = [1, 1] : tensor<16x8xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16x8xf32>>
      return
    }
  }
}
util.func public @main(%a: tensor<16x100xf32>, %b: tensor<100x8xf32>) -> tensor<16x8xf32> {
  %0 = flow.dispatch @ex::@mm(%a, %b) : (tensor<16x100xf32>, tensor<100x8xf32>) -> tensor<16x8xf32>
  util.return %0 : tensor<16x8xf32>
}
