// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=own factor=4}' > %t.0.out 2> %t.0.err && filecheck %s < %t.0.out
// RUN: filecheck %s --check-prefix=REMARK < %t.0.err
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=own factor=4 merge=deterministic}' 2>/dev/null | filecheck %s --check-prefix=DET
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=iree}' 2>&1 | filecheck %s --check-prefix=IREE
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=cpu kernel=own}' 2>&1 | filecheck %s --check-prefix=CPU
// RUN: xsplit-opt --split-input-file %s -p 'auto{target=sm_80 kernel=own}' 2>/dev/null | filecheck %s --check-prefix=AUTO
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80}' 2>&1 >/dev/null | filecheck %s --check-prefix=CHOICE
// RUN: xsplit-opt --split-input-file %s -p 'split-k{kernel=own factor=4}' 2>&1 | filecheck %s --check-prefix=NO-TARGET
// split-k{kernel=own}'s cases of one kernel a function; those of two are
// in own-kernel-two-kernels.mlir, so that lit runs the two files side by
// side. Each file has every RUN line: every pipeline meets every case.

// A matmul as users write it, its init a fill: outlined into a kernel in
// destination-passing form, lowered through the gemm stages; the function
// keeps its signature and becomes the host.
// REMARK: remark: split-k: kernel=own: own kernel 4 chunks of 256
// REMARK-SAME: (merge atomic); IREE's code whole
// REMARK: remark: split-k: gemm-kernel: on sm_80, 64x64 C tiles over 4 K chunks of 256 (grid 1x1x4, 128 threads, K steps of 16, double-buffered with cp.async); merge atomic
// CHECK-LABEL: func.func @filled_gemm(%a: memref<37x1013xf32>, %b: memref<1013x45xf32>, %out: memref<37x45xf32>)
// CHECK-SAME: gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 4>
// CHECK-NOT: xsplit_gemm.
// CHECK: memref.atomic_rmw addf
// CHECK-LABEL: func.func @filled(%a: tensor<37x1013xf32>, %b: tensor<1013x45xf32>) -> tensor<37x45xf32> attributes {xsplit.host}
// CHECK: %[[A:.*]] = bufferization.to_buffer %a
// CHECK: %[[B:.*]] = bufferization.to_buffer %b
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<37x45xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<37x45xf32>)
// CHECK: func.call @filled_gemm(%[[A]], %[[B]], %[[OUT]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict
// CHECK: func.return %[[R]] : tensor<37x45xf32>
// DET-LABEL: func.func @filled_gemm_partials(%a: memref<37x1013xf32>, %b: memref<1013x45xf32>, %partials: memref<4x37x45xf32>)
// DET-LABEL: func.func @filled_gemm_merge(%partials: memref<4x37x45xf32>, %out: memref<37x45xf32>)
// DET-LABEL: func.func @filled(
// DET: linalg.fill
// DET: %[[P:.*]] = memref.alloc() : memref<4x37x45xf32>
// DET: func.call @filled_gemm_partials(%{{.*}}, %{{.*}}, %[[P]])
// DET: func.call @filled_gemm_merge(%[[P]], %{{.*}})
// DET: memref.dealloc %[[P]]
// IREE-NOT: own kernel
// IREE-LABEL: func.func @filled(
// IREE-NOT: xsplit.host
// IREE: linalg.matmul
// CPU: remark: split-k: kernel=own: cpu is not a GPU (the kernel needs threads and workgroup memory); the op takes the usual split
// CPU-NOT: xsplit.host
// With kernel=auto the model weighs it: K = 1013 is too short for its counts.
// CHOICE: own-kernel.mlir:[[# @LINE + 17]]:3: remark: split-k: own kernel not modeled: 8 or 32 or 128 chunks of K = 1013 would be shorter than 256
// Without a target there is no GPU to write it for.
// NO-TARGET: remark: split-k: kernel=own needs target= (a GPU); the op takes the usual split
// NO-TARGET-NOT: xsplit.host
// AUTO: hal.executable.source private @filled_gemm_dispatch
// AUTO: #iree_codegen.no_pipeline
// AUTO-LABEL: func.func @filled_gemm(%{{.*}}: tensor<37x1013xf32>, %{{.*}}: tensor<1013x45xf32>, %{{.*}}: tensor<37x45xf32>) -> tensor<37x45xf32>
// AUTO: flow.dispatch @filled_gemm_dispatch::@filled_gemm
// AUTO-LABEL: func.func @filled(%a: tensor<37x1013xf32>, %b: tensor<1013x45xf32>) -> tensor<37x45xf32> {
// AUTO: %[[E:.*]] = tensor.empty() : tensor<37x45xf32>
// AUTO: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<37x45xf32>)
// AUTO: %[[X:.*]] = func.call @filled_gemm(%a, %b, %[[F]])
// AUTO: func.return %[[X]]
func.func @filled(%a: tensor<37x1013xf32>, %b: tensor<1013x45xf32>) -> tensor<37x45xf32> {
  %cst = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<37x45xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<37x45xf32>) -> tensor<37x45xf32>
  %x = linalg.matmul ins(%a, %b : tensor<37x1013xf32>, tensor<1013x45xf32>) outs(%c : tensor<37x45xf32>) -> tensor<37x45xf32>
  return %x : tensor<37x45xf32>
}

// -----
// f16 operands accumulated into f32 C: the kernel stages them as f16 and
// multiplies them on sm_80's tensor cores.
// CHECK-LABEL: func.func @half_gemm(%a: memref<20x300xf16>, %b: memref<300x24xf16>, %out: memref<20x24xf32>)
// CHECK: nvgpu.mma.sync
// CHECK-LABEL: func.func @half(
// CHECK-SAME: attributes {xsplit.host}
// DET-LABEL: func.func @half_gemm_partials(
// DET-LABEL: func.func @half_gemm_merge(
// DET: func.call @half_gemm_partials(
// AUTO: hal.executable.source private @half_gemm_dispatch
// AUTO-LABEL: func.func @half(
// AUTO: func.call @half_gemm(
// IREE-LABEL: func.func @half(
// CPU: remark: split-k: kernel=own: cpu is not a GPU (the kernel needs threads and workgroup memory); the op takes the usual split
// CHOICE: remark: split-k: own kernel not modeled: 8 or 32 or 128 chunks of K = 300 would be shorter than 256
func.func @half(%a: tensor<20x300xf16>, %b: tensor<300x24xf16>) -> tensor<20x24xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x24xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<20x24xf32>) -> tensor<20x24xf32>
  %x = linalg.matmul ins(%a, %b : tensor<20x300xf16>, tensor<300x24xf16>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  return %x : tensor<20x24xf32>
}

// -----
// None of these takes the own kernel, whatever the pipeline.
// DET-NOT: xsplit.host
// AUTO-LABEL: func.func @transposed(
// AUTO-NOT: hal.executable.source
// AUTO-LABEL: func.func @dynamic(
// AUTO-NOT: hal.executable.source
// AUTO-LABEL: func.func @batched(
// AUTO-NOT: hal.executable.source
// AUTO-LABEL: func.func @half_accumulator(
// CPU: remark: split-k: kernel=own: cpu is not a GPU
// CPU-NOT: xsplit.host
// CHOICE: remark: split-k: not xsplit's own kernel: its operands are transposed or broadcast
// CHOICE: remark: not split: the cost model needs static sizes
// CHOICE: remark: split-k: not xsplit's own kernel: it is a linalg.batch_matmul
// CHOICE: remark: split-k: not xsplit's own kernel: its accumulator is f16
// IREE-NOT: xsplit.host
// NO-TARGET: remark: split-k: kernel=own needs target= (a GPU); the op takes the usual split
// NO-TARGET-NOT: xsplit.host


// What the kernel cannot take keeps split-k's usual split, and says why.
// REMARK: remark: split-k: not xsplit's own kernel: its operands are transposed or broadcast (indexing_maps); left to IREE's code
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT: xsplit.host
// CHECK: scf.forall
// CHECK-NOT: xsplit.host
func.func @transposed(%a: tensor<20x300xf32>, %b: tensor<24x300xf32>, %c: tensor<20x24xf32>) -> tensor<20x24xf32> {
  %x = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<20x300xf32>, tensor<24x300xf32>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  return %x : tensor<20x24xf32>
}

// -----

// REMARK: remark: split-k: not xsplit's own kernel: its shapes are dynamic; left to IREE's code
// CHECK-LABEL: func.func @dynamic(
// CHECK-NOT: xsplit.host
func.func @dynamic(%a: tensor<20x?xf32>, %b: tensor<?x24xf32>, %c: tensor<20x24xf32>) -> tensor<20x24xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<20x?xf32>, tensor<?x24xf32>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  return %x : tensor<20x24xf32>
}

// -----

// REMARK: remark: split-k: not xsplit's own kernel: it is a linalg.batch_matmul, not a linalg.matmul; left to IREE's code
// CHECK-LABEL: func.func @batched(
// CHECK-NOT: xsplit.host
func.func @batched(%a: tensor<2x20x300xf32>, %b: tensor<2x300x24xf32>, %c: tensor<2x20x24xf32>) -> tensor<2x20x24xf32> {
  %x = linalg.batch_matmul ins(%a, %b : tensor<2x20x300xf32>, tensor<2x300x24xf32>) outs(%c : tensor<2x20x24xf32>) -> tensor<2x20x24xf32>
  return %x : tensor<2x20x24xf32>
}

// -----

// REMARK: remark: split-k: not xsplit's own kernel: its accumulator is f16; the kernel accumulates into f32 only; left to IREE's code
// CHECK-LABEL: func.func @half_accumulator(
// CHECK-NOT: xsplit.host
func.func @half_accumulator(%a: tensor<20x300xf16>, %b: tensor<300x24xf16>, %c: tensor<20x24xf16>) -> tensor<20x24xf16> {
  %x = linalg.matmul ins(%a, %b : tensor<20x300xf16>, tensor<300x24xf16>) outs(%c : tensor<20x24xf16>) -> tensor<20x24xf16>
  return %x : tensor<20x24xf16>
}

// -----
// An aligned shape on sm_80: the own kernel's rate was never fitted to a
// device run, so IREE's static chunks stay; the remark gives both modeled
// times (IREE's staged chunks at 163 GFLOP/s an SM beat the own kernel's
// anchored 144 and its atomics anyway). The own kernel takes its table's
// 128x128 tiles on this output (4 of them), in 54 chunks: two workgroups
// on each of the 108 SMs, one wave (`own_counts`); in 32, its 128
// workgroups would hold 19 KiB in flight an SM, short of the 32 KiB that
// cover the memory's latency; in IREE's 128, 3 waves at 79% fill.
// CHOICE: remark: split-k: own kernel not measured on sm_80: its f32 rate is anchored on another kernel's runs
// CHOICE-SAME: kept IREE's code in 128 static chunks
// CHOICE-SAME: own kernel 54 chunks of 1216: 216 workgroups, 1 wave at 100% fill
// CHOICE-SAME: IREE's code in 128 static chunks {{.*}} (kernel=own takes it)
// CHOICE: remark: split-k: sm_80 chose factor 128
// CHECK-LABEL: func.func @aligned(
// CHECK-SAME: attributes {xsplit.host}
// DET-LABEL: func.func @aligned_gemm_partials(
// DET-LABEL: func.func @aligned_gemm_merge(
// DET: func.call @aligned_gemm_partials(
// AUTO: hal.executable.source private @aligned_gemm_dispatch
// AUTO-LABEL: func.func @aligned(
// AUTO: func.call @aligned_gemm(
// IREE-LABEL: func.func @aligned(
// CPU: remark: split-k: kernel=own: cpu is not a GPU (the kernel needs threads and workgroup memory); the op takes the usual split
// IREE-NOT: xsplit.host
// NO-TARGET: remark: split-k: kernel=own needs target= (a GPU); the op takes the usual split
// NO-TARGET-NOT: xsplit.host
// CPU-NOT: xsplit.host
func.func @aligned(%a: tensor<256x65536xf32>, %b: tensor<65536x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<256x65536xf32>, tensor<65536x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %x : tensor<256x256xf32>
}
