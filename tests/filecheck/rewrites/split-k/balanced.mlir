// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=77 balanced=true}' 2>/dev/null | filecheck %s

// With a static K, balanced=true takes the static plan of factor=77: chunks
// of one size, ceil(51234 / 77) = 666, 76 in the loop and a tail of 618
// beside it. Chunk sizes that differ by one would be two sizes, and a
// dynamic one is what IREE 3.13 compiles wrongly for CUDA.
// CHECK-LABEL: func.func @seed
// CHECK:         scf.forall (%[[S:.*]]) in (76)
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 666))> (%[[S]])
// CHECK-NEXT:      tensor.extract_slice %{{.*}}[0, %[[OFF]]] [123, 666] [1, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 50616] [123, 618] [1, 1] {xsplit.split_part = "tail"}
func.func @seed(%a: tensor<123x51234xf32>, %b: tensor<51234x456xf32>, %c: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%c : tensor<123x456xf32>) -> tensor<123x456xf32>
  func.return %0 : tensor<123x456xf32>
}

// -----

// A dynamic K keeps balanced chunks, computed at run time.
// RUN: xsplit-opt --split-input-file %s -p 'split-k{factor=8 balanced=true}' 2>/dev/null | filecheck %s --check-prefix=DYN
// DYN-LABEL: func.func @dynamic
// DYN:         scf.forall (%{{.*}}) in (8)
// DYN:           floordiv 8
// DYN:           tensor.extract_slice {{.*}} to tensor<16x?xf32>
func.func @dynamic(%a: tensor<16x?xf32>, %b: tensor<?x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x?xf32>, tensor<?x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  func.return %0 : tensor<16x32xf32>
}
