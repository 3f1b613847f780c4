"""Warp collectives that tensor-core intrinsics share across dialects
(`nvgpu.mma.sync`, `nvgpu.ldmatrix`, `amdgpu.mfma`): which lanes form a
warp, and `D = A · B + C` by an intrinsic's fragment layouts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation

from xsplit.dialects.fragments import Intrinsic, fragment_matrix
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame
from xsplit.simulator.semantics.operands import slot_of

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


def warp_lanes(m: Compiled, op: Operation, fr: Frame, lanes: int):
    """Each frame lane's warp (0, 1, ... in the frame) and lane within it,
    and the frame index of every (warp, lane); all lanes of a warp must be
    there."""
    launch = m.launch
    thread = launch.block_of_lane[fr.lanes] * launch.threads + launch.thread_of_lane[fr.lanes]
    warps, slot = np.unique(thread // lanes, return_inverse=True)
    lane = thread % lanes
    if len(fr.lanes) != len(warps) * lanes:
        raise SimulationError(
            f"{op.name} reached by only some lanes of a warp (divergent warp collective)", op
        )
    where = np.zeros((len(warps), lanes), dtype=np.int64)
    where[slot, lane] = np.arange(fr.n)
    return slot, lane, where


def warp_matrix_multiply(m: Compiled, op: Operation, intr: Intrinsic, a, b, c):
    """The closure of a warp-collective `D = A · B + C` by the intrinsic
    `intr` (fragments.py), its A, B and C fragments the values `a`, `b`,
    `c`: the lanes of each warp (`intr.lanes` consecutive threads of a
    workgroup) meet; their fragments are placed in the matrices by the
    intrinsic's layout, multiplied in f32 (products of 16-bit floats are
    exact in f32) and D's elements go back to the lanes that hold them in C.
    A warp whose lanes do not all arrive is an error, as on the hardware.
    Every intrinsic's op (`nvgpu.mma.sync`, ...) simulates through it."""
    sa, sb, sc = (slot_of(m, v) for v in (a, b, c))
    r = slot_of(m, op.results[0])
    if m.launch.threads % intr.lanes:
        raise SimulationError(f"{op.name} needs workgroups of whole {intr.lanes}-lane warps", op)
    layouts = [fragment_matrix(f, intr.lanes) for f in (intr.a, intr.b, intr.c)]
    dims = [(intr.m, intr.k), (intr.k, intr.n), (intr.m, intr.n)]

    def run(fr: Frame, chunked: bool) -> None:
        slot, lane, _ = warp_lanes(m, op, fr, intr.lanes)
        warps = int(slot.max()) + 1 if fr.n else 0
        c_dtype = np.asarray(m.arr(fr, sc)).dtype
        mats = []
        for s, (rows, cols), dim in zip((sa, sb, sc), layouts, dims):
            value = m.arr(fr, s).reshape(fr.n, -1).astype(np.float32)
            mat = np.zeros((warps, *dim), dtype=np.float32)
            mat[slot[:, None], rows[lane].reshape(fr.n, -1), cols[lane].reshape(fr.n, -1)] = value
            mats.append(mat)
        d = mats[0] @ mats[1] + mats[2]
        rows, cols = layouts[2]
        out = d[slot[:, None], rows[lane].reshape(fr.n, -1), cols[lane].reshape(fr.n, -1)]
        fr.env[r] = out.reshape(fr.n, *intr.c.shape).astype(c_dtype)

    return run
