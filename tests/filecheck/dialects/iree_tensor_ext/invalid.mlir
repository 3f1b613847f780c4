// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @store_to_readonly(%b: tensor<8xf32>) -> tensor<8xf32> {
  %n = flow.dispatch.workgroups(%b) : (tensor<8xf32>) -> tensor<8xf32> =
      (%y: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>, %o: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf32>>) {
    %t = iree_tensor_ext.dispatch.tensor.load %y, offsets = [0], sizes = [8], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>> -> tensor<8xf32>
    iree_tensor_ext.dispatch.tensor.store %t, %y, offsets = [0], sizes = [8], strides = [1] : tensor<8xf32> -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>
    flow.return
  }
  func.return %n : tensor<8xf32>
}
// CHECK: invalid.mlir:7:5: error: 'iree_tensor_ext.dispatch.tensor.store' op cannot store to !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>

// -----

func.func @missing_dims(%b: tensor<?xf32>, %d: index) -> tensor<?xf32> {
  %n = flow.dispatch.workgroups(%b, %d) : (tensor<?xf32>{%d}, index) -> tensor<?xf32>{%d} =
      (%y: !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, %dd: index, %o: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>) {
    %t = iree_tensor_ext.dispatch.tensor.load %y, offsets = [0], sizes = [%dd], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>> -> tensor<?xf32>
    flow.return
  }
  func.return %n : tensor<?xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:5: error: 'iree_tensor_ext.dispatch.tensor.load' op expects 1 dynamic dimension values for !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, got 0

