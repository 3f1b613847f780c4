// Bad options are one-line errors; reductions lower-reduce cannot lower pass through with a remark.
// RUN: not xsplit-opt %s -p 'lower-reduce' 2>&1 | filecheck %s --check-prefix=NO-TARGET
// RUN: not xsplit-opt %s -p 'lower-reduce{target=gfx942 stage=warp}' 2>&1 | filecheck %s --check-prefix=BAD-STAGE
// RUN: not xsplit-opt %s -p 'lower-reduce{target=cpu stage=subgroup}' 2>&1 | filecheck %s --check-prefix=CPU-THREADS
// RUN: not xsplit-opt %s -p 'lower-reduce{target=sm_80 stage=lds block=96}' 2>&1 | filecheck %s --check-prefix=BLOCK
// RUN: xsplit-opt %s -p 'lower-reduce{target=gfx942}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xsplit-opt %s -p 'lower-reduce{target=gfx942}' 2>/dev/null | filecheck %s --check-prefix=UNCHANGED

// NO-TARGET: lower-reduce: target is required
// BAD-STAGE: error: lower-reduce: stage must be one of auto, atomic, lds, subgroup, got 'warp'
// CPU-THREADS: invalid.mlir:15:3: error: lower-reduce: stage=subgroup is thread-level code; cpu runs workgroup-level code only (use stage=atomic)
// BLOCK: invalid.mlir:15:3: error: lower-reduce: stage=lds needs a power-of-two block of at least 32 threads, got 96

func.func @ok(%x: tensor<5x300xf32>, %o: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %0 = rock.reduce sum %x into %o {axis = 1 : index} : tensor<5x300xf32> into tensor<5x1xf32> -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}

// The init is not an argument: no destination to update in place.
// REMARK: invalid.mlir:[[# @LINE + 5]]:3: remark: lower-reduce: left as it is: its init is not a function argument (destination-passing form)
func.func @init_not_arg(%x: tensor<5x300xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.reduce ins(%x : tensor<5x300xf32>) outs(%f : tensor<5xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<5xf32>
}

// A product is neither sum nor max.
// REMARK: invalid.mlir:[[# @LINE + 2]]:3: remark: lower-reduce: left as it is: its combiner is not one add or max
func.func @product(%x: tensor<5x300xf32>, %o: tensor<5xf32>) -> tensor<5xf32> {
  %r = linalg.reduce ins(%x : tensor<5x300xf32>) outs(%o : tensor<5xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.mulf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<5xf32>
}

// A GEMM feeds it, and fuse-reduction did not fuse them.
// REMARK: invalid.mlir:[[# @LINE + 3]]:3: remark: lower-reduce: left as it is: its input is not a function argument (run fuse-reduction to fuse its producer)
func.func @unfused(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<4x6xf32>, %o: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = rock.reduce max %mm into %o {axis = 1 : index} : tensor<4x6xf32> into tensor<4x1xf32> -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// f16 is not lowered (atomics and partials are f32 here).
// REMARK: invalid.mlir:[[# @LINE + 2]]:3: remark: lower-reduce: left as it is: it is not on static f32 tensors
func.func @half(%x: tensor<5x300xf16>, %o: tensor<5x1xf16>) -> tensor<5x1xf16> {
  %0 = rock.reduce sum %x into %o {axis = 1 : index} : tensor<5x300xf16> into tensor<5x1xf16> -> tensor<5x1xf16>
  return %0 : tensor<5x1xf16>
}

// UNCHANGED-LABEL: func.func @init_not_arg
// UNCHANGED:         linalg.reduce
// UNCHANGED-LABEL: func.func @product
// UNCHANGED:         linalg.reduce
// UNCHANGED-LABEL: func.func @unfused
// UNCHANGED:         rock.reduce max
// UNCHANGED-LABEL: func.func @half
// UNCHANGED:         rock.reduce sum
