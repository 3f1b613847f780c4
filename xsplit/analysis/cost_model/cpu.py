"""The generic split model (every target without a model of its own; the
CPU's caches and tiles): how many chunks of K make a reduction fastest. See
the package's docstring for what it adds up."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import f32

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
from xsplit.analysis.cost_model.gpu import gpu_estimate, gpu_modeled
from xsplit.analysis.shapes import ceildiv
from xsplit.targets.lane_tiles import lane_workgroup_rows
from xsplit.targets.table import PARTIAL_TILE_MAX_M, Target


def _partial_layout(p: Problem) -> bool | None:
    """Whether a chunk's matmul has B transposed (False: row-major), or None
    where split-k gives it no tiles of its own."""
    row_major = p.k_strides == (p.input_bytes, p.n * p.input_bytes)
    transposed = p.k_strides == (p.input_bytes, p.input_bytes)
    plain = p.batch == 1 and p.spans == ((True, False), (False, True))
    if not plain or not (row_major or transposed):
        return None
    if p.element_class != "f32" or p.input_bytes != 4 or p.acc_bytes != 4:
        return None
    return transposed and not row_major


def _main_columns(p: Problem, target: Target, transposed: bool) -> int:
    """The columns of a chunk's main piece (`Target.partial_main_columns`);
    the model leaves the rest out: it is less than a register tile."""
    m = padded_rows(p.m, target.split_pad_m)
    return target.partial_main_columns(m, p.n, f32, transposed)


def _fixed_tiles(p: Problem, target: Target) -> dict[str, tuple[int, int, int]] | None:
    """The CPU tiles split-k fixes on a chunk's (main piece's) matmul, if it fixes any."""
    transposed = _partial_layout(p)
    if transposed is None:
        return None
    return target.partial_tiles(
        padded_rows(p.m, target.split_pad_m),
        _main_columns(p, target, transposed),
        f32,
        transposed,
    )


def partial_tile(p: Problem, target: Target) -> tuple[int, int] | None:
    """The workgroup tile of a chunk's matmul where split-k fixes its CPU
    tiles (`Target.partial_tiles`), else None."""
    return _workgroup_tile(p, _fixed_tiles(p, target))


def _workgroup_tile(
    p: Problem, tiles: dict[str, tuple[int, int, int]] | None
) -> tuple[int, int] | None:
    if tiles is None:
        return None
    tile_m, tile_n, _ = tiles["distribution"]
    return min(tile_m, p.m), min(tile_n, p.n)


def streams_b(p: Problem, target: Target) -> bool:
    """Whether a chunk's fixed tiles stream B (`Target.streams_b`)."""
    transposed = _partial_layout(p)
    return transposed is not None and target.streams_b(
        padded_rows(p.m, target.split_pad_m),
        _main_columns(p, target, transposed),
        f32,
        transposed,
    )


def tile_of(p: Problem, target: Target, split: bool = True) -> tuple[int, int]:
    """The output tile IREE gives one workgroup of this op on this target: a
    matvec or decode (M or N of 1) is tiled as a matvec, not a matmul; a
    chunk whose tiles split-k fixes, by those where M spans more than one
    register row or where they stream B. Otherwise (8 rows or fewer, with
    N that the streaming tiles do not divide) the fixed tiles read B as
    IREE's do, and the chunk counts the model finds with IREE's tile
    measured better: 4x3072x11008 in 16 chunks 8.5 ms, in the 4 the fixed
    tile models 12.0 ms (Zen 4, before the streaming tiles). Left whole
    (`split` false), the op keeps IREE's tiles: split-k fixes tiles only on
    the chunks it makes."""
    return _tile_with(p, target, _fixed_tiles(p, target) if split else None)


def _tile_with(
    p: Problem, target: Target, fixed: dict[str, tuple[int, int, int]] | None
) -> tuple[int, int]:
    """`tile_of`, given the tiles split-k fixes on the chunk (None if none)."""
    tile = _workgroup_tile(p, fixed)
    if tile is not None and (tile[0] > target.register_tile[0] or streams_b(p, target)):
        return tile
    if target.matvec_tile is not None and (p.m == 1 or p.n == 1):
        if p.m == 1:
            return 1, min(target.matvec_tile, p.n)
        return min(target.matvec_tile, p.m), 1
    return min(target.tile[0], p.m), min(target.tile[1], p.n)


IREE_TRANSPOSED_READ_SHARE = 0.84
"""The share of the read rate at which IREE's own code streams a matrix
whose K is contiguous, in a one-row product: it transposes each 16 x 16
block in registers before its outer products (1x4096x14336 against B[n, k]
and as linalg.matvec read B at 88% and 80% of a read pass timed beside them,
bench/RESULTS.md of 2026-11-28)."""


PAGE_BYTES = 4096
"""The page whose offset bits are the low bits of a cache set's index; the
bits above come from the physical frame, which the model cannot see."""

CACHE_LINE_BYTES = 64


def _row_bytes(p: Problem, spans: tuple[bool, bool], tile_m: int, tile_n: int) -> int:
    """The bytes of one K step of an operand's panel: its tile's columns of B
    or rows of A, side by side in memory."""
    spans_m, spans_n = spans
    return p.input_bytes * (tile_m if spans_m else 1) * (tile_n if spans_n else 1)


def _one_register_tile_wide(
    spans: tuple[bool, bool], tile: tuple[int, int], register_tile: tuple[int, int]
) -> bool:
    """Whether a panel's rows are one register tile wide, so that every
    register tile of the workgroup re-reads those same rows. Strips of
    several register tiles did not show the in-page penalty: 256x256x32768
    (1 KiB rows, 512-byte strips) ran within 6% of the best in 64 chunks."""
    spans_m, spans_n = spans
    (tile_m, tile_n), (register_m, register_n) = tile, register_tile
    return (not spans_n or tile_n <= register_n) and (not spans_m or tile_m <= register_m)


def _in_page_penalty(stride: int, row_bytes: int) -> float:
    """How many times its size a panel of rows `stride` bytes apart, each
    `row_bytes` wide, takes of a cache: the rows start at few offsets within a
    page, so they reach few of the line slots a page's offset selects. Rows
    1536 bytes apart start at 8 offsets 512 bytes apart; 128 bytes of each
    reach a quarter of the slots: 64x384x65521 ran in 13.2-14.8 ms (medians
    of two runs) in 25 chunks, whose panels (982 KiB) fit L2 by size, and in
    10.3-10.8 in 49 or 64; at 456 columns (rows 1824 bytes apart, every slot
    reached) 25 chunks ran within 1% of 32 and 64 (first quartiles)."""
    step = math.gcd(stride, PAGE_BYTES)
    if step <= CACHE_LINE_BYTES:
        return 1.0
    lines = ceildiv(row_bytes, CACHE_LINE_BYTES)
    return max(1.0, step / (lines * CACHE_LINE_BYTES))


def _crowding(
    p: Problem,
    target: Target,
    stride: int,
    spans: tuple[bool, bool],
    tile: tuple[int, int],
    register_tile: tuple[int, int],
) -> float:
    """How many times its size an operand's panel, its rows `stride` bytes
    apart, takes of the cache: rows a multiple of the conflict stride apart
    map to a fraction of the cache's sets, and so do rows one register tile
    wide that start at few offsets of a page."""
    if target.conflict_stride is not None and stride % target.conflict_stride == 0:
        return target.conflict_penalty
    if _one_register_tile_wide(spans, tile, register_tile):
        return _in_page_penalty(stride, _row_bytes(p, spans, *tile))
    return 1.0


def estimate(problem: Problem, target: Target, factor: int) -> Estimate:
    """The modeled cost of cutting `problem`'s K into `factor` chunks on `target`."""
    if gpu_modeled(problem, target):
        return gpu_estimate(problem, target, factor)
    p = problem
    processors = target.processors
    chunk = ceildiv(p.k, factor)
    factor = ceildiv(p.k, chunk)  # the chunks that are not empty
    # The chunk's fixed tiles, once for its workgroup tile and its register tile below.
    split_tiles = _fixed_tiles(p, target) if factor > 1 else None
    tile_m, tile_n = _tile_with(p, target, split_tiles)
    tiles = p.batch * ceildiv(p.m, tile_m) * ceildiv(p.n, tile_n)
    workgroups = tiles * factor
    resident = target.resident_workgroups
    slots = processors * resident
    waves = ceildiv(workgroups, slots)
    fill = min(workgroups, processors) / processors if waves == 1 else workgroups / (waves * slots)

    panel_elements = [
        (tile_m if spans_m else 1) * (tile_n if spans_n else 1) * chunk
        for spans_m, spans_n in p.spans
    ]
    panel_bytes = sum(panel_elements) * p.input_bytes
    cache = target.cache_per_processor
    fixed = split_tiles if target.cpu is not None else None
    fixed_tiles = _workgroup_tile(p, fixed) == (tile_m, tile_n)
    register_m, register_n = target.register_tile
    if fixed is not None and fixed_tiles:
        # The chunk's own register tile, which decides how often its panel is walked.
        register_m, register_n, _ = fixed["vector_common_parallel"]
    footprint = panel_bytes
    if target.conflict_stride is not None:
        footprint = p.input_bytes * sum(
            elements * _crowding(
                p, target, stride, spans, (tile_m, tile_n), (register_m, register_n)
            )
            for elements, stride, spans in zip(panel_elements, p.k_strides, p.spans)
        )
    reread_bandwidth = target.reread_bandwidth
    if fixed_tiles:
        # Split-k's tiles walk a workgroup's panel once per register tile,
        # from L2: 512x768x16384 in chunks of 512 (panels of 384 KiB) ran at
        # 77% of the peak, 32x32x500009 best in 64 to 128 chunks (panels of
        # 1 to 2 MiB); past L2 they re-read it from L3 or memory at about
        # memory speed, not at the rate IREE's own tiles fall to on a whole
        # op (`reread_bandwidth`).
        assert target.cpu is not None
        cache = target.cpu.l2
        if padded_rows(p.m, target.split_pad_m) > PARTIAL_TILE_MAX_M:
            # Tall chunks' tiles walk B's strip once per 8 rows while their
            # 64 rows of A stream past it, so the two get half of L2:
            # 512x512x16384 ran in 21.0-24.3 ms in 32 chunks (384 KiB
            # panels), 24.8-28.6 in 16 (768 KiB); 200x1000x16001 in 16.9
            # in 16 chunks (375 KiB), 19.8 in 8 (750 KiB), 23.2 in 6.
            cache //= 2
        elif tile_n <= register_n < p.n and tile_m > register_m:
            # So do chunks whose strip of B is one register tile wide: each
            # of the chunk's workgroups along N walks all of A's panel past
            # its own strip. 100x700x24593 (strips of 32 columns) ran in
            # 14.2-16.3 ms in 13-15 chunks (panels of 84-95% of L2), 12.7
            # in 32 (40%).
            cache //= 2
        reread_bandwidth = target.memory_bandwidth / processors
    panel_fits = cache is None or footprint <= cache
    streamed = transposing = False
    if fixed_tiles and register_m >= tile_m:
        # Tiles that hold every row in registers read each row of B's strip
        # once, a kilobyte at a time, which the prefetchers follow whether
        # or not the strip fits: 1x4096x14336 ran in 9.2-9.8 ms from 4 to 256
        # chunks. Streaming tiles of fewer rows walk the strip once per
        # register row and want it in L2: 16x4096x16384 ran in 25 ms in 2
        # chunks, 12.8 ms in 32 (strips of 512 KiB).
        panel_fits = streamed = True
    cpu = target.cpu
    if _partial_layout(p) is True and (
        p.m == 1
        or (
            not fixed_tiles
            and cpu is not None
            and (
                (p.m <= register_m and p.m * p.k * p.input_bytes <= cpu.l2)
                or (register_m < p.m <= 2 * register_m and tile_n * p.k * p.input_bytes <= cpu.l3)
            )
        )
    ):
        # Rows of A against B[n, k] read each row of B once, K contiguous.
        # One row, whatever the tiles: IREE's own ran 1x4096x14336 in 6.9 ms
        # unsplit (34 GB/s), 7.1 in 2 chunks and 8.4 in 16, where the re-read
        # rate would say 40 ms unsplit. Up to a register tile of rows, on
        # IREE's own tiles, which hold every row of A ([8, 16] for 8 rows with
        # AVX-512) and walk A's rows again, once per register column, from
        # L2: 8x4096x11008 unsplit in 5.6 ms (32 GB/s over B), where the
        # re-read rate would say 38 ms, and the split that said picked (16
        # chunks) took 6.4. Up to two register tiles of rows, B's strip is
        # walked twice, the second time from L3 where the workgroup's strip
        # fits there: unsplit, 16x2048x20011 ran in 9.6 ms, 2-8 chunks in
        # 9.7-10.5; 12x4096x16384 in 12.7, 12.4-12.7; 16x4096x30011 in 25.1,
        # 24.4-26.9. At 24 rows the split wins (13.0 against 11.9).
        panel_fits = streamed = True
        # IREE's own tiles transpose B's blocks in registers on the way.
        transposing = not fixed_tiles
    if not fixed_tiles and _batch_of_rows_streams(p, target):
        panel_fits = streamed = True
    # A processor draws at most its share of the bandwidth: a wave that leaves
    # processors idle leaves their share unused.
    read_once = panel_bytes / (target.memory_bandwidth / processors)
    if target.cpu is not None:
        # A CPU runs a chunk's workgroups one after another on cores that
        # share the last-level cache: a chunk's panel of A is read from
        # memory once for all its tiles of N (and B's once for all of M), so
        # each workgroup draws its share of the operands, not a whole panel.
        operand_bytes = sum(bytes_of_operands(p)) / max(workgroups, 1)
        read_once = min(read_once, operand_bytes / (target.memory_bandwidth / processors))
    if transposing:
        read_once /= IREE_TRANSPOSED_READ_SHARE
    if panel_fits:
        traffic = read_once
    else:
        rereads = [
            # A panel along N is walked once per register row, and one along M
            # once per register column.
            elements * (ceildiv(tile_m, register_m) if spans_n and not spans_m else 1)
            * (ceildiv(tile_n, register_n) if spans_m and not spans_n else 1)
            for elements, (spans_m, spans_n) in zip(panel_elements, p.spans)
        ]
        assert reread_bandwidth is not None
        traffic = max(read_once, sum(rereads) * p.input_bytes / reread_bandwidth)
    points = tile_m * tile_n
    if fixed_tiles:
        # Split-k's tiles never mask a register tile (M is padded to the
        # register rows, N cut into pieces the tiles divide), so the last
        # workgroup along M or N does only the work it has; a workgroup
        # does the average. 200x1000x16001 (tiles of 64 rows) ran in 16.7
        # ms in 16 chunks, at the calibrated peak; four full tiles over its
        # 200 rows would count 28% more arithmetic.
        covered = ceildiv(p.m, tile_m) * tile_m * ceildiv(p.n, tile_n) * tile_n
        points = tile_m * tile_n * padded_rows(p.m, target.split_pad_m) * p.n / covered
    arithmetic = p.operations_per_point * points * chunk / target.processor_flops(p.element_class)
    # A workgroup's start runs in the shadow of its memory traffic: decoding
    # 1x4096x14336 in 256 chunks (4,096 workgroups) took 5.7 ms, as in 2.
    workgroup = max(arithmetic + target.workgroup_overhead, traffic)
    # A streamed loop's FMAs add to its reads (STREAMED_FMAS_ADD): the time
    # past the longer of the two, which the remark names.
    unhidden = 0.0
    if _fmas_add_to_reads(p, target, fixed_tiles):
        unhidden = arithmetic + max(target.workgroup_overhead, traffic) - workgroup
    # A wave keeps up to `resident` workgroups on each processor; with fewer it
    # hides less latency (c resident reach c / resident of the rate), so a wave
    # takes `resident` workgroup times however full it is.
    fmas = waves * resident * unhidden
    main = waves * resident * workgroup + target.dispatch_overhead + fmas

    partials = merge = pad = 0.0
    if factor > 1:
        output_bytes = p.batch * p.m * p.n * p.acc_bytes
        partial_bytes = output_bytes * factor
        write = target.memory_bandwidth
        if target.first_touch_bandwidth and partial_bytes > target.fresh_allocation_bytes:
            write = target.first_touch_bandwidth
        partials = partial_bytes / write + partial_bytes / target.memory_bandwidth
        merge = target.dispatch_overhead + 2 * output_bytes / target.memory_bandwidth
        if target.split_align is not None and padded_rows(p.m, target.split_pad_m) != p.m:
            # The aligned split copies the operands that span M into padded ones.
            padded = sum(b for b, (spans_m, _) in zip(bytes_of_operands(p), p.spans) if spans_m)
            pad = 2 * padded / target.memory_bandwidth + target.dispatch_overhead
    return Estimate(
        factor,
        chunk,
        workgroups,
        waves,
        fill,
        panel_bytes,
        None if cache is None else panel_fits,
        main,
        partials,
        merge,
        pad,
        streamed,
        target.memory_bandwidth if streamed else None,
        target.read_measured,
        fmas=fmas,
    )


STREAMED_FMAS_ADD = True
"""Whether a CPU loop that streams its matrix from memory takes its reads'
time plus its FMAs' time at the peak, not the longer of the two. The 14
streamed products of bench/RESULTS-matvec.md (1 to 16 rows, row-major and
transposed B, quiet machine, 549 GFLOP/s peak) ran in B's bytes over the
read pass timed in the same rounds plus 2 x M x N x K at the peak: 0.99 to
1.07 of that sum at 2 to 8 rows (skinny_4x4096x14336 6.33 ms against 5.42 +
0.86; decode_8x4096x14336 8.33 against 6.09 + 1.71), 1.15 and 1.33 at 16,
where the longer of the two says 0.90 to 2.1. The loops are clean in the
machine code (4 x 64 register tiles: 8 loads of B, 8 broadcasts of A and 32
FMAs a step of 2, no spill), so the share of the read rate such a loop can
reach is 1 / (1 + M x read rate / (2 x peak)): 86% at 4 rows, 76% at 8, 61%
at 16 (`streamed_read_ceiling`)."""


def streamed_read_ceiling(m: int, read_rate: float, peak_flops: float) -> float:
    """The share of the read rate at which a loop streaming an f32 matrix
    past `m` rows reads it when its FMAs add to its reads
    (STREAMED_FMAS_ADD): 4 bytes a column over the read rate, against
    2 x `m` operations a column at the peak."""
    reads = 4 / read_rate
    return reads / (reads + 2 * m / peak_flops)


def _fmas_add_to_reads(p: Problem, target: Target, fixed_tiles: bool) -> bool:
    """Whether this estimate adds its arithmetic to its traffic
    (STREAMED_FMAS_ADD): split-k's streaming tiles (`Target.streams_b`, a
    row-major B past up to STREAMING_MAX_M rows) in IREE's compiled CPU
    code, whose competitors (IREE's own tiles on the whole op, re-reading
    B) are priced far above them. The transposed forms stream too, but
    added to IREE's own whole op alone it flipped 9 to 16 rows against
    B[n, k] to splits that ran slower (16x2048x20011: whole 9.6 ms, split
    9.7-10.5), so they keep the longer of the two on every side."""
    return (
        STREAMED_FMAS_ADD
        and target.cpu is not None
        and target.split_tiles
        and fixed_tiles
        and streams_b(p, target)
    )


def _batch_of_rows_streams(p: Problem, target: Target) -> bool:
    """Whether IREE's own CPU tiles stream B whole for a batch of single
    rows against row-major B whose rows are shorter than a page: they walk
    each strip of B a row at a time, and the prefetchers follow within the
    page. Whole, batch_vecmat 8x30011x256 ran at 33 GB/s (7.3 ms), 16x30011x128
    at 41 (6.0), 8x30011x512 at 32 (15.5), 2x30011x256 at 31 (2.0); split
    (the batched chunks get no tiles of split-k's), each took 1.2-1.4x as long
    at its best chunk count. Rows of a page or more are not followed:
    2x30011x1024 ran at 17 GB/s whole (14.8 ms), 12.9 ms in 30 chunks."""
    return (
        target.cpu is not None
        and p.batch > 1
        and p.m == 1
        and p.spans == ((True, False), (False, True))
        and p.k_strides == (p.input_bytes, p.n * p.input_bytes)
        and p.n * p.input_bytes < PAGE_BYTES
    )


def _reads_part(e: Estimate) -> float:
    """An estimate less the arithmetic a streamed loop adds past the longer
    of it and the reads (about the same for every chunk count): the near
    ties among counts and the tail's worth were measured on the rest, and
    relative to a whole that holds the FMAs they widen (4x4096x14336 would
    take 28 chunks for the 16 measured best, 16x4096x16384 64 for 34)."""
    return e.seconds - e.fmas


def choose_generic(problem: Problem, target: Target) -> Choice:
    """The generic (CPU) model's choice of chunk count: every count up to
    `MAX_FACTOR`, the cheapest, near ties to the fewest chunks."""
    unsplit = estimate(problem, target, 1)
    seen: set[int] = set()
    candidates: list[Estimate] = []
    operands = sum(bytes_of_operands(problem))
    output = problem.batch * problem.m * problem.n * problem.acc_bytes
    for factor in range(2, min(problem.k, MAX_FACTOR) + 1):
        chunk = ceildiv(problem.k, factor)
        if chunk in seen:
            continue
        seen.add(chunk)
        if ceildiv(problem.k, chunk) * output > operands * MAX_PARTIALS_SHARE:
            break
        candidates.append(estimate(problem, target, factor))
    if problem.k <= 1:
        return Choice(1, unsplit, unsplit, f"K = {problem.k} has one element")
    if target.is_gpu and unsplit.workgroups >= target.processors:
        return Choice(
            1,
            unsplit,
            unsplit,
            f"no split on {target.name}: the dispatch already fills the machine "
            f"({unsplit.workgroups} workgroups on {target.processors} processors)",
        )
    if _batch_of_rows_streams(problem, target):
        return Choice(
            1,
            unsplit,
            unsplit,
            f"no split pays on {target.name}: unsplit {unsplit.describe()}; IREE's tiles "
            "stream a batch of rows against B's rows shorter than a page, and a batched "
            "op's chunks get no tiles of split-k's",
        )
    if not candidates:
        return Choice(
            1,
            unsplit,
            unsplit,
            f"no split pays on {target.name}: two chunks' partials "
            f"({mib_text(2 * output)}) would outgrow the operands ({mib_text(operands)})",
        )
    cheapest = min(_reads_part(e) for e in candidates)
    ties = [e for e in candidates if _reads_part(e) <= cheapest * (1 + NEAR_TIE)]
    if all(e.streamed for e in ties):
        # Streamed chunks tie in the model, and more of them ran as fast or
        # faster: 2x5120x13824 in 2 chunks 8.3 ms, in 4 to 32 7.5-7.6;
        # 4x4096x11008 5.5 ms in 2, 5.0-5.2 in 16 and 32; 1x4096x14336 and
        # 3x2048x50021 within 3% from 2 to 64.
        best = max(ties, key=lambda e: e.factor)
    else:
        best = min(ties, key=lambda e: e.factor)
    best = _without_tail(problem, target, best)
    if best.seconds > unsplit.seconds * (1 - MIN_GAIN):
        return Choice(
            1,
            unsplit,
            unsplit,
            f"no split pays on {target.name}: unsplit {unsplit.describe()}; the best split, "
            f"{best.describe()}, gains under {MIN_GAIN:.0%}",
        )
    return Choice(
        best.factor,
        best,
        unsplit,
        f"{target.name} chose {best.describe()}; unsplit {unsplit.describe()}; "
        f"modeled speedup {unsplit.seconds / best.seconds:.2f}x",
    )


TAIL_WORTH = 0.10
"""Where the target splits into aligned chunks, a chunk count whose aligned
chunk divides K saves the tail chunk's dispatch and its padding: measured on
the CPU, 32 chunks of 448 ran a 1x4096x14336 decode in 10.8 ms, 29 chunks
(28 of 496 and a tail) in 16.5 ms. Such a count is taken when the model has
it at most this much slower than its pick."""


def _without_tail(problem: Problem, target: Target, best: Estimate) -> Estimate:
    align = target.split_align
    if align is None or best.factor == 1:
        return best
    dividing = [
        estimate(problem, target, factor)
        for factor in range(2, min(problem.k, MAX_FACTOR) + 1)
        if problem.k % factor == 0 and (problem.k // factor) % align == 0
    ]
    near = [e for e in dividing if _reads_part(e) <= _reads_part(best) * (1 + TAIL_WORTH)]
    if not near or any(e.factor == best.factor for e in near):
        return best
    return min(near, key=lambda e: (abs(e.factor - best.factor), e.factor))


def transposed_matvec_estimate(problem: Problem, target: Target) -> float:
    """Seconds for IREE's own code for a product of one row (or a few)
    against B[n, k], left whole: its operands at IREE_TRANSPOSED_READ_SHARE
    of the read rate."""
    rate = target.memory_bandwidth * IREE_TRANSPOSED_READ_SHARE
    return sum(bytes_of_operands(problem)) / rate + target.dispatch_overhead


def lane_split_estimate(problem: Problem, target: Target, lanes: int) -> float:
    """Seconds for `split-lanes`' form of a matrix-vector product (or of a
    few rows against B[n, k]): the operands read once at the target's read
    rate (each row of the matrix streams into one vector of sums per row of
    A, so nothing is read twice), then the merge, a second dispatch that
    reads the M x N x `lanes` sums and writes M x N."""
    read = sum(bytes_of_operands(problem)) / target.memory_bandwidth
    # Each workgroup streams its rows on one core: fewer workgroups than
    # cores leave the others' share of the bandwidth unused.
    rows = lane_workgroup_rows(problem.n, target.processors)
    workgroups = ceildiv(problem.n, rows)
    read *= target.processors / min(workgroups, target.processors)
    # Each row of A has its own N x `lanes` sums.
    sums = problem.m * problem.n * lanes * problem.acc_bytes
    output = problem.m * problem.n * problem.acc_bytes
    merge = target.dispatch_overhead + (2 * sums + output) / target.memory_bandwidth
    return read + target.dispatch_overhead + merge


PREFETCH_STREAM_TIME_RATIO = {1: 1.15, 2: 0.99, 4: 1.01, 6: 0.99, 8: 0.96, 12: 0.73, 16: 1.01}
"""CPU time of `stream-prefetch`'s dispatch (B prefetched 32 rows ahead,
rows of B two at a time) over split-k's IREE tiles on the same chunks, by
rows of A (the nearest measured at or above), measured on this 2-core Zen
machine while shared (load 4 to 14), the process's CPU time, medians in
one process, alternating. Up to 4 rows (60 rounds): 1x4096x14336 8.5 ms
against 7.4; 2x11008x4096 6.8 and 8.7 against 7.1 and 8.6; 4x4096x14336
11.8, 11.4 and 11.7 against 12.2, 11.3 and 11.4 (without prefetches 12.5
and 11.9), 4x4096x11008 9.8 against 9.3 (the ratios' means by rows):
parity within the noise at 2 to 4 rows, slower at 1.

From 5 rows (bench/stream_rows.py, 40 to 100 rounds a run, load 7 to 12;
bench/RESULTS-matvec.md), one tile of every row, the means of the runs:
6x4096x11008 (6 x 64) 0.99, 1.01, 0.99, its best calls 1.03-1.44 of
split-k's best; 8x4096x14336 (8 x 32) 0.90, 0.94, 1.00, 0.97,
1.01; 10x4096x8192 (10 x 32) 0.71; 12x4096x8192 (12 x 32) 0.73, 0.74,
with the best call at 0.76 and the tenth percentile at 0.70 (split-k pads
9 to 16 rows to 16 and walks each block of B once per 4 rows; the form
computes the rows there are and reads B once), and on bench/shapes'
12x3072x24001, not among those it was chosen on, 0.66 (best call 0.59);
16x8192x3001 (16 x 16, `prefetcht0`) 1.01. So only 9 to 12 rows are
taken."""

PREFETCH_STREAM_MARGIN = 0.95
"""The ratio under which `prefetch=auto` takes the dispatch: a gain past
the noise of the measurements above, on a form that, unlike IREE's tiles,
no quiet run has timed yet."""


def prefetch_stream_pays(problem: Problem, target: Target) -> tuple[bool, str]:
    """Whether `stream-prefetch{prefetch=auto}` takes a product: where its
    measured time over split-k's tiles (PREFETCH_STREAM_TIME_RATIO, for
    the nearest rows measured at or above the product's) is under
    PREFETCH_STREAM_MARGIN. Says why either way."""
    if target.is_gpu or not target.split_tiles:
        return False, f"{target.name} is not an llvm-cpu target"
    rows = min((r for r in PREFETCH_STREAM_TIME_RATIO if r >= problem.m), default=None)
    if rows is None:
        return False, f"no time measured for {problem.m} rows"
    ratio = PREFETCH_STREAM_TIME_RATIO[rows]
    pays = ratio < PREFETCH_STREAM_MARGIN
    measured = (
        f"the prefetching dispatch took {ratio:.2f}x the CPU time of split-k's IREE tiles "
        f"({rows} {'row' if rows == 1 else 'rows'}, measured), {'' if pays else 'not '}under "
        f"{PREFETCH_STREAM_MARGIN:.2f}x"
    )
    return pays, measured
