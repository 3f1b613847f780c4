"""The GPU split model against what an H200 measured (docs/gpu-notes.md,
2026-11-27; iree-compile 3.13 for sm_80, medians of iree-benchmark-module).

The measured table is data here, not in the model: for each shape, IREE
alone, IREE's own split (`--iree-dispatch-creation-enable-split-reduction`),
and the best of `split-k{factor=F align=64 pad_m=64},materialize-late` over
F = 8, 32 and 128, with that F. Only the best F's time was recorded, so a
pick is credited with a measured time only where its count is that F
(or, for a count the sweep did not run, the measured count nearest to it
in powers of two, when that is unique); any other count fails. Leaving
the op whole is credited with IREE alone's time, or with IREE's own split's
where the model leaves the op to it (a one-row decode, which split-k marks
with IREE's chunk: `Choice.iree_chunk`). Where
IREE's own split compiles to the same dispatch as IREE alone (checked with
--iree-hal-dump-executable-configurations-to: no K divisor it takes), the
two times are one program measured twice, and whole counts as IREE's best.
"""

from __future__ import annotations

import math
import random

import pytest

from tests.helpers.cost_model import MEASURED, Measured, ids, matmul
from xsplit.analysis.cost_model import (
    choose_split,
    estimate,
    iree_split_chunk,
    iree_split_estimate,
)
from xsplit.targets.table import TARGETS

SWEEP = (8, 32, 128)
WITHIN = 0.10
H200 = TARGETS["sm_90"]


def nearest_measured(factor: int) -> int | None:
    """The sweep's count nearest to `factor` in powers of two, or None at a tie."""
    distances = sorted((abs(math.log2(factor / f)), f) for f in SWEEP)
    if len(distances) > 1 and distances[0][0] == distances[1][0]:
        return None
    return distances[0][1]


def measured_time(m: Measured, factor: int, iree_chunk: int | None) -> float | None:
    """The measured time of the model's pick, or None where none was measured."""
    if factor == 1:
        if iree_chunk is not None:
            return m.iree_split
        return m.iree_best if m.iree_split_is_alone else m.iree_alone
    if nearest_measured(factor) == m.best_factor:
        return m.best_static
    return None


@pytest.mark.parametrize("m", MEASURED, ids=ids)
def test_pick_is_within_10_percent_of_the_sweep_s_best_and_never_slower_than_iree(
    m: Measured,
) -> None:
    choice = choose_split(matmul(*m.shape, element=m.element), H200)
    taken = measured_time(m, choice.factor, choice.iree_chunk)
    assert taken is not None, (choice.factor, m.best_factor, choice.reason)
    best = min(m.best_static, m.iree_best)
    assert taken <= best * (1 + WITHIN), (taken, best, choice.reason)
    assert taken <= m.iree_best, (taken, m.iree_best, choice.reason)


@pytest.mark.parametrize(
    "m", [m for m in MEASURED if m.best_static < m.iree_best / 5], ids=ids
)
def test_the_split_k_shapes_gain_five_times_over_iree(m: Measured) -> None:
    """The issue's goal: where static chunks ran 5x faster than IREE's best,
    the model takes them (the seed in f32 and f16, 64x96x200003 in f16...);
    where the measured count launched less than a wave (32x32x500009: 128
    workgroups on 132 SMs), more chunks, a wave at least."""
    choice = choose_split(matmul(*m.shape, element=m.element), H200)
    measured = estimate(matmul(*m.shape, element=m.element), H200, m.best_factor)
    if measured.workgroups >= H200.processors:
        assert choice.factor == m.best_factor
    else:
        assert choice.factor > m.best_factor, choice.reason
        assert choice.chosen.workgroups >= H200.processors, choice.reason


@pytest.mark.parametrize("m", MEASURED, ids=ids)
def test_modeled_times_are_within_a_few_times_of_the_measured(m: Measured) -> None:
    """The model prices chunks with split-k's GPU tiles, measured only on the
    seed (1.14 ms for its chunks, 2.30 with IREE's own configuration); the
    sweep ran IREE's own. Its times stay within 5x of the sweep's and of
    IREE alone (where measured), and the seed's within 15% of its tiled
    chunks."""
    problem = matmul(*m.shape, element=m.element)
    if m.shape[0] > 1:
        split = estimate(problem, H200, m.best_factor).seconds * 1e3
        fastest = min(m.best_static, m.dynamic or m.best_static)
        assert fastest / 5 <= split <= m.best_static * 5, split
    if m.iree_alone is not None:
        whole = estimate(problem, H200, 1).seconds * 1e3
        assert m.iree_alone / 2 <= whole <= m.iree_alone * 2, whole
    chunk = iree_split_chunk(problem)
    if not m.iree_split_is_alone and m.shape[0] == 1:
        assert isinstance(chunk, int), chunk
        split = iree_split_estimate(problem, H200, chunk).seconds * 1e3
        assert m.iree_split / 2 <= split <= m.iree_split * 2, split
    if m.shape == (123, 456, 51234) and m.element == "f32":
        main = estimate(problem, H200, 128).main * 1e3
        assert abs(main - 1.14) <= 0.15 * 1.14, main


def test_the_model_leaves_the_measured_sweep_only_to_fill_a_wave() -> None:
    """The model takes a count the sweep did not run only where no measured
    count launches a workgroup on every processor with the bytes in flight
    that cover the latency (or as many as the pick has), and then one that
    launches a wave."""
    for target in (t for t in TARGETS.values() if t.gpu_fit is not None):
        assert target.gpu_fit.counts == SWEEP
    rng = random.Random(31)
    unmeasured = 0
    for i in range(200):
        if i % 2:
            m, n, k = rng.randint(1, 600), rng.randint(1, 2000), rng.randint(1, 400000)
        else:  # memory-bound: a few tiles over a long K
            m, n, k = rng.randint(2, 128), rng.randint(2, 128), rng.randint(100000, 600000)
        problem = matmul(m, n, k)
        choice = choose_split(problem, H200)
        if choice.factor in (1, *SWEEP):
            continue
        unmeasured += 1
        fit = H200.gpu_fit
        assert choice.chosen.workgroups >= H200.processors, choice.reason
        for f in SWEEP:
            e = estimate(problem, H200, f)
            assert (
                e.workgroups < H200.processors
                or e.in_flight < min(fit.latency_bytes, choice.chosen.in_flight)
                or e.chunk < fit.min_chunk
            ), (f, e)
    assert unmeasured > 0


def _random_shapes(seed: int, count: int) -> list[tuple[int, int, int, str]]:
    rng = random.Random(seed)
    return [
        (
            rng.randint(2, 1024),
            rng.randint(8, 2048),
            rng.randint(512, 300000),
            rng.choice(("f32", "f16")),
        )
        for _ in range(count)
    ]


@pytest.mark.parametrize("target", [t for t in TARGETS.values() if t.gpu_fit], ids=lambda t: t.name)
def test_doubling_k_never_makes_a_form_faster(target) -> None:
    """Whole or in F chunks, twice the K never costs less. (The pick itself
    may get faster: a longer K lets 128 chunks' partials under the operands.)"""
    for m, n, k, element in _random_shapes(7, 60):
        for factor in (1, *SWEEP):
            short = estimate(matmul(m, n, k, element=element), target, factor).seconds
            long = estimate(matmul(m, n, 2 * k, element=element), target, factor).seconds
            assert long >= short, (m, n, k, element, factor)


@pytest.mark.parametrize("target", [t for t in TARGETS.values() if t.gpu_fit], ids=lambda t: t.name)
def test_a_short_k_under_a_large_output_stays_whole(target) -> None:
    """An output that fills the machine (more tiles than processors) with a
    K shorter than two chunks of `min_chunk`, or whose partials would outgrow
    the operands, is left whole."""
    fit = target.gpu_fit
    rng = random.Random(11)
    for _ in range(60):
        m, n = rng.randint(1024, 8192), rng.randint(1024, 8192)
        k = rng.randint(2, 2 * fit.min_chunk - 1)
        element = rng.choice(("f32", "f16"))
        choice = choose_split(matmul(m, n, k, element=element), target)
        assert choice.unsplit.workgroups >= target.processors
        assert choice.factor == 1, (m, n, k, choice.reason)


@pytest.mark.parametrize("target", [t for t in TARGETS.values() if t.gpu_fit], ids=lambda t: t.name)
def test_a_long_k_under_a_small_output_splits_into_more_chunks_as_k_grows(target) -> None:
    """A starved output (a few tiles) with K long enough for 128 chunks of
    at least `min_chunk` takes 128 chunks or more, a wave at least; the
    pick never falls as K grows."""
    rng = random.Random(5)
    for _ in range(40):
        m, n = rng.randint(2, 128), rng.randint(8, 256)
        element = rng.choice(("f32", "f16"))
        picks = [
            choose_split(matmul(m, n, k, element=element), target).factor
            for k in (2048, 8192, 32768, 131072, 524288)
        ]
        assert picks == sorted(picks), (m, n, element, picks)
        assert picks[-1] >= 128, (m, n, element, picks)
        last = choose_split(matmul(m, n, 524288, element=element), target)
        assert last.chosen.workgroups >= target.processors, last.reason


def test_other_gpus_scale_the_same_fit() -> None:
    """sm_80 and gfx942 share the H200's per-processor fit (unmeasured): a
    GPU with more processors never takes fewer chunks."""
    sm_80, gfx942 = TARGETS["sm_80"], TARGETS["gfx942"]
    assert sm_80.gpu_fit is H200.gpu_fit is gfx942.gpu_fit
    assert gfx942.processors == 304 and gfx942.memory_bandwidth == 5300e9
    for m, n, k, element in _random_shapes(3, 60):
        if m == 1:
            continue
        problem = matmul(m, n, k, element=element)
        factors = [choose_split(problem, t).factor for t in (sm_80, H200, gfx942)]
        assert factors == sorted(factors), (m, n, k, element, factors)


DECODE = """
func.func @decode(%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}
"""


def _chunk_configs(source: str, tmp_path, name: str, *flags: str) -> list[str]:
    """The pipeline and lowering configuration iree-compile gives each
    dispatch, in dispatch order (the chunks' first, then the merge)."""
    from xsplit.iree.iree_compile import compile_mlir

    directory = tmp_path / name
    dump = f"--iree-hal-dump-executable-configurations-to={directory}"
    compile_mlir(source, "sm_80", [dump, *flags])
    configs = []
    for path in sorted(directory.iterdir()):
        text = path.read_text()
        pipeline = text.split("pipeline = #iree_gpu.pipeline<", 1)[1].split(">", 1)[0]
        config = text.split("lowering_config = #iree_gpu.lowering_config<", 1)[1].split(">", 1)[0]
        configs.append(f"{pipeline} {config}")
    return configs


@pytest.mark.gpu_compile
def test_the_decode_s_forms_as_iree_configures_them(tmp_path) -> None:
    """The evidence for leaving the decode to IREE's own split: IREE's split
    reads B's rows, 128 columns a workgroup, 4 a thread (0.106 ms on an
    H200), while xsplit's static chunks of 64's multiples get IREE alone's
    one-row VectorDistribute code, lanes down B's columns (0.462 ms at best)."""
    from xsplit.api import build_pipeline, parse_module, print_module, run_passes

    iree_split = _chunk_configs(
        DECODE, tmp_path, "iree-split", "--iree-dispatch-creation-enable-split-reduction"
    )
    assert iree_split[0].startswith("TileAndFuse")
    assert "thread = [1, 4, 0], workgroup = [1, 128, 0]" in iree_split[0]
    module = parse_module(DECODE)
    run_passes(module, build_pipeline("split-k{factor=128 align=64 pad_m=64},materialize-late"))
    static = _chunk_configs(print_module(module), tmp_path, "static")
    assert static[0].startswith("VectorDistribute"), static
    alone = _chunk_configs(DECODE, tmp_path, "alone")
    assert alone[0].split(" ", 1)[1] == static[0].split(" ", 1)[1]


def test_the_model_s_chunks_are_the_aligned_split_s() -> None:
    """The model restates `aligned_chunks` (analysis sits below the
    rewrites): the two agree on every K and count."""
    from xsplit.analysis.cost_model import gpu_chunks
    from xsplit.rewrites.split.aligned_split import aligned_chunks

    rng = random.Random(2)
    for _ in range(2000):
        k, factor = rng.randint(128, 600000), rng.choice((*SWEEP, rng.randint(2, 300)))
        chunks = aligned_chunks(k, factor, 64)
        chunk, full, tail = gpu_chunks(k, factor, 64)
        if isinstance(chunks, str):
            assert full < 2
        else:
            assert (chunks.chunk, chunks.full, chunks.tail) == (chunk, full, tail)
