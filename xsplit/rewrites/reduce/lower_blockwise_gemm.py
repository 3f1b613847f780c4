"""`lower-blockwise-gemm`: the GEMM kernel's third stage. What a workgroup's
threads do together becomes what each thread does.

`xsplit_gemm.blockwise_copy`: thread t copies elements t, t + T, t + 2T, ...
of the tile, counted along the source's rows, so that neighbouring threads
read neighbouring addresses. All its loads come before its stores, so that
they are in flight together. An element outside the source reads nothing and
stores zero (an `scf.if` yielding the load or 0.0); the mask is left out
along a dimension the copy's size divides, since the op's offsets are
multiples of its sizes. With `vector = w` each load is one `vector.load`
of w elements (`ld.global.v4` for w = 4), masked as a whole, and stored
into the tile with one `vector.store` (a single 128-bit shared store, whose
alignment LLVM infers from the index: separate element stores it did not
always merge, e.g. f16 rows of 24 halves); with `transpose` its elements
are stored one by one, into w rows of the tile. With `swizzle` every store
goes to its element's swizzled place (`xsplit_gemm.swizzled`: the 16-byte
chunk XOR a phase of the row); with `kpack = p` each thread copies slices
of p rows x w columns (p loads of w), and stores each slice's elements
column by column, side by side in one row of the packed tile, 16 bytes a
`vector.store`.

`xsplit_gemm.blockwise_async_copy`: the same copies as
`nvgpu.device_async_copy`s (16 bytes, `bypassL1`, per vector of B; 4 bytes
per element of A, whose runs land in separate rows), a masked one reading
nothing (`srcElements` 0, its index clamped to 0) and writing zeros; one
`nvgpu.device_async_create_group` of them all, whose token replaces the op.
Along a dimension in `inside` nothing is masked (the K loop's whole steps:
each mask is a compare and selects a copy in the hot loop). With
`row_threads = s` thread t copies every s-th vector of rows t / s,
t / s + T / s, ...; with its rows inside, from a `memref.subview` at its
first vector, at constant places (`_row_run_copies`).

`xsplit_gemm.blockwise_reduce` (the fused reduction's epilogue): each
thread's partial per kept row or column (`threadwise_reduce`), then the
stage: one atomic (or partial) per thread; partials in workgroup memory,
a barrier, and one thread per output combining them; or shuffles / a
clustered `gpu.subgroup_reduce` within a subgroup, and where an output's
threads span subgroups their partials meet in workgroup memory.

`xsplit_gemm.blockwise_load` and `blockwise_store`: the two halves of
`blockwise_copy`, in the same order, through a private register buffer
(one row per vector): the loads (masked the same way) into it, and later
its values into the tile.

`xsplit_gemm.blockwise_gather`: per run of the tile a wavefront fills,
one `amdgpu.gather_to_lds` (4 bytes a lane) from the lane's place in the
source to the run's start, under an `scf.if` whose other branch stores
zeros where the lane is outside the source.

`xsplit_gemm.blockwise_gemm`: the staged K step unrolled; at each K
element the thread reads its registers' A and B values from the tiles
(`threadwise_read`) and adds their outer product (`threadwise_gemm`). The
register buffers are allocated at the start of the function, not in the
loop, so that LLVM can keep them in registers.

`xsplit_gemm.blockwise_stream_gemm`: the K step unrolled; at each K
element the thread loads its runs of B's row straight from global memory
(one `vector.load` a run; a run past B's columns reads B's last run, its
registers never written to C), reads its
rows of A from the tile (`threadwise_read` down its column: the same
word for every thread) and adds the outer product (`threadwise_gemm`).
Each place is the step's row or the thread's column plus a constant, so
that the loads take immediate offsets from one address.

`xsplit_gemm.blockwise_mma`: the staged K step unrolled in blocks of the
intrinsic's k; at each, the lane reads the A fragments of its warp's
block rows and the B fragments of its block columns once
(`threadwise_fragment`; B two blocks a load, `pair`, where the intrinsic
has a collective load), and issues one `threadwise_mma` per block of the
warp tile. Unrolled, the next block's fragment loads are free to issue
while the current block's multiply-adds run.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func, memref, vector
from xdsl.dialects.builtin import MemRefType, StridedLayoutAttr, VectorType
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.builder import Builder

from xsplit.dialects.xsplit_gemm import (
    BATCH_DIM,
    WAVE,
    BlockwiseAsyncCopyOp,
    BlockwiseCopyOp,
    BlockwiseGemmOp,
    BlockwiseGatherOp,
    BlockwiseLoadOp,
    BlockwiseStoreOp,
    BlockwiseStreamGemmOp,
    BlockwiseMmaOp,
    ThreadwiseFragmentOp,
    BlockwiseReduceOp,
    ThreadwiseGemmOp,
    ThreadwiseMmaOp,
    ThreadwiseReadOp,
    ThreadwiseReduceOp,
    swizzled,
)
from xsplit.rewrites.dsl import IRBuilder, Match, Pass, Pattern
from xsplit.dialects.nvgpu import DeviceAsyncCopyOp
from xsplit.dialects.vector import FromElementsOp
from xsplit.rewrites.reduce.kernel_ir import PRIVATE, WORKGROUP, KernelBuilder, element_bytes

VECTOR_BYTES = 16
"""Bytes per store of a K-packed slice: 128 bits."""


def _copy_items(kb: KernelBuilder, op, source: bool = True):
    """Each vector (or element) this thread copies: its place in the tile,
    in the source, and its mask (without `source`: its place in the tile
    only, and None for the rest)."""
    rows, cols = op.copy_sizes
    threads, w = op.thread_count, op.width
    if source:
        src_rows, src_cols = op.src.type.get_shape()  # type: ignore[attr-defined]
    runs = cols // w  # vectors per row of the copy
    # No mask along a dimension the copy is known inside of (`inside`); a
    # ragged copy masks along its rows per element (`_load_run`), not here.
    inside_dims = getattr(op, "inside_dims", ())
    ragged = getattr(op, "ragged", None) is not None
    # Along `clamp` a place past the source reads its last row or vector.
    clamp = getattr(op, "clamp_dims", ())
    mask_rows = source and src_rows % rows != 0 and 0 not in inside_dims
    mask_cols = source and src_cols % cols != 0 and 1 not in inside_dims and not ragged
    clamp_rows, clamp_cols = mask_rows and 0 in clamp, mask_cols and 1 in clamp
    mask_rows, mask_cols = mask_rows and not clamp_rows, mask_cols and not clamp_cols
    # When the threads cover whole rows, each thread keeps its column and
    # moves down threads / runs rows per vector: one div and rem in all.
    whole_rows = threads % runs == 0
    # When a row takes whole passes of the threads (a wide B tile, few
    # threads), item k's row and column are constants past the thread's
    # own column: no div or rem per vector, which LLVM cannot fold (sm_90
    # SASS on 1x2048x4097 f32, 16 threads: 5-7 address instructions a
    # cp.async).
    part_rows = not whole_rows and runs % threads == 0
    if whole_rows:
        first, j0 = kb.div(op.thread, runs), kb.mul(kb.rem(op.thread, runs), w)
    elif part_rows:
        first, j0 = None, kb.mul(op.thread, w)
    if (whole_rows or part_rows) and source:
        c0 = kb.add(op.col, j0)
        c0_in = kb.below(c0, src_cols) if mask_cols else None
    for item in range(rows * runs // threads):
        if whole_rows:
            i, j = kb.add(first, item * threads // runs), j0
            if source:
                c, c_in = c0, c0_in
        elif part_rows:
            i, step = item * threads // runs, item * threads % runs * w
            j = kb.add(j0, step)
            if source:
                c = kb.add(c0, step)
                c_in = kb.below(c, src_cols) if mask_cols and step else c0_in
        else:
            flat = kb.add(op.thread, item * threads)
            i, j = kb.div(flat, runs), kb.mul(kb.rem(flat, runs), w)
            if source:
                c = kb.add(op.col, j)
                c_in = kb.below(c, src_cols) if mask_cols else None
        if not source:
            yield i, j, None, None, None
            continue
        r = kb.add(op.row, i)
        if clamp_rows:
            r = kb.min(r, src_rows - 1)
        if clamp_cols:
            c = kb.min(c, src_cols - w)
        inside = kb.both(kb.below(r, src_rows) if mask_rows else None, c_in)
        # A generator: each item's index arithmetic sits next to its load.
        yield i, j, r, c, inside


def _load_run(kb: KernelBuilder, op, r, c, inside) -> list[SSAValue]:
    """The w elements at `src[r, c:c + w]`, zero outside the source, where
    `inside` (None: always) is the row's mask. A `ragged` copy (rows not
    whole vectors) loads every vector at once, at `min(c, columns - w)`,
    so that none reads past its row: a vector inside the row is loaded
    where it is; the one that straddles the row's end is loaded ending at
    it, and its elements move down by a shift known here (the copy's
    columns start at multiples of w, so every straddling vector starts
    w - columns % w before the end); one past the end is zeros. Selects,
    not branches: the 16-byte load stays one load in the K loop."""
    w = op.width
    if w == 1:
        return [kb.load_or_zero(op.src, [r, c], inside)]
    if getattr(op, "ragged", None) is None or 1 in op.inside_dims:
        return kb.load_vector_or_zero(op.src, [r, c], w, inside)
    src_cols = op.src.type.get_shape()[1]  # type: ignore[attr-defined]
    if src_cols < w:  # no whole vector fits in a row: element by element
        return [
            kb.load_or_zero(op.src, [r, x], kb.both(inside, kb.below(x, src_cols)))
            for x in (kb.add(c, e) for e in range(w))
        ]
    tail = src_cols % w  # elements of the straddling vector inside the row
    loaded = kb.load_vector_or_zero(op.src, [r, kb.min(c, src_cols - w)], w, inside)
    whole = kb.below(kb.add(c, w), src_cols + 1)
    if 1 in getattr(op, "clamp_dims", ()):
        # Columns past the row's end need no zeros (they make only C
        # elements never written): the first `tail` move down where the
        # vector straddles, the rest stay what was loaded; one select per
        # moved element where zeroing took two per element (gfx942 ISA,
        # 3x100x2048 f16: 192 v_cndmask in 771 instructions of the K loop).
        # One select of the whole vector: LLVM makes it a v_cndmask per
        # 32-bit word, where selects per 16-bit element were packed back
        # with shifts and v_perm_b32.
        t = VectorType(loaded[0].type, [w])
        moved = [loaded[e + w - tail] if e < tail else loaded[e] for e in range(w)]
        as_is, shifted = (kb.insert(FromElementsOp(v, t)).results[0] for v in (loaded, moved))
        picked = kb.insert(arith.SelectOp(whole, as_is, shifted)).results[0]
        element = t.element_type
        return [kb.insert(vector.ExtractOp(picked, [e], element)).results[0] for e in range(w)]
    straddles = kb.below(c, src_cols)
    zero = kb.zero(loaded[0].type)
    out = []
    for e in range(w):
        edge = kb.select(straddles, loaded[e + w - tail], zero) if e < tail else zero
        out.append(kb.select(whole, loaded[e], edge))
    return out


def _place(kb: KernelBuilder, op, at: list) -> list:
    """Where tile element `at` of a copy lives: swizzled with `swizzle`."""
    if getattr(op, "swizzle", None) is None:
        return at
    size = op.tile.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    row_length = op.tile.type.get_shape()[1]  # type: ignore[attr-defined]
    return list(swizzled(kb, at[0], at[1], row_length, size))


def _slices(kb: KernelBuilder, op, source: bool = True):
    """A K-packed copy's slices this thread copies (kpack rows x `vector`
    columns; thread t takes slices t, t + T, ... along the rows of
    slices): its row of the packed tile, its first column of the copy,
    and, with `source`, per row of the slice its place in the source and
    its mask."""
    rows, cols = op.copy_sizes
    kp, w, threads = op.kpack_size, op.width, op.thread_count
    runs = cols // w
    if source:
        src_rows, src_cols = op.src.type.get_shape()  # type: ignore[attr-defined]
        inside = getattr(op, "inside_dims", ())
        src_rows = rows if 0 in inside else src_rows
        # A ragged copy masks along its rows per element (`_load_run`).
        if 1 in inside or getattr(op, "ragged", None) is not None:
            src_cols = cols
        clamp_cols = src_cols % cols != 0 and 1 in getattr(op, "clamp_dims", ())
    for item in range(rows // kp * runs // threads):
        flat = kb.add(op.thread, item * threads)
        g, j = kb.div(flat, runs), kb.mul(kb.rem(flat, runs), w)
        if not source:
            yield g, j, None
            continue
        c = kb.add(op.col, j)
        c_in = kb.below(c, src_cols) if src_cols % cols and not clamp_cols else None
        if clamp_cols:
            c = kb.min(c, src_cols - w)
        at = []
        for e in range(kp):
            r = kb.add(op.row, kb.add(kb.mul(g, kp), e))
            at.append((r, c, kb.both(kb.below(r, src_rows) if src_rows % rows else None, c_in)))
        yield g, j, at


def _load_slice(kb: KernelBuilder, op, at) -> list[SSAValue]:
    """A slice's elements, column by column (K-packed order)."""
    w = op.width
    rows = [_load_run(kb, op, r, c, inside) for r, c, inside in at]
    return [rows[e][x] for x in range(w) for e in range(len(rows))]


def _store_slice(kb: KernelBuilder, op, values: list[SSAValue], g, j) -> None:
    """A slice's elements side by side in its packed row, 16 bytes a store."""
    size = op.tile.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    per = VECTOR_BYTES // size
    for start in range(0, len(values), per):
        at = [g, kb.add(kb.mul(j, op.kpack_size), start)]
        kb.store_vector(values[start : start + per], op.tile, at)


def lower_copy(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseCopyOp)
    kb = KernelBuilder(ir.b)
    w = op.width
    if op.kpack is not None:
        slices = [(g, j, _load_slice(kb, op, at)) for g, j, at in _slices(kb, op)]
        for g, j, values in slices:
            _store_slice(kb, op, values, g, j)
        return []
    staged = []
    for i, j, r, c, inside in _copy_items(kb, op):
        values = _load_run(kb, op, r, c, inside)
        if w > 1 and not op.transpose:
            staged.append((values, [i, j]))
            continue
        for e, value in enumerate(values):
            je = kb.add(j, e)
            staged.append(([value], [je, i] if op.transpose else [i, je]))
    for values, at in staged:
        if len(values) > 1:
            kb.store_vector(values, op.tile, _place(kb, op, at))
        else:
            kb.store(values[0], op.tile, _place(kb, op, at))
    return []


def lower_load(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseLoadOp)
    kb = KernelBuilder(ir.b)
    w = op.width
    if op.kpack is not None:
        for item, (_, _, at) in enumerate(_slices(kb, op)):
            for e, value in enumerate(_load_slice(kb, op, at)):
                kb.store(value, op.regs, [item, e])
        return []
    for item, (_, _, r, c, inside) in enumerate(_copy_items(kb, op)):
        values = _load_run(kb, op, r, c, inside)
        for e, value in enumerate(values):
            kb.store(value, op.regs, [item, e])
    return []


def lower_store(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseStoreOp)
    kb = KernelBuilder(ir.b)
    if op.kpack is not None:
        per = op.width * op.kpack_size
        for item, (g, j, _) in enumerate(_slices(kb, op, source=False)):
            _store_slice(kb, op, [kb.load(op.regs, [item, e]) for e in range(per)], g, j)
        return []
    for item, (i, j, _, _, _) in enumerate(_copy_items(kb, op, source=False)):
        values = [kb.load(op.regs, [item, e]) for e in range(op.width)]
        if op.width > 1 and not op.transpose:
            # As blockwise_copy does: one vector store, whose alignment LLVM sees.
            kb.store_vector(values, op.tile, _place(kb, op, [i, j]))
            continue
        for e, value in enumerate(values):
            je = kb.add(j, e)
            kb.store(value, op.tile, [je, i] if op.transpose else _place(kb, op, [i, je]))
    return []


def lower_gather(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseGatherOp)
    kb = KernelBuilder(ir.b)
    rows, cols = op.tile.type.get_shape()  # type: ignore[attr-defined]
    src_rows, src_cols = op.src.type.get_shape()  # type: ignore[attr-defined]
    e = op.per_lane
    run = WAVE * e
    waves = op.thread_count // WAVE
    wave, lane = kb.div(op.thread, WAVE), kb.rem(op.thread, WAVE)
    mine = kb.mul(lane, e)
    for item in range(rows * cols // (run * waves)):
        # The run's first element (the same for the whole wavefront: where
        # its load lands) and this lane's first element in it.
        start = kb.add(kb.mul(wave, run), item * waves * run)
        flat = kb.add(start, mine)
        i, j = kb.div(flat, cols), kb.rem(flat, cols)
        r, c = kb.add(op.row, i), kb.add(op.col, j)
        inside = kb.both(
            kb.below(r, src_rows) if src_rows % rows else None,
            kb.below(c, src_cols) if src_cols % cols else None,
        )
        to = [kb.div(start, cols), kb.rem(start, cols)]

        def load(body: KernelBuilder, r=r, c=c, to=to) -> None:
            body.gather_to_lds(op.src, [r, c], op.tile, to, e)

        def zeros(body: KernelBuilder, i=i, j=j) -> None:
            element = op.tile.type.element_type  # type: ignore[attr-defined]
            for x in range(e):
                body.store(body.zero(element), op.tile, [i, body.add(j, x)])

        if inside is None:
            load(kb)
        else:
            kb.if_else(inside, load, zeros)
    return []


def _row_run_copies(kb: KernelBuilder, op: BlockwiseAsyncCopyOp) -> list[SSAValue]:
    """`row_threads = s`: thread t copies vectors t % s, t % s + s, ... of
    rows t / s, t / s + T / s, ... Where no row is masked (the K loop's
    whole steps) the copies read a view that starts at the thread's first
    vector, at constant places in it: LLVM folds each into the copy's
    immediate offset, one address a row (sm_90 SASS on 8x4096x14339 f16:
    2 address instructions a LDGSTS before, 2 for all 8 of a row after).
    With columns masked the copies address the source itself, clamped as
    `_copy_items`'s are: a view reaching past the source's columns would be
    out of bounds, which MLIR forbids. With rows masked each pass of rows
    reads a view of its own, at the pass's row clamped into the source."""
    rows, cols = op.copy_sizes
    w, threads, share = op.width, op.thread_count, op.row_thread_count
    assert share is not None
    src_rows, src_cols = op.src.type.get_shape()  # type: ignore[attr-defined]
    runs, per_pass = cols // w, threads // share
    mask_rows = src_rows % rows != 0 and 0 not in op.inside_dims
    mask_cols = src_cols % cols != 0 and 1 not in op.inside_dims
    tr, tv = kb.div(op.thread, share), kb.mul(kb.rem(op.thread, share), w)
    r0, c0 = kb.add(op.row, tr), kb.add(op.col, tv)
    view = None
    # A thread with one row (one pass of the threads covers the copy's
    # rows) masks all its copies by that row: its view starts at the row
    # clamped into the source, and a masked copy reads nothing from it
    # (A's rows past a skinny M, 16x64x128 on one warp: 20 address
    # instructions fewer a loop on 7x96x2048).
    one_row = rows == per_pass
    if not mask_cols and (not mask_rows or one_row):
        span = [(rows // per_pass - 1) * per_pass + 1, cols - share * w + w]
        layout = StridedLayoutAttr([src_cols, 1], None)
        t = MemRefType(op.src.type.element_type, span, layout)  # type: ignore[attr-defined]
        at = [kb.c(kb.min(r0, src_rows - 1) if mask_rows else r0), kb.c(c0)]
        view = kb.insert(memref.SubviewOp.get(op.src, at, span, [1, 1], t)).results[0]
        count = kb.select(kb.below(r0, src_rows), w, 0) if mask_rows else None
    elif mask_cols:
        # A run's column and its mask are the same in every pass of rows.
        places = [kb.add(c0, run * share * w) for run in range(runs // share)]
        masks = [kb.below(c, src_cols) for c in places]
    # Several passes of rows with rows masked: a view a pass, at the pass's
    # row clamped into the source, each masking its row's copies at once
    # (sm_90 SASS on 1686x8x7453 f32, A's 4-byte copies on an odd K: a
    # select and a 64-bit address a copy before, 62% FFMA; 80% after).
    pass_views = not mask_cols and view is None
    tokens = []
    for pass_ in range(rows // per_pass):
        if pass_views:
            r = kb.add(r0, pass_ * per_pass)
            span = [1, cols - share * w + w]
            layout = StridedLayoutAttr([src_cols, 1], None)
            t = MemRefType(op.src.type.element_type, span, layout)  # type: ignore[attr-defined]
            at = [kb.c(kb.min(r, src_rows - 1)), kb.c(c0)]
            row_view = kb.insert(memref.SubviewOp.get(op.src, at, span, [1, 1], t)).results[0]
            row_count = kb.select(kb.below(r, src_rows), w, 0)
        for run in range(runs // share):
            di, dj = pass_ * per_pass, run * share * w
            to = _place(kb, op, [kb.add(tr, di), kb.add(tv, dj)])
            if view is not None or pass_views:
                src, at, n = (view, [di, dj], count) if view is not None else (
                    row_view, [0, dj], row_count
                )
                copy = DeviceAsyncCopyOp(
                    src, [kb.c(x) for x in at], op.tile, [kb.c(x) for x in to], w, n,
                    bypass_l1=w * element_bytes(op.src) == 16,
                )  # fmt: skip
                tokens.append(kb.insert(copy).results[0])
                continue
            r = kb.add(r0, di)
            inside = kb.both(kb.below(r, src_rows) if mask_rows else None, masks[run])
            tokens.append(kb.async_copy(op.src, [r, places[run]], op.tile, to, w, inside))
    return tokens


def lower_async_copy(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseAsyncCopyOp)
    kb = KernelBuilder(ir.b)
    w = op.width
    if op.row_thread_count is not None:
        return [kb.async_group(_row_run_copies(kb, op))]
    tokens = []
    for i, j, r, c, inside in _copy_items(kb, op):
        if op.transpose:
            # The run lands in w rows of the tile: one 4-byte copy per element.
            for e in range(w):
                ce = kb.add(c, e)
                to = [kb.add(j, e), i]
                tokens.append(kb.async_copy(op.src, [r, ce], op.tile, to, 1, inside))
        else:
            to = _place(kb, op, [i, j])
            tokens.append(kb.async_copy(op.src, [r, c], op.tile, to, w, inside))
    return [kb.async_group(tokens)]


def _entry(op) -> KernelBuilder:
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    assert fn is not None
    return KernelBuilder(Builder(InsertPoint.at_start(fn.body.block)))


def lower_gemm(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseGemmOp)
    kb = KernelBuilder(ir.b)
    rm, rn = op.acc.type.get_shape()  # type: ignore[attr-defined]
    thm, thn = op.thread_counts
    entry = _entry(op)
    a_regs = entry.alloc([rm], PRIVATE, "a_regs")
    b_regs = entry.alloc([rn], PRIVATE, "b_regs")
    # With one thread along N (or M) its index folds to the constant 0:
    # the read ops take values.
    g = op.column_run
    tm = kb.c(kb.div(op.thread, thn))
    tn = kb.c(kb.mul(kb.rem(op.thread, thn), g))

    def k_element(body: KernelBuilder, kk: SSAValue) -> None:
        if op.a_m_major is not None:
            body.insert(ThreadwiseReadOp(op.a, tm, kk, a_regs, thm, down=True))  # type: ignore[arg-type]
        else:
            body.insert(ThreadwiseReadOp(op.a, kk, tm, a_regs, thm))  # type: ignore[arg-type]
        body.insert(ThreadwiseReadOp(op.b, kk, tn, b_regs, thn * g, group=g))  # type: ignore[arg-type]
        body.insert(ThreadwiseGemmOp(op.acc, a_regs, b_regs))

    # The K step unrolled: every read's place is a constant offset, so
    # that neighbouring K of a row of A merge into vector reads, and one
    # barrier covers the whole step's FMAs.
    for kk in range(op.steps):
        k_element(kb, kb.c(kk))
    return []


def lower_stream_gemm(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseStreamGemmOp)
    kb = KernelBuilder(ir.b)
    rm, rn = op.acc.type.get_shape()  # type: ignore[attr-defined]
    k_rows, n_cols = op.b.type.get_shape()  # type: ignore[attr-defined]
    g, t = op.width, op.thread_count
    entry = _entry(op)
    a_regs = entry.alloc([rm], PRIVATE, "a_regs")
    b_regs = entry.alloc([rn], PRIVATE, "b_regs")
    first = kb.c(kb.add(op.col, kb.mul(op.thread, g)))
    cols = [kb.c(kb.add(first, r * t * g)) for r in range(rn // g)]
    if n_cols % (rn * t):
        # A run past B's columns reads B's last run instead, unmasked: its
        # registers are never written (`threadwise_write` masks them), and
        # no branch per load stays in the loop (gfx942: 512 VGPRs and
        # spills with them).
        cols = [kb.min(c, n_cols - g) for c in cols]
    for kk in range(op.steps):
        row = kb.c(kb.add(op.row, kk))
        row_in = kb.below(row, k_rows) if op.ragged_k is not None else None
        for r, c in enumerate(cols):
            inside = row_in
            if g == 1:
                values = [kb.load_or_zero(op.b, [row, c], inside)]
            else:
                values = kb.load_vector_or_zero(op.b, [row, c], g, inside)
            for e, v in enumerate(values):
                kb.store(kb.extf(v), b_regs, [r * g + e])
        kb.insert(ThreadwiseReadOp(op.a, kb.c(0), kb.c(kk), a_regs, 1, down=True))
        kb.insert(ThreadwiseGemmOp(op.acc, a_regs, b_regs))
    return []


def lower_mma(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, BlockwiseMmaOp)
    kb = KernelBuilder(ir.b)
    intr = op.intrinsic
    fm, fn, _ = op.acc.type.get_shape()  # type: ignore[attr-defined]
    _, wn = op.warp_counts
    warp, lane = kb.div(op.thread, intr.lanes), kb.rem(op.thread, intr.lanes)
    row = kb.mul(kb.div(warp, wn), fm * intr.m)
    col = kb.mul(kb.rem(warp, wn), fn * intr.n)

    def k_block(body: KernelBuilder, kk: SSAValue) -> None:
        at = lambda base, i, size: body.c(body.add(base, i * size))  # noqa: E731
        me = body.c(lane)
        sa, sb, kp = op.a_swizzle is not None, op.b_swizzle is not None, op.b_kpack_size
        a = [
            body.insert(
                ThreadwiseFragmentOp(op.a, at(row, i, intr.m), kk, me, intr.name, "a", swizzle=sa)
            )
            for i in range(fm)
        ]
        # Two blocks' B fragments in one collective load where there is one
        # (ldmatrix.x4.trans: half the loads of x2).
        pair = intr.b.matrix_load is not None and kp == 1 and fn % 2 == 0
        per = 2 if pair else 1
        b = [
            body.insert(
                ThreadwiseFragmentOp(
                    op.b, kk, at(col, j, intr.n), me, intr.name, "b", swizzle=sb, kpack=kp,
                    pair=pair,
                )
            )
            for j in range(0, fn, per)
        ]
        for name, frags in (("a_frag", a), ("b_frag", b)):
            for f in frags:
                f.results[0].name_hint = name
        for i in range(fm):
            for j in range(fn):
                half = j % 2 if pair else None
                frag = b[j // per].results[0]
                body.insert(ThreadwiseMmaOp(a[i].results[0], frag, op.acc, intr.name, (i, j), half))

    for kk in range(0, op.steps, intr.k):
        k_block(kb, kb.c(kk))
    return []


def lower_reduce(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    """The fused reduction's epilogue (`blockwise_reduce`): each thread's
    partial per kept row (`threadwise_reduce`), then per stage the threads
    sharing an output combine and merge it. The reduced axis is N (`dim`
    1: the threads sharing a row are `threads[1]` consecutive lanes) or M
    (`dim` 0: `threads[0]` lanes `threads[1]` apart)."""
    op = m.root
    assert isinstance(op, BlockwiseReduceOp)
    if op.dim.value.data == BATCH_DIM:
        return _each_element_its_own(op, KernelBuilder(ir.b))
    kb = KernelBuilder(ir.b)
    rm, rn = op.acc.type.get_shape()  # type: ignore[attr-defined]
    thm, thn = op.thread_counts
    threads = thm * thn
    big_m, big_n = op.extents
    method, stage = op.method.data, op.stage.data
    partials = op.merge.data == "partials"
    t_m, t_n = kb.div(op.thread, thn), kb.rem(op.thread, thn)
    for v, hint in ((t_m, "tm"), (t_n, "tn")):
        if isinstance(v, SSAValue):
            v.name_hint = hint
    if op.dim.value.data == 1:
        q_t, q_regs, q_threads, q_base, q_extent = t_m, rm, thm, op.row, big_m
        r_t, r_regs, r_threads, r_base, r_extent, lane_stride = t_n, rn, thn, op.col, big_n, 1
    else:
        q_t, q_regs, q_threads, q_base, q_extent = t_n, rn, thn, op.col, big_n
        r_t, r_regs, r_threads, r_base, r_extent, lane_stride = t_m, rm, thm, op.row, big_m, thn
    q_tile, r_tile = q_regs * q_threads, r_regs * r_threads
    entry = _entry(op)
    parts = entry.alloc([q_regs], PRIVATE, "parts")
    row, col = kb.add(op.row, t_m), kb.add(op.col, t_n)
    kb.insert(ThreadwiseReduceOp(op.acc, parts, row, col, op.c, op))
    values = [kb.load(parts, [u]) for u in range(q_regs)]
    q_local = [kb.add(q_t, u * q_threads) for u in range(q_regs)]
    q_at = [kb.add(q_base, x) for x in q_local]
    q_in = [kb.below(x, q_extent) if q_extent % q_tile else None for x in q_at]
    tile_index = kb.div(r_base, r_tile)  # the workgroup's tile along the reduced axis
    if isinstance(tile_index, SSAValue):
        tile_index.name_hint = "tile"
    out_rank = len(op.out.type.get_shape())  # type: ignore[attr-defined]

    def finish(body: KernelBuilder, value: SSAValue, e, chunk) -> None:
        if partials:
            body.store(value, op.out, [chunk, e])
            return
        # A kept dimension of 1 sits where C's reduced dimension was.
        at = [e] if out_rank == 1 else ([e, 0] if op.dim.value.data == 1 else [0, e])
        body.atomic(method, value, op.out, at)

    def one_per_output(slots: int, tile: SSAValue) -> None:
        """After a barrier, thread e < q_tile combines row e of `tile` and
        merges it: one atomic (or partial) per output and workgroup."""

        def lead(body: KernelBuilder) -> None:
            total = body.load(tile, [op.thread, 0])
            for s in range(1, slots):
                total = body.combine(method, total, body.load(tile, [op.thread, s]))
            e = body.add(q_base, op.thread)
            inside = body.below(e, q_extent) if q_extent % q_tile else None
            body.if_(inside, lambda b: finish(b, total, e, tile_index))

        kb.barrier()
        kb.if_(kb.below(op.thread, q_tile) if q_tile < threads else None, lead)

    if stage == "atomic":
        chunk = kb.add(kb.mul(tile_index, r_threads), r_t) if partials else None
        # A thread none of whose elements along the axis are in C has
        # nothing to add; its partial (the identity) is still stored.
        touched = (
            kb.below(kb.add(r_base, r_t), r_extent) if not partials and r_extent % r_tile else None
        )
        for u in range(q_regs):
            kb.if_(
                kb.both(q_in[u], touched),
                lambda b, u=u: finish(b, values[u], q_at[u], chunk),
            )
        return []
    if stage == "lds":
        red = entry.alloc([q_tile, r_threads], WORKGROUP, "red_tile")
        for u in range(q_regs):
            kb.store(values[u], red, [q_local[u], r_t])
        one_per_output(r_threads, red)
        return []
    # subgroup: the lanes of one output within a subgroup combine in
    # registers; where its threads span subgroups (case 3.2 of the RFC),
    # the subgroups' partials meet in workgroup memory.
    width = op.subgroup.value.data
    lanes = 1 if lane_stride >= width else min(r_threads, width // lane_stride)
    totals = []
    cluster = op.exchange.data == "cluster"
    for v in values:
        totals.append(kb.subgroup_combine(method, v, lanes, width, cluster, lane_stride))
    if lanes == r_threads:  # case 3.1: the first lane of the output merges it
        leader = kb.below(r_t, 1)

        def merge(body: KernelBuilder) -> None:
            for u in range(q_regs):
                body.if_(q_in[u], lambda b, u=u: finish(b, totals[u], q_at[u], tile_index))

        kb.if_(leader, merge)
        return []
    leader = kb.below(kb.rem(r_t, lanes), 1) if lanes > 1 else None
    slots = r_threads // lanes
    wave = entry.alloc([q_tile, slots], WORKGROUP, "wave_tile")
    slot = kb.div(r_t, lanes)

    def put(body: KernelBuilder) -> None:
        for u in range(q_regs):
            body.store(totals[u], wave, [q_local[u], slot])

    kb.if_(leader, put)
    one_per_output(slots, wave)
    return []


def _each_element_its_own(op: BlockwiseReduceOp, kb: KernelBuilder) -> Sequence[SSAValue]:
    """Along the batch: every element of the tile is its own output, which
    this thread merges alone, an atomic into `out[m, n]` or a store into
    the batch's partials at [m, n]; nothing is exchanged."""
    rm, rn = op.acc.type.get_shape()  # type: ignore[attr-defined]
    thm, thn = op.thread_counts
    big_m, big_n = op.extents
    method = op.method.data
    t_m, t_n = kb.div(op.thread, thn), kb.rem(op.thread, thn)
    row, col = kb.add(op.row, t_m), kb.add(op.col, t_n)
    values = _entry(op).alloc([rm, rn], PRIVATE, "parts")
    kb.insert(ThreadwiseReduceOp(op.acc, values, row, col, op.c, op))
    out_rank = len(op.out.type.get_shape())  # type: ignore[attr-defined]
    cols = [kb.add(col, j * thn) for j in range(rn)]
    cols_in = [kb.below(n, big_n) if big_n % (rn * thn) else None for n in cols]
    for i in range(rm):
        m_at = kb.add(row, i * thm)
        m_in = kb.below(m_at, big_m) if big_m % (rm * thm) else None
        for j, (n_at, n_in) in enumerate(zip(cols, cols_in)):

            def finish(body: KernelBuilder, i=i, j=j, m_at=m_at, n_at=n_at) -> None:
                value = body.load(values, [i, j])
                at = [*([0] * (out_rank - 2)), m_at, n_at]
                if op.merge.data == "partials":
                    body.store(value, op.out, at)
                    return
                body.atomic(method, value, op.out, at)

            kb.if_(kb.both(m_in, n_in), finish)
    return []


LOWER_REDUCE = Pattern(
    name="lower-blockwise-reduce",
    doc="a workgroup's reduction of its C tile becomes each thread's partials, combined by "
    "the stage: atomics, workgroup memory, or subgroup exchanges",
    root=BlockwiseReduceOp,
    rewrite=lower_reduce,
)

LOWER_COPY = Pattern(
    name="lower-blockwise-copy",
    doc="a workgroup's staged copy becomes each thread's masked loads, then its stores",
    root=BlockwiseCopyOp,
    rewrite=lower_copy,
)

LOWER_ASYNC_COPY = Pattern(
    name="lower-blockwise-async-copy",
    doc="a workgroup's asynchronous staged copy becomes each thread's masked cp.async copies, "
    "in one group",
    root=BlockwiseAsyncCopyOp,
    rewrite=lower_async_copy,
)

LOWER_LOAD = Pattern(
    name="lower-blockwise-load",
    doc="the load half of a split staged copy becomes each thread's masked loads into its "
    "registers",
    root=BlockwiseLoadOp,
    rewrite=lower_load,
)

LOWER_STORE = Pattern(
    name="lower-blockwise-store",
    doc="the store half of a split staged copy becomes each thread's stores of its registers "
    "into the tile",
    root=BlockwiseStoreOp,
    rewrite=lower_store,
)

LOWER_GATHER = Pattern(
    name="lower-blockwise-gather",
    doc="a workgroup's direct-to-LDS copy becomes each wavefront's amdgpu.gather_to_lds runs, "
    "zeros where a lane is outside the source",
    root=BlockwiseGatherOp,
    rewrite=lower_gather,
)

LOWER_GEMM = Pattern(
    name="lower-blockwise-gemm",
    doc="a workgroup's multiply of staged tiles becomes each thread's K loop of register reads "
    "and outer products",
    root=BlockwiseGemmOp,
    rewrite=lower_gemm,
)

LOWER_STREAM_GEMM = Pattern(
    name="lower-blockwise-stream-gemm",
    doc="a K step with B streamed into registers becomes its unrolled loads, reads of A and "
    "outer products",
    root=BlockwiseStreamGemmOp,
    rewrite=lower_stream_gemm,
)

LOWER_MMA = Pattern(
    name="lower-blockwise-mma",
    doc="a workgroup's tensor-core multiply of staged tiles becomes each lane's K loop of "
    "fragment reads and warp-level multiply-adds",
    root=BlockwiseMmaOp,
    rewrite=lower_mma,
)

LOWER_BLOCKWISE_GEMM = Pass(
    "lower-blockwise-gemm",
    "Lowers xsplit_gemm's blockwise ops to each thread's loads, stores and threadwise ops.",
    [
        LOWER_COPY, LOWER_ASYNC_COPY, LOWER_LOAD, LOWER_STORE, LOWER_GATHER, LOWER_GEMM, LOWER_MMA,
        LOWER_STREAM_GEMM, LOWER_REDUCE,
    ],  # fmt: skip
)

__all__ = ["LOWER_BLOCKWISE_GEMM"]
