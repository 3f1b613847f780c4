// RUN: xsplit-opt --split-input-file --verify-diagnostics %s | filecheck %s

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @binding_out_of_range() {
  %A = hal.interface.binding.subspan layout(#layout) binding(1) : memref<8xf32>
  func.return
}
// CHECK: invalid.mlir:5:3: error: 'hal.interface.binding.subspan' op binding ordinal 1 out of bounds in layout #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>

// -----

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @missing_dims() {
  %A = hal.interface.binding.subspan layout(#layout) binding(0) : memref<?xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'hal.interface.binding.subspan' op result type 'memref<?xf32>' has 1 dynamic dimensions but 0 associated dimension SSA values

// -----

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, Writable>]>
// CHECK: invalid.mlir:[[# @LINE - 1]]:{{[0-9]+}}: error: expected one of [None, ReadOnly, Indirect] for valid Descriptor flags, got: Writable

// -----

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @ex {
  hal.executable.export public @k ordinal(0) layout(#layout) count(%device: !hal.device) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %c1, %c1 : index, index
  }
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:3: error: 'hal.executable.export' op count region must return 3 index values

// -----

func.func @untied(%b: tensor<8xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %r = flow.dispatch @ex::@k(%b, %c) : (tensor<8xf32>, tensor<8xf32>) -> %c
  return %r : tensor<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:34: error: use of value '%c' expects different type than prior uses: 'tensor<8xf32>' vs 'tensor<4xf32>'

// -----

#constants_layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @constant_ordinal() -> i32 {
  %0 = hal.interface.constant.load layout(#constants_layout) ordinal(3) : i32
  func.return %0 : i32
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'hal.interface.constant.load' op push constant ordinal out of bounds
