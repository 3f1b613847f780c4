// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=7},materialize-early' | iree-opt --split-input-file --mlir-print-op-generic > %t.early
// RUN: iree-opt --split-input-file --mlir-print-op-generic %s > %t.iree
// RUN: cmp %t.iree %t.early
// RUN: env XSPLIT_CPU=znver3 xsplit-opt --split-input-file %s -p 'set-encoding,materialize-early' | iree-opt --split-input-file --mlir-print-op-generic > %t.encoded
// RUN: cmp %t.iree %t.encoded

// materialize-early lowers what split-k and set-encoding made; a module's own
// dispatches, and ops with regions that read values from outside, are not
// its to change. Nothing here is split or encoded, so every case comes out
// as it went in.

// An in-place dispatch on a dynamic size (issue 33), which xsplit carries.
util.func public @in_place(%arg0: tensor<?x4xf32>, %arg1: index) -> tensor<?x4xf32> {
  %c128 = arith.constant 128 : index
  %x = arith.constant 4 : index
  %0 = flow.dispatch.workgroups[%x, %arg1](%arg0, %arg1) : (tensor<?x4xf32>{%c128}, index) -> %arg0{%c128} =
      (%a: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>, %n: index) {
    %t = iree_tensor_ext.dispatch.tensor.load %a, offsets = [0, 0], sizes = [%n, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%n} -> tensor<?x4xf32>
    iree_tensor_ext.dispatch.tensor.store %t, %a, offsets = [0, 0], sizes = [%n, 4], strides = [1, 1] : tensor<?x4xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%n}
    flow.return
  }
  util.return %0 : tensor<?x4xf32>
}

// -----

// A static region xsplit reads as its class.
func.func @region(%s: f32) -> tensor<4x8xf32> {
  %0 = flow.dispatch.region -> (tensor<4x8xf32>) {
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%s : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    flow.return %f : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

// A region of several blocks.
func.func @blocks(%a: tensor<4x8xf32>, %c: i1) -> tensor<4x8xf32> {
  %0 = flow.dispatch.region -> (tensor<4x8xf32>) {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    flow.return %a : tensor<4x8xf32>
  ^bb2:
    %e = tensor.empty() : tensor<4x8xf32>
    flow.return %e : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}
// -----

// A tensor.generate whose body yields a function argument.
func.func @generate(%v: f32) -> tensor<16x8xf32> {
  %init = tensor.generate {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<16x8xf32>
  return %init : tensor<16x8xf32>
}

// -----

// A LinalgExt op whose region reads a function argument.
func.func @linalg_ext(%u: tensor<3xf32>, %i: tensor<3x1xi64>, %d: tensor<8xf32>, %v: f32) -> tensor<8xf32> {
  %1 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %i : tensor<3xf32>, tensor<3x1xi64>) outs(%d : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %v : f32
    %t = arith.addf %m, %y : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<8xf32>
  return %1 : tensor<8xf32>
}
