// lower-blockwise-gemm alone, on the blockwise ops lower-gridwise-gemm leaves (from
// `gemm-kernel{target=sm_80 chunks=2 tile=8,8,4 threads=2,2}` on 20x40 @ 40x24 f32, and
// `tile=32,32,16 warps=2,2` in f16): a copy into workgroup memory, split among the block's
// threads, in 128-bit vectors or element by element, masked where the tile reaches past the
// operand; the FMA multiply a loop over the K step of register reads and outer products; the
// tensor-core multiply per warp, in fragments; IR without blockwise ops passes through unchanged.
// RUN: xsplit-opt %s --split-input-file -p lower-blockwise-gemm | filecheck %s

func.func @copy(%a: memref<20x40xf32>, %a_tile: memref<8x4xf32, #gpu.address_space<workgroup>>, %row: index, %k0: index) attributes {gpu.known_block_size = array<i32: 4, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  xsplit_gemm.blockwise_copy %a[%row, %k0] to %a_tile thread %thread_id_x {sizes = array<i64: 8, 4>, threads = 4 : i64, vector = 4 : i64} : memref<20x40xf32> to memref<8x4xf32, #gpu.address_space<workgroup>>
  func.return
}

// Four threads, eight rows of one vector: thread t copies rows t and t + 4. A row past A's 20
// rows reads zeros. All loads come before the stores.
// CHECK-LABEL: func.func @copy
// CHECK-NOT:     xsplit_gemm.blockwise_copy
// CHECK:         %[[R0:.*]] = arith.addi %row, %thread_id_x : index
// CHECK-NEXT:    %[[M:.*]] = arith.constant 20 : index
// CHECK-NEXT:    %[[IN0:.*]] = arith.cmpi ult, %[[R0]], %[[M]] : index
// CHECK-NEXT:    %[[X0:.*]], %[[X1:.*]], %[[X2:.*]], %[[X3:.*]] = scf.if %[[IN0]] -> (f32, f32, f32, f32) {
// CHECK-NEXT:      %[[V:.*]] = vector.load %a[%[[R0]], %k0] : memref<20x40xf32>, vector<4xf32>
// CHECK-COUNT-4:   vector.extract %[[V]]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : f32, f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[T1:.*]] = arith.addi %thread_id_x, %[[FOUR]] : index
// CHECK-NEXT:    %[[R1:.*]] = arith.addi %row, %[[T1]] : index
// CHECK-NEXT:    %[[IN1:.*]] = arith.cmpi ult, %[[R1]], %[[M]] : index
// CHECK-NEXT:    %[[Y0:.*]], %[[Y1:.*]], %[[Y2:.*]], %[[Y3:.*]] = scf.if %[[IN1]] -> (f32, f32, f32, f32) {
// CHECK-NEXT:      vector.load %a[%[[R1]], %k0] : memref<20x40xf32>, vector<4xf32>
// CHECK:         } else {
// CHECK-NEXT:      arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S0:.*]] = vector.from_elements %[[X0]], %[[X1]], %[[X2]], %[[X3]] : vector<4xf32>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    vector.store %[[S0]], %a_tile[%thread_id_x, %[[C0]]] : memref<8x4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT:    %[[S1:.*]] = vector.from_elements %[[Y0]], %[[Y1]], %[[Y2]], %[[Y3]] : vector<4xf32>
// CHECK-NEXT:    vector.store %[[S1]], %a_tile[%[[T1]], %[[C0]]] : memref<8x4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT:    func.return

// -----

func.func @copy_scalar(%b: memref<40x24xf32>, %b_tile: memref<4x8xf32, #gpu.address_space<workgroup>>, %k0: index, %col: index) attributes {gpu.known_block_size = array<i32: 16, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  xsplit_gemm.blockwise_copy %b[%k0, %col] to %b_tile thread %thread_id_x {sizes = array<i64: 4, 8>, threads = 16 : i64} : memref<40x24xf32> to memref<4x8xf32, #gpu.address_space<workgroup>>
  func.return
}

// Without `vector`, element by element: thread t takes column t % 8 of rows t / 8 and t / 8 + 2.
// Unmasked: the copy's 4x8 divides B's 40x24, and the op's offsets are multiples of its sizes.
// CHECK-LABEL: func.func @copy_scalar
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[R:.*]] = arith.divui %thread_id_x, %[[EIGHT]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.remui %thread_id_x, %[[EIGHT]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %col, %[[C]] : index
// CHECK-NEXT:    %[[ROW0:.*]] = arith.addi %k0, %[[R]] : index
// CHECK-NEXT:    %[[X:.*]] = memref.load %b[%[[ROW0]], %[[COL]]] : memref<40x24xf32>
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[R1:.*]] = arith.addi %[[R]], %[[TWO]] : index
// CHECK-NEXT:    %[[ROW1:.*]] = arith.addi %k0, %[[R1]] : index
// CHECK-NEXT:    %[[Y:.*]] = memref.load %b[%[[ROW1]], %[[COL]]] : memref<40x24xf32>
// CHECK-NEXT:    memref.store %[[X]], %b_tile[%[[R]], %[[C]]] : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    memref.store %[[Y]], %b_tile[%[[R1]], %[[C]]] : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    func.return

// -----

func.func @gemm(%a_tile: memref<8x4xf32, #gpu.address_space<workgroup>>, %b_tile: memref<4x8xf32, #gpu.address_space<workgroup>>) attributes {gpu.known_block_size = array<i32: 4, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  %acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_gemm %a_tile * %b_tile into %acc thread %thread_id_x {threads = array<i64: 2, 2>, step_k = 4 : i64, a_m_major} : memref<8x4xf32, #gpu.address_space<workgroup>>, memref<4x8xf32, #gpu.address_space<workgroup>> into memref<4x4xf32, #gpu.address_space<private>>
  func.return
}

// Thread t of the 2x2 grid owns rows t / 2 + 2 i and columns t % 2 + 2 j: per K, A's column
// (down its M-major tile) and B's row into registers, then their outer product into `acc`.
// CHECK-LABEL: func.func @gemm
// CHECK-NEXT:    %a_regs = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// CHECK-NEXT:    %b_regs = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[TM:.*]] = arith.divui %thread_id_x, %[[TWO]] : index
// CHECK-NEXT:    %[[TN:.*]] = arith.remui %thread_id_x, %[[TWO]] : index
// CHECK:         xsplit_gemm.threadwise_read %a_tile[%[[TM]], %[[K:.*]]] to %a_regs {stride = 2 : i64, down}
// CHECK-NEXT:    xsplit_gemm.threadwise_read %b_tile[%[[K]], %[[TN]]] to %b_regs {stride = 2 : i64}
// CHECK-NEXT:    xsplit_gemm.threadwise_gemm %a_regs * %b_regs into %acc
// CHECK-NOT:     xsplit_gemm.blockwise_gemm
// CHECK:         func.return

// -----

func.func @mma(%a_tile: memref<32x16xf16, #gpu.address_space<workgroup>>, %b_tile: memref<16x32xf16, #gpu.address_space<workgroup>>) attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  %acc = memref.alloca() : memref<1x2x4xf32, #gpu.address_space<private>>
  xsplit_gemm.blockwise_mma %a_tile * %b_tile into %acc thread %thread_id_x {mma = "m16n8k16", warps = array<i64: 2, 2>, step_k = 16 : i64, a_swizzle, b_swizzle} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>> into memref<1x2x4xf32, #gpu.address_space<private>>
  func.return
}

// Warp t / 32 (lane t % 32) owns the 16x16 warp tile at ((w / 2) 16, (w % 2) 16): one A fragment
// and one paired B fragment (columns 0 and 8 of it, one ldmatrix.x4) for the one K step of 16, two intrinsics into `acc`, one on each half.
// CHECK-LABEL: func.func @mma
// CHECK:         %[[LANES:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[WARP:.*]] = arith.divui %thread_id_x, %[[LANES]] : index
// CHECK-NEXT:    %[[LANE:.*]] = arith.remui %thread_id_x, %[[LANES]] : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[WM:.*]] = arith.divui %[[WARP]], %[[TWO]] : index
// CHECK-NEXT:    %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %[[WM]], %[[SIXTEEN]] : index
// CHECK-NEXT:    %[[WN:.*]] = arith.remui %[[WARP]], %[[TWO]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.muli %[[WN]], %[[SIXTEEN]] : index
// CHECK:         %a_frag = xsplit_gemm.threadwise_fragment %a_tile[%[[ROW]], %[[K:.*]]] lane %[[LANE]] {mma = "m16n8k16", operand = "a", swizzle} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NEXT:    %b_frag = xsplit_gemm.threadwise_fragment %b_tile[%[[K]], %[[COL]]] lane %[[LANE]] {mma = "m16n8k16", operand = "b", pair, swizzle} : memref<16x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NEXT:    xsplit_gemm.threadwise_mma %a_frag * %b_frag into %acc {mma = "m16n8k16", at = array<i64: 0, 0>, b_half = 0 : i64}
// CHECK-NEXT:    xsplit_gemm.threadwise_mma %a_frag * %b_frag into %acc {mma = "m16n8k16", at = array<i64: 0, 1>, b_half = 1 : i64}
// CHECK-NOT:     xsplit_gemm.threadwise_mma
// CHECK:         func.return

// -----

func.func @nothing_to_lower(%t: memref<4x8xf32, #gpu.address_space<workgroup>>) {
  gpu.barrier
  func.return
}

// CHECK-LABEL: func.func @nothing_to_lower(%t: memref<4x8xf32, #gpu.address_space<workgroup>>) {
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// -----

// A fused reduction along the batch (dim 2): nothing is exchanged; each
// thread's C elements (init added, C stored) go out one atomic each, at
// (m, n), masked where the tile reaches past C.
func.func @batch_reduce(%acc: memref<2x2xf32, #gpu.address_space<private>>, %c: memref<6x7xf32>, %o: memref<6x7xf32>, %r: index, %t: index) {
  xsplit_gemm.blockwise_reduce %acc init %c to %o[%r, %r] thread %t {threads = array<i64: 2, 2>, bounds = array<i64: 6, 7>, method = "max", dim = 2 : i64, stage = "atomic", merge = "atomic", subgroup = 32 : i64, exchange = "shuffle", store_c} : memref<2x2xf32, #gpu.address_space<private>>, memref<6x7xf32> to memref<6x7xf32>
  func.return
}
// CHECK-LABEL: func.func @batch_reduce
// CHECK:         %parts = memref.alloca() : memref<2x2xf32, #gpu.address_space<private>>
// CHECK:         %[[ROW:.*]] = arith.addi %r, %{{.*}} : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %r, %{{.*}} : index
// CHECK-NEXT:    xsplit_gemm.threadwise_reduce %acc init %c to %parts[%[[ROW]], %[[COL]]] {strides = array<i64: 2, 2>, bounds = array<i64: 6, 7>, method = "max", dim = 2 : i64, store_c}
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     gpu.shuffle
// CHECK:         scf.if
// CHECK:           memref.load %parts[%[[Z:.*]], %[[Z]]]
// CHECK-NEXT:      memref.atomic_rmw maxnumf %{{.*}}, %o[%[[ROW]], %[[COL]]] : (f32, memref<6x7xf32>) -> f32
// CHECK-COUNT-3:   memref.atomic_rmw maxnumf
// CHECK-NOT:     memref.atomic_rmw
