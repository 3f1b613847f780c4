"""The GPU split model: IREE's code on a contraction, whole, in split-k's
static chunks, or in IREE's own split of a decode, priced by `GpuFit` (fitted
on an H200)."""

from __future__ import annotations

import math

from xsplit.analysis.cost_model.base import (
    Choice,
    Estimate,
    MAX_FACTOR,
    MAX_PARTIALS_SHARE,
    MIN_GAIN,
    NEAR_TIE,
    Problem,
    mib_text,
    bytes_of_operands,
    padded_rows,
)
from xsplit.analysis.shapes import ceildiv
from xsplit.dialects.iree_linalg_ext import SPLIT_REDUCTION
from xsplit.targets.table import GpuFit, Target


# The GPU model: static chunks with split-k's GPU tiles, against IREE's own
# configuration of the whole op. Its parameters (`GpuFit`) were fitted on an
# H200 to the measurements in docs/split-k.md; tests/rewrites/test_gpu_model.py
# holds those measurements and checks the picks against them.


def gpu_modeled(problem: Problem, target: Target) -> bool:
    """Whether the fitted GPU model prices this problem: a contraction (two
    inputs, a multiply-accumulate) on a GPU entry with a fit. Plain
    reductions keep the generic model: none was measured."""
    return (
        target.gpu_fit is not None
        and problem.operations_per_point == 2
        and len(problem.spans) == 2
    )


def _gpu_class(fit: GpuFit, element_class: str) -> str:
    """The fit's element class: i8 was not measured, and is priced as f32."""
    return element_class if element_class in fit.chunk_rate else "f32"


def _chunk_tile(fit: GpuFit, m: int, n: int) -> tuple[int, int]:
    """The chunk's workgroup tile: the fit's, or where the fit's N tile does
    not divide N, the widest power of two down to 16 that does (IREE's f16
    pick on 64x96 chunks was 64x32)."""
    tile_m, tile_n = fit.chunk_tile
    if n > tile_n and n % tile_n:
        tile_n = next((w for w in (tile_n // 2, tile_n // 4) if w >= 16 and n % w == 0), tile_n)
    return tile_m, tile_n


def _gpu_dispatch(
    p: Problem,
    target: Target,
    rows: int,
    steps: int,
    count: int,
    tile: tuple[int, int],
    rate: float,
    saturation: float,
    overhead_steps: int,
) -> tuple[float, int, int, float]:
    """Seconds of one dispatch of `count` x the output's tiles workgroups,
    each `steps` of K, by the fit's formula (`GpuFit`); also its workgroups,
    its waves of `saturation` workgroups a processor, and their fill."""
    fit = target.gpu_fit
    assert fit is not None
    tile_m, tile_n = tile
    along_m, along_n = ceildiv(rows, tile_m), ceildiv(p.n, tile_n)
    workgroups = p.batch * along_m * along_n * count
    # The share of its tile a workgroup computes, on average: a clipped or
    # ragged last tile computes less, at the same latency per step.
    covered = rows * p.n / (along_m * tile_m * along_n * tile_n)
    slots = target.processors * max(1, round(saturation))
    ragged = (rows > tile_m and rows % tile_m) or (p.n > tile_n and p.n % tile_n)
    if ragged:
        saturation *= fit.unaligned
    busiest = ceildiv(workgroups, target.processors)
    tile_flops = 2 * tile_m * tile_n
    seconds = max(busiest * covered, saturation) * (steps + overhead_steps) * tile_flops / rate
    waves = ceildiv(workgroups, slots)
    return seconds, workgroups, waves, workgroups / (waves * slots)


def in_flight_share(in_flight: float, fit: GpuFit) -> float:
    """The share of its bandwidth the memory reaches with `in_flight` bytes
    in flight on an average processor (Little's law against `latency_bytes`)."""
    return min(1.0, in_flight / fit.latency_bytes)


def workgroups_in_flight(
    p: Problem, target: Target, rows: int, tile: tuple[int, int], workgroups: int,
    resident: float, k_steps: int,
) -> float:
    """Operand bytes in flight on an average processor: its share of the
    workgroups, at most `resident`, each with its tile's rows of A and
    columns of B (clipped to the output) over `k_steps` of K."""
    per_workgroup = (min(rows, tile[0]) + min(p.n, tile[1])) * k_steps * p.input_bytes
    return min(workgroups / target.processors, max(1.0, resident)) * per_workgroup


def load_widths(p: Problem) -> str:
    """The widest loads each operand's rows allow along their contiguous
    dimension: 16 bytes where a row of A (K long) and of B (N long) is a
    multiple of 16 bytes, else the element's width."""
    widths = []
    for name, length in (("A", p.k), ("B", p.n)):
        row = length * p.input_bytes
        widths.append(
            f"16-byte loads of {name}" if row % LOAD_BYTES == 0
            else f"{p.input_bytes}-byte loads of {name} (its rows of {row} bytes are no "
            f"multiple of {LOAD_BYTES})"
        )
    return ", ".join(widths)


LOAD_BYTES = 16
"""The widest global load a thread issues (`LDG.128`, `global_load_dwordx4`)."""


def describe_in_flight(e: Estimate, target: Target, p: Problem) -> str:
    """The bytes in flight of a split, against what covers the latency, and the loads."""
    fit = target.gpu_fit
    assert fit is not None
    unit = "a CU" if target.backend == "rocm" else "an SM"
    return (
        f"{e.in_flight / 1024:.0f} KiB in flight {unit} ({fit.latency_bytes // 1024} KiB "
        f"cover its latency: {in_flight_share(e.in_flight, fit):.0%} of the bandwidth), "
        f"{load_widths(p)}"
    )


def gpu_chunks(k: int, factor: int, align: int) -> tuple[int, int, int]:
    """(chunk, full chunks, tail) of `split-k{factor=F align=A}`'s static
    chunks (`aligned_split.aligned_chunks`, restated here below the rewrites)."""
    chunk = ceildiv(ceildiv(k, factor), align) * align
    if k // chunk < 2 and (k // factor) // align * align > 0:
        chunk = (k // factor) // align * align
    full, tail = divmod(k, chunk)
    return chunk, full, tail


def gpu_estimate(problem: Problem, target: Target, factor: int) -> Estimate:
    """The GPU model's time for `problem` whole (factor 1, IREE's own
    configuration) or as `split-k{factor=F align=64 pad_m=64}` makes it:
    M padded to 64, `full` static chunks on split-k's GPU tiles, a tail, and
    the merge."""
    p = problem
    fit = target.gpu_fit
    assert fit is not None
    cls = _gpu_class(fit, p.element_class)
    bandwidth = target.memory_bandwidth
    operands = sum(bytes_of_operands(p))
    if factor <= 1:
        if p.m == 1:
            # IREE's one-row path reads B a column a workgroup, lanes along K.
            main = operands / (fit.matvec_bandwidth * target.processors) + fit.launch
            tiles = p.batch * p.n
            waves = ceildiv(tiles, target.processors)
            return Estimate(1, p.k, tiles, waves, tiles / (waves * target.processors),
                            0, None, main, 0.0, 0.0)
        seconds, workgroups, waves, fill = _gpu_dispatch(
            p, target, p.m, p.k, 1, fit.whole_tile[cls], fit.whole_rate[cls],
            fit.whole_saturation[cls], 0,
        )
        main = max(seconds, operands / bandwidth) + fit.launch
        return Estimate(1, p.k, workgroups, waves, fill, 0, None, main, 0.0, 0.0)
    chunk, full, tail = gpu_chunks(p.k, factor, fit.align)
    rows = padded_rows(p.m, fit.pad_m)
    tile = _chunk_tile(fit, rows, p.n)
    rate, saturation = fit.chunk_rate[cls], fit.chunk_saturation[cls]
    steps = fit.workgroup_steps[cls]
    count = full + (1 if tail else 0)
    # The tail's dispatches (its multiple of the alignment in place, the rest
    # padded) read what the chunks read and write a buffer of their own, so
    # IREE runs them beside the chunks' dispatch: the seed in 128 chunks ran
    # in 2.27 ms with its tail and merge, its chunks alone in 2.30. They are
    # priced as one more chunk of the main dispatch, and a launch each.
    seconds, workgroups, waves, fill = _gpu_dispatch(
        p, target, rows, chunk, count, tile, rate, saturation, steps
    )
    in_flight = workgroups_in_flight(
        p, target, rows, tile, workgroups, saturation, dict(fit.in_flight_k).get(cls, 64)
    )
    main = max(seconds, operands / (bandwidth * in_flight_share(in_flight, fit))) + fit.launch
    pad = 0.0
    if tail:
        pad += ((tail >= fit.align) + (tail % fit.align > 0)) * fit.launch
    if rows != p.m:
        padded = sum(b for b, (spans_m, _) in zip(bytes_of_operands(p), p.spans) if spans_m)
        pad += 2 * padded / bandwidth + fit.launch
    output_bytes = p.batch * p.m * p.n * p.acc_bytes
    partial_bytes = p.batch * rows * p.n * p.acc_bytes * count
    partials = 2 * partial_bytes / bandwidth
    merge = fit.launch + 2 * output_bytes / bandwidth
    panel = (tile[0] + tile[1]) * chunk * p.input_bytes
    return Estimate(
        count, chunk, workgroups, waves, fill, panel, None, main, partials, merge, pad,
        in_flight=in_flight,
    )


WAVE_RESIDENTS = (1, 2, 3, 4, 6, 8, 12, 16)
"""Workgroups a processor for which a starved output's split is asked for
the chunks of one wave (`gpu_counts` for IREE's chunks, `own_counts` for
the own kernel's)."""


def powers_of_two(most: int) -> list[int]:
    """2, 4, 8, ... up to `most`: the counts a starved output's split tries
    besides the measured ones and those of one wave."""
    powers, power = [], 2
    while power <= most:
        powers.append(power)
        power *= 2
    return powers


def _factor_for_count(k: int, count: int, align: int) -> int:
    """The factor whose aligned chunks (`gpu_chunks`) number at least `count`
    full ones where K allows: chunks of K / count rounded down to `align`."""
    chunk = max(align, (k // count) // align * align)
    return ceildiv(k, chunk)


def gpu_counts(problem: Problem, target: Target, tiles: int, align: int, most: int) -> list[int]:
    """The chunk counts the GPU model weighs for an output of `tiles`
    workgroup tiles: the measured counts; and where the tiles are fewer than
    the processors (a starved output, whose split must fill the machine),
    every power of two up to `most` and the counts that make 1 to 16
    workgroups a processor: a wave and more, the model picks the best (the
    measured counts alone left 32x32x500009 127 workgroups on 304 CUs). An
    output that fills the machine keeps the measured counts, where the
    model's extrapolation is least sure (2048^3 ran best in 8 chunks)."""
    fit = target.gpu_fit
    assert fit is not None
    counts = list(fit.counts)
    if tiles < target.processors:
        counts += powers_of_two(most)
        for resident in WAVE_RESIDENTS:
            want = ceildiv(resident * target.processors, tiles)
            if want <= most:
                counts.append(_factor_for_count(problem.k, want, align))
    return list(dict.fromkeys(counts))


def chunk_tiles_of(problem: Problem, target: Target) -> int:
    """The workgroup tiles of one static chunk's output (M padded)."""
    fit = target.gpu_fit
    assert fit is not None
    rows = padded_rows(problem.m, fit.pad_m)
    tile = _chunk_tile(fit, rows, problem.n)
    return problem.batch * ceildiv(rows, tile[0]) * ceildiv(problem.n, tile[1])


NEAR_MOST_IN_FLIGHT = 0.9
"""Where no count covers the latency, the counts with at least this share of
the most bytes in flight any count reaches are taken as reaching it."""


def weighed_counts(
    candidates: list[tuple[int, Estimate]], measured: tuple[int, ...], target: Target,
    wave_share: float = 1.0,
) -> list[tuple[int, Estimate]]:
    """The candidates the GPU model chooses among: those that fill the
    machine (a workgroup on every processor, and the bytes in flight that
    cover the latency); else, of those that launch a wave, the ones with
    about the most bytes in flight the tiles allow (a tiny output's panels
    are thin). Among them the measured counts where there are any, since
    the model's times at other counts are extrapolations (256x256x65536 in
    f32 ran best in 128 chunks, 2.37 ms, where the model prefers 64 and is
    3.5x off). So a starved, memory-bound output (32x32x500009: 127
    workgroups on 304 CUs in 128 chunks) takes any count that fills the
    machine: only every processor reading, enough at a time, reaches the
    memory's bandwidth. Where no count launches a wave (a K too short for
    one), the measured counts alone. A wave is `wave_share` of the
    processors (the own kernel's whole-step chunks cannot always make all)."""
    fit = target.gpu_fit
    assert fit is not None
    wave = [(f, e) for f, e in candidates if e.workgroups >= wave_share * target.processors]
    covered = [(f, e) for f, e in wave if e.in_flight >= fit.latency_bytes]
    if not covered and wave:
        most = max(e.in_flight for _, e in wave)
        covered = [(f, e) for f, e in wave if e.in_flight >= most * NEAR_MOST_IN_FLIGHT]
    if covered:
        return [(f, e) for f, e in covered if f in measured] or covered
    return [(f, e) for f, e in candidates if f in measured]


IREE_SPLIT_MAX_OUTPUT = 2048 * 4096
IREE_SPLIT_SHORT_K = 18000
IREE_SPLIT_MIN_RATIO = 48
IREE_SPLIT_MAX_CHUNK = 1 << 15
IREE_SPLIT_CHUNK_COUNTS = (
    (16 * 16, 2048),
    (64 * 64, 128),
    (128 * 128, 64),
    (256 * 256, 32),
    (512 * 512, 16),
)
"""IREE 3.13's split-reduction heuristic for matmul-like ops (its
SetSplitReductionSizes pass under
`--iree-dispatch-creation-enable-split-reduction`, the same on every
target), in the constants above and this table: an output larger than the
first is not split, nor a K under the second whose ratio K / sqrt(M N) /
batch is under the third; an output up to a row's size here is cut in at
most its count of chunks (8 past the last), a K over 10^7 in 2048, over
10^6 in at least 128; a chunk is the smallest divisor of K at least K over
that count, and no larger than the fourth."""


def iree_split_chunk(problem: Problem) -> int | str:
    """The chunk of K that IREE's own split cuts a contraction into (a
    divisor of K), or why it leaves the op whole. Restates IREE 3.13's
    heuristic (`IREE_SPLIT_CHUNK_COUNTS`), as checked with iree-compile for
    sm_80, gfx942 and the CPU: under a row of 4096, K = 4096, 8192, 11008,
    14336 and 28672 in 128 chunks, 51234 in 6 of 8539; 1x16x14336 in 2048
    chunks of 7; 1x4096x2048 and 1x14336x4096 whole."""
    p = problem
    output = p.batch * p.m * p.n
    if output > IREE_SPLIT_MAX_OUTPUT:
        return f"IREE's own split leaves an output of {output} elements whole"
    ratio = int(p.k / math.sqrt(p.m * p.n) / p.batch)
    if p.k < IREE_SPLIT_SHORT_K and ratio < IREE_SPLIT_MIN_RATIO:
        return f"IREE's own split leaves it whole too: K = {p.k} is short against the output"
    counts = [count for size, count in IREE_SPLIT_CHUNK_COUNTS if output <= size]
    limit = counts[0] if counts else min(8, p.k)
    if p.k > 10**7:
        limit = 2048
    elif p.k > 10**6:
        limit = max(limit, 128)
    lower = ceildiv(p.k, limit)
    chunk = next(
        (c for c in range(lower, min(p.k, IREE_SPLIT_MAX_CHUNK) + 1) if p.k % c == 0), p.k
    )
    if chunk == p.k:
        return (
            f"K = {p.k} has no divisor from {lower} to {min(p.k - 1, IREE_SPLIT_MAX_CHUNK)}, "
            "the chunks IREE's own split takes; other chunks leave IREE a remainder chunk of "
            "dynamic size, and IREE 3.13's CUDA code for a dynamic-K matmul can be wrong"
        )
    return chunk


IREE_SPLIT_READ_SHARE = 0.5
"""The share of the memory bandwidth at which IREE's own split of a decode
reads its operands: 1x4096x14336 in f32 (235 MB) in 0.106 ms on an H200
(4.8 TB/s). Its f16 form (117 MB) took 0.092 ms, which this prices at 0.06."""


def iree_split_estimate(problem: Problem, target: Target, chunk: int) -> Estimate:
    """The GPU model's time for a one-row contraction in IREE's own split:
    K/chunk chunks, each workgroup 128 columns of a row of B (TileAndFuse,
    4 a thread), then IREE's merge."""
    p = problem
    fit = target.gpu_fit
    assert fit is not None
    bandwidth = target.memory_bandwidth
    count = p.k // chunk
    workgroups = p.batch * ceildiv(p.n, 128) * count
    waves = ceildiv(workgroups, target.processors)
    main = sum(bytes_of_operands(p)) / (bandwidth * IREE_SPLIT_READ_SHARE) + fit.launch
    output_bytes = p.batch * p.m * p.n * p.acc_bytes
    partials = 2 * output_bytes * count / bandwidth
    merge = fit.launch + 2 * output_bytes / bandwidth
    return Estimate(
        count, chunk, workgroups, waves, workgroups / (waves * target.processors), 0, None,
        main, partials, merge,
    )


def _leave_to_iree(problem: Problem, target: Target, unsplit: Estimate) -> Choice:
    """A one-row contraction (a decode) on a GPU: IREE's own split where it
    takes one (split-k sets its chunk on the op), else whole."""
    whole = f"a one-row contraction ({problem.describe()}) is left whole on a GPU"
    chunk = iree_split_chunk(problem)
    if isinstance(chunk, str):
        return Choice(1, unsplit, unsplit, f"{whole}: {chunk}")
    if problem.n > 1 and problem.k_strides[-1] == problem.input_bytes:
        return Choice(
            1, unsplit, unsplit,
            f"{whole}: its matrix lies along K (a matvec's, a transposed B), whose rows IREE "
            "alone reads a workgroup each, lanes along the row; IREE's split of it gives each "
            "lane a row of its own (TileAndFuse, workgroup = [128, 0]; neither timed)",
        )
    if problem.generic:
        return Choice(
            1, unsplit, unsplit,
            f"{whole}: IREE 3.13 drops {SPLIT_REDUCTION} from a linalg.generic (it folds "
            "the unit row and rebuilds the op), and its own split leaves the folded op whole",
        )
    split = iree_split_estimate(problem, target, chunk)
    if split.seconds > unsplit.seconds * (1 - MIN_GAIN):
        return Choice(
            1, unsplit, unsplit,
            f"{whole}: IREE's own split ({split.describe()}) gains under {MIN_GAIN:.0%} on "
            f"unsplit {unsplit.describe()}",
        )
    reason = (
        f"a one-row contraction ({problem.describe()}) is left to IREE's own split: "
        f"{SPLIT_REDUCTION} = [{chunk} : index] on it, the chunk "
        "--iree-dispatch-creation-enable-split-reduction picks, and IREE forms the split "
        f"dispatch and its merge ({split.describe()}; unsplit {unsplit.describe()}; "
        "1x4096x14336 on an H200: 0.106 ms, static chunks 0.462 ms at best, IREE alone 0.664 ms)"
    )
    return Choice(1, split, unsplit, reason, iree_chunk=chunk)


def choose_gpu(problem: Problem, target: Target) -> Choice:
    fit = target.gpu_fit
    assert fit is not None
    unsplit = gpu_estimate(problem, target, 1)
    if problem.k <= 1:
        return Choice(1, unsplit, unsplit, f"K = {problem.k} has one element")
    if problem.m == 1:
        return _leave_to_iree(problem, target, unsplit)
    operands = sum(bytes_of_operands(problem))
    output = problem.batch * problem.m * problem.n * problem.acc_bytes
    candidates: list[tuple[int, Estimate]] = []
    short: list[int] = []
    large: list[str] = []
    tiles = chunk_tiles_of(problem, target)
    seen: set[int] = set()
    for factor in gpu_counts(problem, target, tiles, fit.align, min(problem.k, MAX_FACTOR)):
        # The measured counts are named in the reason where none is taken.
        chunk, full, _ = gpu_chunks(problem.k, factor, fit.align)
        if full < 2 or chunk < fit.min_chunk:
            if factor in fit.counts:
                short.append(factor)
            continue
        if chunk in seen:
            continue
        seen.add(chunk)
        e = gpu_estimate(problem, target, factor)
        if e.factor * output > operands * MAX_PARTIALS_SHARE:
            if factor in fit.counts:
                large.append(f"{factor} chunks' partials ({mib_text(e.factor * output)})")
            continue
        candidates.append((factor, e))
    candidates = weighed_counts(candidates, fit.counts, target)
    if not candidates:
        why = []
        if large:
            why.append(f"{' and '.join(large)} would outgrow the operands ({mib_text(operands)})")
        if short:
            counts = " or ".join(str(f) for f in short)
            why.append(f"{counts} chunks of K = {problem.k} would be shorter than {fit.min_chunk}")
        return Choice(1, unsplit, unsplit, f"no split on {target.name}: {'; '.join(why)}")
    cheapest = min(e.seconds for _, e in candidates)
    factor, best = min(
        ((f, e) for f, e in candidates if e.seconds <= cheapest * (1 + NEAR_TIE)),
        key=lambda fe: fe[0],
    )
    if best.seconds > unsplit.seconds * (1 - MIN_GAIN):
        return Choice(
            1, unsplit, unsplit,
            f"no split pays on {target.name}: unsplit {unsplit.describe()}; the best split, "
            f"{best.describe()}, gains under {MIN_GAIN:.0%}",
        )
    return Choice(
        factor,
        best,
        unsplit,
        f"{target.name} chose factor {factor}, {best.describe()}; unsplit {unsplit.describe()}; "
        f"modeled speedup {unsplit.seconds / best.seconds:.2f}x; "
        f"{describe_in_flight(best, target, problem)}",
    )
