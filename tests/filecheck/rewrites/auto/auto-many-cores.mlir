// Split plus encode: on a CPU with far more cores than the data-tiled op has
// workgroup tiles (256 tiles of 64x64, 1024 cores), the model splits the
// encoded op so that every core has a chunk, and the partial products run as
// batch_mmt4d on packed tiles. With 2 cores the same op is only encoded.
// RUN: env XSPLIT_CPU=znver4:cores=1024 xsplit-opt %s -p 'auto{target=cpu}' 2>&1 | filecheck %s
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>&1 | filecheck %s --check-prefix=TWO

// CHECK: remark: split-k: split+encode chosen: 1024x1024 output, K = 262144 on cpu: {{.*}}, encoded in {{[0-9]+}} chunks
// CHECK-LABEL: func.func @long_square
// CHECK:         linalg.pack
// CHECK:         linalg.batch_mmt4d
// CHECK:         linalg.reduce
// CHECK:         linalg.unpack
// TWO: remark: not split: encode chosen: 1024x1024 output, K = 262144 on cpu
// TWO-LABEL: func.func @long_square
// TWO:         linalg.mmt4d
// TWO-NOT:     linalg.batch_mmt4d
func.func @long_square(%a: tensor<1024x262144xf32>, %b: tensor<262144x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1024x262144xf32>, tensor<262144x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
