// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s
// RUN: iree-opt --mlir-print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | filecheck %s --check-prefix=GENERIC
// The checks are iree-opt's own printing:
// RUN: iree-opt --mlir-print-local-scope %s | filecheck %s

// Every kind, so each name is checked against the integer MLIR stores for it.
// GENERIC-COUNT-6: "memref.atomic_rmw"(%{{.*}}) <{kind = {{(0|4|5|8|9|12)}} : i64}>
// GENERIC-NEXT:    "memref.atomic_rmw"(%{{.*}}) <{kind = 3 : i64}>
// GENERIC-COUNT-9: "memref.atomic_rmw"(%{{.*}}) <{kind = {{(1|2|6|7|10|11|13|14|15)}} : i64}>

// CHECK-LABEL: func.func @kinds
func.func @kinds(%m: memref<4x8xf32>, %n: memref<?xi32>, %v: f32, %i: i32, %c: index) {
  // CHECK-NEXT: %{{.*}} = memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (f32, memref<4x8xf32>) -> f32
  // CHECK-NEXT: memref.atomic_rmw maximumf
  // CHECK-NEXT: memref.atomic_rmw maxnumf
  // CHECK-NEXT: memref.atomic_rmw minimumf
  // CHECK-NEXT: memref.atomic_rmw minnumf
  // CHECK-NEXT: memref.atomic_rmw mulf
  // CHECK-NEXT: memref.atomic_rmw assign
  // CHECK-NEXT: %{{.*}} = memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] {xsplit.tag} : (i32, memref<?xi32>) -> i32
  // CHECK-NEXT: memref.atomic_rmw andi
  // CHECK-NEXT: memref.atomic_rmw maxs
  // CHECK-NEXT: memref.atomic_rmw maxu
  // CHECK-NEXT: memref.atomic_rmw mins
  // CHECK-NEXT: memref.atomic_rmw minu
  // CHECK-NEXT: memref.atomic_rmw muli
  // CHECK-NEXT: memref.atomic_rmw ori
  // CHECK-NEXT: memref.atomic_rmw xori
  %0 = memref.atomic_rmw addf %v, %m[%c, %c] : (f32, memref<4x8xf32>) -> f32
  %1 = memref.atomic_rmw maximumf %v, %m[%c, %c] : (f32, memref<4x8xf32>) -> f32
  %2 = memref.atomic_rmw maxnumf %v, %m[%c, %c] : (f32, memref<4x8xf32>) -> f32
  %3 = memref.atomic_rmw minimumf %v, %m[%c, %c] : (f32, memref<4x8xf32>) -> f32
  %4 = memref.atomic_rmw minnumf %v, %m[%c, %c] : (f32, memref<4x8xf32>) -> f32
  %5 = memref.atomic_rmw mulf %v, %m[%c, %c] : (f32, memref<4x8xf32>) -> f32
  %6 = memref.atomic_rmw assign %v, %m[%c, %c] : (f32, memref<4x8xf32>) -> f32
  %7 = memref.atomic_rmw addi %i, %n[%c] {xsplit.tag} : (i32, memref<?xi32>) -> i32
  %8 = memref.atomic_rmw andi %i, %n[%c] : (i32, memref<?xi32>) -> i32
  %9 = memref.atomic_rmw maxs %i, %n[%c] : (i32, memref<?xi32>) -> i32
  %10 = memref.atomic_rmw maxu %i, %n[%c] : (i32, memref<?xi32>) -> i32
  %11 = memref.atomic_rmw mins %i, %n[%c] : (i32, memref<?xi32>) -> i32
  %12 = memref.atomic_rmw minu %i, %n[%c] : (i32, memref<?xi32>) -> i32
  %13 = memref.atomic_rmw muli %i, %n[%c] : (i32, memref<?xi32>) -> i32
  %14 = memref.atomic_rmw ori %i, %n[%c] : (i32, memref<?xi32>) -> i32
  %15 = memref.atomic_rmw xori %i, %n[%c] : (i32, memref<?xi32>) -> i32
  func.return
}
