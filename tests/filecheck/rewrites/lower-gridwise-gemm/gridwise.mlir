// lower-gridwise-gemm alone, on what `gemm-kernel{target=sm_80 chunks=2 tile=16,16,8 threads=4,4}`
// (and `merge=deterministic threads=8,8`) makes of a 20x40 @ 40x24 f32 matmul: a workgroup's C tile
// and K chunk from its ids, A and B staged through workgroup memory a K step at a time between
// two barriers, the registers written by the merge; the merge kernel a loop over the chunks; the
// same matmul in f16 on tensor cores; IR without gridwise ops passes through unchanged.
// RUN: xsplit-opt %s --split-input-file -p lower-gridwise-gemm | filecheck %s

func.func @atomic(%a: memref<20x40xf32>, %b: memref<40x24xf32>, %c: memref<20x24xf32>) attributes {gpu.known_block_size = array<i32: 16, 1, 1>, gpu.known_grid_size = array<i32: 2, 2, 2>} {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 16, 16, 8>, threads = array<i64: 4, 4>, chunks = 2 : i64, merge = "atomic"} : memref<20x40xf32>, memref<40x24xf32>, memref<20x24xf32>
  func.return
}

// CHECK-LABEL: func.func @atomic
// CHECK-NOT:     xsplit_gemm.gridwise_gemm
// CHECK:         %thread_id_x = gpu.thread_id x
// CHECK:         %block_id_y = gpu.block_id y
// CHECK-NEXT:    %[[TILE:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ROW0:.*]] = arith.muli %block_id_y, %[[TILE]] : index
// CHECK-NEXT:    %block_id_x = gpu.block_id x
// CHECK-NEXT:    %[[COL0:.*]] = arith.muli %block_id_x, %[[TILE]] : index
// The K chunk of workgroup z: [24 z, min(24 z + 24, 40)).
// CHECK-NEXT:    %block_id_z = gpu.block_id z
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.constant 24 : index
// CHECK-NEXT:    %[[K0:.*]] = arith.muli %block_id_z, %[[CHUNK]] : index
// CHECK-NEXT:    %[[K1:.*]] = arith.addi %[[K0]], %[[CHUNK]] : index
// CHECK-NEXT:    %[[K:.*]] = arith.constant 40 : index
// CHECK-NEXT:    %[[KEND:.*]] = arith.minui %[[K1]], %[[K]] : index
// A's rows of 8 K are padded to 12 words, so that the rows a warp reads sit in different banks.
// CHECK-NEXT:    %a_tile = memref.alloc() : memref<16x12xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %b_tile = memref.alloc() : memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.threadwise_fill %acc
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 8 : index
// CHECK-NEXT:    scf.for %k0 = %[[K0]] to %[[KEND]] step %[[STEP]] {
// CHECK-NEXT:      xsplit_gemm.blockwise_copy %a[%[[ROW0]], %k0] to %a_tile thread %thread_id_x {sizes = array<i64: 16, 8>, threads = 16 : i64, vector = 4 : i64}
// CHECK-NEXT:      xsplit_gemm.blockwise_copy %b[%k0, %[[COL0]]] to %b_tile thread %thread_id_x {sizes = array<i64: 8, 16>, threads = 16 : i64, vector = 4 : i64}
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      xsplit_gemm.blockwise_gemm %a_tile * %b_tile into %acc thread %thread_id_x {threads = array<i64: 4, 4>, step_k = 8 : i64, a_m_major}
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:    }
// Thread t holds rows t / 4 + 4 i and columns t % 4 + 4 j of the tile.
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[TM:.*]] = arith.divui %thread_id_x, %[[FOUR]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %[[ROW0]], %[[TM]] : index
// CHECK-NEXT:    %[[TN:.*]] = arith.remui %thread_id_x, %[[FOUR]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %[[COL0]], %[[TN]] : index
// CHECK-NEXT:    xsplit_gemm.threadwise_write %acc to %c[%[[ROW]], %[[COL]]] {strides = array<i64: 4, 4>, merge = "atomic"}
// CHECK-NEXT:    func.return

// -----

func.func @partials(%a: memref<20x40xf32>, %b: memref<40x24xf32>, %partials: memref<2x20x24xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 2, 2, 2>} {
  xsplit_gemm.gridwise_gemm %a, %b, %partials {tile = array<i64: 16, 16, 8>, threads = array<i64: 8, 8>, chunks = 2 : i64, merge = "partials"} : memref<20x40xf32>, memref<40x24xf32>, memref<2x20x24xf32>
  func.return
}

// Each chunk's registers go to its own slice of the partials, at the workgroup's z.
// CHECK-LABEL: func.func @partials
// CHECK:         %acc = memref.alloca() : memref<2x2xf32, #gpu.address_space<private>>
// CHECK:         scf.for
// CHECK:           xsplit_gemm.blockwise_gemm %a_tile * %b_tile into %acc thread %thread_id_x {threads = array<i64: 8, 8>, step_k = 8 : i64, a_m_major}
// CHECK:         xsplit_gemm.threadwise_write %acc to %partials[%{{.*}}, %{{.*}}] chunk %block_id_z {strides = array<i64: 8, 8>, merge = "partials"}

// -----

func.func @merge(%partials: memref<2x20x24xf32>, %c: memref<20x24xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 1, 20, 1>} {
  xsplit_gemm.merge_partials %partials into %c {threads = 64 : i64} : memref<2x20x24xf32> into memref<20x24xf32>
  func.return
}

// Workgroup (x, y) adds row y's columns 64 x + t, in chunk order, onto C.
// CHECK-LABEL: func.func @merge
// CHECK-NOT:     xsplit_gemm.merge_partials
// CHECK:         %block_id_x = gpu.block_id x
// CHECK-NEXT:    %[[THREADS:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %block_id_x, %[[THREADS]] : index
// CHECK-NEXT:    %thread_id_x = gpu.thread_id x
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %[[BASE]], %thread_id_x : index
// CHECK-NEXT:    %block_id_y = gpu.block_id y
// CHECK-NEXT:    %[[N:.*]] = arith.constant 24 : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[COL]], %[[N]] : index
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      %[[C:.*]] = memref.load %c[%block_id_y, %[[COL]]] : memref<20x24xf32>
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[P0:.*]] = memref.load %partials[%[[ZERO]], %block_id_y, %[[COL]]] : memref<2x20x24xf32>
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[C]], %[[P0]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[P1:.*]] = memref.load %partials[%[[ONE]], %block_id_y, %[[COL]]] : memref<2x20x24xf32>
// CHECK-NEXT:      %[[S1:.*]] = arith.addf %[[S0]], %[[P1]] : f32
// CHECK-NEXT:      memref.store %[[S1]], %c[%block_id_y, %[[COL]]] : memref<20x24xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// -----

func.func @mma(%a: memref<20x40xf16>, %b: memref<40x24xf16>, %c: memref<20x24xf32>) attributes {gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 2>} {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 32, 32, 16>, threads = array<i64: 2, 64>, chunks = 2 : i64, merge = "atomic", mma = "m16n8k16", warps = array<i64: 2, 2>} : memref<20x40xf16>, memref<40x24xf16>, memref<20x24xf32>
  func.return
}

// From `gemm-kernel{target=sm_80 chunks=2 tile=32,32,16 warps=2,2}` on the same matmul in f16:
// tensor cores. The tiles keep f16 and are XOR-swizzled; each lane's accumulator is its C
// fragments of the warp tile (1 x 2 blocks of 16x8, 4 floats each); warp t / 32 owns the 16x16
// warp tile at row (w / 2) 16, column (w % 2) 16, and writes it by the intrinsic's layout.
// CHECK-LABEL: func.func @mma
// CHECK:         %a_tile = memref.alloc() : memref<32x16xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %b_tile = memref.alloc() : memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %acc = memref.alloca() : memref<1x2x4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    xsplit_gemm.threadwise_fill %acc
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 16 : index
// CHECK-NEXT:    scf.for %k0 = %{{.*}} to %{{.*}} step %[[STEP]] {
// CHECK-NEXT:      xsplit_gemm.blockwise_copy %a[%[[ROW0:.*]], %k0] to %a_tile thread %thread_id_x {sizes = array<i64: 32, 16>, threads = 128 : i64, swizzle}
// CHECK-NEXT:      xsplit_gemm.blockwise_copy %b[%k0, %[[COL0:.*]]] to %b_tile thread %thread_id_x {sizes = array<i64: 16, 32>, threads = 128 : i64, swizzle}
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      xsplit_gemm.blockwise_mma %a_tile * %b_tile into %acc thread %thread_id_x {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 16 : i64, a_swizzle, b_swizzle}
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[WARP:.*]] = arith.divui %thread_id_x, %[[LANES:.*]] : index
// CHECK-NEXT:    %[[LANE:.*]] = arith.remui %thread_id_x, %[[LANES]] : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[WM:.*]] = arith.divui %[[WARP]], %[[TWO]] : index
// CHECK-NEXT:    %[[WROW:.*]] = arith.muli %[[WM]], %[[STEP]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %[[ROW0]], %[[WROW]] : index
// CHECK-NEXT:    %[[WN:.*]] = arith.remui %[[WARP]], %[[TWO]] : index
// CHECK-NEXT:    %[[WCOL:.*]] = arith.muli %[[WN]], %[[STEP]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %[[COL0]], %[[WCOL]] : index
// CHECK-NEXT:    xsplit_gemm.threadwise_write_fragments %acc to %c[%[[ROW]], %[[COL]]] lane %[[LANE]] {mma = "m16n8k16", merge = "atomic"}
// CHECK-NEXT:    func.return

// -----

func.func @nothing_to_lower(%a: memref<16x8xf32>, %b: memref<16x8xf32>) {
  memref.copy %a, %b : memref<16x8xf32> to memref<16x8xf32>
  func.return
}

// CHECK-LABEL: func.func @nothing_to_lower(%a: memref<16x8xf32>, %b: memref<16x8xf32>) {
// CHECK-NEXT:    memref.copy %a, %b : memref<16x8xf32> to memref<16x8xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// -----

func.func @pad(%a: memref<20x13xf16>, %a_padded: memref<20x16xf16>) attributes {gpu.known_block_size = array<i32: 256, 1, 1>, gpu.known_grid_size = array<i32: 2, 1, 1>} {
  xsplit_gemm.pad_rows %a into %a_padded {threads = 256 : i64} : memref<20x13xf16> into memref<20x16xf16>
  func.return
}

// Thread 256 x + t copies element (i / 16, i % 16) of the 320, zero past A's 13 columns.
// CHECK-LABEL: func.func @pad
// CHECK-NOT:     xsplit_gemm.pad_rows
// CHECK:         %[[FLAT:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK-NEXT:    %[[ALL:.*]] = arith.constant 320 : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[FLAT]], %[[ALL]] : index
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      %[[W:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[R:.*]] = arith.divui %[[FLAT]], %[[W]] : index
// CHECK-NEXT:      %[[C:.*]] = arith.remui %[[FLAT]], %[[W]] : index
// CHECK-NEXT:      %[[K:.*]] = arith.constant 13 : index
// CHECK-NEXT:      %[[INK:.*]] = arith.cmpi ult, %[[C]], %[[K]] : index
// CHECK-NEXT:      %[[V:.*]] = scf.if %[[INK]] -> (f16) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %a[%[[R]], %[[C]]] : memref<20x13xf16>
// CHECK-NEXT:        scf.yield %[[X]] : f16
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT:        scf.yield %[[Z]] : f16
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[V]], %a_padded[%[[R]], %[[C]]] : memref<20x16xf16>
// CHECK-NEXT:    }

// -----

// A fused GEMM whose A lies K x M and B N x K: A's K-major tile is a plain
// copy of A's rows (along M, 128-bit), B's a copy of its rows (along K)
// transposed into the tile; the multiply and the epilogue are as ever.
func.func @transposed(%a: memref<40x20xf32>, %b: memref<24x40xf32>, %o: memref<20xf32>) attributes {gpu.known_block_size = array<i32: 16, 1, 1>, gpu.known_grid_size = array<i32: 2, 2, 1>} {
  xsplit_gemm.gridwise_gemm_reduce %a, %b into %o {tile = array<i64: 16, 16, 8>, threads = array<i64: 4, 4>, method = "sum", dim = 1 : i64, stage = "atomic", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", a_k_major, a_transposed, b_transposed} : memref<40x20xf32>, memref<24x40xf32> into memref<20xf32>
  func.return
}

// CHECK-LABEL: func.func @transposed
// CHECK:         %[[M0:.*]] = arith.muli %block_id_y, %{{.*}} : index
// CHECK:         %[[N0:.*]] = arith.muli %block_id_x, %{{.*}} : index
// CHECK:         %a_tile = memref.alloc() : memref<8x20xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %b_tile = memref.alloc() : memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %k0 =
// CHECK-NEXT:      xsplit_gemm.blockwise_copy %a[%k0, %[[M0]]] to %a_tile thread %thread_id_x {sizes = array<i64: 8, 16>, threads = 16 : i64, vector = 4 : i64} : memref<40x20xf32> to memref<8x20xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      xsplit_gemm.blockwise_copy %b[%[[N0]], %k0] to %b_tile thread %thread_id_x {sizes = array<i64: 16, 8>, threads = 16 : i64, transpose, vector = 4 : i64} : memref<24x40xf32> to memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      xsplit_gemm.blockwise_gemm %a_tile * %b_tile into %acc
// CHECK:         xsplit_gemm.blockwise_reduce %acc to %o[%[[M0]], %[[N0]]] thread %thread_id_x {threads = array<i64: 4, 4>, bounds = array<i64: 20, 24>

// -----

// The ordered merge of a reduction along the batch: a matrix output (1 x M x
// N), its rows on grid y and its columns on grid x and the threads, each
// thread combining partials[c, m, n] in the order c = 0, 1.
func.func @merge_matrix(%parts: memref<2x37x50xf32>, %o: memref<1x37x50xf32>) attributes {gpu.known_block_size = array<i32: 256, 1, 1>, gpu.known_grid_size = array<i32: 1, 37, 1>} {
  xsplit_gemm.merge_reduced %parts into %o {method = "max", threads = 256 : i64} : memref<2x37x50xf32> into memref<1x37x50xf32>
  func.return
}

// CHECK-LABEL: func.func @merge_matrix
// CHECK:         %[[COL:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK-NEXT:    %block_id_y = gpu.block_id y
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[COL]], %{{.*}} : index
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[O:.*]] = memref.load %o[%[[Z]], %block_id_y, %[[COL]]] : memref<1x37x50xf32>
// CHECK-NEXT:      %[[P0:.*]] = memref.load %parts[%[[Z]], %block_id_y, %[[COL]]] : memref<2x37x50xf32>
// CHECK-NEXT:      %[[M0:.*]] = arith.maxnumf %[[O]], %[[P0]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[P1:.*]] = memref.load %parts[%[[ONE]], %block_id_y, %[[COL]]] : memref<2x37x50xf32>
// CHECK-NEXT:      %[[M1:.*]] = arith.maxnumf %[[M0]], %[[P1]] : f32
// CHECK-NEXT:      memref.store %[[M1]], %o[%[[Z]], %block_id_y, %[[COL]]] : memref<1x37x50xf32>
