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
