// What fuse-reduction leaves alone, and why.
// RUN: xsplit-opt %s -p fuse-reduction 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt %s -p fuse-reduction 2>/dev/null | filecheck %s --check-prefix=UNCHANGED

// REMARK: negative.mlir:[[# @LINE + 2]]:3: remark: fuse-reduction: not fused: its input is a block argument, not a GEMM's result
func.func @standalone(%x: tensor<5x300xf32>, %o: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %0 = rock.reduce sum %x into %o {axis = 1 : index} : tensor<5x300xf32> into tensor<5x1xf32> -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}

// REMARK: negative.mlir:[[# @LINE + 3]]:3: remark: fuse-reduction: not fused: its producer 'arith.addf' is not a GEMM
func.func @not_gemm(%x: tensor<5x30xf32>, %y: tensor<5x30xf32>, %o: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %s = arith.addf %x, %y : tensor<5x30xf32>
  %0 = rock.reduce max %s into %o {axis = 1 : index} : tensor<5x30xf32> into tensor<5x1xf32> -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}

// The GEMM's result feeds another op too, which would need it materialized.
// REMARK: negative.mlir:[[# @LINE + 4]]:3: remark: fuse-reduction: not fused: the GEMM's result has other users (arith.addf)
func.func @shared(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<4x6xf32>, %o: tensor<4x1xf32>) -> (tensor<4x6xf32>, tensor<4x1xf32>) {
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  %d = arith.addf %mm, %mm : tensor<4x6xf32>
  %r = rock.reduce sum %mm into %o {axis = 1 : index} : tensor<4x6xf32> into tensor<4x1xf32> -> tensor<4x1xf32>
  return %d, %r : tensor<4x6xf32>, tensor<4x1xf32>
}

// REMARK: negative.mlir:[[# @LINE + 3]]:3: remark: fuse-reduction: not fused: the GEMM is not on static f32 tensors
func.func @half(%a: tensor<4x8xf16>, %b: tensor<8x6xf16>, %c: tensor<4x6xf16>, %o: tensor<4x1xf16>) -> tensor<4x1xf16> {
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x6xf16>) outs(%c : tensor<4x6xf16>) -> tensor<4x6xf16>
  %r = rock.reduce sum %mm into %o {axis = 1 : index} : tensor<4x6xf16> into tensor<4x1xf16> -> tensor<4x1xf16>
  return %r : tensor<4x1xf16>
}

// UNCHANGED-NOT: xsplit.fused_producer

// A generic that is not a multiply-add is not a contraction.
// REMARK: negative.mlir:[[# @LINE + 10]]:3: remark: fuse-reduction: not fused: the generic's body is not a multiply-add
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @not_contraction(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<4x6xf32>, %o: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %g = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%c : tensor<4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.maximumf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x6xf32>
  %r = rock.reduce sum %g into %o {axis = 1 : index} : tensor<4x6xf32> into tensor<4x1xf32> -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}
