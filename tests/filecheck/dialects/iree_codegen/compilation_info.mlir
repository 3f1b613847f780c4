// A CPU configuration fixed on an op, printed as iree-opt 3.13 prints it: the
// same CHECK lines hold for xsplit-opt's output, for iree-opt's output of the
// same input, and for the round trips through the other tool in both directions.
// RUN: xsplit-opt %s | filecheck %s
// RUN: iree-opt --mlir-print-local-scope %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt --mlir-print-local-scope | filecheck %s
// RUN: iree-opt --mlir-print-local-scope %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | iree-opt --mlir-print-local-scope | filecheck %s
// RUN: iree-opt --mlir-print-op-generic --mlir-print-local-scope %s | xsplit-opt | filecheck %s

// Levels come out sorted by name, whatever order they were written in.
// CHECK-LABEL: func.func @configured_matmul
// CHECK:       linalg.matmul {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [24, 16, 0], vector_common_parallel = [8, 16, 0], vector_reduction = [0, 0, 4]>, translation_info = <pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>}
func.func @configured_matmul(%a: tensor<24x300xf32>, %b: tensor<300x40xf32>, %c: tensor<24x40xf32>) -> tensor<24x40xf32> {
  %r = linalg.matmul {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<vector_reduction = [0, 0, 4], distribution = [24, 16, 0], vector_common_parallel = [8, 16, 0]>, translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>} ins(%a, %b : tensor<24x300xf32>, tensor<300x40xf32>) outs(%c : tensor<24x40xf32>) -> tensor<24x40xf32>
  func.return %r : tensor<24x40xf32>
}

// Every level, a scalable size, an empty config and another pipeline.
// CHECK-LABEL: func.func @other_levels
// CHECK:       lowering_config = #iree_cpu.lowering_config<cache_parallel = [16, 64, 0], cache_reduction = [0, 0, 256], distribution = [32, 64, 0], vector_common_parallel = [8, [16], 0], vector_inner_parallel = [0, 0, 0], vector_reduction = [0, 0, 1]>, translation_info = <pipeline = #iree_cpu.pipeline<Mmt4dTilingExpert>>
// CHECK:       lowering_config = #iree_cpu.lowering_config<>, translation_info = <pipeline = #iree_cpu.pipeline<Default>>
func.func @other_levels(%a: tensor<32x512xf32>, %b: tensor<512x64xf32>, %c: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>) {
  %0 = linalg.matmul {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [32, 64, 0], cache_parallel = [16, 64, 0], cache_reduction = [0, 0, 256], vector_common_parallel = [8, [16], 0], vector_reduction = [0, 0, 1], vector_inner_parallel = [0, 0, 0]>, translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<Mmt4dTilingExpert>>>} ins(%a, %b : tensor<32x512xf32>, tensor<512x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %1 = linalg.matmul {compilation_info = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<>, translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<Default>>>} ins(%a, %b : tensor<32x512xf32>, tensor<512x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  func.return %0, %1 : tensor<32x64xf32>, tensor<32x64xf32>
}
