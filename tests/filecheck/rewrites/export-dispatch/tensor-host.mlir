// A program as users write it, after lower-reduce: export-dispatch turns the
// host side back into tensors around the kernel's dispatch, in place. The
// function keeps its signature and its other ops; iree-opt reads the result.
// RUN: xsplit-opt %s -p 'lower-reduce{target=sm_80 stage=atomic},export-dispatch{target=sm_80}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt %s -p 'lower-reduce{target=sm_80 stage=atomic deterministic=true},export-dispatch{target=sm_80}' 2>/dev/null | filecheck %s --check-prefix=DET
// RUN: xsplit-opt %s -p 'lower-reduce{target=sm_80 stage=atomic},export-dispatch{target=sm_80}' 2>/dev/null | iree-opt > /dev/null

// CHECK-LABEL: func.func @rowsum_reduce(%x: tensor<5x300xf32>, %out: tensor<5xf32>) -> tensor<5xf32>
// CHECK:         flow.dispatch @rowsum_reduce_dispatch::@rowsum_reduce(%x, %out)
// CHECK-LABEL: func.func @rowsum(
// CHECK-SAME:      %x: tensor<5x300xf32>) -> tensor<5xf32> {
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<5xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT:    %[[R:.*]] = func.call @rowsum_reduce(%x, %[[F]]) : (tensor<5x300xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[R]], %[[R]] : tensor<5xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<5xf32>
// CHECK-NOT:     bufferization
// CHECK-NOT:     xsplit.host

// DET-LABEL: func.func @rowsum(
// DET:         %[[F:.*]] = linalg.fill
// DET-NEXT:    %[[P:.*]] = tensor.empty() : tensor<{{[0-9]+}}x5xf32>
// DET-NEXT:    %[[PW:.*]] = func.call @rowsum_reduce_partials(%x, %[[F]], %[[P]])
// DET-NEXT:    %[[R:.*]] = func.call @rowsum_reduce_merge(%[[PW]], %[[F]])
// DET-NEXT:    %[[Y:.*]] = arith.mulf %[[R]], %[[R]] : tensor<5xf32>
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
