// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @global_dst(%src: memref<100x64xf32>, %dst: memref<16x64xf32>, %i: index) {
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 4 : memref<100x64xf32> to memref<16x64xf32>
  func.return
}
// CHECK: invalid.mlir:4:3: error: 'nvgpu.device_async_copy' op the destination must be in workgroup memory

// -----

func.func @bytes(%src: memref<100x64xf32>, %i: index) {
  %dst = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 3 : memref<100x64xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'nvgpu.device_async_copy' op copies 4, 8 or 16 bytes, not 12

// -----

func.func @bypass(%src: memref<100x64xf32>, %i: index) {
  %dst = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  %t = nvgpu.device_async_copy %src[%i, %i], %dst[%i, %i], 1 bypassL1 : memref<100x64xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'nvgpu.device_async_copy' op bypassL1 takes 16-byte copies only

// -----

func.func @mma_shape(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  %d = nvgpu.mma.sync(%a, %b, %c) mmaShape = [16, 8, 8] : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'nvgpu.mma.sync' op mmaShape must be one of [16, 8, 16]

// -----

func.func @mma_a(%a: vector<2x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  %d = nvgpu.mma.sync(%a, %b, %c) mmaShape = [16, 8, 16] : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'nvgpu.mma.sync' op A must be a vector<4x2> of f16 or bf16, not vector<2x2xf16>

// -----

func.func @mma_c(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<4x2xf32>) {
  %d = nvgpu.mma.sync(%a, %b, %c) mmaShape = [16, 8, 16] : (vector<4x2xf16>, vector<2x2xf16>, vector<4x2xf32>) -> vector<4x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'nvgpu.mma.sync' op C must be a vector<2x2> of f32 or f16, not vector<4x2xf32>

// -----

func.func @from_elements(%x: f32) {
  %v = vector.from_elements %x, %x, %x : vector<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'vector.from_elements' op needs 4 elements for vector<2x2xf32>, not 3

// -----

func.func @ldmatrix_global(%m: memref<64x24xf16>, %i: index) {
  %x = nvgpu.ldmatrix %m[%i, %i] numTiles = 4 transpose = false : memref<64x24xf16> -> vector<4x2xf16>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'nvgpu.ldmatrix' op the source must be in workgroup memory

// -----

func.func @ldmatrix_result(%i: index) {
  %m = memref.alloc() : memref<64x24xf16, #gpu.address_space<workgroup>>
  %x = nvgpu.ldmatrix %m[%i, %i] numTiles = 4 transpose = false : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x4xf16>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: {{.*}}shape
