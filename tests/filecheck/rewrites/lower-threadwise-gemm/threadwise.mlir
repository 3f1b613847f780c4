// lower-threadwise-gemm alone, on the threadwise ops lower-blockwise-gemm leaves, with 2x2
// register tiles (the FMA path) and the m16n8k16 fragments of the tensor-core path. Every
// register is a constant index into a private buffer (so LLVM keeps it in a register); writes
// into C are masked per element by C's bounds; IR without threadwise ops passes through unchanged.
// RUN: xsplit-opt %s --split-input-file -p lower-threadwise-gemm | filecheck %s

func.func @registers(%a_tile: memref<8x4xf16, #gpu.address_space<workgroup>>, %b_tile: memref<4x8xf32, #gpu.address_space<workgroup>>, %tm: index, %tn: index, %kk: index) {
  %a_regs = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
  %b_regs = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
  %acc = memref.alloca() : memref<2x2xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_fill %acc : memref<2x2xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_read %a_tile[%tm, %kk] to %a_regs {stride = 4 : i64, down} : memref<8x4xf16, #gpu.address_space<workgroup>> to memref<2xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_read %b_tile[%kk, %tn] to %b_regs {stride = 4 : i64} : memref<4x8xf32, #gpu.address_space<workgroup>> to memref<2xf32, #gpu.address_space<private>>
  xsplit_gemm.threadwise_gemm %a_regs * %b_regs into %acc : memref<2xf32, #gpu.address_space<private>>, memref<2xf32, #gpu.address_space<private>> into memref<2x2xf32, #gpu.address_space<private>>
  func.return
}

// The fill: a zero into each register. A's reads go down its column (rows tm and tm + 4) and
// extend f16 to f32; B's go along its row. The product: each a[i] and b[j] loaded once, then
// acc[i, j] += a[i] * b[j], contractible into an FMA.
// CHECK-LABEL: func.func @registers
// CHECK-NOT:     xsplit_gemm
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.store %[[ZERO]], %acc[%[[I0]], %[[I0]]]
// CHECK-NEXT:    %[[I1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    memref.store %[[ZERO]], %acc[%[[I0]], %[[I1]]]
// CHECK-NEXT:    memref.store %[[ZERO]], %acc[%[[I1]], %[[I0]]]
// CHECK-NEXT:    memref.store %[[ZERO]], %acc[%[[I1]], %[[I1]]]
// CHECK-NEXT:    %[[STRIDE:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[TM1:.*]] = arith.addi %tm, %[[STRIDE]] : index
// CHECK-NEXT:    %[[A0H:.*]] = memref.load %a_tile[%tm, %kk] : memref<8x4xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[A0:.*]] = arith.extf %[[A0H]] : f16 to f32
// CHECK-NEXT:    %[[A1H:.*]] = memref.load %a_tile[%[[TM1]], %kk] : memref<8x4xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[A1:.*]] = arith.extf %[[A1H]] : f16 to f32
// CHECK-NEXT:    %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.store %[[A0]], %a_regs[%[[R0]]]
// CHECK-NEXT:    %[[R1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    memref.store %[[A1]], %a_regs[%[[R1]]]
// CHECK:         %[[TN1:.*]] = arith.addi %tn, %{{.*}} : index
// CHECK-NEXT:    %[[B0:.*]] = memref.load %b_tile[%kk, %tn] : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[B1:.*]] = memref.load %b_tile[%kk, %[[TN1]]] : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:     arith.extf
// CHECK:         memref.store %[[B0]], %b_regs
// CHECK:         memref.store %[[B1]], %b_regs
// CHECK-NEXT:    %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[X0:.*]] = memref.load %a_regs[%[[K0]]]
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[X1:.*]] = memref.load %a_regs[%[[K1]]]
// CHECK-NEXT:    %[[Y0:.*]] = memref.load %b_regs[%[[K0]]]
// CHECK-NEXT:    %[[Y1:.*]] = memref.load %b_regs[%[[K1]]]
// CHECK-NEXT:    %[[C00:.*]] = memref.load %acc[%[[K0]], %[[K0]]]
// CHECK-NEXT:    %[[P00:.*]] = arith.mulf %[[X0]], %[[Y0]] fastmath<contract> : f32
// CHECK-NEXT:    %[[S00:.*]] = arith.addf %[[C00]], %[[P00]] fastmath<contract> : f32
// CHECK-NEXT:    memref.store %[[S00]], %acc[%[[K0]], %[[K0]]]
// CHECK-NEXT:    %[[C01:.*]] = memref.load %acc[%[[K0]], %[[K1]]]
// CHECK-NEXT:    %[[P01:.*]] = arith.mulf %[[X0]], %[[Y1]] fastmath<contract> : f32
// CHECK-NEXT:    %[[S01:.*]] = arith.addf %[[C01]], %[[P01]] fastmath<contract> : f32
// CHECK-NEXT:    memref.store %[[S01]], %acc[%[[K0]], %[[K1]]]
// CHECK-NEXT:    %[[C10:.*]] = memref.load %acc[%[[K1]], %[[K0]]]
// CHECK-NEXT:    %[[P10:.*]] = arith.mulf %[[X1]], %[[Y0]] fastmath<contract> : f32
// CHECK-NEXT:    %[[S10:.*]] = arith.addf %[[C10]], %[[P10]] fastmath<contract> : f32
// CHECK-NEXT:    memref.store %[[S10]], %acc[%[[K1]], %[[K0]]]
// CHECK-NEXT:    %[[C11:.*]] = memref.load %acc[%[[K1]], %[[K1]]]
// CHECK-NEXT:    %[[P11:.*]] = arith.mulf %[[X1]], %[[Y1]] fastmath<contract> : f32
// CHECK-NEXT:    %[[S11:.*]] = arith.addf %[[C11]], %[[P11]] fastmath<contract> : f32
// CHECK-NEXT:    memref.store %[[S11]], %acc[%[[K1]], %[[K1]]]
// CHECK-NEXT:    func.return

// -----

func.func @atomic(%acc: memref<2x2xf32, #gpu.address_space<private>>, %c: memref<6x8xf32>, %row: index, %col: index) {
  xsplit_gemm.threadwise_write %acc to %c[%row, %col] {strides = array<i64: 4, 4>, merge = "atomic"} : memref<2x2xf32, #gpu.address_space<private>> to memref<6x8xf32>
  func.return
}

// Register (i, j) goes to C[row + 4 i, col + 4 j], when that is inside C's 6x8.
// CHECK-LABEL: func.func @atomic
// CHECK-NEXT:    %[[STRIDE:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[ROW1:.*]] = arith.addi %row, %[[STRIDE]] : index
// CHECK-NEXT:    %[[COL1:.*]] = arith.addi %col, %[[STRIDE]] : index
// CHECK-NEXT:    %[[M:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[IN_R0:.*]] = arith.cmpi ult, %row, %[[M]] : index
// CHECK-NEXT:    %[[IN_R1:.*]] = arith.cmpi ult, %[[ROW1]], %[[M]] : index
// CHECK-NEXT:    %[[N:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[IN_C0:.*]] = arith.cmpi ult, %col, %[[N]] : index
// CHECK-NEXT:    %[[IN_C1:.*]] = arith.cmpi ult, %[[COL1]], %[[N]] : index
// CHECK-NEXT:    %[[IN00:.*]] = arith.andi %[[IN_R0]], %[[IN_C0]] : i1
// CHECK-NEXT:    scf.if %[[IN00]] {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[V00:.*]] = memref.load %acc[%[[Z]], %[[Z]]]
// CHECK-NEXT:      memref.atomic_rmw addf %[[V00]], %c[%row, %col] : (f32, memref<6x8xf32>) -> f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[IN01:.*]] = arith.andi %[[IN_R0]], %[[IN_C1]] : i1
// CHECK-NEXT:    scf.if %[[IN01]] {
// CHECK:           memref.atomic_rmw addf %{{.*}}, %c[%row, %[[COL1]]]
// CHECK:         %[[IN10:.*]] = arith.andi %[[IN_R1]], %[[IN_C0]] : i1
// CHECK-NEXT:    scf.if %[[IN10]] {
// CHECK:           memref.atomic_rmw addf %{{.*}}, %c[%[[ROW1]], %col]
// CHECK:         %[[IN11:.*]] = arith.andi %[[IN_R1]], %[[IN_C1]] : i1
// CHECK-NEXT:    scf.if %[[IN11]] {
// CHECK-NEXT:      %[[O:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[V11:.*]] = memref.load %acc[%[[O]], %[[O]]]
// CHECK-NEXT:      memref.atomic_rmw addf %[[V11]], %c[%[[ROW1]], %[[COL1]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// -----

func.func @store(%acc: memref<2x2xf32, #gpu.address_space<private>>, %c: memref<6x8xf32>, %row: index, %col: index) {
  xsplit_gemm.threadwise_write %acc to %c[%row, %col] {strides = array<i64: 4, 4>, merge = "store"} : memref<2x2xf32, #gpu.address_space<private>> to memref<6x8xf32>
  func.return
}

// One chunk: C's element plus the register, stored back, under the same masks.
// CHECK-LABEL: func.func @store
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %acc[%[[Z]], %[[Z]]]
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %c[%row, %col] : memref<6x8xf32>
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// CHECK-NEXT:      memref.store %[[NEW]], %c[%row, %col] : memref<6x8xf32>
// CHECK-NEXT:    }
// CHECK-COUNT-3: memref.store %{{.*}}, %c[
// CHECK-NOT:     memref.store
// CHECK:         func.return

// -----

func.func @partials(%acc: memref<2x2xf32, #gpu.address_space<private>>, %p: memref<3x6x8xf32>, %row: index, %col: index, %chunk: index) {
  xsplit_gemm.threadwise_write %acc to %p[%row, %col] chunk %chunk {strides = array<i64: 4, 4>, merge = "partials"} : memref<2x2xf32, #gpu.address_space<private>> to memref<3x6x8xf32>
  func.return
}

// The register itself, into the chunk's slice of the partials (the merge kernel adds them).
// CHECK-LABEL: func.func @partials
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %acc[%[[Z]], %[[Z]]]
// CHECK-NEXT:      memref.store %[[V]], %p[%chunk, %row, %col] : memref<3x6x8xf32>
// CHECK-NEXT:    }
// CHECK-COUNT-3: memref.store %{{.*}}, %p[%chunk,
// CHECK-NOT:     memref.load %p
// CHECK:         func.return

// -----

func.func @mma(%a_tile: memref<32x16xf16, #gpu.address_space<workgroup>>, %b_tile: memref<16x32xf16, #gpu.address_space<workgroup>>, %row: index, %col: index, %kk: index, %lane: index) {
  %acc = memref.alloca() : memref<1x2x4xf32, #gpu.address_space<private>>
  %a_frag = xsplit_gemm.threadwise_fragment %a_tile[%row, %kk] lane %lane {mma = "m16n8k16", operand = "a"} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %b_frag = xsplit_gemm.threadwise_fragment %b_tile[%kk, %col] lane %lane {mma = "m16n8k16", operand = "b"} : memref<16x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  xsplit_gemm.threadwise_mma %a_frag * %b_frag into %acc {mma = "m16n8k16", at = array<i64: 0, 1>} : vector<4x2xf16>, vector<2x2xf16> into memref<1x2x4xf32, #gpu.address_space<private>>
  func.return
}

// A's 16x16 fragment in one ldmatrix x4: lane l gives the address of row l % 8 + 8 ((l / 8) % 2),
// column 8 (l / 16). B's 16x8, staged K-major, in one transposed x2: lane l gives row l % 16.
// The mma reads the accumulator's block (0, 1) into a vector and writes the result back.
// CHECK-LABEL: func.func @mma
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[L8:.*]] = arith.remui %lane, %[[EIGHT]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divui %lane, %[[EIGHT]] : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[HALF:.*]] = arith.remui %[[Q]], %[[TWO]] : index
// CHECK-NEXT:    %[[DOWN:.*]] = arith.muli %[[HALF]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[L8]], %[[DOWN]] : index
// CHECK-NEXT:    %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[RIGHT:.*]] = arith.divui %lane, %[[SIXTEEN]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.muli %[[RIGHT]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[AR:.*]] = arith.addi %row, %[[R]] : index
// CHECK-NEXT:    %[[AC:.*]] = arith.addi %kk, %[[C]] : index
// CHECK-NEXT:    %a_frag = nvgpu.ldmatrix %a_tile[%[[AR]], %[[AC]]] numTiles = 4 transpose = false : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NEXT:    %[[SIXTEEN2:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[L16:.*]] = arith.remui %lane, %[[SIXTEEN2]] : index
// CHECK-NEXT:    %[[BR:.*]] = arith.addi %kk, %[[L16]] : index
// CHECK-NEXT:    %b_frag = nvgpu.ldmatrix %b_tile[%[[BR]], %col] numTiles = 2 transpose = true : memref<16x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK-COUNT-4: memref.load %acc[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-NEXT:    %[[CIN:.*]] = vector.from_elements %{{.*}} : vector<2x2xf32>
// CHECK-NEXT:    %[[D:.*]] = nvgpu.mma.sync(%a_frag, %b_frag, %[[CIN]]) mmaShape = [16, 8, 16] : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NEXT:    vector.extract %[[D]][0, 0] : f32 from vector<2x2xf32>
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    vector.extract %[[D]][0, 1] : f32 from vector<2x2xf32>
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    vector.extract %[[D]][1, 0] : f32 from vector<2x2xf32>
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    vector.extract %[[D]][1, 1] : f32 from vector<2x2xf32>
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    func.return

// -----

// f16 rows on gfx942's f32 MFMA, eight side by side (mfma_f32_16x16x4_f32_x8): lane l's
// columns are 8 (l % 16) .. 8 (l % 16) + 7, one 16-byte read of B for all eight MFMAs. A's
// element and B's eight are widened (arith.extf) before a scheduling barrier, then MFMA i
// takes B's element i and C's elements 4i .. 4i + 3.
func.func @mma_widened(%a_tile: memref<16x32xf16, #gpu.address_space<workgroup>>, %b_tile: memref<32x256xf16, #gpu.address_space<workgroup>>, %row: index, %col: index, %kk: index, %lane: index) {
  %acc = memref.alloca() : memref<1x1x32xf32, #gpu.address_space<private>>
  %a_frag = xsplit_gemm.threadwise_fragment %a_tile[%row, %kk] lane %lane {mma = "mfma_f32_16x16x4_f32_x8", operand = "a"} : memref<16x32xf16, #gpu.address_space<workgroup>> -> vector<1xf16>
  %b_frag = xsplit_gemm.threadwise_fragment %b_tile[%kk, %col] lane %lane {mma = "mfma_f32_16x16x4_f32_x8", operand = "b"} : memref<32x256xf16, #gpu.address_space<workgroup>> -> vector<8xf16>
  xsplit_gemm.threadwise_mma %a_frag * %b_frag into %acc {mma = "mfma_f32_16x16x4_f32_x8", at = array<i64: 0, 0>} : vector<1xf16>, vector<8xf16> into memref<1x1x32xf32, #gpu.address_space<private>>
  func.return
}

// CHECK-LABEL: func.func @mma_widened
// CHECK:         %[[A:.*]] = memref.load %a_tile[%{{.*}}, %{{.*}}] : memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[G:.*]] = arith.divui %lane, %[[SIXTEEN]] : index
// CHECK-NEXT:    %[[L:.*]] = arith.remui %lane, %[[SIXTEEN]] : index
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[COLS:.*]] = arith.muli %[[L]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[BR:.*]] = arith.addi %kk, %[[G]] : index
// CHECK-NEXT:    %[[BC:.*]] = arith.addi %col, %[[COLS]] : index
// CHECK-NEXT:    %{{.*}} = vector.load %b_tile[%[[BR]], %[[BC]]] : memref<32x256xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:         %[[C:.*]] = vector.from_elements {{.*}} : vector<32xf32>
// CHECK-NEXT:    %{{.*}} = vector.extract %a_frag[0] : f16 from vector<1xf16>
// CHECK-NEXT:    %[[WA:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:    %{{.*}} = vector.extract %b_frag[0] : f16 from vector<8xf16>
// CHECK-NEXT:    %[[WB0:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-COUNT-7: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:    amdgpu.sched_barrier allow = none
// CHECK-NEXT:    %[[C0:.*]] = vector.extract %[[C]][0] : f32 from vector<32xf32>
// CHECK-COUNT-3: vector.extract %[[C]]
// CHECK-NEXT:    %[[CIN:.*]] = vector.from_elements %[[C0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT:    %{{.*}} = amdgpu.mfma 16x16x4 %[[WA]] * %[[WB0]] + %[[CIN]] : f32, f32, vector<4xf32>
// CHECK-COUNT-7: amdgpu.mfma 16x16x4 %[[WA]] * %{{.*}} : f32, f32, vector<4xf32>
// CHECK:         %[[D:.*]] = vector.from_elements {{.*}} : vector<32xf32>
// CHECK-NEXT:    %{{.*}} = vector.extract %[[D]][0] : f32 from vector<32xf32>
// CHECK-NEXT:    memref.store %{{.*}}, %acc[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-COUNT-31: memref.store
// CHECK-NEXT:    func.return

// -----

func.func @nothing_to_lower(%acc: memref<2x2xf32, #gpu.address_space<private>>) {
  %z = arith.constant 0 : index
  %x = memref.load %acc[%z, %z] : memref<2x2xf32, #gpu.address_space<private>>
  func.return
}

// CHECK-LABEL: func.func @nothing_to_lower(%acc: memref<2x2xf32, #gpu.address_space<private>>) {
// CHECK-NEXT:    %z = arith.constant 0 : index
// CHECK-NEXT:    %x = memref.load %acc[%z, %z] : memref<2x2xf32, #gpu.address_space<private>>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// -----

// Along the batch (dim 2) nothing is combined: each element of C, its init
// added and the identity outside C (columns past 3 here), is its own part.
func.func @batch_elements(%acc: memref<2x2xf32, #gpu.address_space<private>>, %parts: memref<2x2xf32, #gpu.address_space<private>>, %r: index) {
  xsplit_gemm.threadwise_reduce %acc to %parts[%r, %r] {strides = array<i64: 2, 2>, bounds = array<i64: 4, 3>, method = "sum", dim = 2 : i64, init = 1.5 : f32} : memref<2x2xf32, #gpu.address_space<private>> to memref<2x2xf32, #gpu.address_space<private>>
  func.return
}
// CHECK-LABEL: func.func @batch_elements
// CHECK:         %{{.*}} = arith.addi %r, %{{.*}} : index
// CHECK-NEXT:    %[[COL1:.*]] = arith.addi %r, %{{.*}} : index
// CHECK:         %[[IN0:.*]] = arith.cmpi ult, %r, %{{.*}} : index
// CHECK-NEXT:    %[[IN1:.*]] = arith.cmpi ult, %[[COL1]], %{{.*}} : index
// CHECK:         %[[X:.*]] = memref.load %acc[%[[Z:.*]], %[[Z]]]
// CHECK-NEXT:    %[[INIT:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[X]], %[[INIT]] : f32
// CHECK-NEXT:    %[[ID:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[V:.*]] = arith.select %[[IN0]], %[[S]], %[[ID]] : f32
// CHECK-NEXT:    memref.store %[[V]], %parts[%[[Z]], %[[Z]]]
// CHECK:         arith.select %[[IN1]]
// CHECK-NOT:     arith.maxnumf
// CHECK-COUNT-3: memref.store %{{.*}}, %parts[

// -----

// `from`: a shifted last tile of columns writes only C's columns from %from on (its
// neighbour's are its neighbour's), beside the bounds mask.
func.func @write_from(%acc: memref<1x1x4xf32, #gpu.address_space<private>>, %c: memref<4x200xf32>, %row: index, %col: index, %lane: index, %from: index) {
  xsplit_gemm.threadwise_write_fragments %acc to %c[%row, %col] lane %lane from %from {mma = "m16n8k16", merge = "atomic"} : memref<1x1x4xf32, #gpu.address_space<private>> to memref<4x200xf32>
  func.return
}

// CHECK-LABEL: func.func @write_from
// CHECK:         %[[C:.*]] = arith.addi %col, %{{.*}} : index
// CHECK-NEXT:    %[[RIN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[N:.*]] = arith.constant 200 : index
// CHECK-NEXT:    %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[N]] : index
// CHECK-NEXT:    %[[IN:.*]] = arith.andi %[[RIN]], %[[CIN]] : i1
// CHECK-NEXT:    %[[MINE:.*]] = arith.cmpi uge, %[[C]], %from : index
// CHECK-NEXT:    %[[BOTH:.*]] = arith.andi %[[IN]], %[[MINE]] : i1
// CHECK-NEXT:    scf.if %[[BOTH]] {
// CHECK:           memref.atomic_rmw addf
// CHECK-COUNT-3: arith.cmpi uge, %{{.*}}, %from : index
