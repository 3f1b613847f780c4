"""`amdgpu`: gfx942's MFMA, direct-to-LDS loads and scheduling barriers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Operation

from xsplit.dialects.amdgpu import MFMAOp
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, expand
from xsplit.simulator.memory import READ, WRITE
from xsplit.simulator.semantics.operands import slot_of
from xsplit.simulator.semantics.registry import register
from xsplit.simulator.semantics.warp import warp_matrix_multiply

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


@register("amdgpu.mfma")
def _c_mfma(m: Compiled, op: Operation):
    """`amdgpu.mfma`: the intrinsic of its shape and A's element type (a
    64-lane wavefront, CDNA3's layouts)."""
    assert isinstance(op, MFMAOp)
    intr = op.intrinsic
    if intr is None:
        raise SimulationError(f"no fragment layout for {op.name} of shape {list(op.shape)}", op)
    return warp_matrix_multiply(m, op, intr, *op.operands)


@register("amdgpu.gather_to_lds", lane_local=True)
def _c_gather_to_lds(m: Compiled, op: Operation):
    """`amdgpu.gather_to_lds`: each lane reads `transferType` (one element or
    a short vector along the last index) at its own source place and writes
    it to workgroup memory at the destination place, which every lane of a
    wavefront gives alike, plus its lane number (thread % 64) times the
    transfer. On gfx942 the write lands by the next barrier (whose release
    fence waits for it); here it lands at once and is logged then, so that
    a read of the destination by another thread before that barrier races."""
    n_src = len(op.src_indices)  # type: ignore[attr-defined]
    ssrc = slot_of(m, op.operands[0])
    ssi = [slot_of(m, v) for v in op.operands[1 : 1 + n_src]]
    sdst = slot_of(m, op.operands[1 + n_src])
    sdi = [slot_of(m, v) for v in op.operands[2 + n_src :]]
    transfer = op.transfer_type  # type: ignore[attr-defined]
    count = transfer.get_shape()[0] if isinstance(transfer, VectorType) else 1
    k = m.index_of(op)
    launch = m.launch
    lanes = 64

    def run(fr: Frame, chunked: bool) -> None:
        src, dst = m.get(fr, ssrc), m.get(fr, sdst)
        si = [m.arr(fr, s) for s in ssi]
        di = [m.arr(fr, s) for s in sdi]
        thread = launch.thread_of_lane[fr.lanes]
        wave = launch.block_of_lane[fr.lanes] * launch.threads + thread - thread % lanes
        base = expand(m.flat_index(dst, di, op, [None, (), None]), fr.n)
        for w in np.unique(wave):
            if len(np.unique(base[wave == w])) > 1:
                raise SimulationError(
                    "amdgpu.gather_to_lds: the lanes of a wavefront give different destinations", op
                )
        end = dst.offset + int(np.prod(dst.shape))
        data = dst.buffer.data
        for x in range(count):
            flat = m.flat_index(src, [*si[:-1], si[-1] + x], op, [None, (), None])
            if src.buffer.logged:
                fr.m.access(src, flat, fr, k, READ)
            to = base + (thread % lanes) * count + x
            if np.any(to >= end):
                raise SimulationError("amdgpu.gather_to_lds writes past its destination", op)
            if dst.buffer.logged:
                fr.m.access(dst, to, fr, k, WRITE)
            data[to] = expand(src.buffer.data[flat], fr.n)

    return run


@register("amdgpu.sched_barrier", lane_local=True)
def _c_sched_barrier(m: Compiled, op: Operation):
    """`amdgpu.sched_barrier`: a hint to LLVM's scheduler; nothing runs."""

    def run(fr: Frame, chunked: bool) -> None:
        return None

    return run
