// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | filecheck %s --check-prefix=GENERIC

// Data-tiled matmuls: 4-D operands, B transposed, two reduction loops (k, k0).

// CHECK-LABEL: func.func @mmt4d
// CHECK: linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<2x8x4x2xf32>, tensor<3x8x5x2xf32>) outs(%{{.*}} : tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
// GENERIC-LABEL: sym_name = "mmt4d"
// GENERIC:       "linalg.mmt4d"(%{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 2, 1>}>
// GENERIC:         "arith.mulf"
// GENERIC-NEXT:    "arith.addf"
func.func @mmt4d(%a: tensor<2x8x4x2xf32>, %b: tensor<3x8x5x2xf32>, %c: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = linalg.mmt4d ins(%a, %b : tensor<2x8x4x2xf32>, tensor<3x8x5x2xf32>) outs(%c : tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %0 : tensor<2x3x4x5xf32>
}

// Mixed precision: the body widens each input to the accumulator type.
// CHECK-LABEL: func.func @batch_mmt4d
// CHECK: linalg.batch_mmt4d ins(%{{.*}}, %{{.*}} : tensor<6x2x8x4x2xf16>, tensor<6x3x8x5x2xf16>) outs(%{{.*}} : tensor<6x2x3x4x5xf32>) -> tensor<6x2x3x4x5xf32>
// GENERIC-LABEL: sym_name = "batch_mmt4d"
// GENERIC:       "linalg.batch_mmt4d"
// GENERIC:         "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT:    "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT:    "arith.mulf"
// GENERIC-NEXT:    "arith.addf"
func.func @batch_mmt4d(%a: tensor<6x2x8x4x2xf16>, %b: tensor<6x3x8x5x2xf16>, %c: tensor<6x2x3x4x5xf32>) -> tensor<6x2x3x4x5xf32> {
  %0 = linalg.batch_mmt4d ins(%a, %b : tensor<6x2x8x4x2xf16>, tensor<6x3x8x5x2xf16>) outs(%c : tensor<6x2x3x4x5xf32>) -> tensor<6x2x3x4x5xf32>
  func.return %0 : tensor<6x2x3x4x5xf32>
}

// CHECK-LABEL: func.func @mmt4d_i8
// CHECK: linalg.mmt4d ins(%{{.*}}, %{{.*}} : tensor<1x3x8x4xi8>, tensor<2x3x8x4xi8>) outs(%{{.*}} : tensor<1x2x8x8xi32>) -> tensor<1x2x8x8xi32>
// GENERIC-LABEL: sym_name = "mmt4d_i8"
// GENERIC:         "arith.extsi"(%{{.*}}) : (i8) -> i32
// GENERIC:         "arith.muli"
// GENERIC:         "arith.addi"
func.func @mmt4d_i8(%a: tensor<1x3x8x4xi8>, %b: tensor<2x3x8x4xi8>, %c: tensor<1x2x8x8xi32>) -> tensor<1x2x8x8xi32> {
  %0 = linalg.mmt4d ins(%a, %b : tensor<1x3x8x4xi8>, tensor<2x3x8x4xi8>) outs(%c : tensor<1x2x8x8xi32>) -> tensor<1x2x8x8xi32>
  func.return %0 : tensor<1x2x8x8xi32>
}
