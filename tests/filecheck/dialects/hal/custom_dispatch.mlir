// RUN: xsplit-opt %s | filecheck %s
// RUN: xsplit-opt %s | iree-opt | xsplit-opt | filecheck %s
// RUN: iree-opt %s | xsplit-opt | filecheck %s
// RUN: iree-opt --mlir-print-op-generic %s | xsplit-opt | filecheck %s
// RUN: xsplit-opt --print-op-generic %s | iree-opt | filecheck %s --check-prefix=IREE
// The checks are iree-opt's own printing, attributes inline:
// RUN: iree-opt --mlir-print-local-scope %s | filecheck %s

// A hand-written dispatch: the executable, its export with a count region,
// the interface ops in the kernel, and the flow.dispatch that launches it.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK:      hal.executable.source private @ex attributes {xsplit.note} {
// CHECK-NEXT:   hal.executable.export public @k ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer>]>) count(%{{.*}}: !hal.device, %[[W:.*]]: index) -> (index, index, index) {
// CHECK-NEXT:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:     hal.return %[[W]], %[[C1]], %[[C1]] : index, index, index
// CHECK-NEXT:   } attributes {xsplit.tag}
// CHECK-NEXT:   hal.executable.export public @k2 layout(#hal.pipeline.layout<{{.*}}>)
// CHECK-NEXT:   builtin.module {
// CHECK-NEXT:     func.func @k() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [64, 1, 1] subgroup_size = 32>} {
// CHECK-NEXT:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:       %[[N:.*]] = hal.interface.constant.load layout(<{{.*}}>) ordinal(0) : index
// CHECK-NEXT:       %{{.*}} = hal.interface.binding.subspan layout(<{{.*}}>) binding(0) alignment(64) offset(%[[C0]]) flags(ReadOnly) : memref<?x8xf32>{%[[N]]}
// CHECK-NEXT:       %{{.*}} = hal.interface.binding.subspan layout(<{{.*}}>) binding(1) offset(%[[C0]]) flags("ReadOnly|Indirect") : memref<8xf32, strided<[1], offset: ?>>
// CHECK-NEXT:       %{{.*}} = hal.interface.binding.subspan layout(<{{.*}}>) binding(2) alignment(64) : memref<8xf32>
// CHECK-NEXT:       %{{.*}} = hal.interface.workgroup.id[0] upper_bound 8 : index
// CHECK-NEXT:       %{{.*}} = hal.interface.workgroup.count[1] : index
// CHECK-NEXT:       %{{.*}} = hal.interface.workgroup.size[2] : index
// CHECK-NEXT:       {{(func\.)?}}return
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// IREE: hal.executable.source private @ex attributes {xsplit.note} {
// IREE:   hal.executable.export public @k ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device, %arg1: index) -> (index, index, index) {
// IREE:   } attributes {xsplit.tag}
// IREE:   %workgroup_id_x = hal.interface.workgroup.id[0] upper_bound 8 : index
hal.executable.source private @ex attributes {xsplit.note} {
  hal.executable.export public @k ordinal(0) layout(#layout) count(%device: !hal.device, %w: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %w, %c1, %c1 : index, index, index
  } attributes {xsplit.tag}
  hal.executable.export @k2 layout(#layout)
  builtin.module {
    func.func @k() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [64, 1, 1] subgroup_size = 32>} {
      %c0 = arith.constant 0 : index
      %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
      %A = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?x8xf32>{%n}
      %B = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) flags("ReadOnly|Indirect") : memref<8xf32, strided<[1], offset: ?>>
      %C = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) : memref<8xf32>
      %i = hal.interface.workgroup.id[0] upper_bound 8 : index
      %j = hal.interface.workgroup.count[1] : index
      %s = hal.interface.workgroup.size[2] : index
      return
    }
  }
}

// CHECK-LABEL: func.func @launch
// CHECK-SAME:      (%[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<8xf32>, %[[N:.*]]: index)
// CHECK-NEXT:    %{{.*}} = flow.dispatch @ex::@k[%[[N]]](%[[A]], %[[B]], %[[C]], %[[N]]) : (tensor<?x8xf32>{%[[N]]}, tensor<8xf32>, tensor<8xf32>, index) -> %[[C]]
// CHECK-NEXT:    {{.*}} = flow.dispatch @ex::@k(%[[A]], %[[B]], %[[C]], %[[N]]) : (tensor<?x8xf32>{%[[N]]}, tensor<8xf32>, tensor<8xf32>, index) -> (%[[C]], tensor<?x8xf32>{%[[N]]})
// CHECK-NEXT:    %{{.*}} = flow.dispatch {@ex::@k, @ex::@k2}(%[[B]]) {xsplit.tag} : (tensor<8xf32>) -> tensor<8xf32>
func.func @launch(%a: tensor<?x8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<?x8xf32>, tensor<8xf32>) {
  %r = flow.dispatch @ex::@k[%n](%a, %b, %c, %n) : (tensor<?x8xf32>{%n}, tensor<8xf32>, tensor<8xf32>, index) -> %c
  %r2:2 = flow.dispatch @ex::@k(%a, %b, %c, %n) : (tensor<?x8xf32>{%n}, tensor<8xf32>, tensor<8xf32>, index) -> (%c, tensor<?x8xf32>{%n})
  %r3 = flow.dispatch {@ex::@k, @ex::@k2}(%b) {xsplit.tag} : (tensor<8xf32>) -> tensor<8xf32>
  return %r, %r2#1, %r3 : tensor<8xf32>, tensor<?x8xf32>, tensor<8xf32>
}
