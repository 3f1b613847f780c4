// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | filecheck %s --check-prefix=GENERIC

// Mixed precision: the body casts each input to the accumulator type.
// GENERIC-LABEL: "func.func"() <{sym_name = "matmul_f16"
// GENERIC:       "linalg.matmul"
// GENERIC:         %{{.*}} = "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT:    %{{.*}} = "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT:    %{{.*}} = "arith.mulf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// GENERIC-NEXT:    %{{.*}} = "arith.addf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// CHECK-LABEL: func.func @matmul_f16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x3xf16>) outs(%{{.*}} : tensor<4x3xf32>) -> tensor<4x3xf32>
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x3xf16>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x3xf16>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}

// GENERIC-LABEL: "func.func"() <{sym_name = "matmul_i8"
// GENERIC:         "arith.extsi"(%{{.*}}) : (i8) -> i32
// GENERIC:         "arith.muli"
// GENERIC:         "arith.addi"
// CHECK-LABEL: func.func @matmul_i8
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xi8>, tensor<8x3xi8>) outs(%{{.*}} : tensor<4x3xi32>) -> tensor<4x3xi32>
func.func @matmul_i8(%a: tensor<4x8xi8>, %b: tensor<8x3xi8>, %c: tensor<4x3xi32>) -> tensor<4x3xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x3xi8>) outs(%c : tensor<4x3xi32>) -> tensor<4x3xi32>
  func.return %0 : tensor<4x3xi32>
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x8x3xf32>) outs(%{{.*}} : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
func.func @batch_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>, %c: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x3xf32>) outs(%c : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  func.return %0 : tensor<2x4x3xf32>
}

// CHECK-LABEL: func.func @matvec
// CHECK: linalg.matvec ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<4xf32>) -> tensor<4xf32>
func.func @matvec(%a: tensor<4x8xf32>, %x: tensor<8xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<4x8xf32>, tensor<8xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @vecmat
// CHECK: linalg.vecmat ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8x3xf32>) outs(%{{.*}} : tensor<3xf32>) -> tensor<3xf32>
func.func @vecmat(%x: tensor<8xf32>, %a: tensor<8x3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = linalg.vecmat ins(%x, %a : tensor<8xf32>, tensor<8x3xf32>) outs(%y : tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// GENERIC-LABEL: "func.func"() <{sym_name = "batch_matvec"
// GENERIC:       "linalg.batch_matvec"
// GENERIC:         "arith.mulf"
// CHECK-LABEL: func.func @batch_matvec
// CHECK: linalg.batch_matvec ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x8xf32>) outs(%{{.*}} : tensor<2x4xf32>) -> tensor<2x4xf32>
func.func @batch_matvec(%a: tensor<2x4x8xf32>, %x: tensor<2x8xf32>, %y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = linalg.batch_matvec ins(%a, %x : tensor<2x4x8xf32>, tensor<2x8xf32>) outs(%y : tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @batch_vecmat
// CHECK: linalg.batch_vecmat ins(%{{.*}}, %{{.*}} : tensor<2x8xf16>, tensor<2x8x3xf16>) outs(%{{.*}} : tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @batch_vecmat(%x: tensor<2x8xf16>, %a: tensor<2x8x3xf16>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.batch_vecmat ins(%x, %a : tensor<2x8xf16>, tensor<2x8x3xf16>) outs(%y : tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// A 0-d accumulator.
// CHECK-LABEL: func.func @dot
// CHECK: linalg.dot ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
func.func @dot(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<f32>) -> tensor<f32> {
  %0 = linalg.dot ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%c : tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
