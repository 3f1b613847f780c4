// amdgpu.gather_to_lds prints as iree-opt 3.13 prints it.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s --check-prefix=IREE

// CHECK-LABEL: func.func @gather
// CHECK: amdgpu.gather_to_lds %src[%i, %j], %dst[%j, %i] : f32, memref<128x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: amdgpu.gather_to_lds %src[%i, %j], %dst[%j, %i] : vector<2xf16>, memref<128x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
// IREE:  amdgpu.gather_to_lds %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] : f32, memref<128x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
func.func @gather(%src: memref<128x64xf32>, %i: index, %j: index) {
  %dst = memref.alloc() : memref<64x64xf32, #gpu.address_space<workgroup>>
  amdgpu.gather_to_lds %src[%i, %j], %dst[%j, %i] : f32, memref<128x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
  amdgpu.gather_to_lds %src[%i, %j], %dst[%j, %i] : vector<2xf16>, memref<128x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
  func.return
}
