// RUN: not xsplit-opt %s -p 'set-encoding,materialize-late' 2>&1 | filecheck %s
// RUN: not xsplit-opt %s -p 'auto' 2>&1 | filecheck %s

// An affinity that names no device global is an error at the op naming it,
// raised before anything is rewritten.
// CHECK: devices-invalid.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: affinity names @dev_c, which is no device global of the module
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.global private @dev_a = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>]> : !hal.device
  func.func @missing(%a: tensor<16x64xf32>, %b: tensor<64x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
    %t = flow.tensor.transfer %r : tensor<16x16xf32> to #hal.device.affinity<@dev_c>
    return %t : tensor<16x16xf32>
  }
}
