"""The own kernel's skinny f32 form (issue 37): with M under 8, B goes from
global memory straight into each thread's registers (`stream_b`) and only
A is staged. Picked by M from the tile table; right against numpy on random
inputs in the simulator (race-free, in a shuffled thread order) with odd N
and K, every merge, cp.async (sm_80) and plain copies (gfx942); B read
once, in 16-byte loads; each barrier needed."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.gemm_kernel import LoadCounter, check, expected, inputs, lowered, matmul
from xsplit.api import parse_module, rewrite
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.dialects import make_context
from xsplit.dialects.xsplit_gemm import GridwiseGemmOp
from xsplit.simulator.machine import Launch
from xsplit.simulator.run import launch_sizes
from xsplit.simulator.run import pick_function, simulate
from xsplit.targets.gemm_tiles import GEMM_TILES, SKINNY, SKINNY_M_FMA, SMALL, gemm_tiles
from xsplit.targets.table import target

def gridwise(m: int, n: int, k: int, options: str, element: str) -> GridwiseGemmOp:
    with collect_remarks():
        text = rewrite(matmul(m, n, k, element), f"gemm-kernel{{{options}}}")
    module = parse_module(text, "k.mlir", make_context())
    return next(op for op in module.walk() if isinstance(op, GridwiseGemmOp))


# Small tiles keep the simulator quick: 2 rows of 4 columns a thread (runs of
# 2 or 4 where B's rows allow), K steps of 8.
TILE = "tile=8,32,8 threads=1,8"


@pytest.mark.parametrize("name", ["sm_80", "sm_90"])
@pytest.mark.parametrize(("m", "rows"), [(1, 1), (2, 2), (3, 4), (4, 4), (5, 8), (7, 8)])
def test_skinny_f32_streams_b(name: str, m: int, rows: int) -> None:
    """M under 8 takes the SKINNY f32 entry, its tile M rounded up to 1,
    2, 4 or 8; from 8 rows on (or with stream_b=none) the output's class."""
    tgt = target(name)
    skinny = GEMM_TILES[(name, "f32", SKINNY)]
    got = gemm_tiles(tgt, "f32", m, 2048, 4097)
    assert skinny.stream_b and got.stream_b
    # The K step holds an element of A's tile for each thread to copy.
    step = max(skinny.step_k, skinny.thread_count // rows)
    assert got.tile == (rows, skinny.tile_n, step) and got.threads == skinny.threads
    assert gemm_tiles(tgt, "f32", m, 2048, 4097, stream_b=False) == GEMM_TILES[(name, "f32", SMALL)]
    assert gemm_tiles(tgt, "f32", SKINNY_M_FMA, 96, 1024) == GEMM_TILES[(name, "f32", SMALL)]
    op = gridwise(m, 2048, 4097, f"target={name} chunks=2", "f32")
    assert op.stream_b is not None and op.tile_sizes[0] == rows and op.column_run == 4
    assert gridwise(m, 2048, 4097, f"target={name} stream_b=none", "f32").stream_b is None


def test_gfx942_streams_b_only_when_asked() -> None:
    """gfx942's SKINNY f32 entry does not stream B (its one-wavefront form
    spills where LLVM unrolls a short chunk whole, and a 16-byte load of B
    feeds only 2 v_pk_fma on M = 1; bench/RESULTS-machine-code.md): it
    multiplies on the f32 MFMA. stream_b=on takes the form with the
    options' tile."""
    assert not GEMM_TILES[("gfx942", "f32", SKINNY)].stream_b
    op = gridwise(3, 2048, 4097, "target=gfx942", "f32")
    assert op.stream_b is None and op.intrinsic is not None
    op = gridwise(3, 2048, 4097, "target=gfx942 tile=4,512,32 threads=1,64 stream_b=on", "f32")
    assert op.stream_b is not None and op.register_prefetch is not None


def test_odd_n_loads_one_column_at_a_time() -> None:
    # B's rows of 2047 are no whole 16-byte vectors: runs of 1, scalar loads.
    assert gridwise(3, 2047, 1000, "target=sm_80", "f32").column_run == 1


@pytest.mark.parametrize(
    ("m", "n", "k", "chunks", "options"),
    [
        (1, 72, 101, 2, TILE),  # one row, prime K: a ragged last step
        (3, 37, 61, 3, TILE),  # odd N: masked scalar columns; 3 of 4 rows
        (5, 68, 96, 2, TILE),  # whole steps only, 8 rows for 5
        (7, 40, 9, 1, TILE),  # one whole step and a ragged one of 1
        (2, 64, 5, 1, TILE),  # one chunk shorter than a step: only the ragged step
        (6, 33, 200, 4, "tile=8,64,16 threads=1,16"),
        (4, 100, 64, 2, "tile=4,64,8 threads=1,8"),  # 8 columns a thread: 2 runs of 4
    ],
)
@pytest.mark.parametrize("name", ["sm_80", "gfx942"])
def test_streamed_b_runs_right(
    name: str, m: int, n: int, k: int, chunks: int, options: str
) -> None:
    options = f"target={name} chunks={chunks} {options} stream_b=on"
    text = check(m, n, k, options, seed=m * n + k)
    # A alone is staged: by cp.async on sm_80, by plain copies on gfx942.
    assert "b_tile" not in text and "%a_tile1" in text
    assert ("nvgpu.device_async_copy" in text) == (name == "sm_80")


@pytest.mark.parametrize("merge", ["store", "deterministic"])
def test_streamed_b_other_merges(merge: str) -> None:
    chunks = 1 if merge == "store" else 3
    check(5, 45, 77, f"target=sm_80 chunks={chunks} merge={merge} {TILE}", seed=3, printed=False)


def test_defaults_run_right() -> None:
    """The table's own skinny tile (8 columns a thread in runs of 4, K
    steps of 32) on a shape it overhangs in N and K."""
    check(3, 300, 150, "target=sm_80 chunks=2", seed=11, printed=False)


def test_b_is_read_once_in_wide_loads() -> None:
    """Every element of B is loaded once, four to a 16-byte load, and A by
    no plain load (cp.async stages it); the products are M's rows'."""
    m, n, k = 4, 64, 64
    module, _ = lowered(m, n, k, "target=sm_80 chunks=2 tile=4,64,8 threads=1,8", printed=False)
    fn = pick_function(module, None)
    args = inputs(m, n, k, 9)
    grid, block = launch_sizes(fn, None, None)
    machine = LoadCounter(Launch(grid, block, 32))
    results = machine.run(fn, [x.copy() for x in args])
    assert np.allclose(results[2], expected(args)[2], rtol=1e-4, atol=1e-4)
    counts = machine.counts
    assert counts["a"] == 0 and counts["b"] == k * n and counts["b_loads"] == k * n // 4
    assert counts["fma"] == m * n * k


@pytest.mark.parametrize("name", ["sm_80", "gfx942"])
@pytest.mark.parametrize("which", [0, 1])
def test_each_barrier_is_needed(name: str, which: int) -> None:
    """One barrier a step, at its top: it publishes the step's A tile and
    holds the copy into the other tile until everyone has read it. Without
    either step's barrier the simulator reports a race."""
    module, _ = lowered(3, 64, 96, f"target={name} chunks=1 {TILE} stream_b=on", printed=False)
    fn = pick_function(module, None)
    loop = next(op for op in fn.walk() if op.name == "scf.for" and op.parent_op() is fn)
    barriers = [op for op in loop.walk() if op.name == "gpu.barrier"]
    assert len(barriers) == 2
    barriers[which].detach()
    barriers[which].erase()
    args = inputs(3, 64, 96, 0)
    report = simulate(fn, reference=expected(args), inputs=args, orders=["reverse"])
    assert report.races


def test_threads_along_m_keep_b_staged() -> None:
    # The form gives each thread every row; a thread grid along M stages B.
    assert gridwise(3, 64, 96, "target=sm_80 tile=8,32,8 threads=2,4", "f32").stream_b is None


def test_sixteen_bit_keeps_b_staged() -> None:
    # stream_b=on where the form cannot take it (A's 2-byte elements have
    # no cp.async of their own): B staged as before, no error.
    op = gridwise(3, 64, 96, "target=sm_80 mma=none tile=8,32,8 threads=1,8 stream_b=on", "f16")
    assert op.stream_b is None


def test_verifier_refuses_threads_along_m() -> None:
    text = """
func.func @mm(%a: memref<3x96xf32>, %b: memref<96x64xf32>, %c: memref<3x64xf32>) {
  xsplit_gemm.gridwise_gemm %a, %b, %c {tile = array<i64: 8, 32, 8>, threads = array<i64: 2, 4>, chunks = 1 : i64, merge = "store", stages = 2 : i64, stream_b} : memref<3x96xf32>, memref<96x64xf32>, memref<3x64xf32>
  func.return
}
"""
    with pytest.raises(XsplitError, match=r"k.mlir:3:3: .*stream_b takes one thread along M"):
        parse_module(text, "k.mlir", make_context())
