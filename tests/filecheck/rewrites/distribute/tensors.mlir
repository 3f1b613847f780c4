// scf.forall on tensors: each processor carries the shared output through its
// iterations and inserts its tiles (the form IREE bufferizes in place).
// RUN: xsplit-opt %s -p distribute 2>/dev/null | filecheck %s --check-prefix=EXACT
// RUN: xsplit-opt %s -p 'distribute{strategy=cyclic}' 2>/dev/null | filecheck %s --check-prefix=CYCLIC
// RUN: xsplit-opt %s -p 'distribute{grid=10}' 2>/dev/null | filecheck %s --check-prefix=OVER
// RUN: xsplit-opt %s -p 'distribute{grid=3}' | iree-opt > /dev/null

// EXACT-LABEL: func.func @tiles
// EXACT:       %[[B:.*]] = gpu.block_id x
// EXACT-NEXT:  %[[I:.*]] = affine.apply affine_map<(d0) -> ((d0 * 8))> (%[[B]])
// EXACT-NEXT:  %[[S:.*]] = tensor.extract_slice %[[T:.*]][%[[I]], 0] [8, 32] [1, 1]
// EXACT-NEXT:  %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S]] : tensor<8x32xf32>) -> tensor<8x32xf32>
// EXACT-NEXT:  %[[R:.*]] = tensor.insert_slice %[[F]] into %[[T]][%[[I]], 0] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<64x32xf32>
// EXACT-NEXT:  func.return %[[R]] : tensor<64x32xf32>

// CYCLIC:      %[[B:.*]] = gpu.block_id x
// CYCLIC-NEXT: %[[LB:.*]] = affine.apply affine_map<(d0) -> ((d0 * 8))> (%[[B]])
// CYCLIC-NEXT: %[[C64:.*]] = arith.constant 64 : index
// CYCLIC-NEXT: %[[R:.*]] = scf.for %[[I:.*]] = %[[LB]] to %[[C64]] step %[[C64]] iter_args(%[[O:.*]] = %{{.*}}) -> (tensor<64x32xf32>) {
// CYCLIC-NEXT:   %[[S:.*]] = tensor.extract_slice %[[O]][%[[I]], 0] [8, 32] [1, 1]
// CYCLIC-NEXT:   %[[F:.*]] = linalg.fill
// CYCLIC-NEXT:   %[[N:.*]] = tensor.insert_slice %[[F]] into %[[O]][%[[I]], 0] [8, 32] [1, 1]
// CYCLIC-NEXT:   scf.yield %[[N]] : tensor<64x32xf32>
// CYCLIC-NEXT: }
// CYCLIC-NEXT: func.return %[[R]]

// OVER:        %[[B:.*]] = gpu.block_id x
// OVER-NEXT:   %[[C8:.*]] = arith.constant 8 : index
// OVER-NEXT:   %[[IN:.*]] = arith.cmpi ult, %[[B]], %[[C8]] : index
// OVER-NEXT:   %[[R:.*]] = scf.if %[[IN]] -> (tensor<64x32xf32>) {
// OVER:          %[[N:.*]] = tensor.insert_slice
// OVER-NEXT:     scf.yield %[[N]] : tensor<64x32xf32>
// OVER-NEXT:   } else {
// OVER-NEXT:     scf.yield %[[T:.*]] : tensor<64x32xf32>
// OVER-NEXT:   }
// OVER-NEXT:   func.return %[[R]]
func.func @tiles(%t: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {gpu.known_grid_size = array<i32: 8, 1, 1>} {
  %cst = arith.constant 1.0 : f32
  %r = scf.forall (%i) = (0) to (64) step (8) shared_outs(%o = %t) -> (tensor<64x32xf32>) {
    %s = tensor.extract_slice %o[%i, 0] [8, 32] [1, 1] : tensor<64x32xf32> to tensor<8x32xf32>
    %f = linalg.fill ins(%cst : f32) outs(%s : tensor<8x32xf32>) -> tensor<8x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %f into %o[%i, 0] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<64x32xf32>
    }
  } {mapping = [#gpu.block<x>]}
  func.return %r : tensor<64x32xf32>
}
