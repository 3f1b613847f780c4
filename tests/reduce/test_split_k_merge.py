"""split-k{merge=atomic|deterministic}: the split kernel merges its chunks'
partials itself, by lower-reduce's lowering. Checked in the simulator against
the unsplit program, in the sm_80/gfx942 assembly, and on llvm-cpu through
IREE against numpy. Without merge= split-k is as before."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.gpu_asm import ANY_ATOMIC, ATOMIC, assembly
from xsplit.api import rewrite
from xsplit.diagnostics import XsplitError
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
def test_simulated(merge: str, t: str, tmp_path: Path, capsys) -> None:
    out = rewrite(MATMUL, f"split-k{{factor=5 merge={merge} target={t}}},verify-sync")
    assert "linalg." not in out and "scf.forall" not in out
    assert ("atomic_rmw" in out) == (merge == "atomic")
    (tmp_path / "out.mlir").write_text(out)
    (tmp_path / "ref.mlir").write_text(MATMUL)
    rc = simulate_main([str(tmp_path / "out.mlir"), "--reference", str(tmp_path / "ref.mlir")])
    assert rc == 0, capsys.readouterr().out


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


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
def test_cpu_run(merge: str) -> None:
    out = rewrite(MATMUL, f"split-k{{factor=7 merge={merge} target=cpu}},export-dispatch{{target=cpu}}")
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
