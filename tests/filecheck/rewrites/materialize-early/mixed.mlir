// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' | filecheck %s
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-early' | iree-opt > /dev/null

// A module's own dispatch region beside a graph-level matmul: set-encoding
// encodes the graph-level one, which materialize-early turns into pack, mmt4d
// and unpack; the matmul in the region, and the region, are left as they are.
// CHECK-LABEL: func.func @mixed
// CHECK:         %[[OLD:.*]] = flow.dispatch.region -> (tensor<16x8xf32>) {
// CHECK-NEXT:      %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x100xf32>, tensor<100x8xf32>) outs(%{{.*}} : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NEXT:      flow.return %[[M]] : tensor<16x8xf32>
// CHECK-NEXT:    }
// CHECK:         linalg.pack
// CHECK:         linalg.mmt4d
// CHECK:         linalg.unpack
// CHECK-NOT:     iree_encoding
func.func @mixed(%a: tensor<16x100xf32>, %b: tensor<100x8xf32>, %c: tensor<16x8xf32>, %x: tensor<64x512xf32>, %y: tensor<512x64xf32>, %z: tensor<64x64xf32>) -> (tensor<16x8xf32>, tensor<64x64xf32>) {
  %0 = flow.dispatch.region -> (tensor<16x8xf32>) {
    %1 = linalg.matmul ins(%a, %b : tensor<16x100xf32>, tensor<100x8xf32>) outs(%c : tensor<16x8xf32>) -> tensor<16x8xf32>
    flow.return %1 : tensor<16x8xf32>
  }
  %2 = linalg.matmul ins(%x, %y : tensor<64x512xf32>, tensor<512x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %2 : tensor<16x8xf32>, tensor<64x64xf32>
}
