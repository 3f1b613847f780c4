// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

// -----

func.func @unsorted(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 5, 3, 7>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<3x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4x5xf32>
  func.return %0 : tensor<3x4x5xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'linalg_ext.split_grouped_gemm' op group offsets must start at 0 and not decrease

// -----

func.func @wrong_end(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 3, 6, 8>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<3x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4x5xf32>
  func.return %0 : tensor<3x4x5xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'linalg_ext.split_grouped_gemm' op group offsets must end at K = 7, not 8

// -----

func.func @groups_vs_partials(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 3, 7>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<3x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4x5xf32>
  func.return %0 : tensor<3x4x5xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'linalg_ext.split_grouped_gemm' op has 2 groups but its partials' leading axis is 3

// -----

func.func @no_groups(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %0 = linalg_ext.split_grouped_gemm {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<3x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4x5xf32>
  func.return %0 : tensor<3x4x5xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'linalg_ext.split_grouped_gemm' op needs exactly one of group_offsets and group_count

// -----

func.func @no_group_axis(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_count = 3 : i64, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  func.return %0 : tensor<4x5xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'linalg_ext.split_grouped_gemm' op the partials must have a leading group axis and rank 3

// -----

func.func @shapes(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<3x4x6xf32>) -> tensor<3x4x6xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_count = 3 : i64, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<3x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4x6xf32>
  func.return %0 : tensor<3x4x6xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:3: error: 'linalg_ext.split_grouped_gemm' op loop d1 has size 5 in one operand and 6 in tensor<4x6xf32>
