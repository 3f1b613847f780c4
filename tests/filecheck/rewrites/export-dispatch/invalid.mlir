// RUN: xsplit-opt --split-input-file --verify-diagnostics %s -p 'export-dispatch{target=cpu}' 2>&1 | filecheck %s
// RUN: not xsplit-opt %s -p 'export-dispatch' 2>&1 | filecheck %s --check-prefix=NO-TARGET
// RUN: not xsplit-opt %s -p 'export-dispatch{target=tpu}' 2>&1 | filecheck %s --check-prefix=BAD-TARGET

// NO-TARGET: error: export-dispatch: target is required (cpu, sm_80, gfx942, ...)
// BAD-TARGET: error: export-dispatch: target is unknown: 'tpu', expected one of cpu, sm_80, sm_90, gfx942

// Thread-level code does not run on llvm-cpu.
// CHECK: invalid.mlir:[[# @LINE + 3]]:3: error: export-dispatch{target=cpu}: 'gpu.thread_id' is thread-level code; llvm-cpu runs workgroup-level code only (use a GPU target)
func.func @threads(%out: memref<4xf32>) attributes {gpu.known_block_size = array<i32: 1, 1, 1>} {
  %v = arith.constant 1.0 : f32
  %t = gpu.thread_id x
  memref.store %v, %out[%t] : memref<4xf32>
  func.return
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 3]]:3: error: export-dispatch{target=cpu}: 'memref.alloc' is thread-level code
func.func @shared(%out: memref<4xf32>) {
  %v = arith.constant 1.0 : f32
  %smem = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
  func.return
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: export-dispatch: the launch grid is unknown: give gpu.known_grid_size on the function or grid=X,Y,Z
func.func @no_grid(%out: memref<4xf32>) {
  %v = arith.constant 1.0 : f32
  %b = gpu.block_id x
  memref.store %v, %out[%b] : memref<4xf32>
  func.return
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 3]]:3: error: export-dispatch: this loop is still mapped to processors; run distribute first
func.func @not_distributed(%out: memref<4xf32>) attributes {gpu.known_grid_size = array<i32: 4, 1, 1>} {
  %v = arith.constant 1.0 : f32
  scf.forall (%i) in (4) {
    memref.store %v, %out[%i] : memref<4xf32>
  } {mapping = [#gpu.block<x>]}
  func.return
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: export-dispatch: argument 0 (memref<?xf32>) must be a memref with a static shape, the identity layout and the default memory space
func.func @dynamic(%out: memref<?xf32>) {
  func.return
}

// -----

// A linalg op on tensors inside a kernel has no loops over memory to become.
// CHECK: invalid.mlir:[[# @LINE + 5]]:3: error: export-dispatch: 'linalg.fill' cannot be lowered to loops (it works on tensors; bufferize the kernel first), and iree-compile takes no linalg op in a kernel it lowers as written
func.func @tensor_tile(%out: memref<4xf32>) {
  %v = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %x = tensor.extract %f[%c0] : tensor<4xf32>
  memref.store %x, %out[%c0] : memref<4xf32>
  func.return
}

// -----

// Functions that are not kernels pass through unchanged.
// CHECK-LABEL: func.func @host(%t: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %t
// CHECK-NOT:   hal.executable.source
func.func @host(%t: tensor<4xf32>) -> tensor<4xf32> {
  func.return %t : tensor<4xf32>
}
