// Each device its own layout: materialize-late without target= resolves each
// encoded contraction for the device it runs on (xsplit.analysis.devices):
// 16x16x1 on an AVX-512 llvm-cpu device, 8x8x1 on an AVX one, 8x8x4 on VMVX,
// no encodings on CUDA. Values cross devices only as plain tensors.
// RUN: xsplit-opt %s -p 'set-encoding,materialize-late' --split-input-file > %t.0.out 2> %t.0.err && filecheck %s < %t.0.out
// RUN: filecheck %s --check-prefix=REMARK < %t.0.err
// target= still overrides every device (here a Zen 3 host CPU: AVX2, 8x8x1).
// RUN: env XSPLIT_CPU=znver3 xsplit-opt %s -p 'set-encoding,materialize-late{target=cpu}' --split-input-file 2>/dev/null | filecheck %s --check-prefix=HOST

// CHECK-LABEL: sym_name = "cpu_and_vmvx"
// The llvm-cpu device's matmul: AVX-512 tiles.
// CHECK:         "linalg.pack"({{.*}}static_inner_tiles = array<i64: 16, 1>{{.*}}(tensor<64x4001xf32>, tensor<4x4001x16x1xf32>, f32)
// CHECK:         "linalg.pack"({{.*}}static_inner_tiles = array<i64: 16, 1>{{.*}}(tensor<4001x32xf32>, tensor<2x4001x16x1xf32>, f32)
// CHECK:         "linalg.mmt4d"
// CHECK:         "linalg.unpack"({{.*}}static_inner_tiles = array<i64: 16, 16>
// The VMVX device's: VMVX's resolver's 8x8x4, packed after the transfers.
// CHECK:         %[[TA:.*]] = "flow.tensor.transfer"(%{{.*}}) <{target = #hal.device.affinity<@dev_b>}> : (tensor<64x4001xf32>)
// CHECK:         %[[TB:.*]] = "flow.tensor.transfer"(%{{.*}}) <{target = #hal.device.affinity<@dev_b>}> : (tensor<4001x32xf32>)
// CHECK:         "flow.dispatch.workgroups"(%[[TA]])
// CHECK:         "linalg.pack"({{.*}}static_inner_tiles = array<i64: 8, 4>{{.*}}(tensor<64x4001xf32>, tensor<8x1001x8x4xf32>, f32)
// CHECK:         "flow.dispatch.workgroups"(%[[TB]])
// CHECK:         "linalg.pack"({{.*}}static_inner_tiles = array<i64: 8, 4>{{.*}}(tensor<4001x32xf32>, tensor<4x1001x8x4xf32>, f32)
// CHECK:         "linalg.mmt4d"
// Unpacked on the VMVX device, before the result goes back.
// CHECK:         "linalg.unpack"({{.*}}static_inner_tiles = array<i64: 8, 8>{{.*}} -> tensor<64x32xf32>
// CHECK:         "flow.tensor.transfer"(%{{.*}}) <{target = #hal.device.affinity<@dev_a>}> : (tensor<64x32xf32>) -> tensor<64x32xf32>
// REMARK: remark: on @dev_a (llvm-cpu): 16x16x1 data tiles
// REMARK: remark: on @dev_b (vmvx): 8x8x4 data tiles
// HOST-LABEL: sym_name = "cpu_and_vmvx"
// HOST-NOT:     array<i64: 8, 4>
// HOST-NOT:     array<i64: 16, 1>
// HOST:         static_inner_tiles = array<i64: 8, 1>
// HOST-NOT:     array<i64: 8, 4>
// HOST-NOT:     array<i64: 16, 1>
// HOST-LABEL: sym_name = "avx_and_avx512"
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.global private @dev_a = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "+avx512f", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 64 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  util.global private @dev_b = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>]> : !hal.device
  func.func @cpu_and_vmvx(%a: tensor<64x4001xf32>, %b: tensor<4001x32xf32>) -> tensor<64x32xf32> {
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<64x32xf32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64x32xf32>) -> tensor<64x32xf32>
    %on_a = linalg.matmul ins(%a, %b : tensor<64x4001xf32>, tensor<4001x32xf32>) outs(%f0 : tensor<64x32xf32>) -> tensor<64x32xf32>
    %ta = flow.tensor.transfer %a : tensor<64x4001xf32> to #hal.device.affinity<@dev_b>
    %tb = flow.tensor.transfer %b : tensor<4001x32xf32> to #hal.device.affinity<@dev_b>
    %e1 = tensor.empty() : tensor<64x32xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x32xf32>) -> tensor<64x32xf32>
    %on_b = linalg.matmul ins(%ta, %tb : tensor<64x4001xf32>, tensor<4001x32xf32>) outs(%f1 : tensor<64x32xf32>) -> tensor<64x32xf32>
    %back = flow.tensor.transfer %on_b : tensor<64x32xf32> to #hal.device.affinity<@dev_a>
    %sum = arith.addf %on_a, %back : tensor<64x32xf32>
    return %sum : tensor<64x32xf32>
  }
}

// -----

// Two llvm-cpu devices, AVX and AVX-512: the resolver reads cpu_features.
// The second matmul carries its own affinity.
// CHECK-LABEL: sym_name = "avx_and_avx512"
// CHECK:         "linalg.pack"({{.*}}static_inner_tiles = array<i64: 8, 1>{{.*}}(tensor<48x300xf32>, tensor<6x300x8x1xf32>, f32)
// CHECK:         "linalg.pack"({{.*}}static_inner_tiles = array<i64: 16, 1>{{.*}}(tensor<48x300xf32>, tensor<3x300x16x1xf32>, f32)
// REMARK: remark: on @avx (llvm-cpu): 8x8x1 data tiles
// REMARK: remark: on @avx512 (llvm-cpu): 16x16x1 data tiles
module attributes {stream.affinity.default = #hal.device.affinity<@avx>} {
  util.global private @avx = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "haswell", cpu_features = "+avx,+avx2,+fma", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 32 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  util.global private @avx512 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "+avx,+avx2,+fma,+avx512f", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 64 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  func.func @avx_and_avx512(%a: tensor<48x300xf32>, %b: tensor<300x40xf32>, %c: tensor<48x40xf32>) -> (tensor<48x40xf32>, tensor<48x40xf32>) {
    %r0 = linalg.matmul ins(%a, %b : tensor<48x300xf32>, tensor<300x40xf32>) outs(%c : tensor<48x40xf32>) -> tensor<48x40xf32>
    %r1 = linalg.matmul {stream.affinity = #hal.device.affinity<@avx512>} ins(%a, %b : tensor<48x300xf32>, tensor<300x40xf32>) outs(%c : tensor<48x40xf32>) -> tensor<48x40xf32>
    return %r0, %r1 : tensor<48x40xf32>, tensor<48x40xf32>
  }
}

// -----

// CUDA has no encoding resolver: its matmul loses its encodings, the CPU's keeps its tiles.
// CHECK-LABEL: sym_name = "cpu_and_cuda"
// CHECK:         "linalg.pack"({{.*}}static_inner_tiles = array<i64: 16, 1>
// CHECK:         "flow.tensor.transfer"{{.*}}@gpu
// CHECK-NOT:     "linalg.pack"
// CHECK:         "linalg.matmul"
// REMARK: remark: on @cpu (llvm-cpu): 16x16x1 data tiles
// REMARK: remark: on @gpu (cuda): encodings dropped (sm_80)
module attributes {stream.affinity.default = #hal.device.affinity<@cpu>} {
  util.global private @cpu = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "+avx512f", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 64 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  util.global private @gpu = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_80", features = "+ptx76", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 166912, max_workgroup_counts = [2147483647, 65535, 65535]>>}>]> : !hal.device
  func.func @cpu_and_cuda(%a: tensor<64x512xf32>, %b: tensor<512x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %r0 = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    %t = flow.tensor.transfer %r0 : tensor<64x64xf32> to #hal.device.affinity<@gpu>
    %tb = flow.tensor.transfer %b : tensor<512x64xf32> to #hal.device.affinity<@gpu>
    %tc = flow.tensor.transfer %c : tensor<64x64xf32> to #hal.device.affinity<@gpu>
    %ta = flow.tensor.transfer %a : tensor<64x512xf32> to #hal.device.affinity<@gpu>
    %r1 = linalg.matmul ins(%ta, %tb : tensor<64x512xf32>, tensor<512x64xf32>) outs(%tc : tensor<64x64xf32>) -> tensor<64x64xf32>
    %back = flow.tensor.transfer %r1 : tensor<64x64xf32> to #hal.device.affinity<@cpu>
    return %back : tensor<64x64xf32>
  }
}

// -----

// Two devices and no default: a matmul on block arguments has no device. It
// keeps today's behaviour (cpu) and a remark says so.
// REMARK: remark: device not determined (no affinity places it and the module has no stream.affinity.default); using target=cpu
module {
  util.global private @one = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>]> : !hal.device
  util.global private @two = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>]> : !hal.device
  func.func @undetermined(%a: tensor<16x64xf32>, %b: tensor<64x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
    return %r : tensor<16x16xf32>
  }
}

