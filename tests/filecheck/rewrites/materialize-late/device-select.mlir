// A device chosen at run time among several (#hal.device.select, as IREE prints
// it): the layout is the first candidate's, here VMVX's 8x8x4.
// RUN: xsplit-opt %s -p 'set-encoding,materialize-late' 2>&1 >/dev/null | filecheck %s
// CHECK: device-select.mlir:[[# @LINE + 7]]:10: remark: on @dev (vmvx): 8x8x4 data tiles
module attributes {stream.affinity.default = #hal.device.affinity<@dev>} {
  util.global private @dev = #hal.device.select<[#hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>]> : !hal.device, #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "+avx512f", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 64 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device]> : !hal.device
  func.func @one(%a: tensor<64x4001xf32>, %b: tensor<4001x32xf32>) -> tensor<64x32xf32> {
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<64x32xf32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64x32xf32>) -> tensor<64x32xf32>
    %r = linalg.matmul ins(%a, %b : tensor<64x4001xf32>, tensor<4001x32xf32>) outs(%f0 : tensor<64x32xf32>) -> tensor<64x32xf32>
    return %r : tensor<64x32xf32>
  }
}
