// lower-blockwise-gemm on an asynchronous copy with `row_threads = 2` (the skinny tensor-core
// tile's B: each thread has 8 or more copies): threads t and t + 1 share a row, thread t copies
// every second vector of rows t / 2 and t / 2 + 4. With its rows inside the source (`inside`
// 0) and whole tiles of columns, every copy reads a view from the thread's first vector at
// constant places, which LLVM folds into the copy's immediate offset. Where rows or columns are
// masked the copies address the source itself, clamped (a view past B's edge would be out of
// bounds).
// RUN: xsplit-opt %s --split-input-file -p lower-blockwise-gemm | filecheck %s

func.func @row_threads(%b: memref<100x64xf32>, %b_tile: memref<8x32xf32, #gpu.address_space<workgroup>>, %k0: index, %col: index) attributes {gpu.known_block_size = array<i32: 8, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  %g = xsplit_gemm.blockwise_async_copy %b[%k0, %col] to %b_tile thread %thread_id_x {sizes = array<i64: 8, 32>, threads = 8 : i64, vector = 4 : i64, inside = array<i64: 0>, row_threads = 2 : i64} : memref<100x64xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
  func.return
}

// CHECK-LABEL: func.func @row_threads
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[TR:.*]] = arith.divui %thread_id_x, %[[TWO]] : index
// CHECK-NEXT:    %[[TV0:.*]] = arith.remui %thread_id_x, %[[TWO]] : index
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[TV:.*]] = arith.muli %[[TV0]], %[[FOUR]] : index
// CHECK-NEXT:    %[[R0:.*]] = arith.addi %k0, %[[TR]] : index
// CHECK-NEXT:    %[[C0:.*]] = arith.addi %col, %[[TV]] : index
// CHECK-NEXT:    %[[VIEW:.*]] = memref.subview %b[%[[R0]], %[[C0]]] [5, 28] [1, 1] : memref<100x64xf32> to memref<5x28xf32, strided<[64, 1], offset: ?>>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %{{.*}} = nvgpu.device_async_copy %[[VIEW]][%[[Z]], %[[Z]]], %b_tile[%[[TR]], %[[TV]]], 4 bypassL1
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[J1:.*]] = arith.addi %[[TV]], %[[EIGHT]] : index
// CHECK-NEXT:    %{{.*}} = nvgpu.device_async_copy %[[VIEW]][%[[Z]], %[[EIGHT]]], %b_tile[%[[TR]], %[[J1]]], 4 bypassL1
// CHECK-COUNT-2: nvgpu.device_async_copy %[[VIEW]][%[[Z]], %{{.*}}], %b_tile[%[[TR]], %{{.*}}], 4 bypassL1
// The second pass of rows: the same view, 4 rows down.
// CHECK-NEXT:    %[[R1:.*]] = arith.addi %[[TR]], %[[FOUR]] : index
// CHECK-NEXT:    %{{.*}} = nvgpu.device_async_copy %[[VIEW]][%[[FOUR]], %[[Z]]], %b_tile[%[[R1]], %[[TV]]], 4 bypassL1
// CHECK-COUNT-3: nvgpu.device_async_copy %[[VIEW]][%[[FOUR]], %{{.*}}]
// CHECK-NEXT:    %g = nvgpu.device_async_create_group
// CHECK-NOT:     nvgpu.device_async_copy

// -----

// Columns masked (B's 72 columns, tiles of 32): each copy addresses B itself, clamped to 0
// where its run is past B (srcElements 0); a run's mask is the same in both passes of rows.
func.func @row_threads_masked_columns(%b: memref<100x72xf32>, %b_tile: memref<8x32xf32, #gpu.address_space<workgroup>>, %k0: index, %col: index) attributes {gpu.known_block_size = array<i32: 8, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  %g = xsplit_gemm.blockwise_async_copy %b[%k0, %col] to %b_tile thread %thread_id_x {sizes = array<i64: 8, 32>, threads = 8 : i64, vector = 4 : i64, inside = array<i64: 0>, row_threads = 2 : i64} : memref<100x72xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
  func.return
}

// CHECK-LABEL: func.func @row_threads_masked_columns
// CHECK-NOT:     memref.subview
// CHECK:         %[[TR:.*]] = arith.divui %thread_id_x
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         %[[R0:.*]] = arith.addi %k0, %[[TR]] : index
// CHECK-NEXT:    %[[C0:.*]] = arith.addi %col, %{{.*}} : index
// CHECK:         %[[N:.*]] = arith.constant 72 : index
// CHECK-NEXT:    %[[IN0:.*]] = arith.cmpi ult, %[[C0]], %[[N]] : index
// CHECK-COUNT-3: arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[IN0]], %[[R0]], %[[Z]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.select %[[IN0]], %[[C0]], %[[Z]] : index
// CHECK-NEXT:    %[[CNT:.*]] = arith.select %[[IN0]], %[[FOUR]], %[[Z]] : index
// CHECK-NEXT:    %{{.*}} = nvgpu.device_async_copy %b[%[[R]], %[[C]]], %b_tile[%[[TR]], %{{.*}}], 4, %[[CNT]] bypassL1
// CHECK-COUNT-3: nvgpu.device_async_copy %b[
// CHECK:         %[[R1:.*]] = arith.addi %[[R0]], %[[FOUR]] : index
// CHECK-NEXT:    %{{.*}} = arith.select %[[IN0]], %[[R1]], %[[Z]] : index
// CHECK-COUNT-4: nvgpu.device_async_copy %b[
// CHECK-NOT:     nvgpu.device_async_copy

// -----

// Rows masked (no `inside`), two passes of rows: a view a pass, at the pass's row clamped
// into B, its copies reading nothing past B's rows (srcElements 0) at constant places in it.
func.func @row_threads_masked_rows(%b: memref<100x64xf32>, %b_tile: memref<8x32xf32, #gpu.address_space<workgroup>>, %k0: index, %col: index) attributes {gpu.known_block_size = array<i32: 8, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  %g = xsplit_gemm.blockwise_async_copy %b[%k0, %col] to %b_tile thread %thread_id_x {sizes = array<i64: 8, 32>, threads = 8 : i64, vector = 4 : i64, row_threads = 2 : i64} : memref<100x64xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
  func.return
}

// CHECK-LABEL: func.func @row_threads_masked_rows
// CHECK:         %[[TR:.*]] = arith.divui %thread_id_x
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         %[[R0:.*]] = arith.addi %k0, %[[TR]] : index
// CHECK-NEXT:    %[[C0:.*]] = arith.addi %col, %{{.*}} : index
// CHECK-NEXT:    %[[LAST:.*]] = arith.constant 99 : index
// CHECK-NEXT:    %[[AT0:.*]] = arith.minui %[[R0]], %[[LAST]] : index
// CHECK-NEXT:    %[[V0:.*]] = memref.subview %b[%[[AT0]], %[[C0]]] [1, 28] [1, 1] : memref<100x64xf32> to memref<1x28xf32, strided<[64, 1], offset: ?>>
// CHECK-NEXT:    %[[M:.*]] = arith.constant 100 : index
// CHECK-NEXT:    %[[IN0:.*]] = arith.cmpi ult, %[[R0]], %[[M]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N0:.*]] = arith.select %[[IN0]], %[[FOUR]], %[[Z]] : index
// CHECK-NEXT:    nvgpu.device_async_copy %[[V0]][%[[Z]], %[[Z]]], %b_tile[%[[TR]], %{{.*}}], 4, %[[N0]] bypassL1
// CHECK-COUNT-3: nvgpu.device_async_copy %[[V0]][%[[Z]], %{{.*}}], %b_tile[%[[TR]], %{{.*}}], 4, %[[N0]] bypassL1
// CHECK-NEXT:    %[[R1:.*]] = arith.addi %[[R0]], %[[FOUR]] : index
// CHECK-NEXT:    %[[AT1:.*]] = arith.minui %[[R1]], %[[LAST]] : index
// CHECK-NEXT:    %[[V1:.*]] = memref.subview %b[%[[AT1]], %[[C0]]] [1, 28] [1, 1]
// CHECK-NEXT:    %[[IN1:.*]] = arith.cmpi ult, %[[R1]], %[[M]] : index
// CHECK-NEXT:    %[[N1:.*]] = arith.select %[[IN1]], %[[FOUR]], %[[Z]] : index
// CHECK-COUNT-4: nvgpu.device_async_copy %[[V1]][%[[Z]], %{{.*}}], %b_tile[%{{.*}}, %{{.*}}], 4, %[[N1]] bypassL1
// CHECK-NOT:     nvgpu.device_async_copy %b[

// -----

// Rows masked, one row a thread (A's 4 rows of a skinny M = 3, 8 threads in pairs): the view
// starts at the thread's row clamped into A, and every copy of the row reads nothing past A's
// rows (srcElements 0) at constant places in it.
func.func @row_threads_one_masked_row(%a: memref<3x256xf16>, %a_tile: memref<4x128xf16, #gpu.address_space<workgroup>>, %m0: index, %k0: index) attributes {gpu.known_block_size = array<i32: 8, 1, 1>} {
  %thread_id_x = gpu.thread_id x
  %g = xsplit_gemm.blockwise_async_copy %a[%m0, %k0] to %a_tile thread %thread_id_x {sizes = array<i64: 4, 128>, threads = 8 : i64, vector = 8 : i64, inside = array<i64: 1>, row_threads = 2 : i64} : memref<3x256xf16> to memref<4x128xf16, #gpu.address_space<workgroup>>
  func.return
}

// CHECK-LABEL: func.func @row_threads_one_masked_row
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[TR:.*]] = arith.divui %thread_id_x, %[[TWO]]
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK:         %[[R0:.*]] = arith.addi %m0, %[[TR]] : index
// CHECK-NEXT:    %[[C0:.*]] = arith.addi %k0, %{{.*}} : index
// CHECK-NEXT:    %[[AT:.*]] = arith.minui %[[R0]], %[[TWO]] : index
// CHECK-NEXT:    %[[VIEW:.*]] = memref.subview %a[%[[AT]], %[[C0]]] [1, 120] [1, 1] : memref<3x256xf16> to memref<1x120xf16, strided<[256, 1], offset: ?>>
// CHECK-NEXT:    %[[M:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[R0]], %[[M]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[CNT:.*]] = arith.select %[[IN]], %[[EIGHT]], %[[Z]] : index
// CHECK-NEXT:    %{{.*}} = nvgpu.device_async_copy %[[VIEW]][%[[Z]], %[[Z]]], %a_tile[%[[TR]], %{{.*}}], 8, %[[CNT]] bypassL1
// CHECK-COUNT-7: nvgpu.device_async_copy %[[VIEW]][%[[Z]], %{{.*}}], %a_tile[%[[TR]], %{{.*}}], 8, %[[CNT]] bypassL1
// CHECK-NEXT:    %g = nvgpu.device_async_create_group
