// Reductions as users write them: the init a fill of an empty tensor, the
// operands any tensors, the result flowing on. The function keeps its name,
// signature and other ops; the reduction becomes a kernel it launches on
// buffers of its tensors, after filling the output.
// RUN: xsplit-opt %s --split-input-file -p 'lower-reduce{target=sm_80 stage=atomic}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'lower-reduce{target=sm_80 stage=atomic deterministic=true}' 2>/dev/null | filecheck %s --check-prefix=DET

// CHECK-LABEL: func.func @rowsum_reduce(
// CHECK-SAME:      %{{.*}}: memref<5x300xf32>, %out: memref<5xf32>)
// CHECK-SAME:      gpu.known_block_size
// CHECK:         memref.atomic_rmw addf
// CHECK-LABEL: func.func @rowsum(
// CHECK-SAME:      %x: tensor<5x300xf32>) -> tensor<5xf32> attributes {xsplit.host} {
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[X:.*]] = bufferization.to_buffer %x : tensor<5x300xf32> to memref<5x300xf32>
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<5xf32>
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<5xf32>)
// CHECK-NEXT:    func.call @rowsum_reduce(%[[X]], %[[OUT]]) : (memref<5x300xf32>, memref<5xf32>) -> ()
// CHECK-NEXT:    %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict : memref<5xf32> to tensor<5xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[R]], %[[R]] : tensor<5xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<5xf32>

// The deterministic stage's partials buffer and two kernels run in the host.
// DET-LABEL: func.func @rowsum(
// DET:         %[[OUT:.*]] = memref.alloc() : memref<5xf32>
// DET-NEXT:    linalg.fill
// DET-NEXT:    %[[P:.*]] = memref.alloc() : memref<{{[0-9]+}}x5xf32>
// DET-NEXT:    func.call @rowsum_reduce_partials(%{{.*}}, %[[OUT]], %[[P]])
// DET-NEXT:    func.call @rowsum_reduce_merge(%[[P]], %[[OUT]])
// DET-NEXT:    memref.dealloc %[[P]]
// DET-NOT:     memref.atomic_rmw
func.func @rowsum(%x: tensor<5x300xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.reduce ins(%x : tensor<5x300xf32>) outs(%f : tensor<5xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %y = arith.mulf %r, %r : tensor<5xf32>
  return %y : tensor<5xf32>
}

// -----

// A column max as IREE imports ONNX's ReduceMax(keepdims=1), in a util.func;
// the init is another tensor, which the host copies into the output.
// CHECK-LABEL: func.func @colmax_reduce(
// CHECK-SAME:      %{{.*}}: memref<40x7xf32>, %out: memref<1x7xf32>)
// CHECK:         memref.atomic_rmw maxnumf
// CHECK-LABEL: util.func public @colmax(
// CHECK-SAME:      %x: tensor<40x7xf32>, %init: tensor<1x7xf32>) -> tensor<1x7xf32> attributes {xsplit.host} {
// CHECK-DAG:     %[[X:.*]] = bufferization.to_buffer %x
// CHECK-DAG:     %[[I:.*]] = bufferization.to_buffer %init
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<1x7xf32>
// CHECK-NEXT:    memref.copy %[[I]], %[[OUT]] : memref<1x7xf32> to memref<1x7xf32>
// CHECK-NEXT:    func.call @colmax_reduce(%[[X]], %[[OUT]])
util.func public @colmax(%x: tensor<40x7xf32>, %init: tensor<1x7xf32>) -> tensor<1x7xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<40x7xf32>) outs(%init : tensor<1x7xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
  } -> tensor<1x7xf32>
  util.return %r : tensor<1x7xf32>
}
