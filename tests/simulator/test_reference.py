"""`xsplit simulate --reference` takes a reference in either convention: all
the kernel's arguments (destination-passing), or only its inputs (the
arguments it reads, or never writes). Its results are what the kernel writes,
in argument order. Any other signature is a one-line error naming both.

Two tensor references are compiled by IREE here (one per convention); the
memref references run in the simulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from xsplit.analysis.writes import kernel_inputs, read_arguments, written_arguments
from xsplit.api import parse_module
from xsplit.tools.xsplit_cli import main as xsplit_main

# C = A @ B, one dot product per thread: C is only written, an output.
MATMUL = """\
func.func @mm(%a: memref<16x24xf32>, %b: memref<24x8xf32>, %c: memref<16x8xf32>) attributes {gpu.known_block_size = array<i32: 8, 16, 1>} {
  %j = gpu.thread_id x
  %i = gpu.thread_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %zero = arith.constant 0.0 : f32
  %dot = scf.for %k = %c0 to %c24 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %a[%i, %k] : memref<16x24xf32>
    %y = memref.load %b[%k, %j] : memref<24x8xf32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    scf.yield %s : f32
  }
  memref.store %dot, %c[%i, %j] : memref<16x8xf32>
  return
}
"""

# The reference as one writes it in tensors: the inputs in, the product out.
MATMUL_INPUTS_ONLY = """\
func.func @mm(%a: tensor<16x24xf32>, %b: tensor<24x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x24xf32>, tensor<24x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
"""

# y = 2x (only written) and s += the rows of x (an accumulator: read and written).
DOUBLE_AND_SUM = """\
func.func @double_and_sum(%x: memref<8x32xf32>, %y: memref<8x32xf32>, %s: memref<8xf32>) attributes {gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>} {
  %t = gpu.thread_id x
  %row = gpu.block_id x
  %v = memref.load %x[%row, %t] : memref<8x32xf32>
  %d = arith.addf %v, %v : f32
  memref.store %d, %y[%row, %t] : memref<8x32xf32>
  %old = memref.atomic_rmw addf %v, %s[%row] : (f32, memref<8xf32>) -> f32
  return
}
"""

DOUBLE_AND_SUM_DESTINATION_PASSING = """\
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @double_and_sum(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>, %s: tensor<8xf32>) -> (tensor<8x32xf32>, tensor<8xf32>) {
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xf32>) outs(%y : tensor<8x32xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %w = arith.addf %v, %v : f32
    linalg.yield %w : f32
  } -> tensor<8x32xf32>
  %r = linalg.reduce ins(%x : tensor<8x32xf32>) outs(%s : tensor<8xf32>) dimensions = [1]
    (%p: f32, %q: f32) {
      %a = arith.addf %p, %q : f32
      linalg.yield %a : f32
    }
  return %d, %r : tensor<8x32xf32>, tensor<8xf32>
}
"""

# The same two conventions on memrefs, run sequentially by the simulator.
DOUBLE_AND_SUM_MEMREF_DESTINATION_PASSING = """\
func.func @double_and_sum(%x: memref<8x32xf32>, %y: memref<8x32xf32>, %s: memref<8xf32>) {
  scf.forall (%i, %j) in (8, 32) {
    %v = memref.load %x[%i, %j] : memref<8x32xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %y[%i, %j] : memref<8x32xf32>
    %o = memref.load %s[%i] : memref<8xf32>
    %n = arith.addf %o, %v : f32
    memref.store %n, %s[%i] : memref<8xf32>
  }
  return
}
"""

DOUBLE_AND_SUM_MEMREF_INPUTS_ONLY = """\
func.func @double_and_sum(%x: memref<8x32xf32>, %s: memref<8xf32>) -> (memref<8x32xf32>, memref<8xf32>) {
  %y = memref.alloc() : memref<8x32xf32>
  %r = memref.alloc() : memref<8xf32>
  memref.copy %s, %r : memref<8xf32> to memref<8xf32>
  scf.forall (%i, %j) in (8, 32) {
    %v = memref.load %x[%i, %j] : memref<8x32xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %y[%i, %j] : memref<8x32xf32>
    %o = memref.load %r[%i] : memref<8xf32>
    %n = arith.addf %o, %v : f32
    memref.store %n, %r[%i] : memref<8xf32>
  }
  return %y, %r : memref<8x32xf32>, memref<8xf32>
}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def simulate(capsys, kernel: str, reference: str) -> tuple[int, str, str]:
    code = xsplit_main(["simulate", kernel, "--reference", reference])
    out, err = capsys.readouterr()
    return code, out, err


def func_of(text: str):
    return next(op for op in parse_module(text, "k.mlir").walk() if op.name == "func.func")


def test_inputs_and_outputs_of_kernels():
    """What each convention takes: an output is only written; an
    accumulator (read, then written) is an input."""
    mm, ds = func_of(MATMUL), func_of(DOUBLE_AND_SUM)
    assert (kernel_inputs(mm), written_arguments(mm)) == ([0, 1], [2])
    assert (kernel_inputs(ds), written_arguments(ds)) == ([0, 2], [1, 2])
    # A fill or a copy does not read its init; a matmul accumulates into it.
    linalg = func_of(
        """\
func.func @k(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>, %d: memref<4x4xf32>, %e: memref<4x4xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%d : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.copy ins(%c : memref<4x4xf32>) outs(%e : memref<4x4xf32>)
  return
}
"""
    )
    assert read_arguments(linalg) == [0, 1, 2]
    assert kernel_inputs(linalg) == [0, 1, 2]


def test_tensor_reference_of_the_inputs_only(tmp_path, capsys):
    """The issue's case: a kernel (A, B, C) writing C, a reference (A, B) -> C."""
    kernel = write(tmp_path, "mm.mlir", MATMUL)
    reference = write(tmp_path, "ref.mlir", MATMUL_INPUTS_ONLY)
    code, out, err = simulate(capsys, kernel, reference)
    assert code == 0, out + err
    assert out.startswith("clean: 0 racing op pairs, 0 mismatches")
    # A kernel that leaves k = 0 out of each dot product is caught.
    wrong = write(tmp_path, "wrong.mlir", MATMUL.replace("scf.for %k = %c0", "scf.for %k = %c1"))
    code, out, _ = simulate(capsys, wrong, reference)
    assert code == 1
    assert "mismatch in %c (argument 2)" in out


def test_tensor_reference_of_all_arguments(tmp_path, capsys):
    """Destination-passing: the output %y and the accumulator %s are passed
    in; the results are the written %y and %s, in that order."""
    kernel = write(tmp_path, "ds.mlir", DOUBLE_AND_SUM)
    reference = write(tmp_path, "ref.mlir", DOUBLE_AND_SUM_DESTINATION_PASSING)
    code, out, err = simulate(capsys, kernel, reference)
    assert code == 0, out + err
    # The accumulator's initial contents count: a kernel that overwrites it fails.
    wrong = write(
        tmp_path,
        "wrong.mlir",
        DOUBLE_AND_SUM.replace("memref.atomic_rmw addf", "memref.atomic_rmw assign"),
    )
    code, out, _ = simulate(capsys, wrong, reference)
    assert code == 1
    assert "mismatch in %s (argument 2)" in out and "%y" not in out


@pytest.mark.parametrize(
    "reference", [DOUBLE_AND_SUM_MEMREF_DESTINATION_PASSING, DOUBLE_AND_SUM_MEMREF_INPUTS_ONLY]
)
def test_memref_reference_in_either_convention(tmp_path, capsys, reference):
    kernel = write(tmp_path, "ds.mlir", DOUBLE_AND_SUM)
    ref = write(tmp_path, "ref.mlir", reference)
    code, out, err = simulate(capsys, kernel, ref)
    assert code == 0, out + err
    # y = 3x instead of 2x.
    wrong = write(
        tmp_path,
        "wrong.mlir",
        DOUBLE_AND_SUM.replace(
            "%d = arith.addf %v, %v", "%d0 = arith.addf %v, %v : f32\n  %d = arith.addf %d0, %v"
        ),
    )
    code, out, _ = simulate(capsys, wrong, ref)
    assert code == 1
    assert "mismatch in %y (argument 1)" in out


@pytest.mark.parametrize(
    ("kernel", "reference", "message"),
    [
        # Neither count.
        (
            MATMUL,
            MATMUL_INPUTS_ONLY.replace(
                "%b: tensor<24x8xf32>)",
                "%b: tensor<24x8xf32>, %c: tensor<16x8xf32>, %d: tensor<16x8xf32>)",
            ),
            (
                "the reference takes 4 arguments; expected 3 (all the kernel's arguments, "
                "destination-passing) or 2 (its inputs: %a, %b)"
            ),
        ),
        # The count of the inputs, and the type of a wrong one: %x and %y, not %x and %s.
        (
            DOUBLE_AND_SUM,
            "func.func @double_and_sum(%x: memref<8x32xf32>, %y: memref<8x32xf32>) {\n  return\n}\n",
            (
                "the reference takes (8x32xf32, 8x32xf32); expected (8x32xf32, 8x32xf32, 8xf32) "
                "(all the kernel's arguments, destination-passing) or (8x32xf32, 8xf32) (its inputs: %x, %s)"
            ),
        ),
        # The count of all the arguments, in another order.
        (
            DOUBLE_AND_SUM,
            "func.func @double_and_sum(%x: memref<8x32xf32>, %s: memref<8xf32>, %y: memref<8x32xf32>) {\n  return\n}\n",
            (
                "the reference takes (8x32xf32, 8xf32, 8x32xf32); expected (8x32xf32, 8x32xf32, 8xf32) "
                "(all the kernel's arguments, destination-passing) or (8x32xf32, 8xf32) (its inputs: %x, %s)"
            ),
        ),
    ],
)
def test_a_reference_in_neither_convention_is_one_line(
    tmp_path, capsys, kernel, reference, message
):
    k = write(tmp_path, "k.mlir", kernel)
    ref = write(tmp_path, "ref.mlir", reference)
    code, out, err = simulate(capsys, k, ref)
    assert code == 2, out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{ref}:") and ": error: " in lines[0]
    assert message in lines[0]


RELAXED_ADD = """\
func.func @k(%a: memref<4xf32>, %c: memref<4x8xf32>) {
  %i = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<4xf32>
  %base = memref.extract_aligned_pointer_as_index %c : memref<4x8xf32> -> index
  %x = arith.index_cast %base : index to i64
  %p = llvm.inttoptr %x : i64 to !llvm.ptr<1>
  %old = llvm.atomicrmw fadd %p, %v syncscope("device") monotonic : !llvm.ptr<1>, f32
  return
}
"""


def test_relaxed_atomic_add_reads_and_writes_its_buffer():
    """export-dispatch's llvm.atomicrmw on C's aligned pointer updates C:
    C is written and read (an accumulator, so an input), and the access
    analysis sees an atomic on C."""
    from xsplit.analysis.access import ATOMIC, AccessAnalysis

    k = func_of(RELAXED_ADD)
    assert (written_arguments(k), read_arguments(k), kernel_inputs(k)) == ([1], [0, 1], [0, 1])
    atomics = [a for a in AccessAnalysis(k).accesses if a.kind == ATOMIC]
    assert len(atomics) == 1 and atomics[0].op.name == "llvm.atomicrmw"
