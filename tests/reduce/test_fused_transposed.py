"""A fused GEMM + reduction whose A lies K x M or whose B lies N x K in
memory: xsplit's staged kernel (`gridwise_gemm_reduce` with `a_transposed`,
`b_transposed`) copies each as it lies into the tiles its K loop reads.
Every stage, sum and max, along rows and columns, atomic and deterministic,
plain and batch GEMMs: race-free in the simulator, verify-sync proving its
barriers, numpy's results; with a reduction along the batch (`dim` 2) as
well. A transposed C is the staged kernel's too (Cᵀ = Bᵀ Aᵀ).
The new forms compile for sm_80 and gfx942 (`gpu_compile`)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.fused_gemm import SUBGROUP
from tests.helpers.kept import parsed, reads_back, rewrite_kept
from tests.helpers.simulation import simulate_module
from xsplit.api import rewrite
from xsplit.diagnostics import collect_remarks


def _program(m, n, k, a_t, b_t, method, along, batch=0, c_t=False):
    """C = C0 + A B reduced along its rows (over N) or columns (over M) into
    o; A, B (and with `c_t`, C) indexed transposed where asked."""
    lead = ["b"] if batch else []
    dims = ", ".join([*lead, "m", "n", "k"])
    a_idx = [*lead, *(("k", "m") if a_t else ("m", "k"))]
    b_idx = [*lead, *(("n", "k") if b_t else ("k", "n"))]
    c_idx = [*lead, *(("n", "m") if c_t else ("m", "n"))]
    size = {"b": batch, "m": m, "n": n, "k": k}
    ty = lambda idx: f"tensor<{'x'.join(str(size[d]) for d in idx)}xf32>"  # noqa: E731
    axis = len(lead) + (1 if along == "rows" else 0)
    if c_t:
        axis = len(lead) + (0 if along == "rows" else 1)
    out = [size[d] for i, d in enumerate(c_idx) if i != axis]
    to = f"tensor<{'x'.join(map(str, out))}xf32>"
    its = ", ".join(['"parallel"'] * (len(lead) + 2) + ['"reduction"'])
    combine = "arith.addf" if method == "sum" else "arith.maximumf"
    maps = ", ".join(f"affine_map<({dims}) -> ({', '.join(i)})>" for i in (a_idx, b_idx, c_idx))
    return f"""func.func @t(%a: {ty(a_idx)}, %b: {ty(b_idx)}, %c: {ty(c_idx)}, %o: {to}) -> {to} {{
  %mm = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} ins(%a, %b : {ty(a_idx)}, {ty(b_idx)}) outs(%c : {ty(c_idx)}) {{
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }} -> {ty(c_idx)}
  %r = linalg.reduce ins(%mm : {ty(c_idx)}) outs(%o : {to}) dimensions = [{axis}]
    (%in: f32, %init: f32) {{
      %0 = {combine} %in, %init : f32
      linalg.yield %0 : f32
    }}
  return %r : {to}
}}
"""


def _inputs(m, n, k, a_t, b_t, batch, seed):
    rng = np.random.default_rng(seed)
    lead = [batch] if batch else []
    a = rng.uniform(-1, 1, lead + ([k, m] if a_t else [m, k])).astype(np.float32)
    b = rng.uniform(-1, 1, lead + ([n, k] if b_t else [k, n])).astype(np.float32)
    c = rng.uniform(-1, 1, lead + [m, n]).astype(np.float32)
    return a, b, c


def _expected(a, b, c, a_t, b_t, method, along, batch):
    swap = lambda x: np.swapaxes(x, -1, -2)  # noqa: E731
    x = c.astype(np.float64) + (swap(a) if a_t else a).astype(np.float64) @ (
        swap(b) if b_t else b
    ).astype(np.float64)
    axis = (1 if batch else 0) + (1 if along == "rows" else 0)
    return x.sum(axis=axis) if method == "sum" else x.max(axis=axis)


CASES = [
    # (a_t, b_t, stage, method, along, target, deterministic, batch)
    (True, False, "atomic", "sum", "rows", "sm_80", False, 0),
    (False, True, "lds", "max", "columns", "gfx942", False, 0),
    (True, True, "subgroup", "sum", "columns", "sm_80", False, 0),
    (True, True, "subgroup", "max", "rows", "gfx942", True, 0),
    (False, True, "atomic", "sum", "columns", "gfx942", True, 2),
    (True, False, "lds", "max", "rows", "sm_80", True, 2),
]


@pytest.mark.parametrize(
    "a_t,b_t,stage,method,along,target,det,batch",
    CASES,
    ids=[f"{'A' * a}{'B' * b}-{s}-{me}-{al}-{t}{'-det' * d}{'-batch' * bool(ba)}"
         for a, b, s, me, al, t, d, ba in CASES],
)  # fmt: skip
def test_transposed_operands_in_the_staged_kernel(
    a_t, b_t, stage, method, along, target, det, batch
) -> None:
    m, n, k = 37, 45, 61
    source = _program(m, n, k, a_t, b_t, method, along, batch)
    pipeline = (
        f"fuse-reduction,lower-reduce{{stage={stage} target={target} "
        f"deterministic={str(det).lower()}}},verify-sync"
    )
    with collect_remarks() as said:
        out = rewrite_kept(source, pipeline)
    assert not [line for line in said if "warning" in line], said
    text = "\n".join(said)
    assert "xsplit_gemm.gridwise_gemm_reduce" in text and "copied:" in text, text
    assert "the tiled kernel" not in text
    assert "linalg." not in out and "xsplit_gemm." not in out
    # A lying K x M is staged K-major: 16 rows of K, 64 of M and a pad;
    # else M-major, as gemm-kernel stages it.
    a_tile = "memref<16x66xf32" if a_t else "memref<64x16xf32"
    assert f"%a_tile = memref.alloc() : {a_tile}" in out
    a, b, c = _inputs(m, n, k, a_t, b_t, batch, seed=m + n)
    o = np.random.default_rng(3).uniform(-1, 1, _expected(a, b, c, a_t, b_t, method, along, batch).shape)
    o = o.astype(np.float32)
    red = _expected(a, b, c, a_t, b_t, method, along, batch)
    want_o = o + red if method == "sum" else np.maximum(o, red)
    module = parsed(out, "out.mlir")
    args = [a, b, c, o]
    want = [a, b, c, want_o.astype(np.float32)]
    report = simulate_module(module, want, args, subgroup_size=SUBGROUP[target])
    assert report.clean, report.races + report.mismatches


def test_a_transposed_c_in_the_staged_kernel() -> None:
    """C lying N x M is Cᵀ = Bᵀ Aᵀ: the program's B (K x N) is the kernel's
    A lying K x M, staged K-major (numerics: test_fused_batches.py)."""
    source = _program(13, 70, 24, False, False, "max", "rows", c_t=True)
    with collect_remarks() as said:
        out = rewrite(source, "fuse-reduction,lower-reduce{stage=lds target=gfx942}")
    assert "C lies N x M: computed as Cᵀ = Bᵀ Aᵀ" in "\n".join(said), said
    assert "%a_tile = memref.alloc() : memref<16x66xf32" in out


@pytest.mark.gpu_compile
@pytest.mark.parametrize(
    "t,a_t,b_t,along,det,batch",
    [("sm_80", True, True, "rows", False, 0), ("gfx942", True, False, "columns", True, 2),
     ("sm_80", False, False, "batch", True, 2), ("gfx942", False, True, "batch", False, 3)],
)  # fmt: skip
def test_assembly(t: str, a_t: bool, b_t: bool, along: str, det: bool, batch: int, tmp_path) -> None:
    """The staged kernel's new forms compile for sm_80 and gfx942: the K loop
    through shared memory between barriers, and the merge its own (an atomic
    per output, or none when deterministic). K and M or N whole vectors of 4:
    the transposed copies load 128 bits along the rows they read."""
    import re

    from tests.helpers.gpu_asm import ANY_ATOMIC, ATOMIC, BARRIER, SHARED, SPILL, assembly

    if along == "batch":
        source = _batch_program(batch, 100, 72, 96, a_t, b_t)
    else:
        source = _program(100, 72, 96, a_t, b_t, "sum", along, batch)
    with collect_remarks() as said:
        out = rewrite(
            source,
            f"fuse-reduction,lower-reduce{{target={t} deterministic={str(det).lower()}}},"
            f"export-dispatch{{target={t}}}",
        )
    assert "xsplit_gemm.gridwise_gemm_reduce" in "\n".join(said)
    asm = assembly(out, t, tmp_path)
    assert re.search(SHARED[t], asm) and len(re.findall(BARRIER[t], asm)) >= 2
    assert bool(re.search(ANY_ATOMIC[t], asm)) != det
    if not det:
        assert re.search(ATOMIC[t], asm)
    assert not re.search(SPILL[t], asm)


def _batch_program(batch, m, n, k, a_t, b_t) -> str:
    """A batch GEMM reduced along its batch (a sum), A and B transposed where
    asked."""
    a_idx = ("b", *(("k", "m") if a_t else ("m", "k")))
    b_idx = ("b", *(("n", "k") if b_t else ("k", "n")))
    size = {"b": batch, "m": m, "n": n, "k": k}
    ty = lambda idx: f"tensor<{'x'.join(str(size[d]) for d in idx)}xf32>"  # noqa: E731
    c, o = ty(("b", "m", "n")), ty(("m", "n"))
    maps = ", ".join(
        f"affine_map<(b, m, n, k) -> ({', '.join(i)})>" for i in (a_idx, b_idx, ("b", "m", "n"))
    )
    its = '"parallel", "parallel", "parallel", "reduction"'
    return f"""func.func @bt(%a: {ty(a_idx)}, %b: {ty(b_idx)}, %c: {c}, %o: {o}) -> {o} {{
  %mm = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} ins(%a, %b : {ty(a_idx)}, {ty(b_idx)}) outs(%c : {c}) {{
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }} -> {c}
  %r = linalg.reduce ins(%mm : {c}) outs(%o : {o}) dimensions = [0]
    (%in: f32, %init: f32) {{
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }}
  return %r : {o}
}}
"""


@pytest.mark.parametrize("det", [False, True])
def test_batch_axis_with_transposed_operands(det: bool) -> None:
    """Reduced along the batch and read transposed, together: the batch's
    kernels merge each element of C into the output (or its partials)."""
    batch, m, n, k = 3, 37, 45, 61
    source = _batch_program(batch, m, n, k, True, True)
    with collect_remarks() as said:
        out = rewrite_kept(
            source,
            f"fuse-reduction,lower-reduce{{target=sm_80 deterministic={str(det).lower()}}},verify-sync",
        )
    assert not [line for line in said if "warning" in line], said
    assert "the batch axis is reduced across workgroups (grid z)" in "\n".join(said)
    a, b, c = _inputs(m, n, k, True, True, batch, seed=5)
    o = np.random.default_rng(6).uniform(-1, 1, (m, n)).astype(np.float32)
    x = c.astype(np.float64) + np.swapaxes(a, -1, -2).astype(np.float64) @ np.swapaxes(b, -1, -2)
    want = [a, b, c, (o + x.sum(axis=0)).astype(np.float32)]
    module = parsed(out, "out.mlir")
    report = simulate_module(module, want, [a, b, c, o])
    assert report.clean, report.races + report.mismatches


@pytest.mark.parametrize("batch", [0, 3], ids=["plain", "batch-axis"])
def test_the_transposed_kernels_read_back(batch: int) -> None:
    """The tests above simulate the modules the passes left (kept.py): the
    printed text of each transposed form reads back as the same IR."""
    if batch:
        source = _batch_program(batch, 37, 45, 61, True, True)
    else:
        source = _program(37, 45, 61, True, True, "max", "rows")
    with collect_remarks():
        out = rewrite(source, "fuse-reduction,lower-reduce{stage=subgroup target=sm_80 deterministic=true}")
    assert "%a_tile = memref.alloc() : memref<16x66xf32" in out  # A staged K-major
    reads_back(out)
