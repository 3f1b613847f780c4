// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late' | iree-opt > /dev/null

// The pad that feeds an encoded operand goes into the pack's dispatch with
// it; its body yields a function argument, which the isolated dispatch then
// takes as an operand.
// CHECK-LABEL: func.func @pad
// CHECK-SAME:    (%[[A:.*]]: tensor<60x500xf32>, %{{.*}}: tensor<512x64xf32>, %{{.*}}: tensor<64x64xf32>, %[[V:.*]]: f32)
// CHECK:         flow.dispatch.workgroups(%[[A]], %[[V]]) : (tensor<60x500xf32>, f32) -> tensor<8x512x8x1xf32> =
// CHECK-NEXT:        (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<60x500xf32>>, %[[IV:.*]]: f32, %{{.*}}: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8x512x8x1xf32>>) {
// CHECK:             tensor.pad
// CHECK:               tensor.yield %[[IV]] : f32
// CHECK:             linalg.pack
func.func @pad(%a: tensor<60x500xf32>, %b: tensor<512x64xf32>, %c: tensor<64x64xf32>, %v: f32) -> tensor<64x64xf32> {
  %p = tensor.pad %a low[0, 0] high[4, 12] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<60x500xf32> to tensor<64x512xf32>
  %0 = linalg.matmul ins(%p, %b : tensor<64x512xf32>, tensor<512x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
