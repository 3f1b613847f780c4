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
