// RUN: xsplit-opt %s -p 'split-k{factor=4 strategy=grouped},materialize-early' | filecheck %s
// RUN: xsplit-opt %s -p 'split-k{factor=4 strategy=grouped},materialize-early' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: xsplit-opt %s -p 'split-k{factor=4 strategy=grouped},materialize-late' --xsplit-stats 2>&1 >/dev/null | filecheck %s --check-prefix=LATE-STATS

// Grouped matvecs and vecmats, and integer matmuls, go through
// materialize_grouped.py's templates as the float matmuls do: the loop over
// equal groups, a shorter last group beside it (materialize-late: the loop in
// a dispatch region of its own).
// STATS-DAG: materialize-early: materialize-grouped-matmul-early: 1
// STATS-DAG: materialize-early: materialize-grouped-gemm-early: 0
// STATS-DAG: materialize-early: materialize-grouped-matvec-early: 1
// STATS-DAG: materialize-early: materialize-grouped-matvec-and-tail-early: 1
// STATS-DAG: materialize-early: materialize-grouped-vecmat-early: 1
// LATE-STATS-DAG: materialize-late: materialize-grouped-matmul-in-dispatch-region: 1
// LATE-STATS-DAG: materialize-late: materialize-grouped-gemm-in-dispatch-region: 0
// LATE-STATS-DAG: materialize-late: materialize-grouped-matvec-in-dispatch-region: 1
// LATE-STATS-DAG: materialize-late: materialize-grouped-matvec-and-tail-in-dispatch-region: 1
// LATE-STATS-DAG: materialize-late: materialize-grouped-vecmat-in-dispatch-region: 1

// CHECK-LABEL: func.func @matvec
// CHECK-SAME:    (%[[A:.*]]: tensor<64x1000xf32>, %[[X:.*]]: tensor<1000xf32>, %{{.*}}: tensor<64xf32>)
// CHECK:         %[[I:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[L:.*]] = scf.forall (%[[G:.*]]) in (4) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<4x64xf32>) {
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 250))> (%[[G]])
// CHECK-NEXT:      %[[SLOT:.*]] = tensor.extract_slice %[[O]][%[[G]], 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
// CHECK-NEXT:      %[[AC:.*]] = tensor.extract_slice %[[A]][0, %[[OFF]]] [64, 250] [1, 1] : tensor<64x1000xf32> to tensor<64x250xf32>
// CHECK-NEXT:      %[[XC:.*]] = tensor.extract_slice %[[X]][%[[OFF]]] [250] [1] : tensor<1000xf32> to tensor<250xf32>
// CHECK-NEXT:      %[[ACC:.*]] = linalg.fill ins(%[[I]] : f32) outs(%[[SLOT]] : tensor<64xf32>)
// CHECK-NEXT:      %[[P:.*]] = linalg.matvec ins(%[[AC]], %[[XC]] : tensor<64x250xf32>, tensor<250xf32>) outs(%[[ACC]] : tensor<64xf32>)
// CHECK:             tensor.parallel_insert_slice %[[P]] into %[[O]][%[[G]], 0] [1, 64] [1, 1]
// CHECK:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// CHECK:         rock.reduce sum %[[L]]
func.func @matvec(%a: tensor<64x1000xf32>, %x: tensor<1000xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x1000xf32>, tensor<1000xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// K = 1001 in 4: three groups of 251 and a last one of 248, beside the loop.
// CHECK-LABEL: func.func @matvec_tail
// CHECK-SAME:    (%[[A:.*]]: tensor<64x1001xf32>, %[[X:.*]]: tensor<1001xf32>, %{{.*}}: tensor<64xf32>)
// CHECK:         %[[L:.*]] = scf.forall (%{{.*}}) in (3)
// CHECK:         %[[AT:.*]] = tensor.extract_slice %[[A]][0, 753] [64, 248] [1, 1] {xsplit.split_part = "tail"} : tensor<64x1001xf32> to tensor<64x248xf32>
// CHECK-NEXT:    %[[XT:.*]] = tensor.extract_slice %[[X]][753] [248] [1] {xsplit.split_part = "tail"} : tensor<1001xf32> to tensor<248xf32>
// CHECK-NEXT:    %[[TI:.*]] = linalg.fill {xsplit.split_part = "tail"}
// CHECK-NEXT:    %[[T:.*]] = linalg.matvec {xsplit.split_part = "tail"} ins(%[[AT]], %[[XT]] : tensor<64x248xf32>, tensor<248xf32>) outs(%[[TI]] : tensor<64xf32>)
// CHECK-NEXT:    tensor.insert_slice %[[T]] into %[[L]][3, 0] [1, 64] [1, 1] {xsplit.split_part = "tail"} : tensor<64xf32> into tensor<4x64xf32>
func.func @matvec_tail(%a: tensor<64x1001xf32>, %x: tensor<1001xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x1001xf32>, tensor<1001xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// CHECK-LABEL: func.func @vecmat
// CHECK-SAME:    (%[[X:.*]]: tensor<1000xf32>, %[[B:.*]]: tensor<1000x64xf32>, %{{.*}}: tensor<64xf32>)
// CHECK:         scf.forall (%{{.*}}) in (4)
// CHECK:           %[[XC:.*]] = tensor.extract_slice %[[X]][%{{.*}}] [250] [1] : tensor<1000xf32> to tensor<250xf32>
// CHECK-NEXT:      %[[BC:.*]] = tensor.extract_slice %[[B]][%{{.*}}, 0] [250, 64] [1, 1] : tensor<1000x64xf32> to tensor<250x64xf32>
// CHECK-NEXT:      %[[ACC:.*]] = linalg.fill
// CHECK-NEXT:      linalg.vecmat ins(%[[XC]], %[[BC]] : tensor<250xf32>, tensor<250x64xf32>) outs(%[[ACC]] : tensor<64xf32>)
func.func @vecmat(%x: tensor<1000xf32>, %b: tensor<1000x64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.vecmat ins(%x, %b : tensor<1000xf32>, tensor<1000x64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// An integer multiply-add body: the same loop, of integer matmuls.
// CHECK-LABEL: func.func @matmul_i32
// CHECK:         %[[I:.*]] = arith.constant 0 : i32
// CHECK:         scf.forall (%{{.*}}) in (4)
// CHECK:           linalg.fill ins(%[[I]] : i32)
// CHECK-NEXT:      linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x250xi32>, tensor<250x64xi32>) outs(%{{.*}} : tensor<16x64xi32>)
func.func @matmul_i32(%a: tensor<16x1000xi32>, %b: tensor<1000x64xi32>, %y: tensor<16x64xi32>) -> tensor<16x64xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x1000xi32>, tensor<1000x64xi32>) outs(%y : tensor<16x64xi32>) -> tensor<16x64xi32>
  func.return %r : tensor<16x64xi32>
}
