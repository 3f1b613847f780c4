// RUN: xsplit-opt %s | filecheck %s --check-prefix=ROUNDTRIP
// RUN: xsplit-opt %s | iree-opt --mlir-print-op-generic > %t.xsplit
// RUN: iree-opt --mlir-print-op-generic %s > %t.iree
// RUN: cmp %t.iree %t.xsplit
// RUN: xsplit-opt %s -p 'split-k{factor=4}' | filecheck %s
// RUN: xsplit-opt %s -p 'split-k{factor=4},materialize-late' | iree-opt > /dev/null

// IREE's input programs define util.func, not func.func. split-k matches the
// reduction whatever function holds it, and the function, its visibility and
// its argument and result attributes are kept.
// ROUNDTRIP: util.func public @mm(%{{.*}}: tensor<16x1000xf32> {iree.abi.name = "a"}, %{{.*}}: tensor<1000x32xf32>, %{{.*}}: tensor<16x32xf32>) -> (tensor<16x32xf32> {iree.abi.name = "c"}) attributes {custom = 1 : i64} {
// ROUNDTRIP:   util.return %{{.*}} : tensor<16x32xf32>
// ROUNDTRIP: util.func private @external(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: util.func public @mm
// CHECK-SAME:    {iree.abi.name = "a"}
// CHECK:         scf.forall (%{{.*}}) in (4)
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x250xf32>, tensor<250x32xf32>)
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         %[[M:.*]] = linalg.reduce
// CHECK:         util.return %[[M]] : tensor<16x32xf32>
util.func public @mm(%a: tensor<16x1000xf32> {iree.abi.name = "a"}, %b: tensor<1000x32xf32>, %c: tensor<16x32xf32>) -> (tensor<16x32xf32> {iree.abi.name = "c"}) attributes {custom = 1 : i64} {
  %0 = linalg.matmul ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  util.return %0 : tensor<16x32xf32>
}

util.func private @external(%x: tensor<4xf32>) -> tensor<4xf32>
