// Each strategy on one workgroup-level kernel: 64 rows summed, one row per iteration.
// RUN: xsplit-opt %s -p distribute > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=EXACT-REMARK < %t.0.err
// RUN: filecheck %s --check-prefix=EXACT < %t.0.out
// RUN: xsplit-opt %s -p 'distribute{grid=80}' > %t.1.out 2> %t.1.err && filecheck %s --check-prefix=OVER-REMARK < %t.1.err
// RUN: filecheck %s --check-prefix=OVER < %t.1.out
// RUN: xsplit-opt %s -p 'distribute{grid=5}' 2>&1 >/dev/null | filecheck %s --check-prefix=CYCLIC-REMARK
// RUN: xsplit-opt %s -p 'distribute{strategy=cyclic}' 2>/dev/null | filecheck %s --check-prefix=CYCLIC
// RUN: xsplit-opt %s -p 'distribute{strategy=block-cyclic chunk=4 grid=5}' 2>/dev/null | filecheck %s --check-prefix=BLOCK
// RUN: xsplit-opt %s -p 'distribute{strategy=block-cyclic grid=5}' 2>/dev/null | filecheck %s --check-prefix=BLOCK-AUTO
// RUN: xsplit-opt %s -p 'distribute{strategy=oversubscribed}' 2>/dev/null | filecheck %s --check-prefix=FORCED-OVER
// RUN: not xsplit-opt %s -p 'distribute{strategy=exact grid=80}' 2>&1 | filecheck %s --check-prefix=NOT-EXACT
// RUN: not xsplit-opt %s -p 'distribute{strategy=oversubscribed grid=63}' 2>&1 | filecheck %s --check-prefix=NOT-OVER
// RUN: not xsplit-opt %s -p 'distribute{strategy=spread}' 2>&1 | filecheck %s --check-prefix=BAD-OPTION
// RUN: iree-opt < %t.0.out > /dev/null

func.func @rows(%a: memref<64x100xf32>, %out: memref<64xf32>) attributes {gpu.known_grid_size = array<i32: 64, 1, 1>} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.forall (%m) in (64) {
    %s = scf.for %k = %c0 to %c100 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %a[%m, %k] : memref<64x100xf32>
      %r = arith.addf %acc, %v : f32
      scf.yield %r : f32
    }
    memref.store %s, %out[%m] : memref<64xf32>
  } {mapping = [#gpu.block<x>]}
  func.return
}

// The exact form: the row is the block id, with no loop and no guard.
// EXACT-REMARK: strategies.mlir:21:3: remark: distribute: dimension on #gpu.block<x>: exact: trip count 64 = 64 processors (gpu.known_grid_size): no loop, no guard
// EXACT-LABEL: func.func @rows
// EXACT-NOT:   scf.forall
// EXACT:       %[[ID:.*]] = gpu.block_id x
// EXACT-NEXT:  %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// EXACT:       memref.store %{{.*}}, %{{.*}}[%[[ID]]] : memref<64xf32>
// EXACT-NOT:   scf.if
// EXACT:       func.return

// Over-subscribed: 80 blocks for 64 rows, one guarded iteration each.
// OVER-REMARK: remark: distribute: dimension on #gpu.block<x>: oversubscribed: trip count 64 <= 80 processors (the grid option): one iteration per processor under a guard
// OVER:       %[[ID:.*]] = gpu.block_id x
// OVER-NEXT:  %[[N:.*]] = arith.constant 64 : index
// OVER-NEXT:  %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[N]] : index
// OVER-NEXT:  scf.if %[[IN]] {
// OVER-NEXT:    %{{.*}} = scf.for
// OVER:         memref.store %{{.*}}, %{{.*}}[%[[ID]]] : memref<64xf32>
// OVER-NEXT:  }
// OVER-NEXT:  func.return

// CYCLIC-REMARK: remark: distribute: dimension on #gpu.block<x>: cyclic: trip count 64 > 5 processors (the grid option): a loop strided by the processor count

// Cyclic: for m = id to 64 step count; the count is the known grid size.
// CYCLIC:       %[[ID:.*]] = gpu.block_id x
// CYCLIC-NEXT:  %[[C64:.*]] = arith.constant 64 : index
// CYCLIC-NEXT:  scf.for %[[M:.*]] = %[[ID]] to %[[C64]] step %[[C64]] {
// CYCLIC:         memref.load %{{.*}}[%[[M]], %{{.*}}]
// CYCLIC:         memref.store %{{.*}}, %{{.*}}[%[[M]]] : memref<64xf32>
// CYCLIC-NEXT:  }

// Block-cyclic with chunks of 4 over 5 blocks: block b takes rows [4b, 4b+4), [4b+20, 4b+24), ...
// BLOCK:       %[[ID:.*]] = gpu.block_id x
// BLOCK-NEXT:  %[[C4:.*]] = arith.constant 4 : index
// BLOCK-NEXT:  %[[FIRST:.*]] = arith.muli %[[ID]], %[[C4]] : index
// BLOCK-NEXT:  %[[T:.*]] = arith.constant 64 : index
// BLOCK-NEXT:  %[[STRIDE:.*]] = arith.constant 20 : index
// BLOCK-NEXT:  scf.for %[[B:.*]] = %[[FIRST]] to %[[T]] step %[[STRIDE]] {
// BLOCK-NEXT:    %[[C4B:.*]] = arith.constant 4 : index
// BLOCK-NEXT:    %[[E:.*]] = arith.addi %[[B]], %[[C4B]] : index
// BLOCK-NEXT:    %[[T2:.*]] = arith.constant 64 : index
// BLOCK-NEXT:    %[[END:.*]] = arith.minui %[[E]], %[[T2]] : index
// BLOCK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// BLOCK-NEXT:    scf.for %[[M:.*]] = %[[B]] to %[[END]] step %[[ONE]] {
// BLOCK:           memref.store %{{.*}}, %{{.*}}[%[[M]]] : memref<64xf32>

// Without a chunk, one block of ceildiv(64, 5) = 13 rows each.
// BLOCK-AUTO:      arith.constant 13 : index
// BLOCK-AUTO:      arith.constant 65 : index

// FORCED-OVER: arith.cmpi ult
// FORCED-OVER: scf.if

// NOT-EXACT: strategies.mlir:21:3: error: distribute: strategy=exact needs trip count = processor count, which is not proven: trip count 64, 80 processors (the grid option)
// NOT-OVER: strategies.mlir:21:3: error: distribute: strategy=oversubscribed needs trip count <= processor count, which is not proven: trip count 64, 63 processors (the grid option)
// BAD-OPTION: error: distribute: strategy must be one of auto, cyclic, block-cyclic, oversubscribed, exact, got 'spread'
