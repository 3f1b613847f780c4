// RUN: xsplit-opt %s --split-input-file -p 'split-lanes{always}' | filecheck %s
// RUN: xsplit-opt %s --split-input-file -p 'split-lanes{always target=sm_80}' | filecheck %s --check-prefix=GPU
// RUN: xsplit-opt %s --split-input-file -p 'split-lanes{always target=device}' > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=DEVICE < %t.0.out
// RUN: filecheck %s --check-prefix=DEVICE-REMARK < %t.0.err

// GPU-NOT: flow.dispatch.workgroups
// GPU-NOT: math.fma

// A matvec whose K (1004) is not whole vectors: 62 or 125 steps of 16 or 8
// lanes in a dispatch that reads W's first columns as a strided view (a
// prefix of K reshaped at graph level would be a copy of W), the rest of K
// a matvec beside it, and one merge into that matvec's result, so the init
// is added once.
// CHECK-LABEL: func.func @matvec_with_tail
// CHECK:         %lane_sums = flow.dispatch.workgroups(%x, %w) : (tensor<1004xf32>, tensor<256x1004xf32>) -> tensor<256x[[L:8|16]]xf32> =
// CHECK:           %x_main = iree_tensor_ext.dispatch.tensor.load %x_binding, offsets = [0], sizes = [[[MAIN:992|1000]]], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1004xf32>> -> tensor<[[MAIN]]xf32>
// CHECK:           %w_main = iree_tensor_ext.dispatch.tensor.load %w_binding, offsets = [0, 0], sizes = [256, [[MAIN]]], strides = [1, 1]
// CHECK:           %x_lanes = tensor.expand_shape %x_main {{\[\[}}0, 1]] output_shape [[[STEPS:62|125]], [[L]]]
// CHECK:           %w_lanes = tensor.expand_shape %w_main {{\[\[}}0], [1, 2]] output_shape [256, [[STEPS]], [[L]]]
// CHECK:           %sums = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x_lanes, %w_lanes : tensor<[[STEPS]]x[[L]]xf32>, tensor<256x[[STEPS]]x[[L]]xf32>) outs(%sums_zero : tensor<256x[[L]]xf32>) attrs =  {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [32, [[L]], 0], vector_common_parallel = [8, [[L]], 0], vector_reduction = [0, 0, 1]>, translation_info = <pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>} {
// CHECK:             %negative_zero = arith.constant -0.000000e+00 : f32
// CHECK:             %product = math.fma %x_element, %w_element, %negative_zero : f32
// CHECK:             %next = arith.addf %sum, %product : f32
// CHECK:           iree_tensor_ext.dispatch.tensor.store %sums, %sums_binding
// CHECK:         %w_tail = tensor.extract_slice %w[0, [[MAIN]]] [256, [[TAIL:12|4]]] [1, 1] : tensor<256x1004xf32> to tensor<256x[[TAIL]]xf32>
// CHECK:         %x_tail = tensor.extract_slice %x[[[MAIN]]] [[[TAIL]]] [1] : tensor<1004xf32> to tensor<[[TAIL]]xf32>
// CHECK:         %tail = linalg.matvec ins(%w_tail, %x_tail : tensor<256x[[TAIL]]xf32>, tensor<[[TAIL]]xf32>) outs(%c : tensor<256xf32>) -> tensor<256xf32>
// CHECK:         %merged_row = linalg.reduce ins(%lane_sums:tensor<256x[[L]]xf32>) outs(%tail:tensor<256xf32>) dimensions = [1]  {xsplit.split_part = "merge"}
// CHECK:         return %merged_row
func.func @matvec_with_tail(%w: tensor<256x1004xf32>, %x: tensor<1004xf32>, %c: tensor<256xf32>) -> tensor<256xf32> {
  %0 = linalg.matvec ins(%w, %x : tensor<256x1004xf32>, tensor<1004xf32>) outs(%c : tensor<256xf32>) -> tensor<256xf32>
  return %0 : tensor<256xf32>
}

// -----

// One row against B[n, k], K whole vectors: no tail; the row is loaded as a
// K-vector and the 1 x N init is merged into as an N-vector.
// CHECK-LABEL: func.func @row_matmul
// CHECK:         %lane_sums = flow.dispatch.workgroups(%a, %b) : (tensor<1x4096xf32>, tensor<40x4096xf32>) -> tensor<40x[[L:8|16]]xf32> =
// CHECK:           iree_tensor_ext.dispatch.tensor.load %x_binding, offsets = [0, 0], sizes = [1, 4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<1x4096xf32>> -> tensor<4096xf32>
// CHECK:           lowering_config = #iree_cpu.lowering_config<distribution = [8, [[L]], 0], vector_common_parallel = [8, [[L]], 0], vector_reduction = [0, 0, 1]>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %c_row = tensor.collapse_shape %c {{\[\[}}0, 1]] : tensor<1x40xf32> into tensor<40xf32>
// CHECK:         %merged_row = linalg.reduce ins(%lane_sums:tensor<40x[[L]]xf32>) outs(%c_row:tensor<40xf32>) dimensions = [1]
// CHECK:         %merged = tensor.expand_shape %merged_row {{\[\[}}0, 1]] output_shape [1, 40] : tensor<40xf32> into tensor<1x40xf32>
// CHECK:         return %merged
func.func @row_matmul(%a: tensor<1x4096xf32>, %b: tensor<40x4096xf32>, %c: tensor<1x40xf32>) -> tensor<1x40xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<1x4096xf32>, tensor<40x4096xf32>) outs(%c : tensor<1x40xf32>) -> tensor<1x40xf32>
  return %0 : tensor<1x40xf32>
}

// -----

// A few rows against B[n, k] (3, K = 1003): every row of A in the tile,
// its lanes and B's side by side, one FMA a product (`contract`), the tail
// of K a matmul of its own, the M x N x L sums merged over the lanes.
// CHECK-LABEL: func.func @rows_with_tail
// CHECK:         %lane_sums = flow.dispatch.workgroups(%a, %b) : (tensor<3x1003xf32>, tensor<100x1003xf32>) -> tensor<3x100x[[L:8|16]]xf32> =
// CHECK:           %x_main = iree_tensor_ext.dispatch.tensor.load %x_binding, offsets = [0, 0], sizes = [3, [[MAIN:992|1000]]], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x1003xf32>> -> tensor<3x[[MAIN]]xf32>
// CHECK:           %x_lanes = tensor.expand_shape %x_main {{\[\[}}0], [1, 2]] output_shape [3, [[STEPS:62|125]], [[L]]]
// CHECK:           %w_lanes = tensor.expand_shape %w_main {{\[\[}}0], [1, 2]] output_shape [100, [[STEPS]], [[L]]]
// CHECK:           %sums = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x_lanes, %w_lanes : tensor<3x[[STEPS]]x[[L]]xf32>, tensor<100x[[STEPS]]x[[L]]xf32>) outs(%sums_zero : tensor<3x100x[[L]]xf32>) attrs =  {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [3, 8, [[L]], 0], vector_common_parallel = [3, 4, [[L]], 0], vector_reduction = [0, 0, 0, 1]>, translation_info = <pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>} {
// CHECK:             %product = math.fma %x_element, %w_element, %negative_zero fastmath<contract> : f32
// CHECK:             %next = arith.addf %sum, %product fastmath<contract> : f32
// CHECK:           iree_tensor_ext.dispatch.tensor.store %sums, %sums_binding, offsets = [0, 0, 0], sizes = [3, 100, [[L]]], strides = [1, 1, 1]
// CHECK:         %x_tail = tensor.extract_slice %a[0, [[MAIN]]] [3, [[TAIL:11|3]]] [1, 1] : tensor<3x1003xf32> to tensor<3x[[TAIL]]xf32>
// CHECK:         %w_tail = tensor.extract_slice %b[0, [[MAIN]]] [100, [[TAIL]]] [1, 1] : tensor<100x1003xf32> to tensor<100x[[TAIL]]xf32>
// CHECK:         %tail = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x_tail, %w_tail : tensor<3x[[TAIL]]xf32>, tensor<100x[[TAIL]]xf32>) outs(%c : tensor<3x100xf32>) -> tensor<3x100xf32>
// CHECK:         %merged = linalg.reduce ins(%lane_sums:tensor<3x100x[[L]]xf32>) outs(%tail:tensor<3x100xf32>) dimensions = [2]  {xsplit.split_part = "merge"}
// CHECK:         return %merged
func.func @rows_with_tail(%a: tensor<3x1003xf32>, %b: tensor<100x1003xf32>, %c: tensor<3x100xf32>) -> tensor<3x100xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<3x1003xf32>, tensor<100x1003xf32>) outs(%c : tensor<3x100xf32>) -> tensor<3x100xf32>
  return %0 : tensor<3x100xf32>
}

// -----

// Not taken: B row-major (its rows stream as they are), five rows (over LANE_MAX_ROWS), f16, and
// a product inside a dispatch.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     flow.dispatch.workgroups
// CHECK:         linalg.matmul ins
// CHECK:         linalg.matmul indexing_maps
// CHECK:         linalg.matvec ins({{.*}} : tensor<64x1024xf16>, tensor<1024xf16>)
// CHECK:         flow.dispatch.region
// CHECK-NEXT:      linalg.matvec
// CHECK-NOT:     math.fma
func.func @left_alone(%a: tensor<1x1024xf32>, %b: tensor<1024x64xf32>, %c: tensor<1x64xf32>, %a2: tensor<5x1024xf32>, %bt: tensor<64x1024xf32>, %c2: tensor<5x64xf32>, %wh: tensor<64x1024xf16>, %xh: tensor<1024xf16>, %yh: tensor<64xf16>, %x: tensor<1024xf32>, %y: tensor<64xf32>) -> (tensor<1x64xf32>, tensor<5x64xf32>, tensor<64xf16>, tensor<64xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<1x1024xf32>, tensor<1024x64xf32>) outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  %1 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a2, %bt : tensor<5x1024xf32>, tensor<64x1024xf32>) outs(%c2 : tensor<5x64xf32>) -> tensor<5x64xf32>
  %2 = linalg.matvec ins(%wh, %xh : tensor<64x1024xf16>, tensor<1024xf16>) outs(%yh : tensor<64xf16>) -> tensor<64xf16>
  %3 = flow.dispatch.region -> (tensor<64xf32>) {
    %4 = linalg.matvec ins(%bt, %x : tensor<64x1024xf32>, tensor<1024xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
    flow.return %4 : tensor<64xf32>
  }
  return %0, %1, %2, %3 : tensor<1x64xf32>, tensor<5x64xf32>, tensor<64xf16>, tensor<64xf32>
}

// -----

// target=device: the op's own device. An AVX2 llvm-cpu device's product
// gets 8 lanes, its vector width, whatever the host's.
// CHECK-LABEL: one_device
// DEVICE-LABEL: one_device
// DEVICE:         flow.dispatch.workgroups
// DEVICE:           tensor.empty() : tensor<64x8xf32>
// DEVICE:           math.fma
// DEVICE-REMARK: remark: on @dev_a (llvm-cpu): split-lanes: K = 1024 as 128 steps of 8 lanes
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.global private @dev_a = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "+avx,+avx2,+fma", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 32 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  func.func @one_device(%w: tensor<64x1024xf32>, %x: tensor<1024xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
    %0 = linalg.matvec ins(%w, %x : tensor<64x1024xf32>, tensor<1024xf32>) outs(%c : tensor<64xf32>) -> tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}

// -----

// With a VMVX device beside it, nothing is split, on either device, with
// any target=: IREE 3.13 may build a dispatch for each device's executable
// target, and VMVX fails on llvm-cpu tiles.
// CHECK-LABEL: two_devices
// CHECK-NOT:     math.fma
// DEVICE-LABEL: two_devices
// DEVICE-NOT:     math.fma
// DEVICE-REMARK-NOT: split-lanes
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.global private @dev_a = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "+avx,+avx2,+fma", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 32 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  util.global private @dev_b = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>]> : !hal.device
  func.func @two_devices(%w: tensor<64x1024xf32>, %x: tensor<1024xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
    %0 = linalg.matvec ins(%w, %x : tensor<64x1024xf32>, tensor<1024xf32>) outs(%c : tensor<64xf32>) -> tensor<64xf32>
    %tw = flow.tensor.transfer %w : tensor<64x1024xf32> to #hal.device.affinity<@dev_b>
    %tx = flow.tensor.transfer %x : tensor<1024xf32> to #hal.device.affinity<@dev_b>
    %tc = flow.tensor.transfer %c : tensor<64xf32> to #hal.device.affinity<@dev_b>
    %1 = linalg.matvec ins(%tw, %tx : tensor<64x1024xf32>, tensor<1024xf32>) outs(%tc : tensor<64xf32>) -> tensor<64xf32>
    %back = flow.tensor.transfer %1 : tensor<64xf32> to #hal.device.affinity<@dev_a>
    %s = arith.addf %0, %back : tensor<64xf32>
    return %s : tensor<64xf32>
  }
}
