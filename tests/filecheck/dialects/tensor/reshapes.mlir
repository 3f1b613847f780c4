// A reassociation prints as iree-opt prints it, `[[0, 1], [2]]`, and reads in
// that form and in xDSL's attribute form, `[[0 : i64, 1 : i64], [2 : i64]]`.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @reshapes
func.func @reshapes(%a: tensor<4x8xf32>, %b: tensor<?x8xf32>, %n: index) -> (tensor<32xf32>, tensor<2x16xf32>, tensor<?x2x4xf32>) {
  // CHECK:      %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf32> into tensor<2x2x8xf32>{{$}}
  // CHECK-NEXT: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x8xf32> into tensor<32xf32>{{$}}
  // CHECK-NEXT: tensor.collapse_shape %[[E]] {{\[}}[0], [1, 2]] : tensor<2x2x8xf32> into tensor<2x16xf32>{{$}}
  // CHECK-NEXT: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 2, 4] : tensor<?x8xf32> into tensor<?x2x4xf32>{{$}}
  %e = tensor.expand_shape %a [[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf32> into tensor<2x2x8xf32>
  %0 = tensor.collapse_shape %a [[0 : i64, 1 : i64]] : tensor<4x8xf32> into tensor<32xf32>
  %1 = tensor.collapse_shape %e [[0], [1, 2]] : tensor<2x2x8xf32> into tensor<2x16xf32>
  %2 = tensor.expand_shape %b [[0 : i64], [1 : i64, 2 : i64]] output_shape [%n, 2, 4] : tensor<?x8xf32> into tensor<?x2x4xf32>
  func.return %0, %1, %2 : tensor<32xf32>, tensor<2x16xf32>, tensor<?x2x4xf32>
}

// To and from rank 0 a reassociation is empty; a dynamic size may be 1, and
// attributes print after the reassociation or the output shape.
// CHECK-LABEL: func.func @rank_zero
func.func @rank_zero(%a: tensor<1x?xf32>, %s: tensor<f32>, %n: index) -> (tensor<f32>, tensor<1x?xf32>) {
  // CHECK:      tensor.collapse_shape %{{.*}} [] {foo = 1 : i32} : tensor<1x?xf32> into tensor<f32>{{$}}
  // CHECK-NEXT: tensor.expand_shape %{{.*}} [] output_shape [1, %{{.*}}] {bar = 2 : i32} : tensor<f32> into tensor<1x?xf32>{{$}}
  %0 = tensor.collapse_shape %a [] {foo = 1 : i32} : tensor<1x?xf32> into tensor<f32>
  %1 = tensor.expand_shape %s [] output_shape [1, %n] {bar = 2 : i32} : tensor<f32> into tensor<1x?xf32>
  func.return %0, %1 : tensor<f32>, tensor<1x?xf32>
}
