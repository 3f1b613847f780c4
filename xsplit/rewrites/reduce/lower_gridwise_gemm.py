"""`lower-gridwise-gemm`: the GEMM kernel's second stage. A gridwise op
becomes what one workgroup does, in blockwise and threadwise ops.

`xsplit_gemm.gridwise_gemm`: workgroup (x, y, z) owns the C tile at
(y * tile_m, x * tile_n) and K chunk z. Its threads zero their register
tiles, then step through the chunk `tile_k` elements at a time: stage the
step's A tile (stored K-major, so that each thread's registers are a row of
it) and B tile in workgroup memory, wait, multiply them into the registers,
wait again before the next step overwrites them. Last, each thread's
registers go to C by the op's merge (`threadwise_write`).

With `stages = 2` the staging is double-buffered with asynchronous copies
(`blockwise_async_copy`, then `nvgpu.device_async_wait` and a barrier before
each multiply; see `_double_buffered`) or, with `register_prefetch`,
through registers (`blockwise_load` before each multiply, `blockwise_store`
after it, one barrier a step; see `_register_prefetched`) or, with
`direct_to_lds`, with direct-to-LDS loads (`blockwise_gather`; see
`_direct_to_lds`). With `stream_b` only A is staged and B goes from global
memory into registers (`blockwise_stream_gemm`; see `stream_loop.py`).

Each copy loads 128 bits at a time (`vector = 4` for f32, 8 for f16) where
the source's rows are whole vectors and the threads divide the copy in
vectors. The tiles hold the operands' element types (f16 stays f16 in
workgroup memory; `threadwise_read` extends it).

A is staged M-major, as it is in memory (K contiguous): its copies are
plain row copies (128-bit, or 16-byte cp.async), and its rows are padded
(`a_row_pad`) so that the rows a warp reads at once sit in different banks.
With `a_k_major` it is staged transposed, as the fused text kernel does,
with rows padded (`a_pad`) against the conflicts of its transposed stores.

With `mma` (tensor cores) the warps lay over the C tile: warp w owns the
warp tile at ((w / warps_n) * wtm, (w % warps_n) * wtn), wtm x wtn =
tile / warps, as fm x fn blocks of the intrinsic's m x n; each lane's
accumulator is a private fm x fn x (its C fragment) buffer. The multiply is
`blockwise_mma`, the write `threadwise_write_fragments`. A stays M-major.
The tiles are XOR-swizzled (`swizzles`) so that both the 128-bit stores and
a warp's reads of its fragments (each 8x8 matrix of an `ldmatrix`) hit
distinct banks, or, where their rows are not a power of two of 16-byte
chunks, padded (`fragment_pad`) for the reads. gfx942's B tile is K-packed
instead (`b_kpack`): a lane's four K of one column are one 64-bit read.

`xsplit_gemm.merge_partials`: one thread per element of C, which adds the
partials in chunk order to C's value (grid x along N, y along M).
`xsplit_gemm.pad_rows`: one thread per element of the widened copy, which
loads its source element (zero past the source's rows) and stores it.

`xsplit_gemm.gridwise_gemm_reduce` (the fused GEMM + reduction): the same K
loop, then `blockwise_reduce` in place of the write; with `mma` the C
fragments first go through a workgroup-memory C tile into each thread's
register tile (`threadwise_write_fragments` merge `tile`, a barrier,
`threadwise_read_tile`). Its A lying K x M (`a_transposed`) or B
lying N x K (`b_transposed`) is copied as it lies into the same tiles
(`_transposed_copies`); reduced along the batch (`dim` 2) its epilogue
merges each element alone. `merge_reduced`: one thread per output element,
which combines the partials in chunk order with the output's value (a
matrix output's rows on grid y).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xsplit.dialects.fragments import NUMPY, Fragment, fragment_matrix
from xsplit.dialects.xsplit_gemm import (
    BlockwiseAsyncCopyOp,
    BlockwiseCopyOp,
    BlockwiseGatherOp,
    BlockwiseGemmOp,
    BlockwiseLoadOp,
    BlockwiseStoreOp,
    BlockwiseMmaOp,
    BlockwiseReduceOp,
    GridwiseGemmOp,
    GridwiseGemmReduceOp,
    MergePartialsOp,
    MergeReducedOp,
    PadRowsOp,
    ThreadwiseFillOp,
    ThreadwiseReadTileOp,
    ThreadwiseWriteFragmentsOp,
    ThreadwiseWriteOp,
    async_width,
    front_pad,
    register_shape,
    swizzle_fits,
)
from xsplit.rewrites.dsl import IRBuilder, Match, Pass, Pattern
from xsplit.rewrites.reduce.b_rows import masked_row_threads, row_threads, shifted_last_tile
from xsplit.rewrites.reduce.kernel_ir import PRIVATE, WORKGROUP, KernelBuilder, element_bytes
from xsplit.rewrites.reduce.stream_loop import streamed_b_loop
from xsplit.rewrites.reduce.workgroup_loops import (
    LOWER_GRIDWISE_REDUCE_WORKGROUP,
    LOWER_MERGE_REDUCED_WORKGROUP,
)

BANKS = 32
"""Workgroup-memory banks of 4 bytes (NVIDIA; gfx942's LDS has 32 too)."""


def element(v: SSAValue):
    return v.type.element_type  # type: ignore[attr-defined]


def a_row_pad(step_k: int, element_size: int, threads_n: int) -> int:
    """Elements of padding per row of an M-major A tile: rows stay whole
    16-byte vectors (128-bit copies, 16-byte cp.async), and the 32 /
    threads_n rows a warp reads at once (its threads' first registers) fall
    in different banks: reads of one word by many threads are a broadcast,
    two words in one bank a conflict."""
    step = 16 // element_size
    rows = max(1, BANKS // threads_n)
    best, spread = 0, 0
    # Whole vectors make at most 8 distinct banks out of 4-word rows: where
    # more rows meet (threads_n < 4), the fewest conflicts is what there is.
    for pad in range(-step_k % step, 2 * BANKS * 4 // element_size, step):
        words = (step_k + pad) * element_size // 4
        distinct = len({r * words % BANKS for r in range(rows)})
        if distinct > spread:
            best, spread = pad, distinct
        if distinct == rows:
            break
    return best


def a_pad(step_k: int) -> int:
    """Words of padding per row of the A tile. Its copy writes it
    transposed: a warp's stores go to K rows j (spaced by the vector width
    within a run, all `step_k` of them across the warp's runs) and to
    32 / step_k M columns i, at word j * (tile_m + pad) + i. With tile_m a
    multiple of 32 the bank is (j * pad + i) mod 32, and pad = 32 / step_k
    makes those distinct: no conflict. Unpadded, the rows share a bank
    (16-way for K steps of 16)."""
    return max(1, BANKS // step_k)


VECTOR_BYTES = 16
"""Bytes per global load where they fit: 128 bits (4 f32, 8 f16)."""


def vector_width(
    src: SSAValue, rows: int, cols: int, threads: int, misaligned: bool = False
) -> int:
    """128-bit loads when every vector is 16-byte aligned (the source's rows
    are whole vectors), or `misaligned` (the target loads vectors at any
    element-aligned address), and the threads still divide the copy; else
    scalars."""
    width = VECTOR_BYTES // element_bytes(src)
    row_length = src.type.get_shape()[1]  # type: ignore[attr-defined]
    fits = (misaligned or row_length % width == 0) and cols % width == 0
    return width if fits and (rows * cols // width) % threads == 0 else 1


def ragged(src: SSAValue, width: int) -> dict:
    """The keyword that makes a copy of `src` in vectors of `width` ragged:
    where its rows are not whole vectors (only with `misaligned_vectors`)."""
    return {"ragged": width > 1 and src.type.get_shape()[1] % width != 0}  # type: ignore[attr-defined]


def clamped(op, dim: int) -> dict:
    """The keyword that reads A's rows past M (`dim` 0) or B's columns past
    N (1) from the operand's edge instead of masking them to zero, on
    gfx942's GEMM (`misaligned_vectors`): they only make C elements that
    are never written, and a masked load is a branch and zeroed registers
    in the K loop (gfx942 ISA, 17x1000x997 f16 on 32x256x32: 80 `v_mov` of
    zeros in 353 instructions). The fused reduction keeps its zeros: its
    epilogue may sum across the tile."""
    gemm = isinstance(op, GridwiseGemmOp) and getattr(op, "misaligned_vectors", None) is not None
    # Only where the tiles overhang that edge: elsewhere there is no mask.
    size, tile = op.mnk[dim], op.tile_sizes[dim]
    return {"clamp": (dim,)} if gemm and size % tile else {}


def async_copy_width(src: SSAValue, rows: int, cols: int, threads: int) -> int:
    """Elements per cp.async (sm_80, sm_90): 16, 8 or 4 bytes, the widest
    that every row's copies start aligned for (`async_width`); 4-byte f32
    elements one by one where none is wider. Pairs of halves on even rows
    are what keep a 16-bit operand asynchronous when its rows are not whole
    16-byte vectors."""
    bits = src.type.element_type.bitwidth  # type: ignore[attr-defined]
    return async_width(bits, src.type.get_shape()[1], (rows, cols), threads) or 1  # type: ignore[attr-defined]


def fragment_conflict(frag: Fragment, lanes: int, row_length: int, element_size: int) -> int:
    """The worst bank conflict of a warp reading `frag` from a tile whose
    rows are `row_length` elements: the most distinct 4-byte words one bank
    gets in one access (1: none; one word for many lanes is a broadcast).
    With a collective load (`ldmatrix`) an access is one 8x8 matrix, its 8
    rows of 16 bytes; else one position of the fragment in every lane (warps
    of more than 32 lanes counted 32 at a time)."""
    accesses = []
    if frag.matrix_load is not None:
        load = frag.matrix_load
        lane = np.arange(lanes)
        rows, cols = (np.broadcast_to(v, (lanes,)) for v in load.address(NUMPY, lane))
        first = (rows * row_length + cols) * element_size // 4
        row_words = 8 * element_size // 4
        for i in range(load.tiles):
            accesses.append((first[8 * i : 8 * i + 8, None] + np.arange(row_words)).ravel())
    else:
        rows, cols = fragment_matrix(frag, lanes)
        words = (rows * row_length + cols) * element_size // 4
        for idx in frag.positions():
            at = words[(slice(None), *idx)]
            accesses += [at[start : start + BANKS] for start in range(0, lanes, BANKS)]
    return max(int(np.bincount(np.unique(a) % BANKS).max()) for a in accesses)


def fragment_pad(frag: Fragment, lanes: int, row_length: int, element_size: int) -> int:
    """Elements of padding per row of a tile that a warp reads `frag` from:
    the smallest that leaves the fewest bank conflicts, in whole 16-byte
    vectors (rows stay aligned for 128-bit stores and 16-byte cp.async)."""
    step = VECTOR_BYTES // element_size
    best, fewest = 0, None
    for pad in range(-row_length % step, 2 * BANKS * 4 // element_size, step):
        worst = fragment_conflict(frag, lanes, row_length + pad, element_size)
        if fewest is None or worst < fewest:
            best, fewest = pad, worst
        if worst == 1:
            break
    return best


def swizzles(op: GridwiseGemmOp, operand: str) -> bool:
    """Whether the tensor-core tile of `operand` ("a" or "b") is
    XOR-swizzled (`xsplit_gemm.swizzled`) rather than padded: where its rows
    are a power of two of 16-byte chunks. The 128-bit stores (8 lanes'
    chunks, one 128-byte line) and each ldmatrix matrix (8 rows of one
    chunk column) then reach 32 distinct banks; no row pad does both for
    A's rows of 16 or 32 halves (2-way stores). On gfx942 it spares A's
    stores the same 2-way conflict, and its 64-bit fragment reads are 2-way
    either way (16 rows' same half of a chunk). Not for a K-packed B
    (`b_kpack`), nor with direct-to-LDS loads, whose runs land where the
    wavefront's one address says."""
    intr = op.intrinsic
    if intr is None or op.direct_to_lds is not None:
        return False
    if operand == "b" and b_kpack(op) != 1:
        return False
    tm, tn, tk = op.tile_sizes
    shape = [tm, tk] if operand == "a" else [tk, tn]
    return swizzle_fits(shape, element_bytes(op.a if operand == "a" else op.b))


KPACK = 4
"""K packed side by side in gfx942's B tile: the K a lane of an MFMA
16x16x16 (or 32x32x8) holds of one column."""


def b_kpack(op: GridwiseGemmOp) -> int:
    """K-pack B's tile (`xsplit_gemm.kpacked`, `KPACK`) where the intrinsic
    has no collective load and a lane's fragment is `KPACK` consecutive K
    of one column (gfx942's MFMA): its fragment is then one 64-bit read
    instead of four 16-bit ones, and, with the threads copying slices of 4
    K x 2 columns, each slice one 128-bit store. Not with direct-to-LDS
    loads (their runs follow the source's rows), nor where the threads do
    not divide the slices. 1: not packed."""
    intr = op.intrinsic
    if intr is None or op.direct_to_lds is not None or intr.b.matrix_load is not None:
        return 1
    if intr.b.shape != (KPACK,):  # one element a lane (f32 MFMA): nothing to pack
        return 1
    rows, cols = fragment_matrix(intr.b, intr.lanes)
    runs = all(
        np.array_equal(rows[:, i], rows[:, 0] + i) and np.array_equal(cols[:, i], cols[:, 0])
        for i in range(KPACK)
    )
    _, tn, tk = op.tile_sizes
    threads = op.thread_counts[0] * op.thread_counts[1]
    fits = intr.b.shape == (KPACK,) and tk % KPACK == 0 and (tk // KPACK * tn) % threads == 0
    return KPACK if runs and fits else 1


def kpack_width(op: GridwiseGemmOp) -> int:
    """Columns per slice of a K-packed copy of B: with misaligned vectors
    (gfx942) the widest of 8, 4 and 2 that the B tile and the threads take
    (4 rows of w columns: four 16-byte loads for w = 8, the slice's 32
    halves side by side in the packed row, four 128-bit stores; ragged
    where B's rows are not whole slices); else 2 where B's rows are whole
    pairs (four 32-bit loads, one 128-bit store), or 1 (a 64-bit store)."""
    _, tn, tk = op.tile_sizes
    threads = op.thread_counts[0] * op.thread_counts[1]
    n = op.mnk[1]
    misaligned = getattr(op, "misaligned_vectors", None) is not None
    for w in (8, 4, 2) if misaligned else (2,):
        fits = tn % w == 0 and (tk // KPACK * tn // w) % threads == 0
        if fits and (misaligned or n % w == 0):
            return w
    return 1


def a_tile_shape(op: GridwiseGemmOp) -> list[int]:
    """M-major [tile_m, tile_k + pad] (K contiguous, as A is in memory), or
    K-major [tile_k, tile_m + pad] with `a_k_major`; unpadded where it is
    swizzled."""
    tm, _, tk = op.tile_sizes
    if op.direct_to_lds is not None:  # each wavefront's load fills a contiguous run
        return [tm, tk]
    if op.a_k_major is not None:
        return [tk, tm + a_pad(tk)]
    intr = op.intrinsic
    if intr is not None:
        if swizzles(op, "a"):
            return [tm, tk]
        return [tm, tk + fragment_pad(intr.a, intr.lanes, tk, element_bytes(op.a))]
    return [tm, tk + a_row_pad(tk, element_bytes(op.a), op.thread_counts[1])]


def b_tile_shape(op: GridwiseGemmOp) -> list[int]:
    """K-major [tile_k, tile_n], padded for fragment reads with `mma`
    (unpadded where swizzled), or K-packed [tile_k / 4, tile_n * 4]."""
    _, tn, tk = op.tile_sizes
    intr = op.intrinsic
    if intr is None or op.direct_to_lds is not None or swizzles(op, "b"):
        return [tk, tn]
    kp = b_kpack(op)
    if kp != 1:
        return [tk // kp, tn * kp]
    return [tk, tn + fragment_pad(intr.b, intr.lanes, tn, element_bytes(op.b))]


def _copies(op: GridwiseGemmOp, wb: int) -> tuple[dict, dict]:
    """The layout keywords of A's and B's staged copies, and B's vector
    width (a K-packed copy has its own)."""
    kp = b_kpack(op)
    a = {"swizzle": swizzles(op, "a")}
    b = {"swizzle": swizzles(op, "b"), "kpack": kp, "vector": kpack_width(op) if kp != 1 else wb}
    return a, b


def _accumulator(kb: KernelBuilder, op: GridwiseGemmOp) -> SSAValue:
    """The private register tile (FMAs) or the C fragments of the warp
    tile's blocks (`mma`), zeroed."""
    tm, tn, _ = op.tile_sizes
    intr = op.intrinsic
    if intr is None:
        thm, thn = op.thread_counts
        shape = [tm // thm, tn // thn]
    else:
        wm, wn = op.warp_counts
        shape = [tm // wm // intr.m, tn // wn // intr.n, intr.c.size]
    acc = kb.alloc(shape, PRIVATE, "acc")
    kb.insert(ThreadwiseFillOp(acc))
    return acc


def _multiply(body: KernelBuilder, op: GridwiseGemmOp, acc, a_tile, b_tile, tid) -> None:
    intr = op.intrinsic
    tk = op.tile_sizes[2]
    if intr is not None:
        swizzle = (swizzles(op, "a"), swizzles(op, "b"))
        mma = BlockwiseMmaOp(
            acc, a_tile, b_tile, tid, intr.name, op.warp_counts, tk, swizzle, b_kpack(op)
        )
        body.insert(mma)
        return
    k_major = op.a_k_major is not None
    g = getattr(op, "column_run", 1)
    body.insert(BlockwiseGemmOp(acc, a_tile, b_tile, tid, op.thread_counts, tk, not k_major, g))


def _write(kb: KernelBuilder, op: GridwiseGemmOp, acc, tid, m0, n0, chunk, n_from=None) -> None:
    slot = None
    if op.merge_kind == "partials":
        slot = chunk if chunk is not None else kb.c(0)
    intr = op.intrinsic
    if intr is None:
        thm, thn = op.thread_counts
        g = op.column_run
        row = kb.add(m0, kb.div(tid, thn))
        col = kb.add(n0, kb.mul(kb.rem(tid, thn), g))
        write = ThreadwiseWriteOp(acc, op.c, row, col, (thm, thn * g), op.merge_kind, slot, g)  # type: ignore[arg-type]
        kb.insert(write)
        return
    tm, tn, _ = op.tile_sizes
    wm, wn = op.warp_counts
    warp, lane = kb.div(tid, intr.lanes), kb.rem(tid, intr.lanes)
    row = kb.add(m0, kb.mul(kb.div(warp, wn), tm // wm))
    col = kb.add(n0, kb.mul(kb.rem(warp, wn), tn // wn))
    # A shifted last tile (`n_from`) writes only the columns past its neighbour's.
    n_from = None if n_from is None else kb.c(n_from)
    write = ThreadwiseWriteFragmentsOp(
        acc, op.c, kb.c(row), kb.c(col), kb.c(lane), intr.name, op.merge_kind, slot, n_from
    )
    kb.insert(write)


def lower_gridwise(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, GridwiseGemmOp | GridwiseGemmReduceOp)
    kb = KernelBuilder(ir.b)
    tm, tn, tk = op.tile_sizes
    thm, thn = op.thread_counts
    threads = thm * thn
    _, _, k = op.mnk
    chunk_k = op.chunk_k
    tid = kb.thread_id()
    m0 = kb.mul(kb.block_id("y"), tm)
    n0 = kb.mul(kb.block_id("x"), tn)
    chunk = kb.block_id("z") if op.chunk_count > 1 else None
    stream = getattr(op, "stream_b", None) is not None
    n_from = None  # where a shifted last tile of columns starts writing
    # cp.async's loop places its chunks itself (`residue_first`).
    async_loop = (
        op.stage_count >= 2 and op.register_prefetch is None and op.direct_to_lds is None
        and not stream
    )  # fmt: skip
    k_begin: int | SSAValue = 0
    k_end: int | SSAValue = k
    if chunk is not None and not async_loop:
        k_begin = kb.mul(chunk, chunk_k)
        k_end = kb.add(k_begin, chunk_k)
        if chunk_k * op.chunk_count > k:  # the last chunk is short: its loop stops at K
            k_end = kb.min(k_end, k)
    misaligned = getattr(op, "misaligned_vectors", None) is not None
    wa = vector_width(op.a, tm, tk, threads, misaligned)
    wb = vector_width(op.b, tk, tn, threads, misaligned and b_kpack(op) == 1)
    k_major = op.a_k_major is not None
    if stream:
        shape = a_tile_shape(op)
        a_tiles = [kb.alloc(shape, WORKGROUP, f"a_tile{i}", element(op.a)) for i in (0, 1)]
        acc = _accumulator(kb, op)
        streamed_b_loop(kb, op, tid, m0, n0, k_begin, k_end, acc, a_tiles)
    elif op.stage_count == 2 and op.register_prefetch is not None:
        acc = _register_prefetched(kb, op, tid, m0, n0, k_begin, k_end, wa, wb)
    elif op.stage_count == 2 and op.direct_to_lds is not None:
        acc = _direct_to_lds(kb, op, tid, m0, n0, k_begin, k_end)
    elif op.stage_count >= 2:
        wa, wb = async_copy_width(op.a, tm, tk, threads), async_copy_width(op.b, tk, tn, threads)
        if b_rows(op, wb)[1]:
            n_from, n0 = n0, kb.min(n0, op.b.type.get_shape()[1] - tn)  # type: ignore[attr-defined]
        acc = _double_buffered(kb, op, tid, m0, n0, chunk, wa, wb)
    else:
        a_tile = kb.alloc(a_tile_shape(op), WORKGROUP, "a_tile", element(op.a))
        b_tile = kb.alloc(b_tile_shape(op), WORKGROUP, "b_tile", element(op.b))
        acc = _accumulator(kb, op)

        la, lb = _copies(op, wb)

        def step(body: KernelBuilder, k0: SSAValue) -> None:
            a_copy = BlockwiseCopyOp(
                op.a, m0, k0, a_tile, tid, (tm, tk), threads, k_major, wa, **la, **ragged(op.a, wa)
            )  # type: ignore[arg-type]
            b_copy = BlockwiseCopyOp(
                op.b, k0, n0, b_tile, tid, (tk, tn), threads, False, **lb, **ragged(op.b, lb["vector"])
            )  # type: ignore[arg-type]
            if _transposed(op):
                a_copy, b_copy = _transposed_copies(op, m0, n0, k0, a_tile, b_tile, tid)
            body.insert(a_copy)
            body.insert(b_copy)
            body.barrier()
            _multiply(body, op, acc, a_tile, b_tile, tid)
            body.barrier()

        kb.for_(k_begin, k_end, tk, step, "k0")
    if isinstance(op, GridwiseGemmReduceOp):
        _reduce_epilogue(kb, op, acc, tid, m0, n0)
        return []
    _write(kb, op, acc, tid, m0, n0, chunk, n_from)
    return []


def _transposed(op) -> bool:
    """Whether a fused GEMM reads A or B transposed in memory."""
    return isinstance(op, GridwiseGemmReduceOp) and (
        op.a_transposed is not None or op.b_transposed is not None
    )


def _transposed_copies(
    op: GridwiseGemmReduceOp, m0, n0, k0, a_tile, b_tile, tid
) -> tuple[BlockwiseCopyOp, BlockwiseCopyOp]:
    """A step's copies of A and B as they lie in memory into the tiles the
    multiply reads (A's K-major or M-major as `a_k_major` says, B's
    K-major): a copy of the source's rows, transposed into the tile where
    the two run across each other. Each loads along the source's rows,
    which neighbouring threads read side by side, in 128-bit vectors where
    those rows are whole vectors."""
    tm, tn, tk = op.tile_sizes
    threads = op.thread_counts[0] * op.thread_counts[1]
    k_major = op.a_k_major is not None
    if op.a_transposed is not None:  # A[k, m]: rows of M
        wa = vector_width(op.a, tk, tm, threads)
        a = BlockwiseCopyOp(op.a, k0, m0, a_tile, tid, (tk, tm), threads, not k_major, wa)
    else:
        wa = vector_width(op.a, tm, tk, threads)
        a = BlockwiseCopyOp(op.a, m0, k0, a_tile, tid, (tm, tk), threads, k_major, wa)
    if op.b_transposed is not None:  # B[n, k]: rows of K
        wb = vector_width(op.b, tn, tk, threads)
        b = BlockwiseCopyOp(op.b, n0, k0, b_tile, tid, (tn, tk), threads, True, wb)
    else:
        wb = vector_width(op.b, tk, tn, threads)
        b = BlockwiseCopyOp(op.b, k0, n0, b_tile, tid, (tk, tn), threads, False, wb)
    return a, b


def b_rows(op: GridwiseGemmOp, wb: int) -> tuple[int | None, bool]:
    """B's cp.async copies: threads a row (`row_threads`) and whether its
    last tile of columns is shifted (`shifted_last_tile`; tensor cores
    only, whose write takes `from`; not the fused reduction, whose
    epilogue sums across the tile). Threads share a row only where no
    copy of the K loop is masked along the columns: a masked column needs
    its own address (its view would reach past B's columns, which MLIR
    forbids)."""
    _, tn, tk = op.tile_sizes
    threads = op.thread_counts[0] * op.thread_counts[1]
    columns = op.b.type.get_shape()[1]  # type: ignore[attr-defined]
    share = row_threads(tk, tn, wb, threads)
    if columns % tn == 0:
        return share, False
    gemm = isinstance(op, GridwiseGemmOp) and op.intrinsic is not None
    shifted = gemm and shifted_last_tile(columns, tn, wb, share is not None)
    return (share if shifted else None), shifted


def residue_first(kb: KernelBuilder, op: GridwiseGemmOp, chunk) -> tuple:
    """The first K of a chunk's first step and the chunk's end, for a K
    loop whose steps end at the chunk's end and whose ragged step, if any,
    is the first (CUTLASS's residue first): the chunks end at K - (S - 1 -
    z) * chunk_k, so that chunk 0 alone is short (r = K - (S - 1) *
    chunk_k), and its first step starts ceil(r / tk) * tk - r before 0.
    Only that step's copies (issued before the loop) reach outside K, at
    negative indices, which their unsigned masks refuse; every copy in the
    loop is inside K and is issued unmasked along it (`inside`)."""
    _, _, k = op.mnk
    tk = op.tile_sizes[2]
    ck, s = op.chunk_k, op.chunk_count
    r = k - (s - 1) * ck if chunk is not None else k
    before = -(-r // tk) * tk - r
    if chunk is None:
        return -before, k
    k_end = kb.add(kb.mul(chunk, ck), r)
    return kb.select(kb.below(chunk, 1), -before, kb.sub(k_end, ck)), k_end


def last_whole_step(kb: KernelBuilder, op: GridwiseGemmOp, chunk, k_end):
    """Where the copies past a chunk's last step go with 3 or 4 stages (an
    idle pair, never read; they keep the wait counts): the last step, a
    whole one, or, where chunk 0 is one short step, the whole step [0, tk)
    (K holds one: there are other chunks). None where K is shorter than
    one step: then they repeat the masked first step."""
    _, _, k = op.mnk
    tk = op.tile_sizes[2]
    if chunk is None:
        return k - tk if k >= tk else None
    last = kb.sub(k_end, tk)
    if k - (op.chunk_count - 1) * op.chunk_k <= tk:
        return kb.select(kb.below(chunk, 1), 0, last)
    return last


def _double_buffered(
    kb: KernelBuilder, op: GridwiseGemmOp, tid, m0, n0, chunk, wa: int, wb: int
) -> SSAValue:
    """The K loop with `stages` tiles of A and of B and asynchronous copies
    (cp.async): the copies of step k + stages - 1 are in flight while the
    threads multiply step k. One barrier a step: at the top of step k each
    thread waits for its own copies of step k (`nvgpu.device_async_wait`),
    and the barrier then makes everyone's visible and says that everyone is
    done with step k - 1, whose pair the copies issued after it overwrite.
    A second barrier after the multiply, as a one-stage loop needs, would
    only hold the warps that finish first.

    Unrolled by `stages` so that each step names its buffers. Each step's A
    and B copies are two groups, so the wait leaves the 2 (stages - 2)
    groups of the steps after k in flight. With two stages that is none:
    a copy past the chunk is skipped. With more, the copies past the last
    step repeat it into an idle pair (never read), so that every step
    commits its groups and the wait counts stay right. A step past the
    chunk multiplies nothing. Returns the register tile."""
    tm, tn, tk = op.tile_sizes
    thm, thn = op.thread_counts
    threads = thm * thn
    stages = op.stage_count
    k_major = op.a_k_major is not None
    k_begin, k_end = residue_first(kb, op, chunk)
    # A padded by `pad_rows` holds K element k at column k + a_front.
    k = op.mnk[2]
    bits = op.a.type.element_type.bitwidth  # type: ignore[attr-defined]
    padded = op.a.type.get_shape()[1] != k  # type: ignore[attr-defined]
    a_front = front_pad(k, op.chunk_count, tk, bits) if padded else 0
    a = [kb.alloc(a_tile_shape(op), WORKGROUP, f"a_tile{i}", element(op.a)) for i in range(stages)]
    b = [kb.alloc(b_tile_shape(op), WORKGROUP, f"b_tile{i}", element(op.b)) for i in range(stages)]
    acc = _accumulator(kb, op)
    if stages > 2:  # the first K of the chunk's last step
        last = last_whole_step(kb, op, chunk, k_end)
        repeat_whole = last is not None
        last = k_begin if last is None else last
    sa, sb = swizzles(op, "a"), swizzles(op, "b")
    b_share, shifted = b_rows(op, wb)
    # A's K is inside in the loop's steps; a skinny M masks a thread's one row.
    a_rows = op.a.type.get_shape()[0]  # type: ignore[attr-defined]
    a_share = None if k_major else masked_row_threads(tm, tk, wa, threads, a_rows)
    # A shifted last tile keeps every column of B's copies inside B.
    b_cols = (1,) if shifted else ()

    def copy(body: KernelBuilder, k0, buf: int, whole: bool = True) -> SSAValue:
        # A step after the first is inside K: A's columns, B's rows unmasked.
        ia, ib = ((1,), (0, *b_cols)) if whole else ((), b_cols)
        a_copy = BlockwiseAsyncCopyOp(
            op.a, m0, body.c(body.add(k0, a_front)), a[buf], tid, (tm, tk), threads, k_major, wa,
            sa, ia, a_share if whole else None,
        )  # fmt: skip
        k0 = body.c(k0)
        body.insert(a_copy)
        b_copy = BlockwiseAsyncCopyOp(
            op.b, k0, n0, b[buf], tid, (tk, tn), threads, False, wb, sb, ib, b_share
        )  # fmt: skip
        return body.insert(b_copy).results[0]

    first = copy(kb, k_begin, 0, whole=False)
    for s in range(1, stages - 1):
        copy(kb, kb.min(kb.add(k_begin, s * tk), last), s, repeat_whole)

    def multiply(body: KernelBuilder, buf: int) -> None:
        _multiply(body, op, acc, a[buf], b[buf], tid)

    def steps(body: KernelBuilder, k0: SSAValue) -> None:
        for buf in range(stages):
            body.async_wait(first, 2 * (stages - 2))
            body.barrier()
            ahead = body.add(k0, (buf + stages - 1) * tk)
            to = (buf + stages - 1) % stages
            if stages == 2:
                body.if_(body.below(ahead, k_end), lambda inner, at=ahead: copy(inner, at, to))
            else:
                copy(body, body.min(ahead, last), to, repeat_whole)
            if buf == 0:
                multiply(body, 0)
            else:
                inside = body.below(body.add(k0, buf * tk), k_end)
                body.if_(inside, lambda inner, buf=buf: multiply(inner, buf))

    kb.for_(k_begin, k_end, stages * tk, steps, "k0")
    if stages > 2:  # the repeated copies past the last step
        kb.async_wait(first, 0)
    return acc


def _register_prefetched(
    kb: KernelBuilder, op: GridwiseGemmOp, tid, m0, n0, k_begin, k_end, wa: int, wb: int
) -> SSAValue:
    """The K loop with two tiles of A and two of B, double-buffered through
    registers: each step starts loading the next step's A and B into the
    threads' registers (`blockwise_load`), multiplies the pair the last
    step staged while those loads are in flight, stores the registers into
    the idle pair (`blockwise_store`), and meets the others at one barrier.
    One barrier a step is enough: it orders this step's stores before the
    next step's reads of that pair, and this step's reads before the stores
    into this pair one step later. Unrolled by two so that each half names
    its buffers; the second half multiplies only inside the chunk, and
    nothing is loaded past it.

    With `async_b`, B's next tile is a cp.async into the idle pair, issued
    with A's loads, and each thread waits for its copies before the
    barrier: the barrier that publishes A's stores publishes B's copies
    too. Returns the register tile."""
    tm, tn, tk = op.tile_sizes
    thm, thn = op.thread_counts
    threads = thm * thn
    k_major = op.a_k_major is not None
    async_b = op.async_b is not None
    a = [kb.alloc(a_tile_shape(op), WORKGROUP, f"a_tile{i}", element(op.a)) for i in (0, 1)]
    b = [kb.alloc(b_tile_shape(op), WORKGROUP, f"b_tile{i}", element(op.b)) for i in (0, 1)]
    acc = _accumulator(kb, op)
    la, lb = _copies(op, wb)
    wb, kp = lb["vector"], lb["kpack"]
    a_next = kb.alloc(register_shape((tm, tk), threads, wa), PRIVATE, "a_next", element(op.a))
    if not async_b:
        b_shape = register_shape((tk, tn), threads, wb, kp)
        b_next = kb.alloc(b_shape, PRIVATE, "b_next", element(op.b))
    k_first = kb.c(k_begin)
    ra, rb = ragged(op.a, wa) | clamped(op, 0), ragged(op.b, wb) | clamped(op, 1)
    # With misaligned vectors (gfx942) a K that is not whole steps is
    # peeled: the loop runs the chunk's whole steps, whose loads need no
    # mask along K (A's vectors are whole 16-byte loads, B's rows all
    # inside), and the ragged last step follows it, staged once with every
    # mask (`_ragged_step`).
    k = op.mnk[2]
    peel = getattr(op, "misaligned_vectors", None) is not None and not async_b and k % tk != 0
    k_loop = kb.min(k_end, k - k % tk) if peel else k_end
    ia, ib = ((1,), (0,)) if peel else ((), ())
    kb.insert(
        BlockwiseCopyOp(op.a, m0, k_first, a[0], tid, (tm, tk), threads, k_major, wa, **la, **ra)
    )  # type: ignore[arg-type]
    if async_b:
        sb, wb = lb["swizzle"], async_copy_width(op.b, tk, tn, threads)
        b_first = BlockwiseAsyncCopyOp(op.b, k_first, n0, b[0], tid, (tk, tn), threads, False, wb, sb)
        first = kb.insert(b_first).results[0]
        kb.async_wait(first, 0)
    else:
        kb.insert(
            BlockwiseCopyOp(op.b, k_first, n0, b[0], tid, (tk, tn), threads, False, **lb, **rb)
        )  # type: ignore[arg-type]
    kb.barrier()

    def load(body: KernelBuilder, k0: SSAValue, buf: int) -> None:
        if async_b:
            copy = BlockwiseAsyncCopyOp(op.b, k0, n0, b[buf], tid, (tk, tn), threads, False, wb, sb)
            body.insert(copy)
        body.insert(
            BlockwiseLoadOp(op.a, m0, k0, a_next, tid, (tm, tk), threads, wa, **ra, inside=ia)
        )
        if not async_b:
            b_load = BlockwiseLoadOp(
                op.b, k0, n0, b_next, tid, (tk, tn), threads, wb, kp, **rb, inside=ib
            )
            body.insert(b_load)

    def store(body: KernelBuilder, buf: int) -> None:
        body.insert(BlockwiseStoreOp(a_next, a[buf], tid, (tm, tk), threads, k_major, wa, **la))
        if async_b:
            body.async_wait(first, 0)
        else:
            body.insert(BlockwiseStoreOp(b_next, b[buf], tid, (tk, tn), threads, False, **lb))

    def multiply(body: KernelBuilder, buf: int) -> None:
        _multiply(body, op, acc, a[buf], b[buf], tid)

    def pair(body: KernelBuilder, k0: SSAValue) -> None:
        # more[0]: the second half's step is inside the chunk; more[1]: the
        # next pair's first step is.
        more: list[SSAValue] = []
        for buf in (0, 1):
            ahead = body.add(k0, (buf + 1) * tk)
            more.append(body.below(ahead, k_loop))  # type: ignore[arg-type]
            body.if_(more[buf], lambda inner, at=ahead, to=1 - buf: load(inner, at, to))
            if buf == 0:
                multiply(body, 0)
            else:
                body.if_(more[0], lambda inner: multiply(inner, 1))
            body.if_(more[buf], lambda inner, to=1 - buf: store(inner, to))
            body.barrier()

    kb.for_(k_begin, k_loop, 2 * tk, pair, "k0")
    if peel:

        def ragged_step(body: KernelBuilder) -> None:
            # Every thread is past the loop's last barrier: both pairs are idle.
            at = body.c(k_loop)
            body.insert(
                BlockwiseCopyOp(op.a, m0, at, a[0], tid, (tm, tk), threads, k_major, wa, **la, **ra)
            )  # type: ignore[arg-type]
            body.insert(
                BlockwiseCopyOp(op.b, at, n0, b[0], tid, (tk, tn), threads, False, **lb, **rb)
            )  # type: ignore[arg-type]
            body.barrier()
            multiply(body, 0)

        # Only the chunk that holds K's end has a ragged step.
        if isinstance(k_loop, int) and isinstance(k_end, int):
            ragged_step(kb)  # one chunk: K's end is its own
        else:
            kb.if_(kb.below(k_loop, k_end), ragged_step)  # type: ignore[arg-type]
    return acc


def _direct_to_lds(kb: KernelBuilder, op: GridwiseGemmOp, tid, m0, n0, k_begin, k_end) -> SSAValue:
    """The K loop with two unpadded tiles of A and two of B and direct-to-LDS
    loads (`blockwise_gather`): each step starts the next step's loads into
    the idle pair, multiplies the pair the last step loaded while they are
    in flight, and meets the others at one barrier, by which the loads have
    landed (its release fence waits for them). One barrier a step: the
    loads into a pair start after the barrier that ends the step reading
    it. Unrolled by two, like `_register_prefetched`. Returns the register
    tile."""
    tm, tn, tk = op.tile_sizes
    thm, thn = op.thread_counts
    threads = thm * thn
    a = [kb.alloc(a_tile_shape(op), WORKGROUP, f"a_tile{i}", element(op.a)) for i in (0, 1)]
    b = [kb.alloc(b_tile_shape(op), WORKGROUP, f"b_tile{i}", element(op.b)) for i in (0, 1)]
    acc = _accumulator(kb, op)

    def load(body: KernelBuilder, k0, buf: int) -> None:
        k0 = body.c(k0)
        body.insert(BlockwiseGatherOp(op.a, m0, k0, a[buf], tid, threads))
        body.insert(BlockwiseGatherOp(op.b, k0, n0, b[buf], tid, threads))

    load(kb, k_begin, 0)
    kb.barrier()

    def pair(body: KernelBuilder, k0: SSAValue) -> None:
        more: list[SSAValue] = []
        for buf in (0, 1):
            ahead = body.add(k0, (buf + 1) * tk)
            more.append(body.below(ahead, k_end))  # type: ignore[arg-type]
            body.if_(more[buf], lambda inner, at=ahead, to=1 - buf: load(inner, at, to))
            if buf == 0:
                _multiply(body, op, acc, a[0], b[0], tid)
            else:
                body.if_(more[0], lambda inner: _multiply(inner, op, acc, a[1], b[1], tid))
            body.barrier()

    kb.for_(k_begin, k_end, 2 * tk, pair, "k0")
    return acc


def lower_merge(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, MergePartialsOp)
    kb = KernelBuilder(ir.b)
    chunks, rows, cols = op.partials.type.get_shape()  # type: ignore[attr-defined]
    col = kb.add(kb.mul(kb.block_id("x"), op.thread_count), kb.thread_id())
    row = kb.block_id("y")
    inside = kb.below(col, cols) if cols % op.thread_count else None

    def merge(body: KernelBuilder) -> None:
        total = body.load(op.c, [row, col])
        for s in range(chunks):
            # In chunk order, whatever the thread timing: the same sum every run.
            total = body.addf(total, body.load(op.partials, [s, row, col]))
        body.store(total, op.c, [row, col])

    kb.if_(inside, merge)
    return []


def lower_pad(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, PadRowsOp)
    kb = KernelBuilder(ir.b)
    rows, cols = op.src.type.get_shape()  # type: ignore[attr-defined]
    width = op.dst.type.get_shape()[1]  # type: ignore[attr-defined]
    flat = kb.add(kb.mul(kb.block_id("x"), op.thread_count), kb.thread_id())
    inside = kb.below(flat, rows * width) if (rows * width) % op.thread_count else None

    def pad(body: KernelBuilder) -> None:
        r, c = body.div(flat, width), body.rem(flat, width)
        # Unsigned: columns before `front` wrap past the source's too.
        at = body.sub(c, op.front_count)
        value = body.load_or_zero(op.src, [r, at], body.below(at, cols))
        body.store(value, op.dst, [r, c])

    kb.if_(inside, pad)
    return []


def c_tile_pad(frag: Fragment, lanes: int, threads_n: int, tile_n: int) -> int:
    """Words of padding per row of the tensor-core epilogue's C tile: the
    fewest bank conflicts of the warps' fragment stores and the threads'
    reads of their register tiles (a warp reads 32 / threads_n rows of
    threads_n consecutive words) together, in whole 16-byte vectors."""

    def read_conflict(row_length: int) -> int:
        t = np.arange(BANKS)
        words = (t // threads_n) * row_length + t % threads_n
        return int(np.bincount(np.unique(words) % BANKS).max())

    def cost(pad: int) -> int:
        return fragment_conflict(frag, lanes, tile_n + pad, 4) + read_conflict(tile_n + pad)

    return min(range(0, BANKS + 1, 4), key=cost)


def _reduce_epilogue(kb: KernelBuilder, op: GridwiseGemmReduceOp, acc, tid, m0, n0) -> None:
    """The fused reduction: the registers are reduced, not written. With
    tensor cores the C fragments first go to a workgroup-memory C tile and
    each thread reads back its register tile in the epilogue's layout
    (`threads`), so that every stage's exchange stays that of the FMA
    kernel: 17 KiB of workgroup memory for a padded 64x64 tile, written and
    read once, against a K loop that stages A and B every step."""
    m, n, _ = op.mnk
    thm, thn = op.thread_counts
    intr = op.intrinsic
    if intr is not None:
        tm, tn, _ = op.tile_sizes
        wm, wn = op.warp_counts
        pad = c_tile_pad(intr.c, intr.lanes, thn, tn)
        c_tile = kb.alloc([tm, tn + pad], WORKGROUP, "c_tile")
        warp, lane = kb.div(tid, intr.lanes), kb.rem(tid, intr.lanes)
        row = kb.mul(kb.div(warp, wn), tm // wm)
        col = kb.mul(kb.rem(warp, wn), tn // wn)
        at = (kb.c(row), kb.c(col), kb.c(lane))
        kb.insert(ThreadwiseWriteFragmentsOp(acc, c_tile, *at, intr.name, "tile"))
        kb.barrier()
        acc = kb.alloc([tm // thm, tn // thn], PRIVATE, "regs")
        row, col = kb.c(kb.div(tid, thn)), kb.c(kb.rem(tid, thn))
        kb.insert(ThreadwiseReadTileOp(c_tile, row, col, acc, (thm, thn)))
    kb.insert(BlockwiseReduceOp(acc, op.out, m0, n0, tid, op.c, (thm, thn), (m, n), op))


def lower_merge_reduced(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, MergeReducedOp)
    kb = KernelBuilder(ir.b)
    chunks = op.partials.type.get_shape()[0]  # type: ignore[attr-defined]
    shape = op.out.type.get_shape()  # type: ignore[attr-defined]
    method = op.method.data
    if op.matrix is not None:
        # Rows on grid y, columns on grid x and the threads, as
        # merge_partials lays C out, and the partials alike.
        rows, cols = op.matrix
        col = kb.add(kb.mul(kb.block_id("x"), op.thread_count), kb.thread_id())
        row = kb.block_id("y")
        inside = kb.below(col, cols) if cols % op.thread_count else None
        at = [*([0] * (len(shape) - 2)), row, col]
        part_at = lambda s: [s, row, col]  # noqa: E731
    else:
        e = kb.add(kb.mul(kb.block_id("x"), op.thread_count), kb.thread_id())
        inside = kb.below(e, op.elements) if op.elements % op.thread_count else None
        # A vector (the verifier asks for it, or a matrix): its one long
        # dimension is the element, the others 0.
        long = max(range(len(shape)), key=lambda d: shape[d])
        at = [e if d == long else 0 for d in range(len(shape))]
        part_at = lambda s: [s, e]  # noqa: E731

    def merge(body: KernelBuilder) -> None:
        total = body.load(op.out, at)
        for s in range(chunks):
            # In chunk order, whatever the thread timing: the same result every run.
            total = body.combine(method, total, body.load(op.partials, part_at(s)))
        body.store(total, op.out, at)

    kb.if_(inside, merge)
    return []


LOWER_GRIDWISE_REDUCE = Pattern(
    name="lower-gridwise-gemm-reduce",
    doc="a fused GEMM + reduction becomes the GEMM's staged K loop and a blockwise reduce "
    "epilogue",
    root=GridwiseGemmReduceOp,
    rewrite=lower_gridwise,
)

LOWER_MERGE_REDUCED = Pattern(
    name="lower-merge-reduced",
    doc="the ordered merge of a fused reduction's partials becomes one thread per output",
    root=MergeReducedOp,
    rewrite=lower_merge_reduced,
)

LOWER_GRIDWISE = Pattern(
    name="lower-gridwise-gemm",
    doc="a gridwise GEMM becomes its workgroup's staged K loop of blockwise ops and a "
    "threadwise write",
    root=GridwiseGemmOp,
    rewrite=lower_gridwise,
)

LOWER_MERGE = Pattern(
    name="lower-merge-partials",
    doc="the ordered merge of split-K partials becomes one thread per element of C",
    root=MergePartialsOp,
    rewrite=lower_merge,
)

LOWER_PAD = Pattern(
    name="lower-pad-rows",
    doc="widening a source's rows to whole vectors becomes one thread per element of the copy",
    root=PadRowsOp,
    rewrite=lower_pad,
)

LOWER_GRIDWISE_GEMM = Pass(
    "lower-gridwise-gemm",
    "Lowers xsplit_gemm's gridwise ops to blockwise and threadwise ops on GPU ids.",
    [LOWER_GRIDWISE, LOWER_MERGE, LOWER_GRIDWISE_REDUCE, LOWER_MERGE_REDUCED, LOWER_PAD,
     # llvm-cpu's loops (workgroup_loops.py), tried first where they apply
     LOWER_GRIDWISE_REDUCE_WORKGROUP, LOWER_MERGE_REDUCED_WORKGROUP],
)

__all__ = ["LOWER_GRIDWISE_GEMM"]
