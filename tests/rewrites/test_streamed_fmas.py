"""The CPU model's streamed loops: their FMAs add to their reads
(`cost_model.cpu.STREAMED_FMAS_ADD`)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.helpers.cost_model import MATMUL_SPANS, matmul
from xsplit.analysis.cost_model import Problem, choose_split, estimate
from xsplit.analysis.cost_model import cpu as cpu_model
from xsplit.targets import table as targets
from xsplit.targets.table import TARGETS


def _measured_cpu(read_gbs: float) -> targets.Target:
    cpu = dataclasses.replace(targets.host_cpu(), read_bandwidth=read_gbs * 1e9)
    return targets.cpu_target(cpu)


@pytest.mark.parametrize(
    ("m", "share"),
    # bench/RESULTS-matvec.md, 43.3 GB/s read pass, 549 GFLOP/s: 86-87% at 4
    # rows (skinny_4x4096x14336, decode_4x4096x11008), 93% at 2.
    [(1, 0.96), (2, 0.93), (4, 0.86), (8, 0.76), (16, 0.61)],
)
def test_the_read_share_a_streamed_loop_reaches_falls_with_its_rows(m: int, share: float) -> None:
    assert cpu_model.streamed_read_ceiling(m, 43.3e9, 549e9) == pytest.approx(share, abs=0.01)


@pytest.mark.parametrize(("m", "n", "k"), [(4, 4096, 14336), (8, 4096, 14336), (16, 8192, 3001)])
def test_split_k_streaming_tiles_add_their_fmas_to_their_reads(m: int, n: int, k: int) -> None:
    """Row-major B, up to 16 rows, on split-k's streaming tiles: the pick's
    time is at least the matrix at the read rate plus most of the
    arithmetic at the peak, not the longer of the two."""
    target = _measured_cpu(45)
    problem = matmul(m, n, k)
    chosen = choose_split(problem, target).chosen
    assert chosen.factor > 1 and cpu_model.streams_b(problem, target)
    peak = target.processor_flops("f32") * target.processors
    arithmetic = problem.operations_per_point * m * n * k / peak
    reads = 4 * n * k / 45e9
    assert chosen.fmas > 0.5 * arithmetic
    assert chosen.seconds >= reads + chosen.fmas > max(reads, arithmetic)


STREAMED_SHAPES = [
    (1, 4096, 14336), (2, 5120, 13824), (4, 4096, 11008), (4, 4096, 14336),
    (8, 4096, 14336), (8, 1024, 65536), (8, 1000, 30011), (12, 3072, 24001),
    (16, 4096, 16384), (16, 8192, 3001), (2, 11008, 4096),
]


@pytest.mark.parametrize("shape", STREAMED_SHAPES)
def test_the_fmas_reprice_the_pick_but_keep_the_measured_chunk_count(
    shape: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The arithmetic is about the same for every chunk count, so the
    counts bench/RESULTS.md measured best stay the model's picks; only
    their time grows, by the FMAs the remark names."""
    target = TARGETS["cpu"]
    problem = matmul(*shape)
    added = cpu_model.choose_generic(problem, target)
    monkeypatch.setattr(cpu_model, "STREAMED_FMAS_ADD", False)
    longer = cpu_model.choose_generic(problem, target)
    assert added.factor == longer.factor and longer.chosen.fmas == 0
    assert added.chosen.seconds == pytest.approx(longer.chosen.seconds + added.chosen.fmas)
    assert added.chosen.fmas > 0


def test_forms_without_split_k_tiles_keep_the_longer_of_the_two() -> None:
    """A transposed B (IREE's own tiles whole, or split-k's transposed
    tiles) and a tall product keep max(reads, arithmetic): their
    competitors are priced that way too."""
    target = TARGETS["cpu"]
    transposed = Problem(1, 4, 4096, 11008, "f32", 4, 4, 2, MATMUL_SPANS, (4, 4))
    assert all(estimate(transposed, target, f).fmas == 0 for f in (1, 16))
    assert all(estimate(matmul(512, 768, 16384), target, f).fmas == 0 for f in (1, 32))
    assert estimate(matmul(4, 4096, 14336), target, 1).fmas == 0
