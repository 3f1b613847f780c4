"""xsplit's own split-K GEMM kernel against IREE's code: its model
(`OwnKernelFit`), its candidate splits, and the choice between the two."""

from __future__ import annotations

from dataclasses import dataclass

from xsplit.analysis.cost_model.base import (
    Choice,
    Estimate,
    MAX_FACTOR,
    MAX_PARTIALS_SHARE,
    NEAR_TIE,
    Problem,
    bytes_of_operands,
    time_text,
)
from xsplit.analysis.cost_model.gpu import (
    WAVE_RESIDENTS,
    powers_of_two,
    workgroups_in_flight,
    weighed_counts,
    describe_in_flight,
    in_flight_share,
)
from xsplit.analysis.shapes import ceildiv
from xsplit.dialects.xsplit_gemm import chunk_count, chunk_size
from xsplit.targets.gemm_tiles import gemm_tiles
from xsplit.targets.own_kernel_terms import ANCHORED, BOUNDED, MEASURED, SCALED
from xsplit.targets.table import Target


# xsplit's own split-K GEMM kernel (`gemm-kernel`) against IREE's code. Its
# rate per target and element class (`OwnKernelFit.terms`) is data with a
# basis: measured on the device (bench/fit_own_kernel.py), anchored on the
# fused text kernel's H200 runs, bounded by IREE's measured tensor-core code,
# or scaled from the H200 by published peaks. It is chosen only where it is
# modeled `min_gain` faster than IREE's best form, whose terms were measured.


@dataclass(frozen=True)
class KernelChoice:
    """split-k's choice between IREE's code (`iree`, the GPU model's Choice)
    and xsplit's own kernel in `own.factor` chunks merged by `merge`."""

    kernel: str
    """"own" or "iree"."""
    iree: Choice
    own: Estimate | None
    merge: str
    reason: str


def own_kernel_class(problem: Problem) -> str:
    """The own kernel's element class for `problem`: its terms' key."""
    return "f16" if problem.element_class == "f16" else "f32"


@dataclass(frozen=True)
class OwnKernelParts:
    """The own kernel's model for one problem and chunk count, apart from
    its rate: `work` FLOPs on the busiest processor (its time is work /
    rate), `floor` the operands' read at the memory's bandwidth, and the
    rest in seconds."""

    count: int
    chunk: int
    workgroups: int
    waves: int
    fill: float
    work: float
    floor: float
    launch: float
    atomics: float
    """f32 atomic adds per processor (atomic merge), their time atomics / atomic_rate."""
    partials: float
    merge: float
    host_fill: float
    in_flight: float = 0.0
    """Operand bytes in flight on an average processor (`Estimate.in_flight`)."""


def own_kernel_parts(
    problem: Problem, target: Target, factor: int, merge: str = "atomic",
    tile: tuple[int, int, int] | None = None,
) -> OwnKernelParts:
    """The rate-free parts of `own_kernel_estimate` (which see), shared with
    the fit of a rate to a device's times (bench/fit_own_kernel.py)."""
    own, fit = target.own_kernel, target.gpu_fit
    assert own is not None and fit is not None
    p = problem
    # Each workgroup stages its panels' K step `stages` deep (one where the
    # tile is given: the fit's runs name no stages).
    stages = 1
    if tile is None:
        # The tiles gemm-kernel takes for this op: the target's table.
        table = gemm_tiles(target, own_kernel_class(p), p.m, p.n, p.k)
        tile, stages = table.tile, table.stages
    tile_m, tile_n, step_k = tile
    count = chunk_count(p.k, min(factor, ceildiv(p.k, step_k)), step_k)
    chunk = chunk_size(p.k, count, step_k)
    along_m, along_n = ceildiv(p.m, tile_m), ceildiv(p.n, tile_n)
    workgroups = p.batch * along_m * along_n * count
    covered = p.m * p.n / (along_m * tile_m * along_n * tile_n)
    busiest = ceildiv(workgroups, target.processors)
    cls = own_kernel_class(p)
    saturation = own.saturation_outputs[cls] / (tile_m * tile_n)
    steps = own.workgroup_steps[cls]
    work = max(busiest * covered, saturation) * (chunk + steps) * 2 * tile_m * tile_n
    slots = target.processors * max(1, round(saturation))
    waves = ceildiv(workgroups, slots)
    bandwidth = target.memory_bandwidth
    in_flight = workgroups_in_flight(
        p, target, p.m, (tile_m, tile_n), workgroups, saturation, step_k * max(1, stages)
    )
    output_bytes = p.batch * p.m * p.n * p.acc_bytes
    atomics = partials = merge_time = 0.0
    if count > 1 and merge == "deterministic":
        partials = 2 * output_bytes * count / bandwidth
        merge_time = fit.launch + 2 * output_bytes / bandwidth
    elif count > 1:
        atomics = p.batch * p.m * p.n * count / target.processors
    return OwnKernelParts(
        count, chunk, workgroups, waves, workgroups / (waves * slots), work,
        sum(bytes_of_operands(p)) / (bandwidth * in_flight_share(in_flight, fit)), fit.launch,
        atomics, partials, merge_time, fit.launch + output_bytes / bandwidth, in_flight,
    )


def own_kernel_estimate(
    problem: Problem, target: Target, factor: int, merge: str = "atomic",
    tile: tuple[int, int, int] | None = None,
) -> Estimate:
    """The own kernel's modeled time for `problem` in `factor` chunks (whole
    K steps of its tile; fewer where rounding leaves one empty), on the
    target's tile table's tiles (or `tile`): one dispatch of tiles x chunks
    workgroups by `GpuFit`'s formula at the target's rate for the element
    class, masks instead of padding (no unaligned penalty, no M pad), then
    its merge: f32 atomics (`atomic`), or partials written and read back and
    a merge dispatch (`deterministic`), or nothing (`store`, one chunk). The
    host's fill of C before the kernel is one more dispatch over the output."""
    own = target.own_kernel
    assert own is not None
    term = own.term(own_kernel_class(problem))
    parts = own_kernel_parts(problem, target, factor, merge, tile)
    main = max(parts.work / term.rate, parts.floor) + parts.launch
    atomic_rate = term.atomic_rate if term.atomic_rate is not None else own.atomic_rate
    partials = parts.atomics / atomic_rate if parts.atomics else parts.partials
    return Estimate(
        parts.count, parts.chunk, parts.workgroups, parts.waves, parts.fill, 0, None, main,
        partials, parts.merge, parts.host_fill, in_flight=parts.in_flight,
    )


def own_kernel_takes(problem: Problem) -> str | None:
    """Why the own kernel's model does not price `problem`, or None."""
    if problem.batch != 1:
        return "it is batched"
    if problem.m == 1:
        return "it is a one-row contraction (a decode), which IREE's own split runs 4x faster"
    if problem.operations_per_point != 2 or len(problem.spans) != 2:
        return "it is not a contraction of two inputs"
    if problem.element_class not in ("f32", "f16") or problem.acc_bytes != 4:
        return "it does not accumulate f32 or f16 operands into f32"
    return None


WAVE_SHARE = 0.9
"""The share of the processors a split's workgroups must reach to launch a
wave for the own kernel (`weighed_counts`). Its chunks are whole K steps,
so the counts jump: 123x456x51234 f16 on gfx942's 4 tiles of 128x128 is 73 chunks of 22
steps (292 workgroups on 304 CUs, one wave at 96%) or 77 of 21 (308: a
second wave of 4 workgroups), nothing between."""


def own_counts(target: Target, tiles: int, most: int) -> list[int]:
    """The chunk counts the own kernel's model weighs for an output of
    `tiles` tiles: IREE's chunks' measured counts and, on a starved output
    (fewer tiles than processors), every power of two up to `most` and the
    counts that make one wave of 1 to 16 workgroups a processor. Those are
    rounded down, so that their whole-step chunks (`chunk_count`, never
    more than asked) leave no second wave of a few workgroups; `gpu_counts`
    rounds up, for IREE's chunks, which are not whole steps of this
    kernel's tile (on the seed in f32 on gfx942, 152 asked make 153 chunks
    of 21 steps: 2448 workgroups on 2432 slots)."""
    own = target.own_kernel
    assert own is not None
    counts = list(own.counts)
    if tiles < target.processors:
        counts += powers_of_two(most)
        counts += [resident * target.processors // tiles for resident in WAVE_RESIDENTS]
    return [c for c in dict.fromkeys(counts) if 1 <= c <= most or c in own.counts]


def _own_candidates(
    problem: Problem, target: Target, merge: str, forced: bool
) -> tuple[list[Estimate], str]:
    """The own kernel's candidate splits, and why the others are not. The
    model weighs `own_counts`, the chunk floor of IREE's chunks, and the same cap on
    what the chunks add up to (count x output, here in atomics or partials)
    against the operands; `forced` (kernel=own) weighs one chunk and every
    count."""
    own, fit = target.own_kernel, target.gpu_fit
    assert own is not None and fit is not None
    operands = sum(bytes_of_operands(problem))
    output = problem.batch * problem.m * problem.n * problem.acc_bytes
    found: list[tuple[int, Estimate]] = []
    short, large = [], []
    tile_m, tile_n, step_k = gemm_tiles(
        target, own_kernel_class(problem), problem.m, problem.n, problem.k
    ).tile
    tiles = problem.batch * ceildiv(problem.m, tile_m) * ceildiv(problem.n, tile_n)
    most = min(ceildiv(problem.k, step_k), MAX_FACTOR)
    counts = ((1,) if forced else ()) + tuple(own_counts(target, tiles, most))
    for factor in counts:
        e = own_kernel_estimate(problem, target, factor, merge)
        if any(c.factor == e.factor for _, c in found):
            continue
        measured = factor in own.counts
        if not forced and (e.factor < 2 or e.chunk < fit.min_chunk):
            if measured:
                short.append(str(factor))
            continue
        if not forced and e.factor * output > operands * MAX_PARTIALS_SHARE:
            if measured:
                large.append(str(factor))
            continue
        found.append((factor, e))
    why = []
    if short:
        counts = " or ".join(short)
        why.append(f"{counts} chunks of K = {problem.k} would be shorter than {fit.min_chunk}")
    if large:
        why.append(f"{' or '.join(large)} chunks would add up to more than the operands")
    # Of the counts that launch a wave (and cover the latency, or come near
    # the most in flight), any: IREE's chunks prefer the counts they were
    # measured at, but the own kernel was timed at none, so its counts are
    # weighed on the model's times alone (on the seed, f16 on gfx942's
    # 128x128 tiles, IREE's 124 chunks are 496 workgroups on 304 CUs: a
    # second wave of 192). Where none launches a wave (a K too short for
    # one), IREE's measured counts alone, as for IREE's chunks. `kernel=own`
    # weighs one chunk beside them.
    wave = any(e.workgroups >= WAVE_SHARE * target.processors for _, e in found)
    preferred = tuple(f for f, _ in found) if wave else ((1,) if forced else ()) + own.counts
    found = weighed_counts(found, preferred, target, WAVE_SHARE)
    return [e for _, e in found], "; ".join(why)


def _iree_form(iree: Choice) -> str:
    if iree.iree_chunk is not None:
        return "IREE's own split"
    if iree.factor > 1:
        return f"IREE's code in {iree.factor} static chunks"
    return "IREE's code whole"


def _basis(term_basis: str) -> str:
    """What an unmeasured rate rests on, in words."""
    return {
        SCALED: "scaled from another GPU's peaks",
        BOUNDED: "bounded by IREE's measured code",
        ANCHORED: "anchored on another kernel's runs",
    }.get(term_basis, term_basis)


def _never_timed(term_basis: str) -> str:
    if term_basis == MEASURED:
        return "its rate fitted on a device run"
    return f"an estimate: the own kernel was never timed; its rate is {term_basis}"


def choose_kernel(
    problem: Problem, target: Target, iree: Choice, kernel: str = "auto", merge: str = "atomic",
    factor: int | None = None,
) -> KernelChoice:
    """IREE's code (the GPU model's `iree` choice: whole, IREE's split, or
    split-k's static chunks) or xsplit's own kernel, for `problem` on
    `target`. `kernel=own` forces the own kernel (in `factor` chunks, or
    the count it models best); `iree` forbids it; `auto` takes it where it
    is modeled `min_gain` faster than IREE's and its rate is not SCALED from
    another GPU's (then the reason still gives both modeled times)."""
    iree_time = iree.chosen.seconds
    iree_form = f"{_iree_form(iree)} {time_text(iree_time)}"
    own = target.own_kernel
    if kernel == "iree":
        return KernelChoice("iree", iree, None, merge, "kernel=iree")
    why = own_kernel_takes(problem) if kernel == "auto" else None
    if own is None:
        why = f"{target.name} has no terms for it"
    if why is not None:
        return KernelChoice("iree", iree, None, merge, f"own kernel not modeled: {why}")
    assert own is not None
    term = own.term(own_kernel_class(problem))
    if factor is not None:
        candidates, why = [own_kernel_estimate(problem, target, factor, merge)], ""
    else:
        candidates, why = _own_candidates(problem, target, merge, kernel == "own")
    if not candidates:
        return KernelChoice("iree", iree, None, merge, f"own kernel not modeled: {why}")
    cheapest = min(e.seconds for e in candidates)
    best = min(
        (e for e in candidates if e.seconds <= cheapest * (1 + NEAR_TIE)), key=lambda e: e.factor
    )
    merged = "store" if best.factor == 1 else merge
    told = f"own kernel {best.describe()} (merge {merged}); {iree_form}"
    in_flight = describe_in_flight(best, target, problem)
    if kernel == "own":
        told = f"{told} ({_never_timed(term.basis)}); {in_flight}"
        return KernelChoice("own", iree, best, merged, f"kernel=own: {told}")
    if term.basis != MEASURED:
        # Nothing unmeasured outranks a measured path: IREE's forms are
        # priced by terms fitted to device runs (GpuFit), the own kernel's
        # are not until bench/fit_own_kernel.py fits them.
        return KernelChoice(
            "iree", iree, best, merge,
            f"own kernel not measured on {target.name}: its {own_kernel_class(problem)} rate "
            f"is {_basis(term.basis)}, not fitted to a device run (bench/fit_own_kernel.py); "
            f"kept {_iree_form(iree)}, priced by the GPU model's terms fitted to H200 runs: {told} "
            "(kernel=own takes it)",
        )
    if best.seconds <= iree_time * (1 - own.min_gain):
        return KernelChoice(
            "own", iree, best, merged,
            f"chose xsplit's own kernel: {told}; modeled {iree_time / best.seconds:.2f}x "
            f"({_never_timed(term.basis)}); {in_flight}",
        )
    return KernelChoice(
        "iree", iree, best, merge,
        f"kept IREE's code: {told}; the own kernel, its rate measured, is not modeled "
        f"{own.min_gain:.0%} faster",
    )
