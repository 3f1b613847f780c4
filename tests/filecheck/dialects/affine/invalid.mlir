// RUN: xsplit-opt --verify-diagnostics %s | filecheck %s

func.func @operands(%n: index) -> index {
  %0 = affine.max affine_map<(d0, d1) -> (d0, d1)>(%n)
  func.return %0 : index
}
// CHECK: invalid.mlir:4:3: error: 'affine.max' op operand count and affine map dimension and symbol count must match
