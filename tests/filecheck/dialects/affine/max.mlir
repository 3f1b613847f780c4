// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s

// CHECK-LABEL: func.func @max
// CHECK: affine.max affine_map<(d0)[s0] -> (d0, s0, 0)>(%{{.*}})[%{{.*}}]
// CHECK: affine.max affine_map<() -> (0)>()
func.func @max(%n: index, %m: index) -> (index, index) {
  %0 = affine.max affine_map<(d0)[s0] -> (d0, s0, 0)>(%n)[%m]
  %1 = affine.max affine_map<() -> (0)>()
  func.return %0, %1 : index, index
}
