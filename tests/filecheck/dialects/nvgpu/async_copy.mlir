// nvgpu's asynchronous copies print as iree-opt prints them (bypassL1 and
// numGroups are keywords: iree-opt's strict properties refuse them as attributes).
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s --check-prefix=IREE

// CHECK-LABEL: func.func @copies
// CHECK:       %t0 = nvgpu.device_async_copy %src[%i, %j], %dst[%j, %i], 4, %n bypassL1 : memref<100x64xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:  %t1 = nvgpu.device_async_copy %src[%i, %j], %dst[%j, %i], 1 : memref<100x64xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:  %g = nvgpu.device_async_create_group %t0, %t1
// CHECK-NEXT:  nvgpu.device_async_wait %g numGroups = 1
// CHECK-NEXT:  nvgpu.device_async_wait %g
// IREE:        nvgpu.device_async_copy %{{.*}}, 4, %{{.*}} bypassL1 :
// IREE:        nvgpu.device_async_wait %{{.*}} numGroups = 1
func.func @copies(%src: memref<100x64xf32>, %i: index, %j: index, %n: index) {
  %dst = memref.alloc() : memref<16x64xf32, #gpu.address_space<workgroup>>
  %t0 = nvgpu.device_async_copy %src[%i, %j], %dst[%j, %i], 4, %n bypassL1 : memref<100x64xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  %t1 = nvgpu.device_async_copy %src[%i, %j], %dst[%j, %i], 1 : memref<100x64xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  %g = nvgpu.device_async_create_group %t0, %t1
  nvgpu.device_async_wait %g numGroups = 1
  nvgpu.device_async_wait %g
  func.return
}
