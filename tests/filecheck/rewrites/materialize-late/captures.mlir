// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=7},materialize-late' > %t.0.out 2> %t.0.err && filecheck %s < %t.0.out
// RUN: iree-opt --split-input-file < %t.0.out > /dev/null
// RUN: xsplit-opt --split-input-file %s -p 'auto{target=cpu}' | iree-opt --split-input-file > /dev/null

// Ops with regions that read values from outside, next to a split. Only the
// split loop moves into the isolated flow.dispatch.workgroups, and every value
// it reads from outside, in its nested regions too, becomes an operand.

// A tensor.generate whose body yields a function argument stays where it is,
// as the merge's init; the split's input A, generated the same way, is read
// through an operand.
// CHECK-LABEL: func.func @generate
// CHECK-SAME:    (%[[B:.*]]: tensor<100x8xf32>, %[[V:.*]]: f32)
// CHECK:         %[[A:.*]] = tensor.generate
// CHECK:           tensor.yield %[[V]] : f32
// CHECK:         %[[INIT:.*]] = tensor.generate
// CHECK:           tensor.yield %[[V]] : f32
// CHECK:         %[[P:.*]] = flow.dispatch.workgroups(%[[A]], %[[B]]) : (tensor<16x100xf32>, tensor<100x8xf32>) -> tensor<16x8x6xf32> =
// CHECK-NOT:       tensor.generate
// CHECK:           scf.forall
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:           flow.return
// CHECK-NEXT:    }
// The last 10 of K, a static tail beside the dispatch, and the merge.
// CHECK-NEXT:    tensor.extract_slice %[[A]][0, 90] [16, 10] [1, 1] {xsplit.split_part = "tail"}
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<16x8x6xf32>, tensor<16x8xf32>) outs(%[[INIT]] : tensor<16x8xf32>)
func.func @generate(%b: tensor<100x8xf32>, %v: f32) -> tensor<16x8xf32> {
  %a = tensor.generate {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<16x100xf32>
  %init = tensor.generate {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<16x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<16x100xf32>, tensor<100x8xf32>) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// The split reduction's body reads a scalar from outside: the partial
// reduction inside the loop still does, so the scalar is an operand.
// CHECK-LABEL: func.func @body_reads_outside
// CHECK-SAME:    (%[[A:.*]]: tensor<16x100xf32>, %[[S:.*]]: f32)
// CHECK:         flow.dispatch.workgroups(%[[A]], %[[S]]) : (tensor<16x100xf32>, f32) -> tensor<16x6xf32> =
// CHECK-NEXT:        (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x100xf32>>, %[[IS:.*]]: f32, %{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16x6xf32>>) {
// CHECK:             linalg.generic
// CHECK:               arith.mulf %{{.*}}, %[[IS]] : f32
func.func @body_reads_outside(%a: tensor<16x100xf32>, %s: f32) -> tensor<16xf32> {
  %c = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<16x100xf32>) outs(%c : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.mulf %x, %s : f32
    %t = arith.addf %m, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A LinalgExt op whose region reads a function argument is no split: it stays
// at graph level, its region as it was, beside the split's dispatch.
// CHECK-LABEL: func.func @linalg_ext
// CHECK-SAME:    (%{{.*}}: tensor<16x100xf32>, %{{.*}}: tensor<100x8xf32>, %{{.*}}: tensor<16x8xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3x1xi64>, %[[D:.*]]: tensor<8xf32>, %[[V:.*]]: f32)
// CHECK:         flow.dispatch.workgroups
// CHECK:         linalg.generic {{.*}}xsplit.split_part = "merge"
// CHECK:         iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3x1xi64>) outs(%[[D]] : tensor<8xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[V]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.addf %[[M]], %[[Y]] : f32
// CHECK-NEXT:      iree_linalg_ext.yield %[[T]] : f32
// CHECK-NEXT:    } -> tensor<8xf32>
func.func @linalg_ext(%a: tensor<16x100xf32>, %b: tensor<100x8xf32>, %c: tensor<16x8xf32>, %u: tensor<3xf32>, %i: tensor<3x1xi64>, %d: tensor<8xf32>, %v: f32) -> (tensor<16x8xf32>, tensor<8xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<16x100xf32>, tensor<100x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  %1 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %i : tensor<3xf32>, tensor<3x1xi64>) outs(%d : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %v : f32
    %t = arith.addf %m, %y : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<8xf32>
}

// -----

// A module's own dispatch beside a new split: the split gets a dispatch of
// its own, and the existing one is left as it was.
// CHECK-LABEL: util.func public @mixed
// CHECK:         %[[OLD:.*]] = flow.dispatch.workgroups[%{{.*}}](%{{.*}}, %{{.*}}) : (tensor<?x4xf32>{%{{.*}}}, index) -> %{{.*}}{%{{.*}}} =
// CHECK:           iree_tensor_ext.dispatch.tensor.store
// CHECK-NEXT:      flow.return
// CHECK-NEXT:    }
// CHECK:         %[[NEW:.*]] = flow.dispatch.workgroups(%{{.*}}, %{{.*}}) : (tensor<16x100xf32>, tensor<100x8xf32>) -> tensor<16x8x6xf32> =
// CHECK:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         linalg.generic {{.*}} ins(%[[NEW]], %{{.*}} : tensor<16x8x6xf32>, tensor<16x8xf32>)
// CHECK:         util.return %[[OLD]], %{{.*}} : tensor<?x4xf32>, tensor<16x8xf32>
util.func public @mixed(%arg0: tensor<?x4xf32>, %n: index, %a: tensor<16x100xf32>, %b: tensor<100x8xf32>, %c: tensor<16x8xf32>) -> (tensor<?x4xf32>, tensor<16x8xf32>) {
  %0 = flow.dispatch.workgroups[%n](%arg0, %n) : (tensor<?x4xf32>{%n}, index) -> %arg0{%n} =
      (%io: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>, %m: index) {
    %t = iree_tensor_ext.dispatch.tensor.load %io, offsets = [0, 0], sizes = [%m, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%m} -> tensor<?x4xf32>
    iree_tensor_ext.dispatch.tensor.store %t, %io, offsets = [0, 0], sizes = [%m, 4], strides = [1, 1] : tensor<?x4xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%m}
    flow.return
  }
  %1 = linalg.matmul ins(%a, %b : tensor<16x100xf32>, tensor<100x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
  util.return %0, %1 : tensor<?x4xf32>, tensor<16x8xf32>
}
