// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=3 strategy=grouped}' --xsplit-stats 2>&1 | filecheck %s

// split-k-grouped-static writes the grouped split of any reduction of static
// shapes the grouped op takes (grouped.GROUPED_REDUCTION); the builder,
// split-k-grouped, keeps dynamic sizes.
// CHECK: xsplit-stats: split-k: split-k-grouped-static: 3
// CHECK: xsplit-stats: split-k: split-k-grouped: 1

// A linalg.reduce: its maps and loops, its body (the max), merged by a max.
// CHECK-LABEL: func.func @reduce_max
// CHECK:         %partials_init = linalg.fill ins(%identity : f32) outs(%{{.*}} : tensor<3x8xf32>) -> tensor<3x8xf32>
// CHECK:         %partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 334, 668, 1000>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%x : tensor<8x1000xf32>) outs(%partials_init : tensor<3x8xf32>) {
// CHECK-NEXT:    ^bb0(%in: f32, %acc: f32):
// CHECK-NEXT:      %m = arith.maximumf %in, %acc : f32
// CHECK:         %[[ROW:.*]] = tensor.expand_shape %init {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK:         %merged = rock.reduce max %partials into %[[ROW]] {axis = 0 : index}
// CHECK:         tensor.collapse_shape %merged {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>

func.func @reduce_max(%x: tensor<8x1000xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.reduce ins(%x : tensor<8x1000xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  func.return %0 : tensor<8xf32>
}

// -----

// A transposed generic whose body extends f16 to f32: its maps and body as
// they were.
// CHECK-LABEL: func.func @generic_at_bt_f16
// CHECK:         linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 171, 342, 512>, indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-NEXT:    ^bb0(%x: f16, %y: f16, %acc: f32):
// CHECK-NEXT:      %xe = arith.extf %x : f16 to f32
// CHECK:         rock.reduce sum

#a = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @generic_at_bt_f16(%a: tensor<512x16xf16>, %b: tensor<24x512xf16>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<512x16xf16>, tensor<24x512xf16>) outs(%c : tensor<16x24xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<16x24xf32>
  func.return %0 : tensor<16x24xf32>
}

// -----

// A named op's body, its arguments unnamed as the builder leaves them.
// CHECK-LABEL: func.func @matvec
// CHECK:         linalg_ext.split_grouped_gemm {{.*}} ins(%w, %x : tensor<64x1000xf32>, tensor<1000xf32>) outs(%partials_init : tensor<3x64xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32):
// CHECK-NEXT:      arith.mulf %[[X]], %[[Y]] : f32

func.func @matvec(%w: tensor<64x1000xf32>, %x: tensor<1000xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.matvec ins(%w, %x : tensor<64x1000xf32>, tensor<1000xf32>) outs(%c : tensor<64xf32>) -> tensor<64xf32>
  func.return %0 : tensor<64xf32>
}

// -----

// A dynamic M: the builder, the init's size read with tensor.dim.
// CHECK-LABEL: func.func @dynamic_m
// CHECK:         tensor.dim %c
// CHECK:         linalg_ext.split_grouped_gemm

func.func @dynamic_m(%a: tensor<?x300xf32>, %b: tensor<300x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x300xf32>, tensor<300x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  func.return %0 : tensor<?x32xf32>
}
