// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: iree-opt --mlir-print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | filecheck %s --check-prefix=GENERIC
// The checks are iree-opt's own printing:
// RUN: iree-opt %s | filecheck %s

// GENERIC: "llvm.atomicrmw"(%{{.*}}, %{{.*}}) <{bin_op = 11 : i64, ordering = 2 : i64, syncscope = "agent"}>
// GENERIC: "llvm.atomicrmw"(%{{.*}}, %{{.*}}) <{bin_op = 13 : i64, ordering = 6 : i64}>

// CHECK-LABEL: func.func @atomics
func.func @atomics(%i: i64, %v: f32, %h: f16) {
  // CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
  %p = llvm.inttoptr %i : i64 to !llvm.ptr<1>
  // CHECK-NEXT: %{{.*}} = llvm.atomicrmw fadd %[[P]], %{{.*}} syncscope("agent") monotonic : !llvm.ptr<1>, f32
  %0 = llvm.atomicrmw fadd %p, %v syncscope("agent") monotonic : !llvm.ptr<1>, f32
  // CHECK-NEXT: llvm.atomicrmw fmax %[[P]], %{{.*}} acq_rel : !llvm.ptr<1>, f32
  %1 = llvm.atomicrmw fmax %p, %v acq_rel : !llvm.ptr<1>, f32
  // CHECK-NEXT: llvm.atomicrmw fadd %[[P]], %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f16
  %2 = llvm.atomicrmw fadd %p, %h syncscope("device") monotonic : !llvm.ptr<1>, f16
  return
}
