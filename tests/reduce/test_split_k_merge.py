"""split-k{merge=atomic|deterministic}: the split kernel merges its chunks'
partials itself. A matmul that xsplit's staged GEMM kernel takes (a GPU, a
static matmul into f32) is that kernel, gemm-kernel's merge; anything else
(the CPU, a transposed or one-vector product, a max) is lower-reduce's
per-element kernel. Checked in the simulator against the unsplit program,
in the sm_80/gfx942 assembly, and on llvm-cpu through IREE against numpy.
Without merge= split-k is as before."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.gemm_kernel import ORDERS, expected, inputs, matmul
from tests.helpers.gpu_asm import ANY_ATOMIC, ATOMIC, assembly
from tests.helpers.kept import parsed, rewrite_kept
from tests.helpers.simulation import simulate_module
from xsplit.api import rewrite
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir
from xsplit.tools.simulate import main as simulate_main

MATMUL = """\
func.func @mm(%a: tensor<9x700xf32>, %b: tensor<700x20xf32>, %c: tensor<9x20xf32>) -> tensor<9x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<9x700xf32>, tensor<700x20xf32>) outs(%c : tensor<9x20xf32>) -> tensor<9x20xf32>
  return %0 : tensor<9x20xf32>
}
"""


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("t", ["sm_80", "gfx942"])
def test_simulated(merge: str, t: str) -> None:
    with collect_remarks() as said:
        out = rewrite_kept(MATMUL, f"split-k{{factor=5 merge={merge} target={t}}},verify-sync")
    assert "linalg." not in out and "scf.forall" not in out
    assert ("atomic_rmw" in out) == (merge == "atomic")
    # The staged GEMM kernel ran, and said so: its K loop stages tiles in
    # workgroup memory; the per-element kernel has none.
    assert any("xsplit's staged GEMM kernel" in line for line in said), said
    assert any("split-k: gemm-kernel: on " in line for line in said), said
    assert "#gpu.address_space<workgroup>" in out
    # In one thread order (no atomic_rmw in the deterministic merge, checked
    # above, stands for comparing orders bit for bit), against numpy (the module the passes left:
    # `xsplit simulate --reference` on a written file is tested below and in
    # test_split_k_own_kernel.py).
    _simulate_against_numpy(out, inputs(9, 20, 700, 5))


@pytest.mark.gpu_compile
@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("t", ["sm_80", "gfx942"])
def test_assembly(merge: str, t: str, tmp_path: Path) -> None:
    out = rewrite(MATMUL, f"split-k{{factor=5 merge={merge} target={t}}},export-dispatch{{target={t}}}")
    asm = assembly(out, t, tmp_path)
    if merge == "atomic":
        assert re.search(ATOMIC[t], asm)
    else:
        assert not re.search(ANY_ATOMIC[t], asm)


def _simulate_against_numpy(text: str, args: list[np.ndarray]) -> None:
    module = parsed(text, "kernel.mlir")
    # One order: see ORDERS in tests/helpers/gemm_kernel.py.
    report = simulate_module(module, expected(args), args, orders=ORDERS)
    assert report.clean, report.races + report.mismatches


@pytest.mark.parametrize(
    ("t", "element", "merge"),
    [("sm_80", "f16", "atomic"), ("gfx942", "f16", "deterministic"), ("sm_80", "bf16", "atomic")],
)
def test_16_bit_matmuls_take_the_staged_kernel(t: str, element: str, merge: str) -> None:
    # The per-element kernel took f32 only; the staged one multiplies f16
    # and bf16 on tensor cores.
    with collect_remarks() as said:
        out = rewrite_kept(matmul(37, 24, 301, element), f"split-k{{factor=3 merge={merge} target={t}}}")
    assert any("xsplit's staged GEMM kernel" in line for line in said), said
    assert ("amdgpu.mfma" if t == "gfx942" else "nvgpu.mma.sync") in out
    _simulate_against_numpy(out, inputs(37, 24, 301, 7, element))


TRANSPOSED_B = """\
func.func @mm(%a: tensor<9x300xf32>, %b: tensor<20x300xf32>, %c: tensor<9x20xf32>) -> tensor<9x20xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<9x300xf32>, tensor<20x300xf32>) outs(%c : tensor<9x20xf32>) -> tensor<9x20xf32>
  return %0 : tensor<9x20xf32>
}
"""


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
def test_what_the_staged_kernel_refuses_is_the_per_element_kernel(merge: str, tmp_path, capsys) -> None:
    """A transposed B on a GPU: the per-element kernel, the remark says why."""
    with collect_remarks() as said:
        out = rewrite(TRANSPOSED_B, f"split-k{{factor=4 merge={merge} target=gfx942}},verify-sync")
    why = "per-element kernel (the staged GEMM kernel does not take it: its operands are transposed"
    assert any(why in line for line in said), said
    assert "#gpu.address_space<workgroup>" not in out
    (tmp_path / "out.mlir").write_text(out)
    (tmp_path / "ref.mlir").write_text(TRANSPOSED_B)
    rc = simulate_main([str(tmp_path / "out.mlir"), "--reference", str(tmp_path / "ref.mlir")] + [f"--schedule={o}" for o in ORDERS])
    assert rc == 0, capsys.readouterr().out


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
def test_cpu_run(merge: str) -> None:
    with collect_remarks() as said:
        out = rewrite(MATMUL, f"split-k{{factor=7 merge={merge} target=cpu}},export-dispatch{{target=cpu}}")
    assert any("per-element kernel (the staged GEMM kernel does not take it: cpu is not a GPU)" in line for line in said), said
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (9, 700)).astype(np.float32)
    b = rng.uniform(-1, 1, (700, 20)).astype(np.float32)
    c = rng.uniform(-1, 1, (9, 20)).astype(np.float32)
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "mm", [a, b, c])
    np.testing.assert_allclose(np.asarray(got), c + a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


def test_default_unchanged_and_errors() -> None:
    assert "scf.forall" in rewrite(MATMUL, "split-k{factor=5}")
    with pytest.raises(XsplitError, match="merge= needs target="):
        rewrite(MATMUL, "split-k{factor=5 merge=atomic}")
    other = MATMUL.replace("return %0", "%1 = arith.addf %0, %0 : tensor<9x20xf32>\n  return %1")
    with pytest.raises(XsplitError, match="merge=atomic needs the function to return only"):
        rewrite(other, "split-k{factor=5 merge=atomic target=sm_80}")
