// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=own factor=4},materialize-late' 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=gfx942 kernel=own factor=4},materialize-late' 2>/dev/null | filecheck %s --check-prefix=GFX942
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=own factor=4 merge=deterministic},materialize-late' 2>/dev/null | filecheck %s --check-prefix=DET
// RUN: xsplit-opt --split-input-file %s -p 'split-k{target=sm_80 kernel=own factor=4}' 2>/dev/null | filecheck %s --check-prefix=MARKED

// split-k's own kernel leaves a host calling a kernel on memrefs;
// materialize-late puts both in the custom-dispatch form iree-compile takes
// (as export-dispatch{target=sm_80 called=true} does), for the target the
// kernel was lowered for: the kernel in a hal.executable.source lowered as
// written, its f32 merge a relaxed device-scope atomic, and the host a
// tensor program calling it through flow.dispatch.
// MARKED: func.func @filled_gemm(%a: memref<37x1013xf32>, %b: memref<1013x45xf32>, %out: memref<37x45xf32>) attributes {{{.*}}xsplit.kernel_target = "sm_80"{{.*}}}
// MARKED: func.func @filled({{.*}}) -> tensor<37x45xf32> attributes {xsplit.host}
// CHECK: hal.executable.source private @filled_gemm_dispatch {
// CHECK: func.func @filled_gemm() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [128, 1, 1]>}
// CHECK-NOT: memref.atomic_rmw
// CHECK: llvm.atomicrmw fadd {{.*}} syncscope("device") monotonic
// CHECK: func.func @filled_gemm(%a: tensor<37x1013xf32>, %b: tensor<1013x45xf32>, %out: tensor<37x45xf32>) -> tensor<37x45xf32> {
// CHECK-NEXT: flow.dispatch @filled_gemm_dispatch::@filled_gemm(%a, %b, %out)
// CHECK: func.func @filled(%a: tensor<37x1013xf32>, %b: tensor<1013x45xf32>) -> tensor<37x45xf32> {
// CHECK: linalg.fill
// CHECK: func.call @filled_gemm(
// CHECK-NOT: xsplit.host
// CHECK-NOT: xsplit.kernel_target
// GFX942: func.func @filled_gemm() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [{{.*}}]>}
// GFX942: llvm.atomicrmw fadd {{.*}} syncscope("agent") monotonic
// GFX942: flow.dispatch @filled_gemm_dispatch::@filled_gemm(
// GFX942-NOT: xsplit.host
// The deterministic merge: two kernels (partials, merge), one host.
// DET: hal.executable.source private @filled_gemm_partials_dispatch
// DET: hal.executable.source private @filled_gemm_merge_dispatch
// DET: func.func @filled(
// DET: func.call @filled_gemm_partials(
// DET: func.call @filled_gemm_merge(
// DET-NOT: xsplit.host
func.func @filled(%a: tensor<37x1013xf32>, %b: tensor<1013x45xf32>) -> tensor<37x45xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x45xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<37x45xf32>) -> tensor<37x45xf32>
  %x = linalg.matmul ins(%a, %b : tensor<37x1013xf32>, tensor<1013x45xf32>) outs(%c : tensor<37x45xf32>) -> tensor<37x45xf32>
  return %x : tensor<37x45xf32>
}

// -----

// A kernel on memrefs that split-k did not write, and a host of it, pass
// through materialize-late as they are (export-dispatch exports them).
// CHECK-LABEL: func.func @mine(%x: memref<4xf32>)
// GFX942-LABEL: func.func @mine(%x: memref<4xf32>)
// DET-LABEL: func.func @mine(%x: memref<4xf32>)
// CHECK: func.func @host(%x: memref<4xf32>) attributes {xsplit.host}
// CHECK-NOT: hal.executable.source
func.func @mine(%x: memref<4xf32>) {
  return
}
func.func @host(%x: memref<4xf32>) attributes {xsplit.host} {
  func.call @mine(%x) : (memref<4xf32>) -> ()
  return
}
