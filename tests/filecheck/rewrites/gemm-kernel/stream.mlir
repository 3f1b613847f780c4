// gemm-kernel on a skinny f32 matmul (M = 3, under 8): the table's SKINNY entry streams B from
// global memory into registers (stream_b) with a 4-row tile (M rounded up), one thread along M,
// 8 columns a thread in runs of 4; stream_b=none keeps B staged. lower-gridwise-gemm then stages
// only A, two tiles, one barrier a step: by cp.async issued before the multiply (sm_80) or, on
// gfx942 (stream_b=on: no table entry there), by a plain copy into the idle tile after it; the loop runs whole K steps, unmasked along
// K, and the ragged last step (999 = 31 x 32 + 7) follows it, masked (ragged_k).
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_90 chunks=2}' 2>&1 | filecheck %s --check-prefix=KERNEL
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_90 chunks=2 stream_b=none}' 2>&1 | filecheck %s --check-prefix=STAGED
// RUN: xsplit-opt %s -p 'gemm-kernel{target=sm_80 chunks=2},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=ASYNC
// RUN: xsplit-opt %s -p 'gemm-kernel{target=gfx942 chunks=2 tile=4,512,64 threads=1,64 stream_b=on},lower-gridwise-gemm' 2>/dev/null | filecheck %s --check-prefix=COPY

// KERNEL:      stream.mlir:[[# @LINE + 45]]:3: remark: gemm-kernel: on sm_90, 4x256 C tiles over 2 K chunks of 512 (grid 8x1x2, 32 threads, K steps of 32, double-buffered with cp.async, B streamed into registers); merge atomic
// KERNEL:      xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 4, 256, 32>, threads = array<i64: 1, 32>, chunks = 2 : i64, merge = "atomic", stages = 2 : i64, thread_columns = 4 : i64, stream_b}

// STAGED:      remark: gemm-kernel: on sm_90, 64x64 C tiles
// STAGED-NOT:  streamed
// STAGED:      xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 64, 64, 16>, threads = array<i64: 8, 16>
// STAGED-NOT:  stream_b

// ASYNC:       %a_tile0 = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
// ASYNC-NEXT:  %a_tile1 = memref.alloc() : memref<4x32xf32, #gpu.address_space<workgroup>>
// ASYNC-NOT:   b_tile
// ASYNC:       %[[WHOLE:.*]] = arith.constant 992 : index
// ASYNC-NEXT:  %[[LOOP_END:.*]] = arith.minui %{{.*}}, %[[WHOLE]] : index
// ASYNC-NEXT:  %[[FIRST:.*]] = xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %[[K_BEGIN:.*]]] to %a_tile0 thread %thread_id_x {sizes = array<i64: 4, 32>, threads = 32 : i64}
// ASYNC:       scf.for %k0 = %[[K_BEGIN]] to %[[LOOP_END]] step %{{.*}} {
// ASYNC-NEXT:    nvgpu.device_async_wait %[[FIRST]] numGroups = 0
// ASYNC-NEXT:    gpu.barrier
// ASYNC:         scf.if
// ASYNC-NEXT:      xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %{{.*}}] to %a_tile1 thread %thread_id_x {sizes = array<i64: 4, 32>, threads = 32 : i64, inside = array<i64: 1>}
// ASYNC-NEXT:    }
// ASYNC-NEXT:    xsplit_gemm.blockwise_stream_gemm %a_tile0 * %b[%k0, %{{.*}}] into %acc thread %thread_id_x {threads = 32 : i64, step_k = 32 : i64, vector = 4 : i64}
// ASYNC:         scf.if
// ASYNC-NEXT:      nvgpu.device_async_wait %[[FIRST]] numGroups = 0
// ASYNC-NEXT:      gpu.barrier
// ASYNC:           xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %{{.*}}] to %a_tile0 {{.*}} inside = array<i64: 1>}
// ASYNC:           xsplit_gemm.blockwise_stream_gemm %a_tile1 * %b[
// ASYNC-NOT:       ragged_k
// ASYNC:       scf.if
// ASYNC-NEXT:    nvgpu.device_async_wait %[[FIRST]] numGroups = 0
// ASYNC-NEXT:    gpu.barrier
// ASYNC-NEXT:    %[[LAST:.*]] = xsplit_gemm.blockwise_async_copy %a[%{{.*}}, %[[LOOP_END]]] to %a_tile0 thread %thread_id_x {sizes = array<i64: 4, 32>, threads = 32 : i64}
// ASYNC-NEXT:    nvgpu.device_async_wait %[[LAST]] numGroups = 0
// ASYNC-NEXT:    gpu.barrier
// ASYNC-NEXT:    xsplit_gemm.blockwise_stream_gemm %a_tile0 * %b[%[[LOOP_END]], %{{.*}}] into %acc thread %thread_id_x {threads = 32 : i64, step_k = 32 : i64, vector = 4 : i64, ragged_k}
// ASYNC:       xsplit_gemm.threadwise_write %acc to %c[{{.*}}] {strides = array<i64: 1, 128>, merge = "atomic", group = 4 : i64}

// COPY-NOT:    nvgpu
// COPY:        scf.for %k0
// COPY-NEXT:     gpu.barrier
// COPY:          xsplit_gemm.blockwise_stream_gemm %a_tile0 * %b[%k0, %{{.*}}] into %acc thread %thread_id_x {threads = 64 : i64, step_k = 64 : i64, vector = 4 : i64}
// COPY-NEXT:     scf.if
// COPY-NEXT:       xsplit_gemm.blockwise_copy %a[%{{.*}}, %{{.*}}] to %a_tile1 thread %thread_id_x {sizes = array<i64: 4, 64>, threads = 64 : i64, inside = array<i64: 1>}
// COPY:        xsplit_gemm.blockwise_stream_gemm %a_tile0 * %b[{{.*}} ragged_k}

func.func @mm(%a: tensor<3x999xf32>, %b: tensor<999x2048xf32>, %c: tensor<3x2048xf32>) -> tensor<3x2048xf32> {
  %x = linalg.matmul ins(%a, %b : tensor<3x999xf32>, tensor<999x2048xf32>) outs(%c : tensor<3x2048xf32>) -> tensor<3x2048xf32>
  return %x : tensor<3x2048xf32>
}
