// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=7},materialize-late' > %t.0.out 2> %t.0.err && iree-opt --split-input-file --mlir-print-op-generic < %t.0.out > %t.xsplit
// RUN: iree-opt --split-input-file --mlir-print-op-generic %s > %t.iree
// RUN: cmp %t.iree %t.xsplit
// RUN: xsplit-opt --split-input-file %s -p 'auto{target=cpu}' | iree-opt --split-input-file --mlir-print-op-generic > %t.auto
// RUN: cmp %t.iree %t.auto
// RUN: filecheck %s < %t.0.out

// A module's own dispatches are not materialize-late's to change, whatever
// their form; nothing here is split, so every one comes out as it went in.

// The dispatch of the issue: in place, on a dynamic size. xsplit's flow
// dialect does not read a tied result with sizes (`-> %arg0{%c128}`), so
// the op is carried unregistered, and its `flow.return` with it.
// CHECK-LABEL: util.func public @in_place
// CHECK:         flow.dispatch.workgroups[%{{.*}}, %{{.*}}](%{{.*}}, %{{.*}}) : (tensor<?x4xf32>{%{{.*}}}, index) -> %{{.*}}{%{{.*}}} =
// CHECK:           flow.return
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

// A static region xsplit reads as its class stays a region: only the regions
// xsplit forms become workgroups.
// CHECK-LABEL: func.func @region
// CHECK:         flow.dispatch.region -> (tensor<4x8xf32>) {
// CHECK:           linalg.fill
// CHECK:           flow.return
// CHECK-NOT:     flow.dispatch.workgroups
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
// CHECK-LABEL: func.func @blocks
// CHECK:         flow.dispatch.region -> (tensor<4x8xf32>) {
// CHECK:           cf.cond_br
// CHECK:           flow.return
// CHECK:           flow.return
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

// An unpack that a pack undoes, inside a module's own dispatch: the fold that
// cleans up xsplit's own graph-level packs leaves it to IREE.
// CHECK-LABEL: func.func @pack_of_unpack
// CHECK:         flow.dispatch.region
// CHECK:           linalg.unpack
// CHECK:           linalg.pack
func.func @pack_of_unpack(%x: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
  %0 = flow.dispatch.region -> (tensor<2x2x8x8xf32>) {
    %e = tensor.empty() : tensor<16x16xf32>
    %u = linalg.unpack %x inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %e : tensor<2x2x8x8xf32> -> tensor<16x16xf32>
    %d = tensor.empty() : tensor<2x2x8x8xf32>
    %p = linalg.pack %u inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %d : tensor<16x16xf32> -> tensor<2x2x8x8xf32>
    flow.return %p : tensor<2x2x8x8xf32>
  }
  return %0 : tensor<2x2x8x8xf32>
}
