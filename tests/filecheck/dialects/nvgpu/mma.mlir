// nvgpu.mma.sync prints as iree-opt prints it: mmaShape is a keyword, not an
// attribute in braces (iree-opt's strict properties refuse `{mmaShape = ...}`).
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s --check-prefix=IREE

// CHECK-LABEL: func.func @mma
// CHECK-NEXT:    %d = nvgpu.mma.sync(%a, %b, %c) mmaShape = [16, 8, 16] : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NEXT:    %v = vector.from_elements %x, %x, %x, %x : vector<2x2xf32>
// IREE:          nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) mmaShape = [16, 8, 16] : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// IREE:          vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
func.func @mma(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %x: f32) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) mmaShape = [16, 8, 16] : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  %v = vector.from_elements %x, %x, %x, %x : vector<2x2xf32>
  func.return %d : vector<2x2xf32>
}

// CHECK-LABEL: func.func @ldmatrix
// CHECK:         %x4 = nvgpu.ldmatrix %m[%i, %j] numTiles = 4 transpose = false : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NEXT:    %x2 = nvgpu.ldmatrix %m[%i, %j] numTiles = 2 transpose = true : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// IREE:          nvgpu.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] numTiles = 4 transpose = false : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// IREE:          nvgpu.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] numTiles = 2 transpose = true : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
func.func @ldmatrix(%i: index, %j: index) -> (vector<4x2xf16>, vector<2x2xf16>) {
  %m = memref.alloc() : memref<64x24xf16, #gpu.address_space<workgroup>>
  %x4 = nvgpu.ldmatrix %m[%i, %j] numTiles = 4 transpose = false : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %x2 = nvgpu.ldmatrix %m[%i, %j] numTiles = 2 transpose = true : memref<64x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  func.return %x4, %x2 : vector<4x2xf16>, vector<2x2xf16>
}
