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
// CHECK: invalid.mlir:[[# @LINE - 5]]:5: error: 'iree_tensor_ext.dispatch.tensor.load' op value set has 1 dynamic dimensions but only 0 dimension values are attached


// -----

// IREE checks a stored value's shape against the sizes, as tensor.insert_slice.
func.func @store_sizes(%b: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x8xf32>>, %v: tensor<4x5xf32>) {
  iree_tensor_ext.dispatch.tensor.store %v, %b, offsets = [0, 0], sizes = [4, 4], strides = [1, 1] : tensor<4x5xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x8xf32>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_tensor_ext.dispatch.tensor.store' op expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)

// -----

func.func @store_rank(%b: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x8xf32>>, %v: tensor<4x4x1xf32>) {
  iree_tensor_ext.dispatch.tensor.store %v, %b, offsets = [0, 0], sizes = [4, 4], strides = [1, 1] : tensor<4x4x1xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x8xf32>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_tensor_ext.dispatch.tensor.store' op expected rank to be smaller or equal to the other rank.

// -----

func.func @load_negative_offset(%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>>) {
  %0 = iree_tensor_ext.dispatch.tensor.load %b, offsets = [0, -1], sizes = [4, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>> -> tensor<4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_tensor_ext.dispatch.tensor.load' op expected offsets to be non-negative, but got -1

// -----

func.func @load_negative_size(%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>>) {
  %0 = iree_tensor_ext.dispatch.tensor.load %b, offsets = [0, 0], sizes = [-1, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>> -> tensor<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_tensor_ext.dispatch.tensor.load' op expected sizes to be non-negative, but got -1

// -----

func.func @load_list_ranks(%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>>) {
  %0 = iree_tensor_ext.dispatch.tensor.load %b, offsets = [0, 0], sizes = [4, 4], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>> -> tensor<4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_tensor_ext.dispatch.tensor.load' op expected mixed sizes rank to match mixed strides rank (2 vs 1) so the rank of the result type is well-formed.

// -----

func.func @load_source_rank(%b: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>>) {
  %0 = iree_tensor_ext.dispatch.tensor.load %b, offsets = [0], sizes = [4], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<8x8xf32>> -> tensor<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'iree_tensor_ext.dispatch.tensor.load' op expected 2 offset values, got 1
