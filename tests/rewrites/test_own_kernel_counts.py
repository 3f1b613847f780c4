"""The own kernel's chunk counts (`cost_model.own_kernel`): a wave on every
memory-bound output, on every GPU target; counts of one wave that are
whole K steps and leave no second wave; and the seed on gfx942's f16
128x128 tiles in one wave rather than IREE's 124 chunks."""

from __future__ import annotations

import random

import pytest

from tests.helpers.cost_model import matmul
from xsplit.analysis.cost_model import choose_kernel, choose_split, own_kernel_estimate
from xsplit.analysis.cost_model.own_kernel import WAVE_RESIDENTS, WAVE_SHARE, own_counts
from xsplit.analysis.shapes import ceildiv
from xsplit.targets.gemm_tiles import gemm_tiles
from xsplit.targets.table import TARGETS

GPUS = ["sm_80", "sm_90", "gfx942"]


def _memory_bound(seed: int, count: int) -> list[tuple[int, int, int, str]]:
    """M and N up to 128, K from 100k: a few tiles over a long K (issue 37)."""
    rng = random.Random(seed)
    return [
        (
            rng.randint(2, 128),
            rng.randint(2, 128),
            rng.randint(100_000, 600_000),
            rng.choice(("f32", "f16")),
        )
        for _ in range(count)
    ]


@pytest.mark.parametrize("name", GPUS)
def test_a_memory_bound_output_fills_a_wave(name: str) -> None:
    target = TARGETS[name]
    for m, n, k, element in _memory_bound(37, 40):
        p = matmul(m, n, k, element=element)
        choice = choose_kernel(p, target, choose_split(p, target), "own")
        assert choice.own is not None, choice.reason
        assert choice.own.workgroups >= WAVE_SHARE * target.processors, (
            (m, n, k, element), choice.reason
        )


@pytest.mark.parametrize("name", GPUS)
def test_a_wave_count_leaves_no_second_wave(name: str) -> None:
    """Each count `own_counts` asks for a wave of r workgroups a processor
    makes at most r x processors workgroups once its chunks are whole K
    steps (a count rounded up would leave a few in a second wave)."""
    target = TARGETS[name]
    rng = random.Random(5)
    for _ in range(40):
        m, n, k = rng.randint(2, 600), rng.randint(2, 600), rng.randint(2048, 300_000)
        element = rng.choice(("f32", "f16"))
        p = matmul(m, n, k, element=element)
        tile_m, tile_n, step_k = gemm_tiles(target, element, m, n, k).tile
        tiles = ceildiv(m, tile_m) * ceildiv(n, tile_n)
        if tiles >= target.processors:
            continue
        most = ceildiv(k, step_k)
        counts = own_counts(target, tiles, most)
        for resident in WAVE_RESIDENTS:
            asked = resident * target.processors // tiles
            if not 1 <= asked <= most:
                continue
            assert asked in counts
            e = own_kernel_estimate(p, target, asked)
            assert e.workgroups <= resident * target.processors, (m, n, k, resident, e)


def test_the_seed_in_f16_on_gfx942_takes_one_wave_of_128x128_tiles() -> None:
    """123x456x51234 f16 on gfx942's small-output MFMA tile (128x128x32) is 4
    tiles on 304 CUs: 73 chunks of 22 K steps, 292 workgroups, one wave,
    where IREE's measured 128 (124 whole steps) make 496, a second wave."""
    gfx942 = TARGETS["gfx942"]
    p = matmul(123, 456, 51234, element="f16")
    assert gemm_tiles(gfx942, "f16", 123, 456, 51234).tile == (128, 128, 32)
    choice = choose_kernel(p, gfx942, choose_split(p, gfx942), "own")
    assert choice.own is not None
    assert (choice.own.factor, choice.own.workgroups, choice.own.waves) == (73, 292, 1)
    iree_counts = own_kernel_estimate(p, gfx942, 128)
    assert iree_counts.workgroups == 496 and iree_counts.seconds > choice.own.seconds
