"""`memref`: loads, stores and atomics on the machine's buffers (each access
logged), allocations, and the views subviews and casts make."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Operation

from xsplit.analysis.writes import may_write
from xsplit.semantics import op_property
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, expand, gather, lane_value
from xsplit.simulator.memory import ATOMIC, READ, WRITE, View
from xsplit.simulator.semantics.operands import slot_of, static_values
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled

IndexMap = Callable[[Sequence], list]
"""Per-lane indices from an op's index operands (an affine map's results)."""


@register("memref.load", lane_local=True)
def compile_load(m: Compiled, op: Operation, index_map: IndexMap | None = None):
    """`memref.load`, or a load at the indices `index_map` gives (affine's)."""
    sv = slot_of(m, op.operands[0])
    sidx = [slot_of(m, v) for v in op.operands[1:]]
    r = slot_of(m, op.results[0])
    k = m.index_of(op)
    memo: list = [None, (), None]

    def run(fr: Frame, chunked: bool) -> None:
        env = fr.env
        view = env[sv]
        if view is None:
            view = m.pull(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        if index_map is not None:
            idx = index_map(idx)
        flat = m.flat_index(view, idx, op, memo)
        if view.buffer.logged:
            fr.m.access(view, flat, fr, k, READ)
        env[r] = view.buffer.data[flat]

    return run


@register("memref.store", lane_local=True)
def compile_store(m: Compiled, op: Operation, index_map: IndexMap | None = None):
    """`memref.store`, or a store at the indices `index_map` gives (affine's)."""
    sval, sv = slot_of(m, op.operands[0]), slot_of(m, op.operands[1])
    sidx = [slot_of(m, v) for v in op.operands[2:]]
    k = m.index_of(op)
    memo: list = [None, (), None]

    def run(fr: Frame, chunked: bool) -> None:
        value = m.arr(fr, sval)
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        if index_map is not None:
            idx = index_map(idx)
        flat = m.flat_index(view, idx, op, memo)
        if flat.__class__ is not np.ndarray:
            flat = np.full(fr.n, flat, dtype=np.int64)
        if view.buffer.logged:
            fr.m.access(view, flat, fr, k, WRITE)
        data = view.buffer.data
        if value.__class__ is np.ndarray:
            data[flat] = value.astype(data.dtype, copy=False)
        else:
            data[flat] = expand(value, fr.n).astype(data.dtype, copy=False)

    return run


_ATOMIC_KINDS = [
    "addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu",
    "mulf", "muli", "ori", "andi", "maxnumf", "minnumf",
]  # fmt: skip


def atomic_kind(op: Operation) -> str:
    kind = op_property(op, "kind")
    if isinstance(kind, IntegerAttr):
        return _ATOMIC_KINDS[int(kind.value.data)]
    text = str(kind)
    for k in sorted(_ATOMIC_KINDS, key=len, reverse=True):
        if re.search(rf"\b{k}\b", text):
            return k
    raise SimulationError(f"unknown atomic kind {text}", op)


_ATOMIC_UFUNCS = {
    "addf": np.add, "addi": np.add, "mulf": np.multiply, "muli": np.multiply,
    "maximumf": np.maximum, "maxs": np.maximum, "maxu": np.maximum, "maxnumf": np.fmax,
    "minimumf": np.minimum, "mins": np.minimum, "minu": np.minimum, "minnumf": np.fmin,
    "ori": np.bitwise_or, "andi": np.bitwise_and,
}  # fmt: skip


@register("memref.atomic_rmw", lane_local=True)
def _c_atomic_rmw(m: Compiled, op: Operation):
    sval, sv = slot_of(m, op.operands[0]), slot_of(m, op.operands[1])
    sidx = [slot_of(m, v) for v in op.operands[2:]]
    r = slot_of(m, op.results[0])
    k = m.index_of(op)
    ufunc = _ATOMIC_UFUNCS.get(atomic_kind(op))
    memo: list = [None, (), None]

    def run(fr: Frame, chunked: bool) -> None:
        value = m.arr(fr, sval)
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        flat = m.flat_index(view, idx, op, memo)
        if flat.__class__ is not np.ndarray:
            flat = np.full(fr.n, flat, dtype=np.int64)
        fr.m.access(view, flat, fr, k, ATOMIC)
        data = view.buffer.data
        vals = expand(value, fr.n).astype(data.dtype, copy=False)
        old = data[flat]
        if ufunc is None:
            data[flat] = vals
        else:
            ufunc.at(data, flat, vals)
        fr.env[r] = old

    return run


@register("memref.extract_aligned_pointer_as_index", lane_local=True)
def _c_aligned_pointer(m: Compiled, op: Operation):
    # The base is address 0 of the buffer: an address built on it is then
    # the byte offset of an element, which `llvm.atomicrmw` maps back.
    r = slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = np.int64(0)

    return run


@register("memref.alloc", "memref.alloca", lane_local=True)
def _c_alloc(m: Compiled, op: Operation):
    key = id(op)
    r = slot_of(m, op.results[0])
    written = may_write(op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        allocs = fr.m.allocs
        if key not in allocs:
            if op.operands:
                raise SimulationError("dynamically sized allocations are not supported", op)
            name = op.results[0].name_hint
            label = f"%{name}" if name else f"%alloc{len(allocs)}"
            view = fr.m.new_buffer(label, op.results[0].type)  # type: ignore[arg-type]
            view.buffer.logged = view.buffer.logged and written
            allocs[key] = view
        fr.env[r] = gather(allocs[key], fr.lanes)

    return run


@register("memref.subview", lane_local=True)
def _c_subview(m: Compiled, op: Operation):
    ss = slot_of(m, op.operands[0])
    dyn_slots = [slot_of(m, v) for v in op.operands[1:]]
    n_off = len(op.offsets)  # type: ignore[attr-defined]
    n_size = len(op.sizes)  # type: ignore[attr-defined]
    s_offsets = op_property(op, "static_offsets")
    s_sizes = op_property(op, "static_sizes")
    s_strides = op_property(op, "static_strides")
    result_shape = tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
    r = slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        src: View = m.get(fr, ss)
        dyn = [m.arr(fr, s) for s in dyn_slots]
        offsets = static_values(s_offsets, dyn[:n_off])  # type: ignore[arg-type]
        sizes = static_values(s_sizes, dyn[n_off : n_off + n_size])  # type: ignore[arg-type]
        strides = static_values(s_strides, dyn[n_off + n_size :])  # type: ignore[arg-type]
        if any(not isinstance(s, int) for s in strides):
            raise SimulationError("subviews with dynamic strides are not supported", op)
        offset = src.offset
        for o, stride in zip(offsets, src.strides):
            offset = offset + np.asarray(o, dtype=np.int64) * stride
        offset = lane_value(offset)
        # A dynamic size: the view takes the largest, and relies on the type; rank
        # reduction drops the unit dimensions the result type does not keep.
        full = [(s if isinstance(s, int) else -1) for s in sizes]
        new_strides = [src_s * int(s) for src_s, s in zip(src.strides, strides)]
        kept = list(range(len(full)))
        if len(result_shape) != len(full):
            # The unit dimensions dropped are matched greedily against the
            # result's shape, as MLIR infers them ([1, 37, 1] into 37x1
            # keeps the last two).
            kept, j = [], 0
            for i, s in enumerate(full):
                if j < len(result_shape) and s in (result_shape[j], -1):
                    kept.append(i)
                    j += 1
            if len(kept) != len(result_shape):
                raise SimulationError("this rank-reducing subview is not supported", op)
            full = [full[i] for i in kept]
            new_strides = [new_strides[i] for i in kept]
        shape = []
        for d, s in enumerate(full):
            if s < 0:
                sel = np.atleast_1d(np.asarray(sizes[kept[d]]))
                if sel.size == 0 or np.any(sel != sel[0]):
                    raise SimulationError(
                        "subviews whose size differs between threads are not supported", op
                    )
                s = int(sel[0])
            shape.append(s)
        view = View(src.buffer, offset, tuple(shape), tuple(new_strides))
        fr.m.note_view(view, fr)
        fr.env[r] = view

    return run


@register("memref.cast", "memref.assume_alignment", lane_local=True)
def _c_passthrough(m: Compiled, op: Operation):
    ss = slot_of(m, op.operands[0])
    r = slot_of(m, op.results[0]) if op.results else None
    t = op.results[0].type if op.results else None
    shape = tuple(t.get_shape()) if isinstance(t, MemRefType) else None
    if shape is not None and any(d < 0 for d in shape):
        shape = None  # a dynamic result keeps the source's shape

    def run(fr: Frame, chunked: bool) -> None:
        src = m.get(fr, ss)
        if r is None:
            return
        if src.__class__ is View and shape is not None:
            src = View(src.buffer, src.offset, shape, src.strides)
            fr.m.note_view(src, fr)
        fr.env[r] = src

    return run


@register("memref.dealloc", lane_local=True)
def _c_nothing(m: Compiled, op: Operation):
    def run(fr: Frame, chunked: bool) -> None:
        return

    return run


@register("memref.dim")
def _c_dim(m: Compiled, op: Operation):
    sv, sd, r = slot_of(m, op.operands[0]), slot_of(m, op.operands[1]), slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        view: View = m.get(fr, sv)
        d = np.atleast_1d(m.arr(fr, sd))
        fr.env[r] = np.int64(view.shape[int(d[0])])

    return run


@register("memref.copy", lane_local=True)
def _c_copy(m: Compiled, op: Operation):
    ssrc, sdst = slot_of(m, op.operands[0]), slot_of(m, op.operands[1])
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        src: View = m.get(fr, ssrc)
        dst: View = m.get(fr, sdst)
        fr.m.write_box(dst, fr.m.read_box(src, fr, k), fr, k)

    return run
