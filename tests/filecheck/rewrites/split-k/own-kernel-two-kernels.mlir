// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=own factor=4}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=own factor=4 merge=deterministic}' 2>/dev/null | filecheck %s --check-prefix=DET
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=iree}' 2>&1 | filecheck %s --check-prefix=IREE
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=cpu kernel=own}' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: xsplit-opt --split-input-file %s -p 'auto{target=sm_80 kernel=own}' 2>/dev/null | filecheck %s --check-prefix=AUTO
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80}' 2>&1 >/dev/null | filecheck %s --check-prefix=CHOICE
// RUN: xsplit-opt --split-input-file %s -p 'split-k{kernel=own factor=4}' 2>&1 | filecheck %s --check-prefix=NO-TARGET
// split-k{kernel=own}'s cases of two kernels a function (own-kernel.mlir
// has those of one), with every RUN line: every pipeline meets every case.
// An imported util.func, two matmuls in a row (the second reads the
// first's result) and other ops around them: each matmul is a kernel, the
// rest of the program stays, and C from an argument is copied, not filled.
// CHECK-LABEL: func.func @chain_gemm(%a: memref<8x600xf32>, %b: memref<600x16xf32>, %out: memref<8x16xf32>)
// CHECK-LABEL: func.func @chain_gemm_1(%{{.*}}: memref<8x16xf32>, %w: memref<16x512xf32>, %out: memref<8x512xf32>)
// CHECK-LABEL: util.func public @chain(%a: tensor<8x600xf32>, %b: tensor<600x16xf32>, %c: tensor<8x16xf32>, %w: tensor<16x512xf32>, %d: tensor<8x512xf32>) -> tensor<8x512xf32> attributes {xsplit.host}
// CHECK: %[[C:.*]] = bufferization.to_buffer %c
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: memref.copy %[[C]], %[[OUT]]
// CHECK: func.call @chain_gemm(
// CHECK: %[[X:.*]] = bufferization.to_tensor %[[OUT]]
// CHECK: %[[Y:.*]] = arith.addf %[[X]], %c : tensor<8x16xf32>
// CHECK: bufferization.to_buffer %[[Y]]
// CHECK: func.call @chain_gemm_1(
// CHECK: %[[Z:.*]] = bufferization.to_tensor
// CHECK: %[[S:.*]] = arith.mulf %[[Z]], %d : tensor<8x512xf32>
// CHECK: util.return %[[S]]
// DET-LABEL: func.func @chain_gemm_partials(
// DET-LABEL: func.func @chain_gemm_merge(
// DET-LABEL: util.func public @chain(
// DET: func.call @chain_gemm_partials(
// DET: func.call @chain_gemm_merge(
// DET: func.call @chain_gemm_1(
// IREE-LABEL: util.func public @chain(
// IREE: linalg.matmul
// IREE: linalg.matmul
// IREE-NOT: xsplit.host
// NO-TARGET: remark: split-k: kernel=own needs target= (a GPU); the op takes the usual split
// NO-TARGET-NOT: xsplit.host
// CPU: remark: split-k: kernel=own: cpu is not a GPU (the kernel needs threads and workgroup memory); the op takes the usual split
// CPU-NOT: xsplit.host
// CHOICE: remark: split-k: own kernel not modeled: 8 or 32 or 128 chunks of K = 600 would be shorter than 256
// CHOICE: remark: split-k: own kernel not modeled: 8 or 32 or 128 chunks of K = 16 would be shorter than 256
// AUTO: hal.executable.source private @chain_gemm_dispatch
// AUTO: hal.executable.source private @chain_gemm_1_dispatch
// AUTO-LABEL: util.func public @chain(
// AUTO: func.call @chain_gemm(%a, %b, %c)
// AUTO: func.call @chain_gemm_1(
util.func public @chain(%a: tensor<8x600xf32>, %b: tensor<600x16xf32>, %c: tensor<8x16xf32>, %w: tensor<16x512xf32>, %d: tensor<8x512xf32>) -> tensor<8x512xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<8x600xf32>, tensor<600x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = arith.addf %x, %c : tensor<8x16xf32>
  %z = linalg.matmul ins(%y, %w : tensor<8x16xf32>, tensor<16x512xf32>) outs(%d : tensor<8x512xf32>) -> tensor<8x512xf32>
  %s = arith.mulf %z, %d : tensor<8x512xf32>
  util.return %s : tensor<8x512xf32>
}

// -----
// Two deterministic kernels in one function: each pair of kernels has names
// of its own.
// DET-LABEL: func.func @two_gemm_partials(
// DET-LABEL: func.func @two_gemm_merge(
// DET-LABEL: func.func @two_gemm_1_partials(
// DET-LABEL: func.func @two_gemm_1_merge(
// DET-LABEL: func.func @two(
// DET: func.call @two_gemm_partials(
// DET: func.call @two_gemm_merge(
// DET: func.call @two_gemm_1_partials(
// DET: func.call @two_gemm_1_merge(
// CHECK-LABEL: func.func @two_gemm(
// CHECK-LABEL: func.func @two_gemm_1(
// CHECK-LABEL: func.func @two(
// CHECK-SAME: attributes {xsplit.host}
// IREE-NOT: xsplit.host
// NO-TARGET: remark: split-k: kernel=own needs target= (a GPU); the op takes the usual split
// NO-TARGET-NOT: xsplit.host
// CPU: remark: split-k: kernel=own: cpu is not a GPU (the kernel needs threads and workgroup memory); the op takes the usual split
// CPU-NOT: xsplit.host
// CHOICE: remark: split-k: own kernel not modeled: 8 or 32 or 128 chunks of K = 600 would be shorter than 256
// CHOICE: remark: split-k: own kernel not modeled: 8 or 32 or 128 chunks of K = 600 would be shorter than 256
// AUTO: hal.executable.source private @two_gemm_dispatch
// AUTO: hal.executable.source private @two_gemm_1_dispatch
// AUTO-LABEL: func.func @two(
// AUTO: func.call @two_gemm(%a, %b, %c)
// AUTO: func.call @two_gemm_1(%a, %b, %d)
func.func @two(%a: tensor<8x600xf32>, %b: tensor<600x16xf32>, %c: tensor<8x16xf32>, %d: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %x = linalg.matmul ins(%a, %b : tensor<8x600xf32>, tensor<600x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%a, %b : tensor<8x600xf32>, tensor<600x16xf32>) outs(%d : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %x, %y : tensor<8x16xf32>, tensor<8x16xf32>
}
