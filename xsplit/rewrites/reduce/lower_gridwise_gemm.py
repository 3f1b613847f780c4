"""`lower-gridwise-gemm`: the GEMM kernel's second stage. A gridwise op
becomes what one workgroup does, in blockwise and threadwise ops.

`xsplit_gemm.gridwise_gemm`: workgroup (x, y, z) owns the C tile at
(y * tile_m, x * tile_n) and K chunk z. Its threads zero their register
tiles, then step through the chunk `tile_k` elements at a time: stage the
step's A tile (stored K-major, so that each thread's registers are a row of
it) and B tile in workgroup memory, wait, multiply them into the registers,
wait again before the next step overwrites them. Last, each thread's
registers go to C by the op's merge (`threadwise_write`).

Each copy loads 128 bits at a time (`vector = 4`) where the source's rows
are whole vectors of 4 and the threads divide the copy in vectors.

The A tile's rows are padded by one word: its copy writes it transposed, and
without the pad the 16 threads that write one column of it would all hit the
same bank.

`xsplit_gemm.merge_partials`: one thread per element of C, which adds the
partials in chunk order to C's value (grid x along N, y along M).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from xsplit.dialects.xsplit_gemm import (
    BlockwiseCopyOp,
    BlockwiseGemmOp,
    GridwiseGemmOp,
    MergePartialsOp,
    ThreadwiseFillOp,
    ThreadwiseWriteOp,
)
from xsplit.rewrites.dsl import IRBuilder, Match, Pass, Pattern
from xsplit.rewrites.reduce.kernel_ir import PRIVATE, WORKGROUP, KernelBuilder

A_PAD = 1
"""Words of padding per row of the A tile (bank conflicts of its transposed stores)."""


VECTOR = 4
"""f32 elements per global load where they fit: 128 bits."""


def vector_width(row_length: int, rows: int, cols: int, threads: int) -> int:
    """128-bit loads when every vector is 16-byte aligned (the source's rows
    are whole vectors) and the threads still divide the copy; else scalars."""
    fits = row_length % VECTOR == 0 and cols % VECTOR == 0
    return VECTOR if fits and (rows * cols // VECTOR) % threads == 0 else 1


def lower_gridwise(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, GridwiseGemmOp)
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
    k_begin: int | SSAValue = 0
    k_end: int | SSAValue = k
    if chunk is not None:
        k_begin = kb.mul(chunk, chunk_k)
        k_end = kb.add(k_begin, chunk_k)
        if chunk_k * op.chunk_count > k:  # the last chunk is short: its loop stops at K
            k_end = kb.min(k_end, k)
    a_tile = kb.alloc([tk, tm + A_PAD], WORKGROUP, "a_tile")
    b_tile = kb.alloc([tk, tn], WORKGROUP, "b_tile")
    acc = kb.alloc([tm // thm, tn // thn], PRIVATE, "acc")
    kb.insert(ThreadwiseFillOp(acc))

    wa = vector_width(k, tm, tk, threads)
    wb = vector_width(op.mnk[1], tk, tn, threads)

    def step(body: KernelBuilder, k0: SSAValue) -> None:
        body.insert(BlockwiseCopyOp(op.a, m0, k0, a_tile, tid, (tm, tk), threads, transpose=True, vector=wa))  # type: ignore[arg-type]
        body.insert(BlockwiseCopyOp(op.b, k0, n0, b_tile, tid, (tk, tn), threads, vector=wb))  # type: ignore[arg-type]
        body.barrier()
        body.insert(BlockwiseGemmOp(acc, a_tile, b_tile, tid, (thm, thn), tk))
        body.barrier()

    kb.for_(k_begin, k_end, tk, step, "k0")
    row = kb.add(m0, kb.div(tid, thn))
    col = kb.add(n0, kb.rem(tid, thn))
    kb.insert(ThreadwiseWriteOp(acc, op.c, row, col, (thm, thn), op.merge_kind, chunk if op.merge_kind == "partials" else None))  # type: ignore[arg-type]
    return []


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


LOWER_GRIDWISE = Pattern(
    name="lower-gridwise-gemm",
    doc="a gridwise GEMM becomes its workgroup's staged K loop of blockwise ops and its threadwise write",
    root=GridwiseGemmOp,
    rewrite=lower_gridwise,
)

LOWER_MERGE = Pattern(
    name="lower-merge-partials",
    doc="the ordered merge of split-K partials becomes one thread per element of C",
    root=MergePartialsOp,
    rewrite=lower_merge,
)

LOWER_GRIDWISE_GEMM = Pass(
    "lower-gridwise-gemm",
    "Lowers xsplit_gemm's gridwise ops to blockwise and threadwise ops on GPU ids.",
    [LOWER_GRIDWISE, LOWER_MERGE],
)

__all__ = ["LOWER_GRIDWISE_GEMM"]
