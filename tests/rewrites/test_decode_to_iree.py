"""A decode (M = 1) on a GPU target is left to IREE's own split: split-k
sets `iree_linalg_ext.split_reduction = [C : index]` with the chunk that
`--iree-dispatch-creation-enable-split-reduction` picks, and iree-compile
without the flag then makes IREE's own split of it."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from tests.helpers.cost_model import matmul
from xsplit.analysis.cost_model import iree_split_chunk
from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.dialects.iree_linalg_ext import SPLIT_REDUCTION
from xsplit.iree.iree_compile import compile_mlir

SPLIT_FLAG = "--iree-dispatch-creation-enable-split-reduction"


def _decode(n: int, k: int, element: str = "f32") -> str:
    return f"""
func.func @main(%a: tensor<1x{k}x{element}>, %b: tensor<{k}x{n}x{element}>, %c: tensor<1x{n}xf32>) -> tensor<1x{n}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<1x{k}x{element}>, tensor<{k}x{n}x{element}>) outs(%c : tensor<1x{n}xf32>) -> tensor<1x{n}xf32>
  return %r : tensor<1x{n}xf32>
}}
"""


def _vecmat(n: int, k: int) -> str:
    return f"""
func.func @main(%a: tensor<{k}xf32>, %b: tensor<{k}x{n}xf32>, %c: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %r = linalg.vecmat ins(%a, %b : tensor<{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : tensor<{n}xf32>) -> tensor<{n}xf32>
  return %r : tensor<{n}xf32>
}}
"""


def _annotated(source: str, pipeline: str = "auto{target=sm_90}") -> str:
    module = parse_module(source)
    run_passes(module, build_pipeline(pipeline))
    return print_module(module)


def _chunk_in(ir: str) -> int | None:
    found = re.search(rf"{SPLIT_REDUCTION} = \[(\d+) : index\]", ir)
    return int(found.group(1)) if found else None


@pytest.mark.gpu_compile
@pytest.mark.parametrize(
    "n,k",
    [(4096, 14336), (4096, 11008), (4096, 51234), (16, 14336), (4096, 2048), (4096, 14327)],
)
def test_the_chunk_is_the_one_iree_s_flag_picks(n: int, k: int) -> None:
    """`iree_split_chunk` restates IREE's heuristic: where iree-compile's
    flag splits K, the same chunk; where it leaves the op whole (a short K
    under a wide row, or a prime K: one chunk of K), no chunk."""
    ir = compile_mlir(_decode(n, k), "sm_80", [SPLIT_FLAG], compile_to="dispatch-creation")
    iree = _chunk_in(ir.decode())
    ours = iree_split_chunk(matmul(1, n, k))
    if iree is None or iree == k:
        assert isinstance(ours, str), ours
    else:
        assert ours == iree


def test_the_chunk_divides_k_into_more_than_one_chunk() -> None:
    """Every chunk the model gives a decode divides K (IREE's remainder
    chunks are dynamic), and IREE's limits on the count hold."""
    rng = random.Random(31)
    for _ in range(500):
        n, k = rng.randint(1, 20000), rng.randint(2, 3_000_000)
        chunk = iree_split_chunk(matmul(1, n, k))
        if isinstance(chunk, int):
            assert k % chunk == 0 and chunk < k, (n, k, chunk)
            assert k // chunk <= 2048, (n, k, chunk)


@pytest.mark.parametrize("target", ["sm_90", "sm_80", "gfx942"])
def test_auto_marks_the_decode_and_leaves_it_whole(target: str) -> None:
    """The op keeps its operands, result and signature; only the attribute is new."""
    source = _decode(4096, 14336)
    out = _annotated(source, f"auto{{target={target}}}")
    assert _chunk_in(out) == 112
    assert "scf.forall" not in out and "flow.dispatch" not in out
    assert out.count("linalg.matmul") == 1
    signature = "%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>"
    assert f"@main({signature}) -> tensor<1x4096xf32>" in out


def _configs(source: str, directory, *flags: str) -> list[str]:
    """Each dispatch's configured executable, as iree-compile dumps it for sm_80."""
    dump = f"--iree-hal-dump-executable-configurations-to={directory}"
    compile_mlir(source, "sm_80", [dump, *flags])
    return [path.read_text() for path in sorted(directory.iterdir())]


@pytest.mark.gpu_compile
@pytest.mark.parametrize("element", ["f32", "f16"])
def test_the_marked_decode_compiles_to_iree_s_own_split(tmp_path, element: str) -> None:
    """Compiled without the flag, xsplit's output has the dispatches of
    IREE's own split with the flag: the split one (TileAndFuse, 128 columns
    a workgroup, 4 a thread) and the merge, configured alike."""
    source = _decode(4096, 14336, element)
    ours = _configs(_annotated(source), tmp_path / "xsplit")
    iree = _configs(source, tmp_path / "iree", SPLIT_FLAG)
    assert len(ours) == len(iree) == 2
    assert ours == iree
    assert "workgroup = [1, 128, 0]" in ours[0] and "thread = [1, 4, 0]" in ours[0]


@pytest.mark.parametrize("form", ["matmul", "vecmat"])
def test_the_marked_decode_computes_the_product_on_the_cpu(form: str) -> None:
    """IREE's split of the marked op (the CPU honours the attribute too)
    against numpy, on inputs that are not all ones."""
    n, k = 96, 8192
    source = _decode(n, k) if form == "matmul" else _vecmat(n, k)
    out = _annotated(source, "split-k{target=sm_80}")
    chunk = iree_split_chunk(matmul(1, n, k))
    assert isinstance(chunk, int) and _chunk_in(out) == chunk
    flow = compile_mlir(out, "cpu", compile_to="dispatch-creation").decode()
    assert "split_reduction_mapping" in flow
    from xsplit.iree.cpu_runner import run_on_cpu

    rng = np.random.default_rng(5)
    a = rng.standard_normal((1, k) if form == "matmul" else (k,)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((1, n) if form == "matmul" else (n,)).astype(np.float32)
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", [a, b, c])
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    assert float(np.abs(got - want).max()) <= 1e-4 * float(np.abs(want).max())


@pytest.mark.gpu_compile
def test_iree_splits_a_marked_named_decode_but_not_a_marked_generic() -> None:
    """Why a generic decode is left whole: IREE 3.13 folds its unit row and
    rebuilds it without the attribute, and forms no split; a named op's
    attribute survives to dispatch creation."""
    marked = f"{{{SPLIT_REDUCTION} = [112 : index]}}"
    named = _decode(4096, 14336).replace("linalg.matmul ins", f"linalg.matmul {marked} ins")
    module = parse_module(_decode(4096, 14336))
    run_passes(module, build_pipeline("linalg-generalize-named-ops"))
    generic = print_module(module).replace("} ins(", f", {marked[1:-1]}}} ins(", 1)
    assert SPLIT_REDUCTION in generic and "linalg.generic" in generic
    for source, splits in ((named, True), (generic, False)):
        flow = compile_mlir(source, "sm_80", compile_to="dispatch-creation").decode()
        assert ("split_reduction_mapping" in flow) == splits
