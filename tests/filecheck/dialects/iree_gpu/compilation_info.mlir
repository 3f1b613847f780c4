// GPU configurations fixed on an op, printed as iree-opt 3.13 prints them: the
// same CHECK lines hold for xsplit-opt's output, for iree-opt's output of the
// same input, and for the round trips through the other tool in both directions.
// RUN: xsplit-opt %s | filecheck %s
// RUN: iree-opt --mlir-print-local-scope %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt --mlir-print-local-scope | filecheck %s
// RUN: iree-opt --mlir-print-local-scope %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | iree-opt --mlir-print-local-scope | filecheck %s
// RUN: iree-opt --mlir-print-op-generic --mlir-print-local-scope %s | xsplit-opt | filecheck %s

// The f32 configuration split-k gives a static chunk on sm_80: entries come
// out sorted by name, whatever order they were written in.
// CHECK-LABEL: func.func @f32_chunk
// CHECK:       linalg.matmul {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{promote_operands = [0, 1], reduction = [0, 0, 32], thread = [4, 4, 0], workgroup = [64, 64, 0]}>, translation_info = <pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [16, 16, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2, no_reduce_shared_memory_bank_conflicts = false, use_igemm_convolution = false>}>>}
func.func @f32_chunk(%a: tensor<128x1664xf32>, %b: tensor<1664x456xf32>, %c: tensor<128x456xf32>) -> tensor<128x456xf32> {
  %r = linalg.matmul {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{workgroup = [64, 64, 0], reduction = [0, 0, 32], thread = [4, 4, 0], promote_operands = [0, 1]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [16, 16, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2, no_reduce_shared_memory_bank_conflicts = false, use_igemm_convolution = false>}>>} ins(%a, %b : tensor<128x1664xf32>, tensor<1664x456xf32>) outs(%c : tensor<128x456xf32>) -> tensor<128x456xf32>
  func.return %r : tensor<128x456xf32>
}

// What IREE picks for an f16 chunk on sm_80 (dumped with
// --iree-hal-dump-executable-configurations-to): a unit entry, the tensor-core
// intrinsic, subgroup tiles and padding.
// CHECK-LABEL: func.func @f16_chunk
// CHECK:       lowering_config = #iree_gpu.lowering_config<{convert_acc_gemm, mma_kind = #iree_gpu.mma_layout<NV_MMA_SYNC_F32_16x8x16_F16>, padding = [64, 64, 128], promote_operands = [0, 1], reduction = [0, 0, 8], subgroup = [2, 4, 0], workgroup = [64, 64, 0]}>, translation_info = <pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [128, 1, 1] subgroup_size = 32>
func.func @f16_chunk(%a: tensor<128x1664xf16>, %b: tensor<1664x456xf16>, %c: tensor<128x456xf32>) -> tensor<128x456xf32> {
  %r = linalg.matmul {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{workgroup = [64, 64, 0], subgroup = [2, 4, 0], reduction = [0, 0, 8], convert_acc_gemm, promote_operands = [0, 1], padding = [64, 64, 128], mma_kind = #iree_gpu.mma_layout<NV_MMA_SYNC_F32_16x8x16_F16>}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [128, 1, 1] subgroup_size = 32>>} ins(%a, %b : tensor<128x1664xf16>, tensor<1664x456xf16>) outs(%c : tensor<128x456xf32>) -> tensor<128x456xf32>
  func.return %r : tensor<128x456xf32>
}

// Every pipeline option alone or none, another pipeline, an MFMA intrinsic,
// an integer entry and an empty config.
// CHECK-LABEL: func.func @others
// CHECK-SAME:  a = #iree_gpu.pipeline_options<>
// CHECK-SAME:  b = #iree_gpu.pipeline_options<prefetch_num_stages = 3, use_igemm_convolution = true>
// CHECK-SAME:  c = #iree_gpu.pipeline<VectorDistribute>
// CHECK-SAME:  d = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>
// CHECK-SAME:  e = #iree_gpu.lowering_config<{}>
// CHECK-SAME:  f = #iree_gpu.pipeline_options<reorder_workgroups_strategy = <Transpose>>
// CHECK-SAME:  g = #iree_gpu.lowering_config<{foo = 3 : i64, reduction = [0, 4], workgroup = [1, 2]}>
func.func @others() attributes {a = #iree_gpu.pipeline_options<>, b = #iree_gpu.pipeline_options<use_igemm_convolution = true, prefetch_num_stages = 3>, c = #iree_gpu.pipeline<VectorDistribute>, d = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, e = #iree_gpu.lowering_config<{}>, f = #iree_gpu.pipeline_options<reorder_workgroups_strategy = <Transpose>>, g = #iree_gpu.lowering_config<{workgroup = [1, 2], reduction = [0, 4], foo = 3}>} {
  func.return
}
