// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @yield_mismatch(%b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch.region -> (tensor<4xf32>) {
    flow.return %b : tensor<8xf32>
  }
  func.return %0 : tensor<4xf32>
}
// CHECK: invalid.mlir:4:3: error: 'flow.dispatch.region' op body yields (tensor<8xf32>) but the op returns (tensor<4xf32>)

// -----

func.func @region_dims(%b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = flow.dispatch.region -> (tensor<?xf32>) {
    flow.return %b : tensor<?xf32>
  }
  func.return %0 : tensor<?xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:3: error: 'flow.dispatch.region' op results have 1 dynamic dimensions but 0 dimension values are given

// -----

func.func @count_region(%b: tensor<8xf32>, %w: index) -> tensor<8xf32> {
  %0 = flow.dispatch.region[%w] -> (tensor<8xf32>) {
    flow.return %b : tensor<8xf32>
  } count(%x: index) -> (index, index, index) {
    flow.return %x : index
  }
  func.return %0 : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 7]]:3: error: 'flow.dispatch.region' op workgroup count region must return 3 index values
