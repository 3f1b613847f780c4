// Malformed configurations get MLIR's own located diagnostic.
// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @unknown_pipeline(%a: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {p = #iree_cpu.pipeline<FastestExpert>} {
  func.return %a : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: expected ::mlir::iree_compiler::IREE::CPU::LoweringPipeline to be one of: Default, DoubleTilingExpert, ConvTileAndDecomposeExpert, Mmt4dTilingExpert, BufferOpsTileAndVectorize, DataTiling, LinalgExtTileAndVectorize

// -----

func.func @not_translation_info(%a: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {c = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<>, translation_info = #iree_cpu.pipeline<Default>>} {
  func.return %a : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: invalid kind of attribute specified
