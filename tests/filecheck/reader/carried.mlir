// RUN: xsplit-opt --split-input-file %s | filecheck %s
// RUN: xsplit-opt --split-input-file %s | iree-opt --split-input-file --allow-unregistered-dialect | filecheck %s --check-prefix=IREE

// xsplit reads what iree-opt 3.13 reads. Where xDSL cannot parse a module, or
// xsplit's verifiers are stricter than IREE's, iree-opt checks it, xsplit
// carries what it does not model, and prints it back in iree-opt's form.

// IREE's util.func, with argument and result attributes and a tied operand.
util.func public @util_func(%a: tensor<4xf32> {iree.abi.name = "a"}) -> (tensor<4xf32> {iree.abi.name = "r"}) attributes {iree.reflection = {k = "v"}} {
  util.return %a : tensor<4xf32>
}
// CHECK:      util.func public @util_func(%{{.*}}: tensor<4xf32> {iree.abi.name = "a"}) -> (tensor<4xf32> {iree.abi.name = "r"}) attributes {iree.reflection = {k = "v"}}
// CHECK-NEXT:   util.return %{{.*}} : tensor<4xf32>
// IREE: util.func public @util_func

// -----

// A semi-affine map, which xDSL's affine expressions cannot hold.
func.func @semi_affine(%s: index, %k: index) -> index {
  %a = affine.apply affine_map<(d0)[s0] -> (d0 * s0)>(%s)[%k]
  return %a : index
}
// CHECK: #[[MAP:.*]] = affine_map<(d0)[s0] -> (d0 * s0)>
// CHECK: affine.apply #[[MAP]](%{{.*}})[%{{.*}}]

// -----

// An encoding on a tensor type, and an unknown discardable attribute.
#enc = #iree_encoding.testing<>
func.func @encoded(%t: tensor<8xf32, #enc>) -> tensor<8xf32, #enc> attributes {some.unknown = #some.thing<[1, "a>b", {c = 2}]>} {
  return %t : tensor<8xf32, #enc>
}
// CHECK: #[[ENC:.*]] = #iree_encoding.testing<>
// CHECK: func.func @encoded(%{{.*}}: tensor<8xf32, #[[ENC]]>) -> tensor<8xf32, #[[ENC]]> attributes {some.unknown = #some.thing<[1, "a>b", {c = 2}]>}

// -----

// A splat of 62 million elements is held as one value.
func.func @big_splat() -> tensor<100x64x220x220xi32> {
  %c = arith.constant dense<7> : tensor<100x64x220x220xi32>
  return %c : tensor<100x64x220x220xi32>
}
// CHECK: arith.constant dense<7> : tensor<100x64x220x220xi32>

// -----

// iree-opt 3.13 accepts a dispatch body with too few arguments; so does xsplit.
func.func @body_args(%b: tensor<8xf32>) -> tensor<8xf32> {
  %n = flow.dispatch.workgroups(%b) : (tensor<8xf32>) -> tensor<8xf32> =
      (%y: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>) {
    flow.return
  }
  return %n : tensor<8xf32>
}
// CHECK: flow.dispatch.workgroups(%{{.*}}) : (tensor<8xf32>) -> tensor<8xf32> =
// CHECK-NEXT: (%{{.*}}: !iree_tensor_ext.dispatch.tensor<readonly:tensor<8xf32>>) {

// -----

// A multi-block region.
func.func @cfg(%c: i1, %a: f32, %b: f32) -> f32 {
  cf.cond_br %c, ^bb1(%a : f32), ^bb1(%b : f32)
^bb1(%x: f32):
  return %x : f32
}
// CHECK: cf.cond_br %{{.*}}, ^bb1(%{{.*}} : f32), ^bb1(%{{.*}} : f32)
// CHECK: ^bb1(%{{.*}}: f32):
