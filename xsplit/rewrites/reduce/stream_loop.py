"""The K loop of a gridwise GEMM with `stream_b` (`lower-gridwise-gemm`):
only A is staged, B goes from global memory straight into registers.

For a skinny M each element of B feeds fewer than 8 FMAs. Staged through
workgroup memory, a thread's share of B's copy is exactly what it reads
back, so per 4 columns and K element it issues a 16-byte copy, a 16-byte
read and 4 x M FFMA: on M = 1 at most 65% of the loop is math (sm_90 SASS,
`bench/RESULTS-machine-code.md`). Read straight into registers, each
16-byte load feeds 4 x M FFMA and A's row (the same for every thread, a
broadcast) costs one 16-byte shared read per 4 K.

A's tiles alternate between two buffers, one barrier a step: on sm_80 and
sm_90 the next step's A is a cp.async issued before the multiply (4 bytes
an element: A's tile is M x K-step, a few hundred bytes); with
`register_prefetch` (gfx942) a plain copy into the idle tile after it. The
loop runs the chunk's whole steps, whose loads need no mask along K; a
K that is not whole steps has its ragged last step peeled after it.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from xsplit.dialects.xsplit_gemm import (
    BlockwiseAsyncCopyOp,
    BlockwiseCopyOp,
    BlockwiseStreamGemmOp,
    GridwiseGemmOp,
)
from xsplit.rewrites.reduce.kernel_ir import KernelBuilder


def streamed_b_loop(
    kb: KernelBuilder, op: GridwiseGemmOp, tid, m0, n0, k_begin, k_end, acc: SSAValue, a: list
) -> None:
    """Builds the chunk's K loop into `acc` with A's two tiles `a`."""
    tm, _, tk = op.tile_sizes
    threads = op.thread_counts[1]
    k = op.mnk[2]
    by_cp_async = op.register_prefetch is None
    k_loop = kb.min(k_end, k - k % tk) if k % tk else k_end

    def copy_a(body: KernelBuilder, k0, buf: int, whole: bool):
        inside = (1,) if whole else ()
        k0 = body.c(k0)
        if by_cp_async:
            copy = BlockwiseAsyncCopyOp(op.a, m0, k0, a[buf], tid, (tm, tk), threads, inside=inside)
            return body.insert(copy).results[0]
        body.insert(BlockwiseCopyOp(op.a, m0, k0, a[buf], tid, (tm, tk), threads, inside=inside))
        return None

    def multiply(body: KernelBuilder, k0, buf: int, ragged: bool) -> None:
        g = op.column_run
        body.insert(
            BlockwiseStreamGemmOp(acc, a[buf], op.b, body.c(k0), n0, tid, threads, tk, g, ragged)
        )

    # The chunk's first step may be its only, ragged one: masked along K.
    first = copy_a(kb, k_begin, 0, whole=False)

    def step(body: KernelBuilder, at, buf: int) -> None:
        if first is not None:
            body.async_wait(first, 0)
        # A's tile of this step is everyone's; everyone is done with the other.
        body.barrier()
        ahead = body.add(at, tk)
        more = body.below(ahead, k_loop)
        if by_cp_async:
            body.if_(more, lambda inner: copy_a(inner, ahead, 1 - buf, whole=True))
        multiply(body, at, buf, ragged=False)
        if not by_cp_async:
            body.if_(more, lambda inner: copy_a(inner, ahead, 1 - buf, whole=True))

    def pair(body: KernelBuilder, k0: SSAValue) -> None:
        step(body, k0, 0)
        second = body.add(k0, tk)
        body.if_(body.below(second, k_loop), lambda inner: step(inner, second, 1))

    kb.for_(k_begin, k_loop, 2 * tk, pair, "k0")
    if k % tk == 0:
        return

    def ragged_step(body: KernelBuilder) -> None:
        # Past the loop no copy is in flight but, where the chunk has no
        # whole step, the first one into tile 0.
        if first is not None:
            body.async_wait(first, 0)
        body.barrier()
        token = copy_a(body, k_loop, 0, whole=False)
        if token is not None:
            body.async_wait(token, 0)
        body.barrier()
        multiply(body, k_loop, 0, ragged=True)

    # Only the chunk that holds K's end has a ragged step.
    if isinstance(k_loop, int) and isinstance(k_end, int):
        ragged_step(kb)
    else:
        kb.if_(kb.below(k_loop, k_end), ragged_step)
