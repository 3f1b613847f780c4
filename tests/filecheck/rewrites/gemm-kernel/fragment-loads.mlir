// A fragment read by the lane's own loads (`loads`: the path of an intrinsic
// without a collective load, and m16n8k16's without ldmatrix), at the places
// the PTX ISA's m16n8k16 layout gives: A's register r holds the pair at row
// g + 8 (r % 2), columns 2t + 8 (r / 2) and one more (side by side: one
// 32-bit vector.load); B's holds K rows 2t + 8r and 2t + 8r + 1 of column g
// (two scalar loads), with g = lane / 4 and t = lane % 4.
// RUN: xsplit-opt %s -p lower-threadwise-gemm | filecheck %s

// CHECK-LABEL: func.func @fragments
// CHECK:         %[[G:.*]] = arith.divui %l, %[[C4:.*]] : index
// CHECK-NEXT:    %[[T:.*]] = arith.remui %l, %[[C4]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[T2:.*]] = arith.muli %[[T]], %[[C2]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.addi %r, %[[G]] : index
// CHECK-NEXT:    %[[K:.*]] = arith.addi %k, %[[T2]] : index
// CHECK-NEXT:    vector.load %at[%[[R]], %[[K]]] : memref<64x40xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[G8:.*]] = arith.addi %[[G]], %[[C8]] : index
// CHECK:         %[[R8:.*]] = arith.addi %r, %[[G8]] : index
// CHECK-NEXT:    %[[K0:.*]] = arith.addi %k, %{{.*}} : index
// CHECK-NEXT:    vector.load %at[%[[R8]], %[[K0]]] :
// CHECK:         %[[T8:.*]] = arith.addi %{{.*}}, %[[C8]] : index
// CHECK-NEXT:    %[[R0:.*]] = arith.addi %r, %[[G]] : index
// CHECK-NEXT:    %[[K8:.*]] = arith.addi %k, %[[T8]] : index
// CHECK-NEXT:    vector.load %at[%[[R0]], %[[K8]]] :
// CHECK:         vector.load %at
// CHECK:         %fa = vector.from_elements %{{.*}} : vector<4x2xf16>
// CHECK:         %[[B0:.*]] = arith.addi %k, %{{.*}} : index
// CHECK-NEXT:    %[[N:.*]] = arith.addi %r, %{{.*}} : index
// CHECK-NEXT:    memref.load %bt[%[[B0]], %[[N]]] : memref<32x72xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-3: memref.load %bt
// CHECK:         %fb = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf16>
// CHECK-NOT:     nvgpu.ldmatrix
func.func @fragments(%r: index, %k: index, %l: index) -> (vector<4x2xf16>, vector<2x2xf16>) {
  %at = memref.alloc() : memref<64x40xf16, #gpu.address_space<workgroup>>
  %bt = memref.alloc() : memref<32x72xf16, #gpu.address_space<workgroup>>
  %fa = xsplit_gemm.threadwise_fragment %at[%r, %k] lane %l {mma = "m16n8k16", operand = "a", loads} : memref<64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %fb = xsplit_gemm.threadwise_fragment %bt[%k, %r] lane %l {mma = "m16n8k16", operand = "b", loads} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  func.return %fa, %fb : vector<4x2xf16>, vector<2x2xf16>
}
