// amdgpu.mfma prints as iree-opt 3.13 prints it: the shape as MxNxK, the
// lane controls as keywords with parenthesised values, left out at their
// defaults (`blgp = none` and `{cbsz = 1 : i32}` do not parse in iree-opt).
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s --check-prefix=IREE
// RUN: xsplit-opt --print-op-generic %s | iree-opt --mlir-print-op-generic | xsplit-opt | filecheck %s --check-prefix=IREE

// CHECK-LABEL: func.func @fragments
// CHECK:       %d0 = amdgpu.mfma 16x16x16 %a * %b + %c : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK-NEXT:  %d1 = amdgpu.mfma 16x16x16 %h * %h + %d0 : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// CHECK-NEXT:  %d3 = amdgpu.mfma 32x32x8 %a * %b + %e : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-NEXT:  %d4 = amdgpu.mfma 16x16x16 %a * %b + %c abid(1) blgp(bcast_first_32) cbsz(2) reducePrecision {tag = 1 : i64} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// IREE:        amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// IREE:        amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// IREE:        amdgpu.mfma 32x32x8 {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// IREE:        amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} abid(1) blgp(bcast_first_32) cbsz(2) reducePrecision {tag = 1 : i64} : vector<4xf16>
func.func @fragments(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>, %h: vector<4xbf16>, %e: vector<16xf32>) -> (vector<4xf32>, vector<16xf32>, vector<4xf32>) {
  %d0 = amdgpu.mfma 16x16x16 %a * %b + %c : vector<4xf16>, vector<4xf16>, vector<4xf32>
  %d1 = amdgpu.mfma 16x16x16 %h * %h + %d0 : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  %d3 = amdgpu.mfma 32x32x8 %a * %b + %e : vector<4xf16>, vector<4xf16>, vector<16xf32>
  %d4 = amdgpu.mfma 16x16x16 %a * %b + %c reducePrecision cbsz(2) blgp(bcast_first_32) abid(1) {tag = 1 : i64} : vector<4xf16>, vector<4xf16>, vector<4xf32>
  func.return %d1, %d3, %d4 : vector<4xf32>, vector<16xf32>, vector<4xf32>
}

// The f32 MFMA (16x16x4) takes one element of A and of B a lane, as scalars.
// CHECK-LABEL: func.func @f32
// CHECK:       %d = amdgpu.mfma 16x16x4 %a * %b + %c : f32, f32, vector<4xf32>
// IREE-LABEL:  func.func @f32
// IREE:        amdgpu.mfma 16x16x4 %{{.*}} * %{{.*}} + %{{.*}} : f32, f32, vector<4xf32>
func.func @f32(%a: f32, %b: f32, %c: vector<4xf32>) -> vector<4xf32> {
  %d = amdgpu.mfma 16x16x4 %a * %b + %c : f32, f32, vector<4xf32>
  func.return %d : vector<4xf32>
}
