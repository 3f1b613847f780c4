// amdgpu.sched_barrier prints as iree-opt 3.13 prints it: `allow = ` and the groups LLVM's
// scheduler may move across it, joined by `|`; the generic form names #rocdl.sched_group_mask.
// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt %s | iree-opt | filecheck %s --check-prefix=IREE
// RUN: xsplit-opt --print-op-generic %s | filecheck %s --check-prefix=GENERIC

func.func @barriers() {
  amdgpu.sched_barrier allow = none
  amdgpu.sched_barrier allow = valu|all_ds
  func.return
}

// CHECK-LABEL: func.func @barriers
// CHECK-NEXT:    amdgpu.sched_barrier allow = none
// CHECK-NEXT:    amdgpu.sched_barrier allow = valu|all_ds
// CHECK-NEXT:    func.return
// IREE:          amdgpu.sched_barrier allow = none
// IREE-NEXT:     amdgpu.sched_barrier allow = valu|all_ds
// GENERIC:       "amdgpu.sched_barrier"() <{opts = #rocdl.sched_group_mask<none>}> : () -> ()
// GENERIC-NEXT:  "amdgpu.sched_barrier"() <{opts = #rocdl.sched_group_mask<valu|all_ds>}> : () -> ()
