// Float atomic adds into global memory become relaxed device-scope
// llvm.atomicrmw on GPU targets (IREE makes memref.atomic_rmw system-scope and
// RUN: xsplit-opt %s -p 'export-dispatch{target=sm_80}' | filecheck %s --check-prefixes=CHECK,SM80
// RUN: xsplit-opt %s -p 'export-dispatch{target=gfx942}' | filecheck %s --check-prefixes=CHECK,GFX
// RUN: xsplit-opt %s -p 'export-dispatch{target=sm_80}' | iree-opt > /dev/null

// CHECK-LABEL: func.func @merge()
// The element's address: base + (i * 8 + j) * 4 bytes.
// CHECK:      %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[R:.*]] = arith.muli %[[I:.*]], %[[C8]] : index
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[R]], %[[J:.*]] : index
// CHECK-NEXT: %[[B:.*]] = "memref.extract_aligned_pointer_as_index"(%{{.*}}) : (memref<4x8xf32>) -> index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[O:.*]] = arith.muli %[[E]], %[[C4]] : index
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[B]], %[[O]] : index
// CHECK-NEXT: %[[A64:.*]] = arith.index_cast %[[A]] : index to i64
// CHECK-NEXT: %[[P:.*]] = llvm.inttoptr %[[A64]] : i64 to !llvm.ptr<1>
// SM80-NEXT:  llvm.atomicrmw fadd %[[P]], %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// GFX-NEXT:   llvm.atomicrmw fadd %[[P]], %{{.*}} syncscope("agent") monotonic : !llvm.ptr<1>, f32
// A max, and an add into workgroup memory, stay as they are.
// CHECK:      memref.atomic_rmw maxnumf
// CHECK:      memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<4xf32, #gpu.address_space<workgroup>>) -> f32
// CHECK-NOT:  memref.atomic_rmw
func.func @merge(%out: memref<4x8xf32>, %v: memref<4xf32>) attributes {gpu.known_grid_size = array<i32: 1, 1, 1>, gpu.known_block_size = array<i32: 1, 1, 1>} {
  %i = arith.constant 1 : index
  %j = arith.constant 2 : index
  %x = memref.load %v[%i] : memref<4xf32>
  %0 = memref.atomic_rmw addf %x, %out[%i, %j] : (f32, memref<4x8xf32>) -> f32
  %1 = memref.atomic_rmw maxnumf %x, %out[%i, %j] : (f32, memref<4x8xf32>) -> f32
  %w = memref.alloca() : memref<4xf32, #gpu.address_space<workgroup>>
  %2 = memref.atomic_rmw addf %x, %w[%i] : (f32, memref<4xf32, #gpu.address_space<workgroup>>) -> f32
  func.return
}
