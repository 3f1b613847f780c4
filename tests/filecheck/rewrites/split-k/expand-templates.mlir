// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4 strategy=expand}' --xsplit-stats 2>&1 | filecheck %s

// split-k-expand-static writes the expand split of any reduction of static
// shapes whose inputs all read K (expand_split.EXPANDED_REDUCTION); the
// builder, split-k-expand, still takes dynamic sizes and an input without K.
// CHECK: xsplit-stats: split-k: split-k-expand-static: 2
// CHECK: xsplit-stats: split-k: split-k-expand: 2

// A linalg.reduce: its one input reshaped, its own body (the max) in the
// generic, the chunk loop last and parallel, merged by the same max.
// CHECK-LABEL: func.func @reduce_max
// CHECK:         %[[E:.*]] = tensor.expand_shape %x {{\[}}[0], [1, 2]] output_shape [8, 4, 256] : tensor<8x1024xf32> into tensor<8x4x256xf32>
// CHECK:         %identity = arith.constant 0xff800000 : f32
// CHECK:         %[[F:.*]] = linalg.fill ins(%identity : f32) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK:         %partials = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[E]] : tensor<8x4x256xf32>) outs(%[[F]] : tensor<8x4xf32>) {
// CHECK-NEXT:    ^bb0(%in: f32, %acc: f32):
// CHECK-NEXT:      %m = arith.maximumf %in, %acc : f32
// CHECK-NEXT:      linalg.yield %m : f32
// CHECK:         linalg.reduce ins(%partials:tensor<8x4xf32>) outs(%init:tensor<8xf32>) dimensions = [1]
// CHECK:           arith.maximumf

func.func @reduce_max(%x: tensor<8x1024xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.reduce ins(%x : tensor<8x1024xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  func.return %0 : tensor<8xf32>
}

// -----

// Three inputs, each reshaped where it reads K; the generic's block keeps
// the user's names.
// CHECK-LABEL: func.func @three_inputs
// CHECK:         %[[EA:.*]] = tensor.expand_shape %a {{\[}}[0], [1, 2]] output_shape [16, 4, 128]
// CHECK:         %[[EB:.*]] = tensor.expand_shape %b {{\[}}[0, 1], [2]] output_shape [4, 128, 24]
// CHECK:         %[[ES:.*]] = tensor.expand_shape %s {{\[}}[0, 1]] output_shape [4, 128] : tensor<512xf32> into tensor<4x128xf32>
// CHECK:         %partials = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[EA]], %[[EB]], %[[ES]] : tensor<16x4x128xf32>, tensor<4x128x24xf32>, tensor<4x128xf32>)
// CHECK-NEXT:    ^bb0(%x: f32, %y: f32, %scale: f32, %acc: f32):
// CHECK-NEXT:      %p = arith.mulf %x, %y : f32
// CHECK-NEXT:      %q = arith.mulf %p, %scale : f32
// CHECK-NEXT:      %r = arith.addf %acc, %q : f32
// CHECK-NEXT:      linalg.yield %r : f32
// CHECK:         linalg.reduce ins(%partials:tensor<16x24x4xf32>) outs(%c:tensor<16x24xf32>) dimensions = [2]

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#s = affine_map<(m, n, k) -> (k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @three_inputs(%a: tensor<16x512xf32>, %b: tensor<512x24xf32>, %s: tensor<512xf32>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #s, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %s : tensor<16x512xf32>, tensor<512x24xf32>, tensor<512xf32>) outs(%c : tensor<16x24xf32>) {
  ^bb0(%x: f32, %y: f32, %scale: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %scale : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  } -> tensor<16x24xf32>
  func.return %0 : tensor<16x24xf32>
}

// -----

// A dynamic M: the builder, each dynamic size a tensor.dim before the
// reshape that needs it.
// CHECK-LABEL: func.func @dynamic_m
// CHECK:         %[[D:.*]] = tensor.dim %a, %{{.*}} : tensor<?x256xf32>
// CHECK:         tensor.expand_shape %a {{\[}}[0], [1, 2]] output_shape [%[[D]], 4, 64] : tensor<?x256xf32> into tensor<?x4x64xf32>
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x32x4xf32>

func.func @dynamic_m(%a: tensor<?x256xf32>, %b: tensor<256x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x256xf32>, tensor<256x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  func.return %0 : tensor<?x32xf32>
}

// -----

// An input that does not read K is passed whole, by the builder.
// CHECK-LABEL: func.func @input_without_k
// CHECK-NOT:     tensor.expand_shape %bias
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %bias : tensor<16x4x128xf32>, tensor<4x128x24xf32>, tensor<24xf32>)

#a2 = affine_map<(m, n, k) -> (m, k)>
#b2 = affine_map<(m, n, k) -> (k, n)>
#bias = affine_map<(m, n, k) -> (n)>
#c2 = affine_map<(m, n, k) -> (m, n)>
func.func @input_without_k(%a: tensor<16x512xf32>, %b: tensor<512x24xf32>, %bias: tensor<24xf32>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.generic {indexing_maps = [#a2, #b2, #bias, #c2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %bias : tensor<16x512xf32>, tensor<512x24xf32>, tensor<24xf32>) outs(%c : tensor<16x24xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %p, %z : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  } -> tensor<16x24xf32>
  func.return %0 : tensor<16x24xf32>
}
