// Bad options are one-line errors; reductions lower-reduce cannot lower pass through with a remark.
// RUN: not xsplit-opt %s -p 'lower-reduce' 2>&1 | filecheck %s --check-prefix=NO-TARGET
// RUN: not xsplit-opt %s -p 'lower-reduce{target=gfx942 stage=warp}' 2>&1 | filecheck %s --check-prefix=BAD-STAGE
// RUN: not xsplit-opt %s -p 'lower-reduce{target=cpu stage=subgroup}' 2>&1 | filecheck %s --check-prefix=CPU-THREADS
// RUN: not xsplit-opt %s -p 'lower-reduce{target=sm_80 stage=lds block=96}' 2>&1 | filecheck %s --check-prefix=BLOCK
// RUN: xsplit-opt %s -p 'lower-reduce{target=gfx942}' > %t.0.out 2> %t.0.err && filecheck %s --check-prefix=REMARK < %t.0.err
// RUN: filecheck %s --check-prefix=UNCHANGED < %t.0.out

// NO-TARGET: lower-reduce: target is required
// BAD-STAGE: error: lower-reduce: stage must be one of auto, atomic, lds, subgroup, got 'warp'
// CPU-THREADS: invalid.mlir:15:3: error: lower-reduce: stage=subgroup is thread-level code; cpu runs workgroup-level code only (use stage=atomic)
// BLOCK: invalid.mlir:15:3: error: lower-reduce: stage=lds needs a power-of-two block of at least 32 threads, got 96

func.func @ok(%x: tensor<5x300xf32>, %o: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %0 = rock.reduce sum %x into %o {axis = 1 : index} : tensor<5x300xf32> into tensor<5x1xf32> -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}

// A dynamic shape: the kernel's grid is fixed when it is written.
// REMARK: invalid.mlir:[[# @LINE + 7]]:3: remark: lower-reduce: left as it is: it is not on static f32 tensors
func.func @dynamic(%x: tensor<?x300xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x300xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x300xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
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

// A reduction inside a loop: its kernel would launch once per iteration.
// REMARK: invalid.mlir:[[# @LINE + 5]]:5: remark: lower-reduce: left as it is: it is not at the top level of a function
func.func @in_loop(%x: tensor<5x300xf32>, %o: tensor<5xf32>, %n: index) -> tensor<5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %o) -> (tensor<5xf32>) {
    %s = linalg.reduce ins(%x : tensor<5x300xf32>) outs(%acc : tensor<5xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    scf.yield %s : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}

// f16 is not lowered (atomics and partials are f32 here).
// REMARK: invalid.mlir:[[# @LINE + 2]]:3: remark: lower-reduce: left as it is: it is not on static f32 tensors
func.func @half(%x: tensor<5x300xf16>, %o: tensor<5x1xf16>) -> tensor<5x1xf16> {
  %0 = rock.reduce sum %x into %o {axis = 1 : index} : tensor<5x300xf16> into tensor<5x1xf16> -> tensor<5x1xf16>
  return %0 : tensor<5x1xf16>
}

// UNCHANGED-LABEL: func.func @dynamic
// UNCHANGED:         linalg.reduce
// UNCHANGED-LABEL: func.func @product
// UNCHANGED:         linalg.reduce
// UNCHANGED-LABEL: func.func @in_loop
// UNCHANGED:         linalg.reduce
// UNCHANGED-LABEL: func.func @half
// UNCHANGED:         rock.reduce sum
