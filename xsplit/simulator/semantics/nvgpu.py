"""`nvgpu`: sm_80's `ldmatrix`, `mma.sync` and asynchronous copies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation

from xsplit.dialects.fragments import INTRINSICS
from xsplit.semantics import op_property
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, expand, gather
from xsplit.simulator.memory import READ, WRITE
from xsplit.simulator.semantics.operands import slot_of
from xsplit.simulator.semantics.registry import register
from xsplit.simulator.semantics.warp import warp_lanes, warp_matrix_multiply

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled
    from xsplit.simulator.machine import Machine


@register("nvgpu.ldmatrix")
def _c_ldmatrix(m: Compiled, op: Operation):
    """`nvgpu.ldmatrix`: lanes 8i..8i+7 give the rows of matrix i; lane l
    gets the pair at row l / 4, columns 2 (l % 4) + e, or transposed at rows
    2 (l % 4) + e of column l / 4 (PTX ISA, ldmatrix)."""
    tiles = op.num_tiles.value.data  # type: ignore[attr-defined]
    transpose = bool(op.transpose.value.data)  # type: ignore[attr-defined]
    sv = slot_of(m, op.operands[0])
    sidx = [slot_of(m, v) for v in op.operands[1:]]
    r = slot_of(m, op.results[0])
    k = m.index_of(op)
    if m.launch.threads % 32:
        raise SimulationError(f"{op.name} needs workgroups of whole 32-lane warps", op)

    def run(fr: Frame, chunked: bool) -> None:
        slot, lane, where = warp_lanes(m, op, fr, 32)
        view = m.get(fr, sv)
        idx = [expand(m.arr(fr, s), fr.n) for s in sidx]
        out = None
        for i in range(tiles):
            for e in range(2):
                pair = 2 * (lane % 4) + e
                row, col = (pair, lane // 4) if transpose else (lane // 4, pair)
                source = where[slot, 8 * i + row]  # the lane that addresses this row
                at = [x[source] for x in idx]
                flat = m.flat_index(view, [*at[:-1], at[-1] + col], op, [None, (), None])
                if view.buffer.logged:
                    fr.m.access(view, flat, fr, k, READ)
                value = view.buffer.data[flat]
                if out is None:
                    out = np.zeros((fr.n, tiles, 2), dtype=view.buffer.data.dtype)
                out[:, i, e] = value
        fr.env[r] = out

    return run


@register("nvgpu.mma.sync")
def _c_mma_sync(m: Compiled, op: Operation):
    """`nvgpu.mma.sync`: the intrinsic of its `mmaShape` (m16n8k16)."""
    shape = tuple(a.value.data for a in op_property(op, "mmaShape").data)  # type: ignore[union-attr]
    intr = next(
        (i for i in INTRINSICS.values() if i.op == op.name and (i.m, i.n, i.k) == shape), None
    )
    if intr is None:
        raise SimulationError(f"no fragment layout for {op.name} of shape {list(shape)}", op)
    return warp_matrix_multiply(m, op, intr, *op.operands)


@dataclass(eq=False)
class _AsyncCopies:
    """sm_80's asynchronous copies in flight: what each issued copy will
    write, per lane, and which of the lane's groups it belongs to (-1: not
    yet in a group). A copy lands when a `device_async_wait` of its lane
    leaves its group behind, not when it is issued."""

    count: np.ndarray
    """Groups each lane has committed."""
    pending: list[dict] = field(default_factory=list)

    # A stretch the machine runs for all its lanes at once (`speculation`)
    # must leave the copies as its chunks would have: `snapshot` and
    # `restore` undo it, `settle` splits what it issued by chunk.

    def snapshot(self) -> tuple:
        return self.count.copy(), list(self.pending), [c["group"].copy() for c in self.pending]

    def restore(self, saved: tuple) -> None:
        count, pending, groups = saved
        self.count[...] = count
        for copy, group in zip(pending, groups):
            copy["group"] = group
        self.pending[:] = pending

    def settle(self, chunk: np.ndarray, saved: tuple | None) -> None:
        """The copies issued since `saved`, one per chunk and issue, in
        chunk order: the chunks, run one after the other, issued them so
        (each chunk's landed ones gone)."""
        old = {id(c) for c in saved[1]} if saved is not None else set()
        first = next((i for i, c in enumerate(self.pending) if id(c) not in old), None)
        if first is None:
            return
        new = self.pending[first:]
        owners = [chunk[c["lanes"]] for c in new]
        split = []
        for c in range(int(chunk.max()) + 1):
            for copy, owner in zip(new, owners):
                mine = owner == c
                if mine.any() and (copy["group"][mine] != -2).any():
                    split.append({
                        "lanes": copy["lanes"][mine], "buffer": copy["buffer"],
                        "flat": copy["flat"][mine], "value": copy["value"][mine],
                        "op": copy["op"], "group": copy["group"][mine],
                    })  # fmt: skip
        self.pending[first:] = split


def _async_state(m: Machine) -> _AsyncCopies:
    state = m.dialect_state.get("nvgpu")
    if state is None:
        state = _AsyncCopies(np.zeros(m.launch.lanes, dtype=np.int64))
        m.dialect_state["nvgpu"] = state
    return state  # type: ignore[return-value]


@register("nvgpu.device_async_copy", lane_local=True)
def _c_async_copy(m: Compiled, op: Operation):
    """`nvgpu.device_async_copy`: `dstElements` elements along the last
    index, the first `srcElements` read (all without it) and the rest zero.
    The source is read when the copy is issued; the destination is written
    when a wait covers the copy's group (`_c_async_wait`), so that a read
    before the wait sees the old contents (a wrong result). The write is
    logged both at the issue and where it lands: a copy may write any time
    in between, so it races with another thread's access at either end that
    no barrier orders. (An access strictly between the two, in an epoch of
    its own, is caught only by its wrong value.)"""
    n_dst = len(op.dst_indices)  # type: ignore[attr-defined]
    n_src = len(op.src_indices)  # type: ignore[attr-defined]
    sdst = slot_of(m, op.operands[0])
    sdi = [slot_of(m, v) for v in op.operands[1 : 1 + n_dst]]
    ssrc = slot_of(m, op.operands[1 + n_dst])
    ssi = [slot_of(m, v) for v in op.operands[2 + n_dst : 2 + n_dst + n_src]]
    scount = slot_of(m, op.src_elements) if op.src_elements is not None else None  # type: ignore[attr-defined]
    width = op.elements  # type: ignore[attr-defined]
    r = slot_of(m, op.results[0])
    k = m.index_of(op)
    memos = [[None, (), None] for _ in range(width)]

    def run(fr: Frame, chunked: bool) -> None:
        state = _async_state(fr.m)
        dst, src = m.get(fr, sdst), m.get(fr, ssrc)
        di = [m.arr(fr, s) for s in sdi]
        si = [m.arr(fr, s) for s in ssi]
        count = expand(m.arr(fr, scount), fr.n) if scount is not None else np.full(fr.n, width)
        for e in range(width):
            read = count > e
            value = np.zeros(fr.n, dtype=dst.buffer.data.dtype)
            if read.any():
                sel = np.nonzero(read)[0]
                idx = [gather(x, sel) if x.__class__ is np.ndarray else x for x in si]
                flat = m.flat_index(gather(src, sel), [*idx[:-1], idx[-1] + e], op, [None, (), None])
                if src.buffer.logged:
                    fr.m.access(src, flat, fr.child(sel), k, READ)
                value[sel] = src.buffer.data[flat]
            flat = expand(m.flat_index(dst, [*di[:-1], di[-1] + e], op, memos[e]), fr.n)
            if dst.buffer.logged:
                # The copy may write any time until its wait: logged at the
                # issue too, so that one into a tile others still read races.
                fr.m.access(dst, flat, fr, k, WRITE)
            state.pending.append({
                "lanes": fr.lanes.copy(), "buffer": dst.buffer, "flat": np.array(flat),
                "value": value, "op": k, "group": np.full(fr.n, -1, dtype=np.int64),
            })  # fmt: skip
        fr.env[r] = np.int64(0)

    return run


def _lane_set(m: Compiled, fr: Frame) -> np.ndarray:
    """Whether each lane of the launch is in `fr`."""
    inframe = np.zeros(m.launch.lanes, dtype=bool)
    inframe[fr.lanes] = True
    return inframe


@register("nvgpu.device_async_create_group", lane_local=True)
def _c_async_group(m: Compiled, op: Operation):
    """`device_async_create_group`: the frame's lanes' ungrouped copies form
    their next group."""
    r = slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        state = _async_state(fr.m)
        inframe = _lane_set(m, fr)
        for copy in state.pending:
            mine = inframe[copy["lanes"]] & (copy["group"] == -1)
            copy["group"][mine] = state.count[copy["lanes"][mine]]
        state.count[fr.lanes] += 1
        fr.env[r] = np.int64(0)

    return run


@register("nvgpu.device_async_wait", lane_local=True)
def _c_async_wait(m: Compiled, op: Operation):
    """`device_async_wait {numGroups = N}`: each lane's copies in all but
    its N newest groups land now (all of its groups without N)."""
    groups = op.num_groups  # type: ignore[attr-defined]
    keep = 0 if groups is None else groups.value.data

    def run(fr: Frame, chunked: bool) -> None:
        machine = fr.m
        state = _async_state(machine)
        inframe = _lane_set(m, fr)
        left = []
        for copy in state.pending:
            lanes, group = copy["lanes"], copy["group"]
            done = inframe[lanes] & (group >= 0) & (group < state.count[lanes] - keep)
            if done.any():
                buf, flat = copy["buffer"], copy["flat"][done]
                if buf.logged and machine.log is not None:
                    machine.log.record(buf, flat, lanes[done], copy["op"], WRITE, machine.epoch)
                buf.data[flat] = copy["value"][done]
                copy["group"][done] = -2  # landed
            if (copy["group"] != -2).any():
                left.append(copy)
        state.pending[:] = left

    return run
