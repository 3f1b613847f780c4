// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=77}' 2>&1 | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=77}' | iree-opt > /dev/null

// The seed's matmul: K = 51234 in 77 chunks of 666, the last one 618: a loop
// over 76 static chunks, the tail beside it, no dynamic size anywhere. The
// fill is fused into the loop; the merge adds the tail once (at chunk 0) and
// accumulates into the original init %c.
// CHECK-LABEL: func.func @seed
// CHECK-SAME:    (%[[A:.*]]: tensor<123x51234xf32>, %[[B:.*]]: tensor<51234x456xf32>, %[[C:.*]]: tensor<123x456xf32>)
// CHECK-NOT:     ?x
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<123x456x76xf32>
// CHECK:         %[[P:.*]] = scf.forall (%[[S:.*]]) in (76) shared_outs(%[[O:.*]] = %[[EMPTY]]) -> (tensor<123x456x76xf32>) {
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 666))> (%[[S]])
// CHECK-NEXT:      %[[SA:.*]] = tensor.extract_slice %[[A]][0, %[[OFF]]] [123, 666] [1, 1] : tensor<123x51234xf32> to tensor<123x666xf32>
// CHECK-NEXT:      %[[SB:.*]] = tensor.extract_slice %[[B]][%[[OFF]], 0] [666, 456] [1, 1] : tensor<51234x456xf32> to tensor<666x456xf32>
// CHECK-NEXT:      %[[SO:.*]] = tensor.extract_slice %[[O]][0, 0, %[[S]]] [123, 456, 1] [1, 1, 1] : tensor<123x456x76xf32> to tensor<123x456xf32>
// CHECK-NEXT:      %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[SO]] : tensor<123x456xf32>) -> tensor<123x456xf32>
// CHECK-NEXT:      %[[MM:.*]] = linalg.matmul ins(%[[SA]], %[[SB]] : tensor<123x666xf32>, tensor<666x456xf32>) outs(%[[F]] : tensor<123x456xf32>) -> tensor<123x456xf32>
// CHECK-NEXT:      scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[MM]] into %[[O]][0, 0, %[[S]]] [123, 456, 1] [1, 1, 1] : tensor<123x456xf32> into tensor<123x456x76xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK-NEXT:    %[[TA:.*]] = tensor.extract_slice %[[A]][0, 50616] [123, 618] [1, 1] {xsplit.split_part = "tail"} : tensor<123x51234xf32> to tensor<123x618xf32>
// CHECK-NEXT:    %[[TB:.*]] = tensor.extract_slice %[[B]][50616, 0] [618, 456] [1, 1] {xsplit.split_part = "tail"} : tensor<51234x456xf32> to tensor<618x456xf32>
// CHECK-NEXT:    %[[TE:.*]] = tensor.empty() : tensor<123x456xf32>
// CHECK-NEXT:    %[[TF:.*]] = linalg.fill {xsplit.split_part = "tail"} ins(%[[ZERO]] : f32) outs(%[[TE]] : tensor<123x456xf32>) -> tensor<123x456xf32>
// CHECK-NEXT:    %[[T:.*]] = linalg.matmul {xsplit.split_part = "tail"} ins(%[[TA]], %[[TB]] : tensor<123x618xf32>, tensor<618x456xf32>) outs(%[[TF]] : tensor<123x456xf32>) -> tensor<123x456xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[P]], %[[T]] : tensor<123x456x76xf32>, tensor<123x456xf32>) outs(%[[C]] : tensor<123x456xf32>) attrs =  {xsplit.split_part = "merge"} {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[I0]] : index
// CHECK-NEXT:      %[[XY:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[TERM:.*]] = arith.select %[[FIRST]], %[[XY]], %[[X]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[TERM]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32
// CHECK:         func.return %[[R]] : tensor<123x456xf32>
func.func @seed(%a: tensor<123x51234xf32>, %b: tensor<51234x456xf32>, %c: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%c : tensor<123x456xf32>) -> tensor<123x456xf32>
  func.return %0 : tensor<123x456xf32>
}

// -----

// A factor that divides K: every chunk in the loop, no tail, a linalg.reduce merge.
// CHECK-LABEL: func.func @dividing
// CHECK:         scf.forall (%[[S:.*]]) in (77) shared_outs
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 10))> (%[[S]])
// CHECK-NEXT:      tensor.extract_slice %{{.*}}[0, %[[OFF]]] [4, 10] [1, 1] : tensor<4x770xf32> to tensor<4x10xf32>
// CHECK-NEXT:      tensor.extract_slice %{{.*}}[%[[OFF]], 0] [10, 8] [1, 1] : tensor<770x8xf32> to tensor<10x8xf32>
// CHECK:         linalg.reduce ins(%{{.*}}:tensor<4x8x77xf32>)
func.func @dividing(%a: tensor<4x770xf32>, %b: tensor<770x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x770xf32>, tensor<770x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// -----

// max reductions fill the partials with -inf and merge with the same op; the
// tail (K = 1000 = 76 x 13 + 12) is the reduce on its 12 columns, not padded
// (a zero would be wrong for max), merged with the partials by maximumf.
// CHECK-LABEL: func.func @reduce_max
// CHECK-NOT:     ?x
// CHECK:         %[[NEG:.*]] = arith.constant 0xff800000 : f32
// CHECK:         scf.forall (%{{.*}}) in (76) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<8x76xf32>)
// CHECK:           linalg.reduce ins(%{{.*}}:tensor<8x13xf32>) outs(%{{.*}}:tensor<8xf32>) dimensions = [1]
// CHECK:             arith.maximumf
// CHECK:         %[[TA:.*]] = tensor.extract_slice %{{.*}}[0, 988] [8, 12] [1, 1] {xsplit.split_part = "tail"} : tensor<8x1000xf32> to tensor<8x12xf32>
// CHECK:         %[[TF:.*]] = linalg.fill {xsplit.split_part = "tail"} ins(%[[NEG]] : f32)
// CHECK:         %[[T:.*]] = linalg.reduce ins(%[[TA]]:tensor<8x12xf32>) outs(%[[TF]]:tensor<8xf32>) dimensions = [1]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[T]] : tensor<8x76xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>) attrs =  {xsplit.split_part = "merge"}
// CHECK-COUNT-2:   arith.maximumf
func.func @reduce_max(%a: tensor<8x1000xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.reduce ins(%a : tensor<8x1000xf32>) outs(%c : tensor<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %m = arith.maximumf %in, %init : f32
      linalg.yield %m : f32
    }
  func.return %0 : tensor<8xf32>
}

// -----

// A transposed i8 x i8 -> i32 contraction: partials stay in i32 (1001 = 77 x 13: no tail).
// CHECK-LABEL: func.func @transposed_i8
// CHECK:         arith.constant 0 : i32
// CHECK:         scf.forall (%[[S:.*]]) in (77) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<16x32x77xi32>)
// CHECK:           tensor.extract_slice %{{.*}}[%{{.*}}, 0] [13, 16] [1, 1] : tensor<1001x16xi8> to tensor<13x16xi8>
// CHECK:           tensor.extract_slice %{{.*}}[0, %{{.*}}] [32, 13] [1, 1] : tensor<32x1001xi8> to tensor<32x13xi8>
// CHECK:           linalg.generic
// CHECK:         linalg.reduce ins(%{{.*}}:tensor<16x32x77xi32>)
// CHECK:           arith.addi
func.func @transposed_i8(%a: tensor<1001x16xi8>, %b: tensor<32x1001xi8>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1001x16xi8>, tensor<32x1001xi8>) outs(%c : tensor<16x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<16x32xi32>
  func.return %0 : tensor<16x32xi32>
}

// -----

// Not splittable: the accumulator is used twice; the op passes through unchanged.
// CHECK-LABEL: func.func @not_a_reduction
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
func.func @not_a_reduction(%a: tensor<8x1000xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<8x1000xf32>) outs(%c : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    %p = arith.mulf %s, %acc : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
