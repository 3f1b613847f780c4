// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @yield_mismatch(%b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch.region -> (tensor<4xf32>) {
    flow.return %b : tensor<8xf32>
  }
  func.return %0 : tensor<4xf32>
}
// CHECK: invalid.mlir:5:5: error: 'flow.return' op operand types do not match with parent results

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

// -----

func.func @yield_count(%b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = flow.dispatch.region -> (tensor<8xf32>) {
    flow.return
  }
  func.return %0 : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:5: error: 'flow.return' op number of results (1) does not match number of returned values (0)

// -----

func.func @count_arguments(%b: tensor<8xf32>, %w: index) -> tensor<8xf32> {
  %0 = flow.dispatch.workgroups[%w](%b) : (tensor<8xf32>) -> tensor<8xf32> =
      (%a: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>, %o: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xf32>>) {
    flow.return
  } count(%x: index, %y: index) -> (index, index, index) {
    flow.return %x, %x, %x : index, index, index
  }
  func.return %0 : tensor<8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'flow.dispatch.workgroups' op workload operands and workgroup count args mismatch (1 vs 2)

// -----

// A tied result carries the sizes of its type (IREE: "value set has 1 dynamic
// dimensions but only 0 dimension values are attached").
func.func @tied_dims(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = flow.dispatch.workgroups(%a) : (tensor<?x4xf32>{%n}) -> %a =
      (%x: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>) {
    flow.return
  }
  func.return %0 : tensor<?x4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 6]]:3: error: 'flow.dispatch.workgroups' op results have 1 dynamic dimensions but 0 dimension values are given

// -----

func.func @tied_dims_too_many(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = flow.dispatch @ex::@k(%a) : (tensor<?x4xf32>{%n}) -> %a{%n, %n}
  func.return %0 : tensor<?x4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'flow.dispatch' op results have 1 dynamic dimensions but 2 dimension values are given

// -----

func.func @tied_dims_generic(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = "flow.dispatch"(%a, %n) <{entry_points = [@ex::@k], operandSegmentSizes = array<i32: 0, 1, 1, 0>, tied_operands = [0 : index]}> : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'flow.dispatch' op results have 1 dynamic dimensions but 0 dimension values are given
