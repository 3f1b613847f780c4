// RUN: xsplit-opt %s -p 'split-k{factor=77 balanced=true}' | filecheck %s

// 51234 in 77 balanced chunks: chunk s is [floor(51234 s / 77), floor(51234 (s+1) / 77)),
// so 29 chunks of 666 and 48 of 665 (never 76 x 666 + 618).
// CHECK-LABEL: func.func @seed
// CHECK:         scf.forall (%[[S:.*]]) in (77)
// CHECK-NEXT:      %[[OFF:.*]] = affine.apply affine_map<(d0) -> (((d0 * 51234) floordiv 77))> (%[[S]])
// CHECK-NEXT:      %[[SZ:.*]] = affine.apply affine_map<(d0) -> (((((d0 * 51234) + 51234) floordiv 77) + (((d0 * 51234) floordiv 77) * -1)))> (%[[S]])
// CHECK-NEXT:      tensor.extract_slice %{{.*}}[0, %[[OFF]]] [123, %[[SZ]]] [1, 1]
func.func @seed(%a: tensor<123x51234xf32>, %b: tensor<51234x456xf32>, %c: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%c : tensor<123x456xf32>) -> tensor<123x456xf32>
  func.return %0 : tensor<123x456xf32>
}
