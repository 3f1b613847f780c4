"""`split-lanes`: a matrix-vector product with K contiguous in the matrix
(`linalg.matvec`, a one-row `linalg.matmul` against B[n, k]) split into
vector lanes. Generated cases (N not a multiple of the register or
workgroup tile, K with and without a tail, prime K) run on IREE's CPU
runtime against numpy in float64, with a non-zero init so that `C + W x`
is checked, not only `W x`; ops the pass does not take pass through."""

from __future__ import annotations

import random

import numpy as np
import pytest

from xsplit.api import parse_module, rewrite
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir
from xsplit.targets.cpu_info import host_cpu
from xsplit.targets.lane_tiles import LANE_MAX_ROWS, lane_register_rows, lane_width

TRANSPOSED = (
    "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
    "affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]"
)


def _program(kind: str, n: int, k: int) -> str:
    if kind == "matvec":
        return f"""
func.func @main(%w: tensor<{n}x{k}xf32>, %x: tensor<{k}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = linalg.matvec ins(%w, %x : tensor<{n}x{k}xf32>, tensor<{k}xf32>) outs(%y : tensor<{n}xf32>) -> tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}"""
    return f"""
func.func @main(%x: tensor<1x{k}xf32>, %w: tensor<{n}x{k}xf32>, %y: tensor<1x{n}xf32>) -> tensor<1x{n}xf32> {{
  %0 = linalg.matmul {TRANSPOSED} ins(%x, %w : tensor<1x{k}xf32>, tensor<{n}x{k}xf32>) outs(%y : tensor<1x{n}xf32>) -> tensor<1x{n}xf32>
  return %0 : tensor<1x{n}xf32>
}}"""


def _rows_program(m: int, n: int, k: int) -> str:
    """M rows of A against B[n, k], into a non-zero init."""
    return f"""
func.func @main(%x: tensor<{m}x{k}xf32>, %w: tensor<{n}x{k}xf32>, %y: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = linalg.matmul {TRANSPOSED} ins(%x, %w : tensor<{m}x{k}xf32>, tensor<{n}x{k}xf32>) outs(%y : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}"""


def _reference(kind: str, inputs: list[np.ndarray]) -> np.ndarray:
    if kind == "matvec":
        w, x, y = (a.astype(np.float64) for a in inputs)
        return w @ x + y
    x, w, y = (a.astype(np.float64) for a in inputs)
    return x @ w.T + y


def _case(seed: int) -> tuple[str, str, int, int]:
    rng = random.Random(3900 + seed)
    kind = rng.choice(("matvec", "row-matmul"))
    n = rng.choice((rng.randint(1, 200), rng.randint(1, 40) * 8))
    k = rng.choice((rng.randint(2, 200) * 16, rng.randint(40, 4000)))
    return f"{kind}-{n}x{k}", kind, n, k


CASES = [_case(s) for s in range(8)] + [
    ("matvec-4096x1021-prime", "matvec", 4096, 1021),
    ("row-matmul-100x3001-prime", "row-matmul", 100, 3001),
    ("row-matmul-64x1024-whole", "row-matmul", 64, 1024),
    ("matvec-37x47-short-tail", "matvec", 37, 47),
]


@pytest.mark.parametrize("case_id,kind,n,k", CASES, ids=[c[0] for c in CASES])
def test_lanes_compute_the_product(case_id: str, kind: str, n: int, k: int) -> None:
    text = _program(kind, n, k)
    out = rewrite(text, "split-lanes{always}")
    lanes = lane_width(host_cpu())
    if k < 2 * lanes:
        assert out == rewrite(text, ""), "a K under two vectors stays whole"
        return
    assert "flow.dispatch.workgroups" in out and "math.fma" in out, out
    assert f"x{lanes}xf32>" in out
    # The matrix's tail columns, where there are any, are a product of their own.
    assert ("tensor.extract_slice" in out) == (k % lanes != 0), out
    rng = np.random.default_rng(n * 7919 + k)
    func = next(op for op in parse_module(text).walk() if op.name == "func.func")
    inputs = [rng.standard_normal(t.get_shape()).astype(np.float32) for t in func.function_type.inputs.data]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", inputs)
    want = _reference(kind, inputs)
    assert np.abs(np.asarray(got) - want).max() <= 1e-4 * max(1.0, float(np.abs(want).max()))


def _rows_case(seed: int) -> tuple[str, int, int, int]:
    rng = random.Random(3910 + seed)
    m = rng.randint(2, LANE_MAX_ROWS)
    n = rng.choice((rng.randint(1, 200), rng.randint(1, 40) * 8))
    k = rng.choice((rng.randint(2, 200) * 16, rng.randint(40, 4000)))
    return f"rows-{m}x{n}x{k}", m, n, k


ROWS_CASES = [_rows_case(s) for s in range(6)] + [
    ("rows-2x11008x64-whole", 2, 64, 4096),
    ("rows-4x100x3001-prime", 4, 100, 3001),
    ("rows-3x37x47-short-tail", 3, 37, 47),
]


@pytest.mark.parametrize("case_id,m,n,k", ROWS_CASES, ids=[c[0] for c in ROWS_CASES])
def test_lanes_of_several_rows_compute_the_product(case_id: str, m: int, n: int, k: int) -> None:
    text = _rows_program(m, n, k)
    out = rewrite(text, "split-lanes{always}")
    lanes = lane_width(host_cpu())
    if k < 2 * lanes:
        assert out == rewrite(text, ""), "a K under two vectors stays whole"
        return
    assert f"-> tensor<{m}x{n}x{lanes}xf32>" in out and "fastmath<contract>" in out, out
    assert ("tensor.extract_slice" in out) == (k % lanes != 0), out
    rng = np.random.default_rng(m * 131 + n * 7919 + k)
    inputs = [
        rng.standard_normal(shape).astype(np.float32) for shape in ((m, k), (n, k), (m, n))
    ]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", inputs)
    x, w, y = (a.astype(np.float64) for a in inputs)
    want = x @ w.T + y
    assert np.abs(np.asarray(got) - want).max() <= 1e-4 * max(1.0, float(np.abs(want).max()))


def test_auto_on_a_cpu_splits_a_transposed_matvec_into_lanes() -> None:
    out = rewrite(_program("matvec", 512, 4096), "auto{target=cpu}")
    assert "math.fma" in out and "flow.dispatch.workgroups" in out


@pytest.mark.parametrize(
    "text",
    [
        # B row-major: split-k's streaming tiles read it as they are.
        """
func.func @main(%x: tensor<1x1024xf32>, %w: tensor<1024x64xf32>, %y: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = linalg.matmul ins(%x, %w : tensor<1x1024xf32>, tensor<1024x64xf32>) outs(%y : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}""",
        # More rows than LANE_MAX_ROWS: IREE's own tiles read B once for them.
        _rows_program(LANE_MAX_ROWS + 1, 64, 1024),
        # f16: the tiles are for f32 vectors.
        _program("matvec", 64, 1024).replace("f32", "f16"),
    ],
    ids=["row-major", "more-rows", "f16"],
)
def test_what_it_does_not_take_passes_through(text: str) -> None:
    assert rewrite(text, "split-lanes{always}") == rewrite(text, "")


def test_a_gpu_target_is_left_alone() -> None:
    text = _program("matvec", 512, 4096)
    assert rewrite(text, "split-lanes{target=sm_80 always}") == rewrite(text, "")


def test_the_model_leaves_a_small_product_whole() -> None:
    """Under a few hundred kilobytes the second dispatch costs more than the
    lanes save."""
    text = _program("matvec", 70, 2000)
    assert rewrite(text, "split-lanes") == rewrite(text, "")


def _hot_loop(assembly: str, function: str) -> list[str]:
    """The instructions of `function`'s innermost loop: from its last
    label to the branch back to it (the loop the lanes' product runs)."""
    body = assembly.split(f"{function}:", 1)[1].split(".size", 1)[0]
    lines = [line.strip() for line in body.splitlines()]
    for end in range(len(lines) - 1, -1, -1):
        branch = lines[end].split()
        if len(branch) == 2 and branch[0].startswith("j") and branch[1].startswith(".LBB"):
            start = lines.index(f"{branch[1]}:")
            if start < end:
                return [line.split()[0] for line in lines[start + 1 : end] if line and not line.startswith((".", "#"))]
    raise AssertionError(f"no loop in {function}")


def test_the_lanes_loop_multiplies_and_adds_without_shuffles(tmp_path) -> None:
    """What the form is for, in IREE's machine code for this CPU: the lane
    product's loop does one multiply and one add per vector of W, and no
    shuffle (IREE's own code for the whole op transposes 16 x 16 blocks:
    `vshuff64x2`, `vunpck*`, `vperm*`). With `arith.mulf` in the body
    instead of the fma by -0.0, IREE's loop gathered scalars instead."""
    text = rewrite(_program("matvec", 512, 4096), "split-lanes")
    compile_mlir(text, "cpu", [f"--iree-hal-dump-executable-files-to={tmp_path}"])
    (assembly,) = [p.read_text() for p in tmp_path.glob("*.s")]
    function = next(
        line[:-1] for line in assembly.splitlines() if line.endswith(":") and "dispatch_0" in line and not line.startswith(".")
    )
    loop = _hot_loop(assembly, function)
    shuffles = [op for op in loop if op.startswith(("vshuf", "vunpck", "vperm", "vinsert", "vextract", "vmovss"))]
    assert shuffles == [], loop
    multiplies = [op for op in loop if op.startswith(("vmulps", "vfmadd"))]
    adds = [op for op in loop if op == "vaddps"]
    assert len(multiplies) == 8 and len(adds) in (0, 8), loop


@pytest.mark.parametrize("m", [2, 4])
def test_the_rows_loop_fuses_each_product_into_one_fma(tmp_path, m: int) -> None:
    """With several rows of A in the register tile, `contract` makes each
    product and its add one FMA: m x `lane_register_rows(m)` of them a step,
    each fed by a vector of W and one of A, and no plain multiply, add or
    shuffle (without `contract`, vmulps and vaddps: twice the arithmetic)."""
    text = rewrite(_rows_program(m, 512, 4096), "split-lanes{always}")
    compile_mlir(text, "cpu", [f"--iree-hal-dump-executable-files-to={tmp_path}"])
    (assembly,) = [p.read_text() for p in tmp_path.glob("*.s")]
    function = next(
        line[:-1] for line in assembly.splitlines() if line.endswith(":") and "dispatch_0" in line and not line.startswith(".")
    )
    loop = _hot_loop(assembly, function)
    others = [op for op in loop if op.startswith(("vshuf", "vunpck", "vperm", "vmovss", "vmulps", "vaddps"))]
    assert others == [], loop
    assert len([op for op in loop if op == "vfmadd231ps"]) == m * lane_register_rows(m), loop


def test_auto_on_a_cpu_splits_a_few_rows_into_lanes() -> None:
    out = rewrite(_rows_program(4, 4096, 4096), "auto{target=cpu}")
    assert "x4096x16xf32>" in out or "x4096x8xf32>" in out, out
