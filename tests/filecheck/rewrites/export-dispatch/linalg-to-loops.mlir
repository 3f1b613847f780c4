// export-dispatch lowers the linalg ops of a kernel it exports to loops:
// IREE lowers the kernel as written (no_pipeline), and has no lowering for
// linalg there.
// RUN: xsplit-opt --split-input-file %s -p 'distribute,export-dispatch{target=cpu}' 2>/dev/null | filecheck %s
// RUN: xsplit-opt --split-input-file %s -p 'distribute,export-dispatch{target=cpu}' 2>/dev/null | iree-opt --split-input-file > /dev/null

// A fill and a matmul on a strided tile: one loop per dimension, in the op's
// loop order; the matmul's reduction (d2) innermost, accumulating in the tile.
// CHECK-LABEL: hal.executable.source private @fill_matmul_dispatch
// CHECK:       func.func @fill_matmul()
// CHECK-NOT:   linalg.
// CHECK:       %[[A:.*]] = hal.interface.binding.subspan {{.*}} binding(0)
// CHECK:       %[[B:.*]] = hal.interface.binding.subspan {{.*}} binding(1)
// CHECK:       %[[C:.*]] = hal.interface.binding.subspan {{.*}} binding(2)
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[TA:.*]] = memref.subview %[[A]][4, 0] [4, 16] [1, 1]
// CHECK:       %[[TB:.*]] = memref.subview %[[B]][0, 8] [16, 8] [1, 1]
// CHECK:       %[[TC:.*]] = memref.subview %[[C]][4, 8] [4, 8] [1, 1]
// CHECK-NEXT:  %[[M:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[N:.*]] = arith.constant 8 : index
// CHECK-NEXT:  %[[LB:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:  scf.for %[[I:.*]] = %[[LB]] to %[[M]] step %[[ONE]] {
// CHECK-NEXT:    scf.for %[[J:.*]] = %[[LB]] to %[[N]] step %[[ONE]] {
// CHECK-NEXT:      memref.store %[[ZERO]], %[[TC]][%[[I]], %[[J]]] : memref<4x8xf32, strided<[32, 1], offset: 136>>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK:       %[[K:.*]] = arith.constant 16 : index
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      scf.for %[[L:.*]] = %{{.*}} to %[[K]] step %{{.*}} {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[TA]][%[[I]], %[[L]]]
// CHECK-NEXT:        %[[Y:.*]] = memref.load %[[TB]][%[[L]], %[[J]]]
// CHECK-NEXT:        %[[ACC:.*]] = memref.load %[[TC]][%[[I]], %[[J]]]
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:        memref.store %[[S]], %[[TC]][%[[I]], %[[J]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
func.func @fill_matmul(%a: memref<16x16xf32>, %b: memref<16x32xf32>, %c: memref<16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %ta = memref.subview %a[4, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 64>>
  %tb = memref.subview %b[0, 8] [16, 8] [1, 1] : memref<16x32xf32> to memref<16x8xf32, strided<[32, 1], offset: 8>>
  %tc = memref.subview %c[4, 8] [4, 8] [1, 1] : memref<16x32xf32> to memref<4x8xf32, strided<[32, 1], offset: 136>>
  linalg.fill ins(%zero : f32) outs(%tc : memref<4x8xf32, strided<[32, 1], offset: 136>>)
  linalg.matmul ins(%ta, %tb : memref<4x16xf32, strided<[16, 1], offset: 64>>, memref<16x8xf32, strided<[32, 1], offset: 8>>) outs(%tc : memref<4x8xf32, strided<[32, 1], offset: 136>>)
  func.return
}

// -----

// Column sums: the reduction is the outer loop, as the iterator order says,
// and each iteration adds into the output.
// CHECK-LABEL: func.func @column_sums()
// CHECK:       scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[%[[R]], %[[J]]] : memref<6x5xf32>
// CHECK-NEXT:      %[[ACC:.*]] = memref.load %[[OUT:.*]][%[[J]]] : memref<5xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:      memref.store %[[S]], %[[OUT]][%[[J]]] : memref<5xf32>
func.func @column_sums(%a: memref<6x5xf32>, %out: memref<5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : memref<6x5xf32>) outs(%out : memref<5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// An index that is not a loop's is an affine.apply of the loops it reads;
// linalg.index is the loop's index; an output the body does not read is not
// loaded.
// CHECK-LABEL: func.func @windows()
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[W:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 2)))> (%[[I]], %[[J]])
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[%[[W]]] : memref<16xf32>
// CHECK-NEXT:      %[[JI:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:      %[[JF:.*]] = arith.sitofp %[[JI]] : i32 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[X]], %[[JF]] : f32
// CHECK-NEXT:      memref.store %[[S]], %{{.*}}[%[[I]], %[[J]]] : memref<4x3xf32>
func.func @windows(%a: memref<16xf32>, %out: memref<4x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1 * 2)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<16xf32>) outs(%out : memref<4x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %s = arith.mulf %x, %jf : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// Tiles of a distributed loop have dynamic sizes: the loops run to a
// memref.dim of the first operand dimension each loop indexes.
// CHECK-LABEL: func.func @partial_tiles()
// CHECK:       %[[W:.*]] = hal.interface.workgroup.id[0] : index
// CHECK:       %[[TA:.*]] = memref.subview {{.*}} : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:       %[[TO:.*]] = memref.subview {{.*}} : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:  %[[D:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[N:.*]] = memref.dim %[[TA]], %[[D]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:    %[[X:.*]] = memref.load %[[TA]][%[[I]]]
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:    memref.store %[[E]], %[[TO]][%[[I]]]
func.func @partial_tiles(%a: memref<10xf32>, %out: memref<10xf32>) attributes {gpu.known_grid_size = array<i32: 3, 1, 1>} {
  scf.forall (%i) = (0) to (10) step (4) {
    %n = affine.min affine_map<(d0) -> (4, 10 - d0)>(%i)
    %ta = memref.subview %a[%i] [%n] [1] : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
    %to = memref.subview %out[%i] [%n] [1] : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ta : memref<?xf32, strided<[1], offset: ?>>) outs(%to : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%x: f32, %o: f32):
      %e = math.exp %x : f32
      linalg.yield %e : f32
    }
  } {mapping = [#gpu.block<x>]}
  func.return
}

// -----

// linalg.reduce and linalg.broadcast; a fill converts its value to the
// output's element type; a 0-d output is loaded and stored without indices.
// Each op's output is a written binding.
// CHECK-LABEL: hal.executable.source private @others_dispatch
// CHECK:       layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK:       func.func @others()
// CHECK:       scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[X:.*]] = memref.load %[[A:.*]][%[[R]], %[[J]]] : memref<4x6xf32>
// CHECK-NEXT:      %[[M:.*]] = memref.load %[[B:.*]][%[[J]]] : memref<6xf32>
// CHECK-NEXT:      %[[MAX:.*]] = arith.maximumf %[[X]], %[[M]] : f32
// CHECK-NEXT:      memref.store %[[MAX]], %[[B]][%[[J]]] : memref<6xf32>
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[Y:.*]] = memref.load %[[B]][%[[J]]] : memref<6xf32>
// CHECK-NEXT:      memref.store %[[Y]], %[[A]][%[[I]], %[[J]]] : memref<4x6xf32>
// CHECK:       scf.for
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[H:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT:      memref.store %[[H]], %{{.*}} : memref<4x6xf16>
// CHECK:       scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[Y:.*]] = memref.load %[[B]][%[[J]]] : memref<6xf32>
// CHECK-NEXT:    %[[ACC:.*]] = memref.load %[[S:.*]][] : memref<f32>
// CHECK-NEXT:    %[[T:.*]] = arith.addf %[[ACC]], %[[Y]] : f32
// CHECK-NEXT:    memref.store %[[T]], %[[S]][] : memref<f32>
func.func @others(%a: memref<4x6xf32>, %b: memref<6xf32>, %s: memref<f32>, %h: memref<4x6xf16>) {
  %v = arith.constant 2.5 : f32
  linalg.reduce ins(%a : memref<4x6xf32>) outs(%b : memref<6xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %m = arith.maximumf %in, %init : f32
      linalg.yield %m : f32
    }
  linalg.broadcast ins(%b : memref<6xf32>) outs(%a : memref<4x6xf32>) dimensions = [0]
  linalg.fill ins(%v : f32) outs(%h : memref<4x6xf16>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%b : memref<6xf32>) outs(%s : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  func.return
}

// -----

// Only kernels export-dispatch exports are lowered: a private function keeps
// its linalg ops.
// CHECK-LABEL: func.func private @helper
// CHECK-NEXT:  %{{.*}} = arith.constant
// CHECK-NEXT:  linalg.fill
func.func private @helper(%out: memref<8xf32>) {
  %v = arith.constant 1.0 : f32
  linalg.fill ins(%v : f32) outs(%out : memref<8xf32>)
  func.return
}
