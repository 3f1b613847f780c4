// lower-blockwise-gemm on blockwise_stream_gemm (gemm-kernel's skinny f32 form, stream_b): the
// K step unrolled; at each K each thread loads its runs of B's row straight from global memory
// (one vector.load of 4 a run, its columns the thread's first plus constants), reads its rows of
// A down the tile's column kk, and adds the outer product. A tile that overhangs B's 24 columns
// reads B's last run in place of runs past it (clamped once, no mask: the write drops those
// registers); rows past B's 40 (ragged_k) read zeros; a step inside K and a tile inside N mask
// nothing.
// RUN: xsplit-opt %s --split-input-file -p lower-blockwise-gemm | filecheck %s

func.func @ragged(%b: memref<40x24xf32>, %a_tile: memref<2x4xf32, #gpu.address_space<workgroup>>, %acc: memref<2x8xf32, #gpu.address_space<private>>, %k0: index, %col: index) attributes {gpu.known_block_size = array<i32: 2, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  xsplit_gemm.blockwise_stream_gemm %a_tile * %b[%k0, %col] into %acc thread %thread_id_x {threads = 2 : i64, step_k = 2 : i64, vector = 4 : i64, ragged_k} : memref<2x4xf32, #gpu.address_space<workgroup>>, memref<40x24xf32> into memref<2x8xf32, #gpu.address_space<private>>
  func.return
}

// CHECK-LABEL: func.func @ragged
// CHECK:         %a_regs = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
// CHECK-NEXT:    %b_regs = memref.alloca() : memref<8xf32, #gpu.address_space<private>>
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[T:.*]] = arith.muli %thread_id_x, %[[FOUR]] : index
// CHECK-NEXT:    %[[C0:.*]] = arith.addi %col, %[[T]] : index
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.addi %[[C0]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[LAST:.*]] = arith.constant 20 : index
// CHECK-NEXT:    %[[D0:.*]] = arith.minui %[[C0]], %[[LAST]] : index
// CHECK-NEXT:    %[[D1:.*]] = arith.minui %[[C1]], %[[LAST]] : index
// CHECK-NEXT:    %[[K:.*]] = arith.constant 40 : index
// CHECK-NEXT:    %[[KIN:.*]] = arith.cmpi ult, %k0, %[[K]] : index
// CHECK-NEXT:    scf.if %[[KIN]] -> (f32, f32, f32, f32) {
// CHECK-NEXT:      vector.load %b[%k0, %[[D0]]] : memref<40x24xf32>, vector<4xf32>
// CHECK:         } else {
// CHECK-NEXT:      arith.constant 0.000000e+00 : f32
// CHECK:         scf.if %[[KIN]] -> (f32, f32, f32, f32) {
// CHECK-NEXT:      vector.load %b[%k0, %[[D1]]] : memref<40x24xf32>, vector<4xf32>
// CHECK:         xsplit_gemm.threadwise_read %a_tile[%[[Z:.*]], %[[Z]]] to %a_regs {stride = 1 : i64, down}
// CHECK-NEXT:    xsplit_gemm.threadwise_gemm %a_regs * %b_regs into %acc
// CHECK:         %[[K1:.*]] = arith.addi %k0, %{{.*}} : index
// CHECK-NEXT:    arith.cmpi ult, %[[K1]], %[[K]] : index
// CHECK:         vector.load %b[%[[K1]], %[[D0]]]
// CHECK:         vector.load %b[%[[K1]], %[[D1]]]
// CHECK:         xsplit_gemm.threadwise_read %a_tile[%[[Z]], %{{.*}}] to %a_regs {stride = 1 : i64, down}
// CHECK-NEXT:    xsplit_gemm.threadwise_gemm %a_regs * %b_regs into %acc
// CHECK-NEXT:    func.return

// -----

func.func @inside(%b: memref<40x32xf32>, %a_tile: memref<1x4xf32, #gpu.address_space<workgroup>>, %acc: memref<1x4xf32, #gpu.address_space<private>>, %k0: index, %col: index) attributes {gpu.known_block_size = array<i32: 8, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  xsplit_gemm.blockwise_stream_gemm %a_tile * %b[%k0, %col] into %acc thread %thread_id_x {threads = 8 : i64, step_k = 4 : i64} : memref<1x4xf32, #gpu.address_space<workgroup>>, memref<40x32xf32> into memref<1x4xf32, #gpu.address_space<private>>
  func.return
}

// One element a load (vector absent): 4 columns 8 apart; nothing masked.
// CHECK-LABEL: func.func @inside
// CHECK-NOT:     scf.if
// CHECK-NOT:     arith.cmpi
// CHECK-COUNT-16: memref.load %b[
// CHECK-NOT:     memref.load %b[
// CHECK:         func.return

// -----

// IR without blockwise ops passes through unchanged.
// CHECK-LABEL: func.func @none
// CHECK-NEXT:    func.return
func.func @none() {
  func.return
}
