// auto without target= models each op on its own device and says which:
// with an AVX llvm-cpu device and a VMVX one, the model splits the
// 128x128x2048 matmul on the CPU and leaves VMVX's whole (its interpreted
// arithmetic, not its memory traffic, bounds it). target= still overrides.
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto' 2>/dev/null | filecheck %s
// RUN: env XSPLIT_CPU=znver4 xsplit-opt %s -p 'auto{target=cpu}' 2>&1 >/dev/null | filecheck %s --check-prefix=OVERRIDE

// REMARK: remark: on @dev_a (llvm-cpu): not encoded: split chosen: 128x128 output, K = 2048 on llvm-cpu
// REMARK: remark: on @dev_b (vmvx): not encoded: none chosen: 128x128 output, K = 2048 on vmvx
// REMARK: remark: on @dev_a (llvm-cpu): split-k: llvm-cpu chose
// REMARK: remark: on @dev_b (vmvx): not split: no split pays on vmvx
// The split is on dev_a's matmul, before the values move to dev_b.
// CHECK:     split_reduction_mapping
// CHECK:     flow.tensor.transfer
// CHECK-NOT: split_reduction_mapping
// OVERRIDE: remark: on @dev_b (vmvx): split-k: cpu chose
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.global private @dev_a = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "+avx,+avx2,+fma", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 32 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  util.global private @dev_b = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>]> : !hal.device
  func.func @two(%a: tensor<128x2048xf32>, %b: tensor<2048x128xf32>) -> tensor<128x128xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x128xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
    %r0 = linalg.matmul ins(%a, %b : tensor<128x2048xf32>, tensor<2048x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
    %ta = flow.tensor.transfer %a : tensor<128x2048xf32> to #hal.device.affinity<@dev_b>
    %tb = flow.tensor.transfer %b : tensor<2048x128xf32> to #hal.device.affinity<@dev_b>
    %e1 = tensor.empty() : tensor<128x128xf32>
    %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<128x128xf32>) -> tensor<128x128xf32>
    %r1 = linalg.matmul ins(%ta, %tb : tensor<128x2048xf32>, tensor<2048x128xf32>) outs(%f1 : tensor<128x128xf32>) -> tensor<128x128xf32>
    %back = flow.tensor.transfer %r1 : tensor<128x128xf32> to #hal.device.affinity<@dev_a>
    %s = arith.addf %r0, %back : tensor<128x128xf32>
    return %s : tensor<128x128xf32>
  }
}
