// RUN: xsplit-opt --split-input-file %s | filecheck %s
// RUN: xsplit-opt --split-input-file %s | iree-opt --split-input-file --allow-unregistered-dialect | filecheck %s --check-prefix=IREE

// Inputs that xsplit once read but printed as a different program.

// A typed dialect attribute: its type is part of it.
util.func public @typed_dialect_attr() -> tensor<i32> {
  %p = flow.tensor.constant #flow.parameter.named<"model"::"weight"> : tensor<i32>
  util.return %p : tensor<i32>
}
// CHECK-LABEL: util.func public @typed_dialect_attr
// CHECK:         flow.tensor.constant #flow.parameter.named<"model"::"weight"> : tensor<i32>
// IREE-LABEL: util.func public @typed_dialect_attr

// -----

// MLIR reads a hexadecimal float literal as the element's bits.
func.func @hex_floats() -> (tensor<4xf32>, tensor<3xbf16>) {
  %a = arith.constant dense<0xFF800000> : tensor<4xf32>
  %b = arith.constant dense<[0x7FC0, 1.0, 0xFF80]> : tensor<3xbf16>
  return %a, %b : tensor<4xf32>, tensor<3xbf16>
}
// CHECK-LABEL: func.func @hex_floats
// CHECK:         dense<0xff800000> : tensor<4xf32>
// CHECK:         dense<[0x7fc0, 1.000000e+00, 0xff80]> : tensor<3xbf16>
// IREE: dense<0xFF800000> : tensor<4xf32>
// IREE: dense<[0x7FC0, 1.000000e+00, 0xFF80]> : tensor<3xbf16>

// -----

// Resource blobs are file metadata; they are kept with the module.
func.func @resource() -> tensor<2xf32> {
  %c = arith.constant dense_resource<weights> : tensor<2xf32>
  return %c : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040"
    }
  }
#-}
// CHECK-LABEL: func.func @resource
// CHECK:         arith.constant dense_resource<weights> : tensor<2xf32>
// CHECK:       dialect_resources
// CHECK-NEXT:    builtin
// CHECK-NEXT:      weights: "0x040000000000803F00000040"
// IREE: weights: "0x040000000000803F00000040"

// -----

// Argument and result attributes of a declaration.
func.func private @declaration(tensor<4xf32> {iree.abi.name = "x"}) -> (tensor<4xf32> {iree.abi.name = "y"})
// CHECK: func.func private @declaration(tensor<4xf32> {iree.abi.name = "x"}) -> (tensor<4xf32> {iree.abi.name = "y"})
// IREE: func.func private @declaration(tensor<4xf32> {iree.abi.name = "x"}) -> (tensor<4xf32> {iree.abi.name = "y"})

// -----

// `util.func @f` prints as `util.func public @f`, which reads back with a
// visibility the input did not have: a carried module (an unregistered op
// makes it one) is printed generic instead.
util.func @no_visibility(%a: f32) -> f32 {
  %b = "some.op"(%a) : (f32) -> f32
  util.return %b : f32
}
// CHECK: "util.func"() <{function_type = (f32) -> f32, sym_name = "no_visibility"
// CHECK-NOT: sym_visibility
// CHECK: "util.return"

// -----

// Unregistered ops with successors and results, in a multi-block region.
func.func @unregistered_cfg(%x: f32) -> f32 {
  %0:2 = "mystery.op"(%x) {tag = #mystery<"a>b">} : (f32) -> (f32, !mystery.token)
  "mystery.branch"(%0#0)[^bb1, ^bb2] : (f32) -> ()
^bb1:
  return %0#0 : f32
^bb2:
  return %x : f32
}
// CHECK-LABEL: func.func @unregistered_cfg
// CHECK:         %[[R:.*]]:2 = "mystery.op"(%{{.*}}) {tag = #mystery<"a>b">} : (f32) -> (f32, !mystery.token)
// CHECK:         "mystery.branch"(%[[R]]#0)[^bb1, ^bb2] : (f32) -> ()
// CHECK:       ^bb1:
// CHECK:       ^bb2:
