"""The split cost model behind `split-k{target=NAME}`: how many chunks of K
make a reduction fastest on a target, or that none do.

A reduction's output is cut into `tiles` workgroup tiles of the target's tile
shape (`Target.tile`, clipped to the output). Splitting K into S chunks of
kc = ceil(K/S) makes tiles x S workgroups, each reducing kc steps, and a merge.
The model estimates, for each S:

- **waves and tile quantization**: the workgroups run `processors` at a time,
  so a split costs ceil(tiles x S / processors) waves of one workgroup's time.
  A GPU with 8 tiles and 304 CUs gains up to 38x from the split; a CPU whose
  tiles already outnumber its cores gains nothing here.
- **a workgroup's time**: the larger of its arithmetic (at the target's peak
  share per processor) and its operand traffic, plus a fixed overhead. The
  traffic is the workgroup's operand panels (its tile's rows of A and columns
  of B over kc). On a CPU, panels that fit the per-processor cache are read
  from memory once, at a fair share of the bandwidth; panels that do not are
  re-streamed once per register tile at the much lower re-read bandwidth. This
  is where a CPU gains from a split: short chunks keep the panels resident.
- **partial-buffer traffic**: the S partial outputs are written (first touch:
  page faults on a CPU) and read back.
- **the merge**: one more dispatch that reads the partials and the init and
  writes the result.

The chosen S is the cheapest by this sum; among splits within 1% of the
cheapest, the fewest chunks. A split is taken only if the model has it at least
`MIN_GAIN` faster than the unsplit op, so it never picks a split that its own
estimate makes slower.

A contraction on a GPU has a model of its own (`gpu_estimate`, `GpuFit` in
the target table), fitted on an H200: IREE's own configuration of the whole
op against `split-k{factor=F align=64 pad_m=64}`'s static chunks with GPU
tiles, for F among the counts measured (8, 32, 128) (any count that fills the
machine where none of those does), each dispatch priced by
its busiest SM's resident workgroups against the number that saturates it.
A one-row contraction (a decode) is left to IREE's own split, which ran it
4x faster than static chunks: split-k sets the chunk IREE's flag would pick
on the op (`iree_split_chunk`), and the model prices that split.
docs/split-k.md has the fit and its measurements; the CPU model above is
untouched by it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from xdsl.dialects.builtin import AnyFloat, IntegerType, TensorType, f32
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineDimExpr

from xsplit.analysis.reduction import Reduction, through_transposes
from xsplit.analysis.shapes import ceildiv
from xsplit.dialects.iree_linalg_ext import SPLIT_REDUCTION
from xsplit.dialects.xsplit_gemm import chunk_count, chunk_size
from xsplit.target.gemm_tiles import gemm_tiles
from xsplit.target.own_kernel_terms import ANCHORED, BOUNDED, MEASURED, SCALED
from xsplit.target.targets import PARTIAL_TILE_MAX_M, GpuFit, Target

MIN_GAIN = 0.05
"""The modeled speedup below which a split is not worth its merge."""
NEAR_TIE = 0.01
"""Splits this close to the cheapest count as ties, won by the fewest chunks
(the most where every tie streams its panels)."""
MAX_FACTOR = 4096
"""The most chunks the model considers."""
MAX_PARTIALS_SHARE = 1.0
"""The partials may take at most this share of the operands' memory. Split-K
is for outputs small next to their operands; a large output cut into chunks
would hold several copies of itself (8192x8192x4096 f16 in 16 chunks: 4 GiB
of partials for 128 MiB of operands), which no cache gain pays for."""


@dataclass(frozen=True)
class Problem:
    """What the model needs of a reduction: its output as batch x M x N, K,
    element sizes, and which output dimensions each input spans."""

    batch: int
    m: int
    n: int
    k: int
    element_class: str
    """f32, f16 or i8: which peak rate of the target applies."""
    input_bytes: int
    acc_bytes: int
    operations_per_point: int
    """2 for a multiply-accumulate, 1 for a plain reduction."""
    spans: tuple[tuple[bool, bool], ...]
    """For each input, whether it spans the M and the N dimension of the output."""
    k_strides: tuple[int, ...]
    """For each input, the bytes between consecutive steps of K in its
    row-major layout: rows this far apart may collide in the cache's sets."""
    generic: bool = False
    """Whether the op is a `linalg.generic`: IREE 3.13 drops an
    `iree_linalg_ext.split_reduction` set on one (a 1x4096x14336 decode
    written as a generic compiled whole with it), and keeps a named op's."""

    def describe(self) -> str:
        batch = f"{self.batch}x" if self.batch > 1 else ""
        return f"{batch}{self.m}x{self.n} output, K = {self.k}"


@dataclass(frozen=True)
class Estimate:
    """The modeled cost of one split of one problem on one target."""

    factor: int
    chunk: int
    workgroups: int
    waves: int
    fill: float
    """Busy processors over all processors, averaged over the waves."""
    panel_bytes: int
    panel_fits: bool | None
    """Whether the operand panels fit the cache; None where no cache is modeled."""
    main: float
    """Seconds of the (split) reduction dispatch."""
    partials: float
    """Seconds to write the partials and read them back."""
    merge: float
    """Seconds of the merge dispatch, launch included."""
    pad: float = 0.0
    """Seconds of the copy that pads M, where the split pads it."""
    streamed: bool = False
    """Whether the panels are read once, streamed, whether or not they fit."""
    stream_rate: float | None = None
    """Where streamed: the bytes per second the operands are priced at (the
    machine's read rate), and whether that rate was measured."""
    stream_rate_measured: bool = True
    in_flight: float = 0.0
    """GPU chunks: the operand bytes an average processor has in flight
    (resident workgroups x each one's staged panels); 0 where not modeled."""

    @property
    def seconds(self) -> float:
        return self.main + self.partials + self.merge + self.pad

    def describe(self) -> str:
        panel = ""
        if self.panel_fits is not None:
            fits = "fits" if self.panel_fits else "does not fit"
            fits = "streamed" if self.streamed else f"{fits} the cache"
            if self.streamed and self.stream_rate:
                how = "measured" if self.stream_rate_measured else "assumed"
                fits += f" at {self.stream_rate / 1e9:.0f} GB/s, the {how} read rate"
            panel = f", {self.panel_bytes // 1024} KiB panel ({fits})"
        return (
            f"{self.factor} chunk{'s' if self.factor > 1 else ''} of {self.chunk}: "
            f"{self.workgroups} workgroup{'s' if self.workgroups != 1 else ''}, "
            f"{self.waves} wave{'s' if self.waves > 1 else ''} "
            f"at {self.fill:.0%} fill{panel}, {_time(self.seconds)}"
        )


@dataclass(frozen=True)
class Choice:
    factor: int
    """The number of chunks; 1 leaves the op whole."""
    chosen: Estimate
    unsplit: Estimate
    reason: str
    iree_chunk: int | None = None
    """Where the op is left to IREE's own split (a decode on a GPU): its
    chunk of K, which split-k sets on the op; `chosen` is then that split."""

    @property
    def speedup(self) -> float:
        return self.unsplit.seconds / self.chosen.seconds


def matmul_problem(m: int, n: int, k: int, element: str = "f32") -> Problem:
    """A plain row-major `linalg.matmul` of M x K by K x N `element`
    operands into an f32 (i8: i32) M x N: what bench/gpu.py times."""
    size = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1}[element]
    cls = "f16" if element == "bf16" else element
    return Problem(1, m, n, k, cls, size, 4, 2, ((True, False), (False, True)), (size, n * size))


def padded_rows(m: int, pad_m: int | None) -> int:
    """M after the split pads it: to a multiple of `pad_m` where M is longer
    than `pad_m` and not a multiple of it, else unchanged."""
    if pad_m is not None and m > pad_m and m % pad_m:
        return ceildiv(m, pad_m) * pad_m
    return m


def _time(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} us"


def _mib(size: float) -> str:
    return f"{size / 2**20:.3g} MiB"


def _element_class(element: Attribute) -> str:
    if isinstance(element, AnyFloat) and element.bitwidth <= 16:
        return "f16"
    if isinstance(element, IntegerType) and element.width.data <= 8:
        return "i8"
    return "f32"


def _bytes(element: Attribute) -> int:
    if isinstance(element, AnyFloat):
        return max(1, element.bitwidth // 8)
    if isinstance(element, IntegerType):
        return max(1, element.width.data // 8)
    return 4


def problem_of(red: Reduction) -> Problem | str:
    """The model's view of a matched reduction, or why it has none. An input
    that is a `linalg.transpose`'s result is priced as the transpose's
    source, read in place: IREE fuses the transpose into the op. A
    contraction with no M loop (a vecmat, a matvec, their batched forms) is
    priced as the one-row matmul it is, the input that N does not index
    first, as that matmul's A: split-k cuts a vector form as that matmul."""
    generic = red.op.name == "linalg.generic"
    red = through_transposes(red) or red
    k = red.static_k()
    out_shape = red.acc_type.get_shape()
    if k is None or any(d < 0 for d in out_shape):
        return "the cost model needs static sizes; give factor= or tile="
    # The output's last two dimensions are the tile's M and N; the rest are
    # batch, and so is the one before N where every input of a contraction
    # reads it (batch_vecmat's b): such a problem has one row.
    out_dims = [e.position for e in red.output_map.results if isinstance(e, AffineDimExpr)]
    n_dim = out_dims[-1] if out_dims else None
    m_dim = out_dims[-2] if len(out_dims) >= 2 else None
    n = out_shape[-1] if out_shape else 1
    m = out_shape[-2] if len(out_shape) >= 2 else 1
    batch = 1
    for d in out_shape[:-2]:
        batch *= d
    reads = [
        {e.position for e in input_map.results if isinstance(e, AffineDimExpr)}
        for input_map in red.input_maps
    ]
    contraction = len(red.inputs) == 2
    if m_dim is not None and contraction and all(m_dim in r for r in reads):
        m_dim, batch, m = None, batch * m, 1
    order = list(range(len(red.inputs)))
    if contraction and m_dim is None:
        order.sort(key=lambda i: n_dim in reads[i])
    first = red.inputs[order[0]].type
    assert isinstance(first, TensorType)
    element = first.element_type
    spans, k_strides = [], []
    for i in order:
        value, input_map = red.inputs[i], red.input_maps[i]
        positions = [e.position for e in input_map.results if isinstance(e, AffineDimExpr)]
        row = contraction and m_dim is None and n_dim not in positions
        spans.append((m_dim in positions or row, n_dim in positions))
        shape = value.type.get_shape() if isinstance(value.type, TensorType) else ()
        stride = _bytes(element)
        if red.reduction_dim in positions:
            for size in shape[positions.index(red.reduction_dim) + 1 :]:
                stride *= max(size, 1)
        k_strides.append(stride)
    return Problem(
        batch,
        m,
        n,
        k,
        _element_class(element),
        _bytes(element),
        _bytes(red.acc_type.element_type),
        2 if len(red.inputs) > 1 else 1,
        tuple(spans),
        tuple(k_strides),
        generic,
    )


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
    streamed = False
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
        operand_bytes = sum(_operand_bytes(p)) / max(workgroups, 1)
        read_once = min(read_once, operand_bytes / (target.memory_bandwidth / processors))
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
    # A wave keeps up to `resident` workgroups on each processor; with fewer it
    # hides less latency (c resident reach c / resident of the rate), so a wave
    # takes `resident` workgroup times however full it is.
    main = waves * resident * workgroup + target.dispatch_overhead

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
            padded = sum(b for b, (spans_m, _) in zip(_operand_bytes(p), p.spans) if spans_m)
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


@lru_cache(maxsize=1024)
def _choose(problem: Problem, target: Target, processors: int) -> Choice:
    if gpu_modeled(problem, target):
        return _choose_gpu(problem, target)
    unsplit = estimate(problem, target, 1)
    seen: set[int] = set()
    candidates: list[Estimate] = []
    operands = sum(_operand_bytes(problem))
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
            f"({_mib(2 * output)}) would outgrow the operands ({_mib(operands)})",
        )
    cheapest = min(e.seconds for e in candidates)
    ties = [e for e in candidates if e.seconds <= cheapest * (1 + NEAR_TIE)]
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


def _in_flight(
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
    operands = sum(_operand_bytes(p))
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
    in_flight = _in_flight(
        p, target, rows, tile, workgroups, saturation, dict(fit.in_flight_k).get(cls, 64)
    )
    main = max(seconds, operands / (bandwidth * in_flight_share(in_flight, fit))) + fit.launch
    pad = 0.0
    if tail:
        pad += ((tail >= fit.align) + (tail % fit.align > 0)) * fit.launch
    if rows != p.m:
        padded = sum(b for b, (spans_m, _) in zip(_operand_bytes(p), p.spans) if spans_m)
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
        power = 2
        while power <= most:
            counts.append(power)
            power *= 2
        for resident in (1, 2, 3, 4, 6, 8, 12, 16):
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


def _weighed(
    candidates: list[tuple[int, Estimate]], measured: tuple[int, ...], target: Target
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
    one), the measured counts alone."""
    fit = target.gpu_fit
    assert fit is not None
    wave = [(f, e) for f, e in candidates if e.workgroups >= target.processors]
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
    main = sum(_operand_bytes(p)) / (bandwidth * IREE_SPLIT_READ_SHARE) + fit.launch
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


def _choose_gpu(problem: Problem, target: Target) -> Choice:
    fit = target.gpu_fit
    assert fit is not None
    unsplit = gpu_estimate(problem, target, 1)
    if problem.k <= 1:
        return Choice(1, unsplit, unsplit, f"K = {problem.k} has one element")
    if problem.m == 1:
        return _leave_to_iree(problem, target, unsplit)
    operands = sum(_operand_bytes(problem))
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
                large.append(f"{factor} chunks' partials ({_mib(e.factor * output)})")
            continue
        candidates.append((factor, e))
    candidates = _weighed(candidates, fit.counts, target)
    if not candidates:
        why = []
        if large:
            why.append(f"{' and '.join(large)} would outgrow the operands ({_mib(operands)})")
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
    if tile is None:
        # The tiles gemm-kernel takes for this op: the target's table.
        tile = gemm_tiles(target, own_kernel_class(p), p.m, p.n, p.k).tile
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
    # Each workgroup stages its panels' K step `stages` deep (gemm_tiles).
    stages = gemm_tiles(target, cls, p.m, p.n, p.k).stages if tile is None else 1
    in_flight = _in_flight(
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
        sum(_operand_bytes(p)) / (bandwidth * in_flight_share(in_flight, fit)), fit.launch,
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


def _own_candidates(
    problem: Problem, target: Target, merge: str, forced: bool
) -> tuple[list[Estimate], str]:
    """The own kernel's candidate splits, and why the others are not. The
    model weighs the counts and the chunk floor of IREE's chunks, and the
    same cap on what the chunks add up to (count x output, here in atomics
    or partials) against the operands; `forced` (kernel=own) weighs one
    chunk and every count."""
    own, fit = target.own_kernel, target.gpu_fit
    assert own is not None and fit is not None
    operands = sum(_operand_bytes(problem))
    output = problem.batch * problem.m * problem.n * problem.acc_bytes
    found: list[tuple[int, Estimate]] = []
    short, large = [], []
    tile_m, tile_n, step_k = gemm_tiles(
        target, own_kernel_class(problem), problem.m, problem.n, problem.k
    ).tile
    tiles = problem.batch * ceildiv(problem.m, tile_m) * ceildiv(problem.n, tile_n)
    counts = ((1,) if forced else ()) + tuple(
        gpu_counts(problem, target, tiles, step_k, min(ceildiv(problem.k, step_k), MAX_FACTOR))
    )
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
    # IREE's chunks' counts where one launches a wave, else any that does.
    # `kernel=own` weighs one chunk beside them.
    found = _weighed(found, ((1,) if forced else ()) + own.counts, target)
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
    iree_form = f"{_iree_form(iree)} {_time(iree_time)}"
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
    near = [e for e in dividing if e.seconds <= best.seconds * (1 + TAIL_WORTH)]
    if not near or any(e.factor == best.factor for e in near):
        return best
    return min(near, key=lambda e: (abs(e.factor - best.factor), e.factor))


def choose_split(problem: Problem, target: Target) -> Choice:
    """The model's choice of chunk count for `problem` on `target`."""
    return _choose(problem, target, target.processors)


# Data tiling: whether to encode, and then whether to split the encoded op.
#
# The CPU decision prices both sides in the same calibrated rates
# (`xsplit bench --calibrate`: the data-tiled FLOP/s of a core and the
# streaming bandwidth into fresh memory), so that what it compares is what
# this machine runs. Fitted on the shapes of bench/shapes (bench/RESULTS.md):

PACK_PASSES = 2.5
"""A pack or unpack costs this many streaming passes over what it packs: it
reads the operand and writes a transposed, freshly allocated copy."""
READ_SPEEDUP = 3.0
"""Reading operands already in memory runs this much faster than the
calibrated stream, whose writes go to fresh pages."""
ENCODE_MARGIN = 1.5
"""Up to ENCODE_MARGIN_MAX_M rows, an encoded form is taken over the plain
split (or the op left whole) only where it is modeled this much faster. On
every shape measured there (bench/RESULTS.md: 24 shapes, 1 to 640 rows, and
10 more held out from them), xsplit's split beat its encoded forms, and the
encoded forms ran no faster than IREE's own data tiling; the model prices
the split the more pessimistically of the two (512x768x16384: split 71 ms
modeled, 30 measured; encoded 78, 57). Against a transposed B
(512x768x16384 as a linear layer has it), encoded was modeled 7% faster
than the split and ran 11% slower (60 against 54 ms), below IREE alone
(57)."""
ENCODE_MARGIN_MAX_M = 640
"""The most rows of A the encode margin was measured on."""
MMT4D_WORKGROUP_TILE = (64, 64)
"""The output tile (M, N) of one workgroup of IREE's CPU mmt4d dispatch: each
workgroup reads its rows of A and columns of B once."""


@dataclass(frozen=True)
class TilingDecision:
    """The target model's choice for one op: split (factor > 1), encode, both or neither."""

    encode: bool
    factor: int
    seconds: float
    reason: str

    @property
    def kind(self) -> str:
        if self.encode:
            return "split+encode" if self.factor > 1 else "encode"
        return "split" if self.factor > 1 else "none"


def _cpu_rates(p: Problem, target: Target) -> tuple[float, float]:
    """(data-tiled FLOP/s of one core for this element class, streaming bytes/s)."""
    from xsplit.target.cpu_info import host_cpu

    cpu = target.cpu or host_cpu()
    rate = cpu.f32_flops_per_core() * (2 if p.element_class != "f32" else 1)
    return rate, cpu.memory_bandwidth()


def _operand_bytes(p: Problem) -> list[int]:
    return [
        (p.m if spans_m else 1) * (p.n if spans_n else 1) * p.k * p.batch * p.input_bytes
        for spans_m, spans_n in p.spans
    ]


def encoded_seconds(problem: Problem, target: Target, factor: int) -> tuple[float, int]:
    """The modeled time of the data-tiled op cut into `factor` chunks (1: not
    split): the packs, the (batch_)mmt4d, the unpack and, when split, the
    partials and the merge. Returns the time and the mmt4d's workgroups."""
    p = problem
    rate, stream = _cpu_rates(p, target)
    operands = _operand_bytes(p)
    packs = PACK_PASSES * sum(operands) / stream + len(operands) * target.dispatch_overhead
    output_bytes = p.batch * p.m * p.n * p.acc_bytes
    wg_m, wg_n = MMT4D_WORKGROUP_TILE
    tiles = p.batch * ceildiv(p.m, wg_m) * ceildiv(p.n, wg_n)
    chunk = ceildiv(p.k, factor)
    workgroups = tiles * ceildiv(p.k, chunk)
    busy = min(target.processors, workgroups)
    flops = p.operations_per_point * p.batch * p.m * p.n * p.k
    # Each workgroup reads its rows of A and its columns of B: A once per
    # column of workgroups, B once per row.
    reads = sum(
        b * (ceildiv(p.n, wg_n) if spans_m and not spans_n else 1)
        * (ceildiv(p.m, wg_m) if spans_n and not spans_m else 1)
        for b, (spans_m, spans_n) in zip(operands, p.spans)
    )
    main = max(flops / (rate * busy), reads / (stream * READ_SPEEDUP))
    main += target.dispatch_overhead
    unpack = PACK_PASSES * output_bytes / stream + target.dispatch_overhead
    merge = 0.0
    if factor > 1:
        # The packed partials are written to fresh memory, read back, and
        # merged into the packed init (one more pack).
        merge = 2 * factor * output_bytes / stream
        merge += PACK_PASSES * output_bytes / stream + 2 * target.dispatch_overhead
    return packs + main + unpack + merge, workgroups


@lru_cache(maxsize=1024)
def _choose_tiling(problem: Problem, target: Target, processors: int) -> TilingDecision:
    plain = choose_split(problem, target)
    plain_kind = f"split in {plain.factor}" if plain.factor > 1 else "left whole"
    if not target.data_tiling:
        return TilingDecision(
            False, plain.factor, plain.chosen.seconds,
            f"{target.name} drops encodings; {plain.reason}",
        )
    # The split's time is the estimate split-k reports: one model, one number.
    plain_time = plain.chosen.seconds
    best_factor, best = 1, encoded_seconds(problem, target, 1)[0]
    seen: set[int] = set()
    for factor in range(2, min(problem.k, 512) + 1):
        chunk = ceildiv(problem.k, factor)
        if chunk in seen:
            continue
        seen.add(chunk)
        seconds = encoded_seconds(problem, target, factor)[0]
        if seconds < best * (1 - MIN_GAIN):
            best_factor, best = factor, seconds
    encoded_kind = f"encoded in {best_factor} chunks" if best_factor > 1 else "encoded"
    summary = (
        f"{problem.describe()} on {target.name}: {plain_kind} {_time(plain_time)}, "
        f"{encoded_kind} {_time(best)}"
    )
    margin = ENCODE_MARGIN if problem.m <= ENCODE_MARGIN_MAX_M else 1.0
    if best * margin < plain_time:
        kind = "split+encode" if best_factor > 1 else "encode"
        return TilingDecision(True, best_factor, best, f"{kind} chosen: {summary}")
    if best < plain_time:
        summary += (
            f"; encoding needs a modeled {margin:g}x gain up to {ENCODE_MARGIN_MAX_M} rows "
            "(the split was measured faster on every such shape)"
        )
    kind = "split" if plain.factor > 1 else "none"
    return TilingDecision(False, plain.factor, plain_time, f"{kind} chosen: {summary}")


def choose_tiling(problem: Problem, target: Target) -> TilingDecision:
    """The model's choice between no split, split, encode, and split plus encode."""
    return _choose_tiling(problem, target, target.processors)
