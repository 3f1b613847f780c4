// Malformed GPU configurations get MLIR's own located diagnostic.
// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @unknown_pipeline() attributes {p = #iree_gpu.pipeline<FastestExpert>} {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: expected ::mlir::iree_compiler::IREE::GPU::LoweringPipeline to be one of: Default, BaseLowering, Distribute, Vectorize, VectorDistribute, WinogradVectorize, TileAndFuse

// -----

func.func @unknown_intrinsic() attributes {k = #iree_gpu.mma_layout<TENSOR_CORE_PLEASE>} {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: expected ::mlir::iree_compiler::IREE::GPU::MMAIntrinsic to be one of: MFMA_F32_16x16x4_F32,

// -----

func.func @unknown_option() attributes {o = #iree_gpu.pipeline_options<prefetch = 2>} {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: duplicate or unknown struct parameter name: prefetch

// -----

func.func @twice() attributes {c = #iree_gpu.lowering_config<{workgroup = [1], workgroup = [2]}>} {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: duplicate key 'workgroup' in dictionary attribute
