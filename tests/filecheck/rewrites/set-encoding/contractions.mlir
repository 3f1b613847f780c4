// RUN: xsplit-opt %s -p set-encoding --split-input-file | filecheck %s
// RUN: xsplit-opt %s -p set-encoding --split-input-file | iree-opt --split-input-file > /dev/null

// A matmul with an init: all three operands are set_encoding'd, the result unset.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<100x1001xf32>, %[[B:.*]]: tensor<1001x70xf32>, %[[C:.*]]: tensor<100x70xf32>)
// CHECK:         %[[EA:.*]] = iree_encoding.set_encoding %[[A]] : tensor<100x1001xf32> -> tensor<100x1001xf32, #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [100, 70, 1001]>>
// CHECK:         %[[EB:.*]] = iree_encoding.set_encoding %[[B]] : tensor<1001x70xf32> -> tensor<1001x70xf32, #iree_encoding.encoding<operand_index = 1 : index, {{.*}}, iteration_sizes = [100, 70, 1001]>>
// CHECK:         %[[EC:.*]] = iree_encoding.set_encoding %[[C]] : tensor<100x70xf32> -> tensor<100x70xf32, #iree_encoding.encoding<operand_index = 2 : index, {{.*}}>>
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[EA]], %[[EB]] : {{.*}}) outs(%[[EC]] : {{.*}}) -> tensor<100x70xf32, #iree_encoding.encoding<operand_index = 2 : index, {{.*}}>>
// CHECK:         %[[U:.*]] = iree_encoding.unset_encoding %[[R]] : tensor<100x70xf32, #iree_encoding.encoding<{{.*}}>> -> tensor<100x70xf32>
// CHECK:         func.return %[[U]]
func.func @matmul(%a: tensor<100x1001xf32>, %b: tensor<1001x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<100x1001xf32>, tensor<1001x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  func.return %r : tensor<100x70xf32>
}

// -----

// A zero-filled init becomes a fill of an encoded empty tensor: nothing to pack.
// Mixed precision: the element types are the operands'.
// CHECK-LABEL: func.func @fill_init_i8
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<16x32xi32, #iree_encoding.encoding<operand_index = 2 : index, op_type = matmul, element_types = [i8, i8, i32], {{.*}}, iteration_sizes = [16, 32, 1021]>>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : i32) outs(%[[E]] : {{.*}})
// CHECK:         linalg.matmul ins({{.*}}) outs(%[[F]] : {{.*}})
// CHECK-NOT:     iree_encoding.set_encoding %{{.*}} : tensor<16x32xi32>
func.func @fill_init_i8(%a: tensor<16x1021xi8>, %b: tensor<1021x32xi8>) -> tensor<16x32xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x32xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<16x32xi32>) -> tensor<16x32xi32>
  %r = linalg.matmul ins(%a, %b : tensor<16x1021xi8>, tensor<1021x32xi8>) outs(%f : tensor<16x32xi32>) -> tensor<16x32xi32>
  func.return %r : tensor<16x32xi32>
}

// -----

// A batch matmul, a matvec and a transposed generic contraction, each with its own maps.
// CHECK-LABEL: func.func @others
// CHECK:         linalg.batch_matmul ins({{.*}}#iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iteration_sizes = [3, 16, 24, 997]>
// CHECK:         linalg.matvec ins({{.*}}user_indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iteration_sizes = [64, 4099]>
// CHECK:         linalg.generic {{.*}}user_indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iteration_sizes = [24, 40, 1013]>
// CHECK:         iree_encoding.unset_encoding %{{.*}} : tensor<24x40xf32, {{.*}}> -> tensor<24x40xf32>
func.func @others(%a: tensor<3x16x997xf32>, %b: tensor<3x997x24xf32>, %c: tensor<3x16x24xf32>, %m: tensor<64x4099xf32>, %x: tensor<4099xf32>, %y: tensor<64xf32>, %ta: tensor<1013x24xf32>, %tb: tensor<40x1013xf32>, %tc: tensor<24x40xf32>) -> (tensor<3x16x24xf32>, tensor<64xf32>, tensor<24x40xf32>) {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x16x997xf32>, tensor<3x997x24xf32>) outs(%c : tensor<3x16x24xf32>) -> tensor<3x16x24xf32>
  %1 = linalg.matvec ins(%m, %x : tensor<64x4099xf32>, tensor<4099xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ta, %tb : tensor<1013x24xf32>, tensor<40x1013xf32>) outs(%tc : tensor<24x40xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32):
    %s = arith.mulf %p, %q : f32
    %t = arith.addf %r, %s : f32
    linalg.yield %t : f32
  } -> tensor<24x40xf32>
  func.return %0, %1, %2 : tensor<3x16x24xf32>, tensor<64xf32>, tensor<24x40xf32>
}

// -----

// What data tiling does not handle passes through unchanged: a linalg.reduce,
// a dynamic K, a body that is not a multiply-add.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:     iree_encoding
// CHECK:         linalg.reduce
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x?xf32>, tensor<?x32xf32>)
// CHECK:         linalg.generic
// CHECK:           arith.maximumf
func.func @unchanged(%v: tensor<32x5003xf32>, %w: tensor<32xf32>, %a: tensor<16x?xf32>, %b: tensor<?x32xf32>, %c: tensor<16x32xf32>, %p: tensor<8x64xf32>, %q: tensor<64x8xf32>, %o: tensor<8x8xf32>) -> (tensor<32xf32>, tensor<16x32xf32>, tensor<8x8xf32>) {
  %0 = linalg.reduce ins(%v : tensor<32x5003xf32>) outs(%w : tensor<32xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  %1 = linalg.matmul ins(%a, %b : tensor<16x?xf32>, tensor<?x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p, %q : tensor<8x64xf32>, tensor<64x8xf32>) outs(%o : tensor<8x8xf32>) {
  ^bb0(%e: f32, %f: f32, %g: f32):
    %s = arith.mulf %e, %f : f32
    %t = arith.maximumf %g, %s : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  func.return %0, %1, %2 : tensor<32xf32>, tensor<16x32xf32>, tensor<8x8xf32>
}
