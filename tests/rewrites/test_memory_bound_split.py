"""Memory-bound contractions (M and N up to 128, K of 100k or more) split to
fill the GPU by construction: on sm_80, sm_90 and gfx942, split-k's static
chunks (and the own kernel, where asked for) launch at least a wave of
workgroups, one on every SM or CU, with the bytes in flight that cover the
memory's latency, and the remark says how many bytes those are.

Generated shapes are checked on the rewritten IR (the chunk loop's count
times the workgroup tiles of a chunk, the own kernel's launch grid); a few
are compiled with iree-compile and checked on the grid of the chunks'
dispatch (gpu_compile)."""

from __future__ import annotations

import random
import re

import pytest

from xsplit.analysis.cost_model import chunk_tiles_of, estimate, matmul_problem
from xsplit.api import rewrite
from xsplit.diagnostics import collect_remarks
from xsplit.targets.table import TARGETS

GPUS = ("sm_80", "sm_90", "gfx942")


def _shapes(seed: int, count: int) -> list[tuple[int, int, int, str]]:
    rng = random.Random(seed)
    return [
        (
            rng.randint(2, 128),
            rng.randint(2, 128),
            rng.randint(100_000, 700_000),
            rng.choice(("f32", "f16")),
        )
        for _ in range(count)
    ]


def _matmul(m: int, n: int, k: int, element: str) -> str:
    acc = "f32"
    return f"""
func.func @mb(%a: tensor<{m}x{k}x{element}>, %b: tensor<{k}x{n}x{element}>, %c: tensor<{m}x{n}x{acc}>) -> tensor<{m}x{n}x{acc}> {{
  %0 = linalg.matmul ins(%a, %b : tensor<{m}x{k}x{element}>, tensor<{k}x{n}x{element}>) outs(%c : tensor<{m}x{n}x{acc}>) -> tensor<{m}x{n}x{acc}>
  return %0 : tensor<{m}x{n}x{acc}>
}}
"""


def _in_flight(said: list[str]) -> int:
    """The KiB in flight a processor the split's remark gives."""
    found = [re.search(r"(\d+) KiB in flight an? (SM|CU) \(32 KiB cover", line) for line in said]
    hits = [int(f.group(1)) for f in found if f]
    assert len(hits) == 1, said
    return hits[0]


def _most_in_flight(problem, tgt) -> float:
    """The most bytes in flight a processor any count of a wave or more reaches
    (sampled over the counts whose chunks are at least `min_chunk`)."""
    most = max(1, problem.k // tgt.gpu_fit.min_chunk)
    found = [
        e.in_flight
        for f in range(2, most + 1, max(1, most // 300))
        if (e := estimate(problem, tgt, f)).workgroups >= tgt.processors
        and e.chunk >= tgt.gpu_fit.min_chunk
    ]
    return max(found, default=0.0)


@pytest.mark.parametrize("target", GPUS)
def test_static_chunks_launch_a_wave_with_the_latency_covered(target: str) -> None:
    """At least a wave; 32 KiB in flight a processor, or where no count gets
    there (thin panels of a tiny output), about the most any count gets."""
    tgt = TARGETS[target]
    for m, n, k, element in _shapes(sum(map(ord, target)), 12):
        with collect_remarks() as said:
            out = rewrite(_matmul(m, n, k, element), f"split-k{{target={target}}}")
        loop = re.search(r"scf\.forall \(%\w+\) in \((\d+)\)", out)
        assert loop is not None, (m, n, k, element, said)
        chunks = int(loop.group(1)) + ('xsplit.split_part = "tail"' in out)
        problem = matmul_problem(m, n, k, element)
        tiles = chunk_tiles_of(problem, tgt)
        assert chunks * tiles >= tgt.processors, (m, n, k, element, chunks, tiles, said)
        in_flight = _in_flight(said)
        if in_flight < 32:
            assert in_flight >= 0.85 * _most_in_flight(problem, tgt) / 1024 - 1, (
                m, n, k, element, said,
            )


@pytest.mark.parametrize("target", GPUS)
def test_the_own_kernel_launches_a_wave(target: str) -> None:
    tgt = TARGETS[target]
    for m, n, k, element in _shapes(sum(map(ord, target)) + 1, 3):
        with collect_remarks() as said:
            out = rewrite(_matmul(m, n, k, element), f"split-k{{target={target} kernel=own}}")
        grid = re.search(r"gpu\.known_grid_size = array<i32: (\d+), (\d+), (\d+)>", out)
        assert grid is not None, (m, n, k, element, said)
        x, y, z = map(int, grid.groups())
        assert x * y * z >= tgt.processors, (m, n, k, element, (x, y, z), said)
        assert any("KiB in flight" in line for line in said), said


@pytest.mark.gpu_compile
@pytest.mark.parametrize("target", GPUS)
def test_the_compiled_chunks_launch_a_wave(target: str) -> None:
    from xsplit.iree.workgroups import workgroup_counts

    tgt = TARGETS[target]
    for m, n, k, element in [(32, 32, 500009, "f32"), (7, 100, 123457, "f16")]:
        with collect_remarks():
            out = rewrite(_matmul(m, n, k, element), f"split-k{{target={target}}},materialize-late")
        totals = [c.total for c in workgroup_counts(out, target) if c.total is not None]
        assert max(totals) >= tgt.processors, (m, n, k, element, totals)
