// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=3}' --xsplit-stats 2>&1 | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=4}' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=WHOLE

// split-k-forall-static(-and-tail) write forall's split of any reduction of
// static shapes whose inputs all read K (forall_split.STATIC_REDUCTION and
// STATIC_REDUCTION_AND_TAIL); the builder, split-k-forall, keeps dynamic
// sizes.
// CHECK: xsplit-stats: split-k: split-k-forall-static: 0
// CHECK: xsplit-stats: split-k: split-k-forall-static-and-tail: 2
// CHECK: xsplit-stats: split-k: split-k-forall: 1
// WHOLE: xsplit-stats: split-k: split-k-forall-static: 2
// WHOLE: xsplit-stats: split-k: split-k-forall-static-and-tail: 0
// WHOLE: xsplit-stats: split-k: split-k-forall: 1

// A linalg.reduce: two chunks of 334 in the loop, each a copy of the op on
// its slice into slot %chunk, the tail of 332 beside it, merged once.
// CHECK-LABEL: func.func @reduce_max
// CHECK:         %identity = arith.constant 0xff800000 : f32
// CHECK:         %partials_init = tensor.empty() : tensor<8x2xf32>
// CHECK:         %partials = scf.forall (%chunk) in (2) shared_outs(%partials_out = %partials_init) -> (tensor<8x2xf32>) {
// CHECK-NEXT:      %chunk_offset = affine.apply affine_map<(d0) -> ((d0 * 334))> (%chunk)
// CHECK-NEXT:      %x_chunk = tensor.extract_slice %x[0, %chunk_offset] [8, 334] [1, 1] : tensor<8x1000xf32> to tensor<8x334xf32>
// CHECK-NEXT:      %[[S:.*]] = tensor.extract_slice %partials_out[0, %chunk] [8, 1] [1, 1] : tensor<8x2xf32> to tensor<8xf32>
// CHECK-NEXT:      %partial_init = linalg.fill ins(%identity : f32) outs(%[[S]] : tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %partial = linalg.reduce ins(%x_chunk:tensor<8x334xf32>) outs(%partial_init:tensor<8xf32>) dimensions = [1]
// CHECK:             tensor.parallel_insert_slice %partial into %partials_out[0, %chunk] [8, 1] [1, 1] : tensor<8xf32> into tensor<8x2xf32>
// CHECK:         %x_tail = tensor.extract_slice %x[0, 668] [8, 332] [1, 1] {xsplit.split_part = "tail"} : tensor<8x1000xf32> to tensor<8x332xf32>
// CHECK:         %tail_init = linalg.fill {xsplit.split_part = "tail"} ins(%identity : f32)
// CHECK:         %tail = linalg.reduce ins(%x_tail:tensor<8x332xf32>) outs(%tail_init:tensor<8xf32>) dimensions = [1]  {xsplit.split_part = "tail"}
// CHECK:         %merged = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%partials, %tail : tensor<8x2xf32>, tensor<8xf32>) outs(%init : tensor<8xf32>)
// CHECK:           linalg.index 1 : index
// CHECK:           arith.maximumf

func.func @reduce_max(%x: tensor<8x1000xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.reduce ins(%x : tensor<8x1000xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  func.return %0 : tensor<8xf32>
}

// -----

// One value read twice: a slice per input, each named as the builder
// names it (%x_chunk, then %x_chunk_1).
// CHECK-LABEL: func.func @sum_of_squares
// CHECK:         %x_chunk = tensor.extract_slice %x[0, %chunk_offset] [8, 171] [1, 1]
// CHECK-NEXT:    %x_chunk_1 = tensor.extract_slice %x[0, %chunk_offset] [8, 171] [1, 1]
// CHECK:         %partial = linalg.generic {{.*}} ins(%x_chunk, %x_chunk_1 : tensor<8x171xf32>, tensor<8x171xf32>) outs(%partial_init : tensor<8xf32>) {
// CHECK-NEXT:    ^bb0(%p: f32, %q: f32, %acc: f32):
// CHECK:         %x_tail = tensor.extract_slice %x[0, 342] [8, 170] [1, 1] {xsplit.split_part = "tail"}
// CHECK-NEXT:    %x_tail_1 = tensor.extract_slice %x[0, 342] [8, 170] [1, 1] {xsplit.split_part = "tail"}
// CHECK:         %tail = linalg.generic {{.*}} ins(%x_tail, %x_tail_1 : tensor<8x170xf32>, tensor<8x170xf32>) outs(%tail_init : tensor<8xf32>) attrs =  {xsplit.split_part = "tail"}

#x = affine_map<(m, k) -> (m, k)>
#o = affine_map<(m, k) -> (m)>
func.func @sum_of_squares(%x: tensor<8x512xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [#x, #x, #o], iterator_types = ["parallel", "reduction"]} ins(%x, %x : tensor<8x512xf32>, tensor<8x512xf32>) outs(%c : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %s = arith.mulf %p, %q : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

// A dynamic M: the builder, the sizes read with tensor.dim.
// CHECK-LABEL: func.func @dynamic_m
// CHECK:         %[[D:.*]] = tensor.dim %a, %{{.*}} : tensor<?x300xf32>
// CHECK:         %a_chunk = tensor.extract_slice %a[0, %chunk_offset] [%[[D]], 100] [1, 1]

func.func @dynamic_m(%a: tensor<?x300xf32>, %b: tensor<300x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x300xf32>, tensor<300x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  func.return %0 : tensor<?x32xf32>
}
