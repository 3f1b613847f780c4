"""`vector` on 1-D vectors: a vector value is an (n, w) array, lanes
first, so that frames gather it as they gather a scalar."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Operation

from xsplit.semantics import op_property
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, expand
from xsplit.simulator.memory import READ, WRITE
from xsplit.simulator.semantics.operands import slot_of
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


@register("vector.load", lane_local=True)
def _c_vector_load(m: Compiled, op: Operation):
    """`vector.load` of a 1-D vector: w consecutive elements along the last
    index, each logged as its own read. A vector value is held as an
    (n, w) array, lanes first, so that frames gather it like a scalar;
    only `vector.extract` reads it."""
    sv = slot_of(m, op.operands[0])
    sidx = [slot_of(m, v) for v in op.operands[1:]]
    shape = op.results[0].type.get_shape()  # type: ignore[attr-defined]
    if len(shape) != 1:
        raise SimulationError("only 1-D vector loads are supported", op)
    width = shape[0]
    r = slot_of(m, op.results[0])
    k = m.index_of(op)
    memos: list[list] = [[None, (), None] for _ in range(width)]

    def run(fr: Frame, chunked: bool) -> None:
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        parts = []
        for e in range(width):
            flat = m.flat_index(view, [*idx[:-1], idx[-1] + e], op, memos[e])
            if view.buffer.logged:
                fr.m.access(view, flat, fr, k, READ)
            parts.append(expand(view.buffer.data[flat], fr.n))
        fr.env[r] = np.stack(parts, axis=1)

    return run


@register("vector.store", lane_local=True)
def _c_vector_store(m: Compiled, op: Operation):
    """`vector.store` of a 1-D vector: w consecutive elements along the last
    index, each logged as its own write."""
    sval, sv = slot_of(m, op.operands[0]), slot_of(m, op.operands[1])
    sidx = [slot_of(m, v) for v in op.operands[2:]]
    shape = op.operands[0].type.get_shape()  # type: ignore[attr-defined]
    if len(shape) != 1:
        raise SimulationError("only 1-D vector stores are supported", op)
    width = shape[0]
    k = m.index_of(op)
    memos: list[list] = [[None, (), None] for _ in range(width)]

    def run(fr: Frame, chunked: bool) -> None:
        value = m.arr(fr, sval)
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        data = view.buffer.data
        for e in range(width):
            flat = expand(m.flat_index(view, [*idx[:-1], idx[-1] + e], op, memos[e]), fr.n)
            if view.buffer.logged:
                fr.m.access(view, flat, fr, k, WRITE)
            data[flat] = value[:, e].astype(data.dtype, copy=False)

    return run


@register("vector.extract", lane_local=True)
def _c_vector_extract(m: Compiled, op: Operation):
    """`vector.extract` of one element at a static position of a vector."""
    position = op_property(op, "static_position").get_values()  # type: ignore[union-attr]
    rank = len(op.operands[0].type.get_shape())  # type: ignore[attr-defined]
    if len(position) != rank or any(p < 0 for p in position):
        raise SimulationError("only static extracts of one element are supported", op)
    sv, r = slot_of(m, op.operands[0]), slot_of(m, op.results[0])
    at = (slice(None), *(int(p) for p in position))

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = m.arr(fr, sv)[at]

    return run


@register("vector.from_elements", lane_local=True)
def _c_vector_from_elements(m: Compiled, op: Operation):
    """`vector.from_elements`: a (lanes, *shape) array of its scalars."""
    shape = tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
    slots = [slot_of(m, v) for v in op.operands]
    r = slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        parts = [expand(m.arr(fr, s), fr.n) for s in slots]
        fr.env[r] = np.stack(parts, axis=1).reshape((fr.n, *shape))

    return run


@register("vector.broadcast", lane_local=True)
def _c_vector_broadcast(m: Compiled, op: Operation):
    """`vector.broadcast` of a scalar to a 1-D vector: each lane's value in
    every element."""
    shape = op.results[0].type.get_shape()  # type: ignore[attr-defined]
    if len(shape) != 1 or isinstance(op.operands[0].type, VectorType):
        raise SimulationError("only broadcasts of a scalar to a 1-D vector are supported", op)
    sv, r, width = slot_of(m, op.operands[0]), slot_of(m, op.results[0]), shape[0]

    def run(fr: Frame, chunked: bool) -> None:
        value = expand(m.arr(fr, sv), fr.n)
        fr.env[r] = np.repeat(value[:, None], width, axis=1)

    return run
