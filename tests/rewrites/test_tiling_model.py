"""The target model's new decisions: GPU tiles per op kind, resident
workgroups, not splitting what fills the machine, and the CPU's choice
between no split, split, encode and split plus encode."""

from __future__ import annotations

import pytest

from tests.helpers.cost_model import matmul
from xsplit.analysis.cost_model import (
    choose_split,
    choose_tiling,
    encoded_seconds,
    estimate,
)
from xsplit.targets.cpu_info import NAMED_CPUS
from xsplit.targets.table import TARGETS, cpu_target

GPUS = [t for t in TARGETS.values() if t.is_gpu]
ZEN3 = cpu_target(NAMED_CPUS["znver3"])
ZEN4 = cpu_target(NAMED_CPUS["znver4"])


@pytest.mark.parametrize(
    ("gpu", "shape"), [("gfx942", (64, 384, 65521)), ("sm_80", (32, 32, 500009))]
)
def test_starved_dispatch_gets_a_full_wave(gpu: str, shape: tuple[int, int, int]) -> None:
    target = TARGETS[gpu]
    choice = choose_split(matmul(*shape), target)
    assert choice.unsplit.workgroups < 0.1 * target.processors
    assert choice.chosen.workgroups >= target.processors, choice.reason


@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
def test_decode_is_left_to_iree_s_own_split(target) -> None:
    """A one-row contraction gets no chunks of xsplit's on a GPU: it is left
    to IREE's own split, faster than static chunks (gpu.md: 0.106 ms against
    0.462 at best on an H200), with the chunk IREE's flag picks, and priced
    at that split's time."""
    decode = matmul(1, 4096, 14336)
    choice = choose_split(decode, target)
    assert choice.factor == 1
    assert choice.iree_chunk == 112
    assert "iree_linalg_ext.split_reduction = [112 : index]" in choice.reason
    assert choice.chosen.seconds < choice.unsplit.seconds / 2


@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
def test_a_processor_below_saturation_costs_a_saturated_one(target) -> None:
    """Below `chunk_saturation` workgroups a processor, a dispatch takes one
    workgroup's latency: the fuller dispatch of shorter chunks is faster."""
    fit = target.gpu_fit
    seed = matmul(256, 256, 65536)  # aligned: 4 x 4 tiles of 64x64
    few = estimate(seed, target, 8)
    more = estimate(seed, target, 32)
    assert few.workgroups == 16 * 8 and more.workgroups == 16 * 32
    assert more.workgroups <= target.processors * fit.chunk_saturation["f32"]
    assert more.main < few.main / 3


@pytest.mark.parametrize("target", GPUS, ids=lambda t: t.name)
def test_gpus_never_encode(target) -> None:
    for shape in ((512, 512, 16384), (16, 4096, 16384), (123, 456, 51234)):
        decision = choose_tiling(matmul(*shape), target)
        assert not decision.encode
        assert decision.kind in ("none", "split")
        assert "drops encodings" in decision.reason


@pytest.mark.parametrize("cpu", [ZEN3, ZEN4], ids=["znver3", "znver4"])
def test_cpu_encodes_compute_bound_and_splits_decode(cpu) -> None:
    # Compute-bound: packing costs little next to the arithmetic.
    square = choose_tiling(matmul(4096, 4096, 16384), cpu)
    assert square.encode, square.reason
    # A decode's packs cost as much as its arithmetic: split, do not encode.
    decode = choose_tiling(matmul(16, 4096, 16384), cpu)
    assert not decode.encode and decode.factor > 1, decode.reason
    assert decode.kind == "split"
    assert "chosen" in square.reason and "encoded" in square.reason


def test_choice_is_the_cheapest_by_the_model() -> None:
    for shape in ((512, 512, 16384), (16, 4096, 16384), (64, 384, 65521), (123, 456, 51234)):
        problem = matmul(*shape)
        decision = choose_tiling(problem, ZEN3)
        plain = choose_split(problem, ZEN3).chosen.seconds
        encoded = min(encoded_seconds(problem, ZEN3, f)[0] for f in (1, 2, 4, 8, 16, 32, 64))
        assert decision.seconds <= min(plain, encoded) * 1.06, (shape, decision.reason)


def test_more_cores_split_an_encoded_op_more() -> None:
    """An encoded op with few output tiles leaves cores idle; a split fills them."""
    import dataclasses

    many = cpu_target(dataclasses.replace(NAMED_CPUS["znver4"], cores=64))
    problem = matmul(64, 384, 65521)
    few_cores = encoded_seconds(problem, ZEN4, 1)[1]
    assert few_cores < many.processors
    best = min(range(1, 256), key=lambda f: encoded_seconds(problem, many, f)[0])
    assert best > 1


def test_encoding_pays_as_arithmetic_outgrows_packing() -> None:
    """Packs cost in proportion to the operands, the arithmetic to M x N x K:
    growing a square output from 256 to 2048 moves the choice from a plain
    split to data tiling, and never back."""
    kinds = [choose_tiling(matmul(s, s, 16384), ZEN4).encode for s in (256, 512, 1024, 2048)]
    assert kinds[0] is False and kinds[-1] is True
    assert kinds == sorted(kinds), kinds


def test_unaligned_m_prices_the_padding_copy() -> None:
    aligned, ragged = matmul(128, 456, 51234), matmul(123, 456, 51234)
    assert ZEN4.split_pad_m is not None
    # The ragged op has less arithmetic but pays for copying its LHS.
    assert estimate(ragged, ZEN4, 32).pad > 0 and estimate(aligned, ZEN4, 32).pad == 0
    assert estimate(ragged, ZEN4, 32).seconds > estimate(aligned, ZEN4, 32).seconds * 0.99
    # Left whole, nothing is padded.
    assert estimate(ragged, ZEN4, 1).pad == 0
    assert estimate(ragged, ZEN4, 1).seconds <= estimate(aligned, ZEN4, 1).seconds


def test_auto_reports_the_split_estimate_split_k_reports() -> None:
    """One model, one number: the time auto gives a split is the estimate
    split-k chose it by."""
    for shape in ((123, 456, 51234), (1, 4096, 14336), (32, 32, 500009), (640, 640, 12289)):
        problem = matmul(*shape)
        decision = choose_tiling(problem, ZEN4)
        if not decision.encode:
            assert decision.seconds == choose_split(problem, ZEN4).chosen.seconds


@pytest.mark.parametrize("k", [14336, 16384, 65536, 32768, 8191])
def test_aligned_target_prefers_a_count_whose_chunk_divides_k(k: int) -> None:
    """A count whose aligned chunk divides K saves the tail chunk: when one is
    within TAIL_WORTH of the model's best, the pick is such a count."""
    from xsplit.analysis.cost_model import MAX_FACTOR, TAIL_WORTH

    problem = matmul(1, 4096, k)
    align = ZEN4.split_align
    assert align is not None
    choice = choose_split(problem, ZEN4)
    assert choice.factor > 1
    divides = lambda f: k % f == 0 and (k // f) % align == 0  # noqa: E731
    cheapest = min(estimate(problem, ZEN4, f).seconds for f in range(2, min(k, MAX_FACTOR) + 1))
    near = [
        f for f in range(2, min(k, MAX_FACTOR) + 1)
        if divides(f) and estimate(problem, ZEN4, f).seconds <= cheapest * (1.01 + TAIL_WORTH)
    ]
    assert divides(choice.factor) == bool(near), (near, choice.reason)
