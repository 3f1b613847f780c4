// memref.prefetch reads and prints as iree-opt does, in both directions.
// RUN: xsplit-opt %s -p '' | filecheck %s
// RUN: xsplit-opt %s -p '' | iree-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt -p '' | filecheck %s

// CHECK-LABEL: func.func @prefetch
// CHECK:         memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}], read, locality<2>, data : memref<64x128xf32>
// CHECK-NEXT:    memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}], write, locality<0>, data : memref<64x128xf32>
// CHECK-NEXT:    memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}], read, locality<3>, instr : memref<64x128xf32>
func.func @prefetch(%b: memref<64x128xf32>, %k: index, %j: index) {
  memref.prefetch %b[%k, %j], read, locality<2>, data : memref<64x128xf32>
  memref.prefetch %b[%k, %j], write, locality<0>, data : memref<64x128xf32>
  memref.prefetch %b[%k, %j], read, locality<3>, instr : memref<64x128xf32>
  return
}
