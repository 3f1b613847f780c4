"""`arith`, and `math`'s elementwise functions, which run as arith's do:
lane by lane, on numpy arrays or on one scalar for uniform values."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, VectorType
from xdsl.ir import Operation

from xsplit.semantics import BINARY, CASTS, CMPF, CMPI, UNARY, op_property
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, expand, lane_value
from xsplit.simulator.memory import View, storage_dtype
from xsplit.simulator.semantics.operands import slot_of
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


@register("arith.constant", lane_local=True)
def _c_constant(m: Compiled, op: Operation):
    value = op_property(op, "value")
    dtype = storage_dtype(op.results[0].type)
    if isinstance(value, IntegerAttr):
        x = value.value.data
    elif isinstance(value, FloatAttr):
        x = value.value.data
    else:
        raise SimulationError("only scalar constants are supported by the simulator", op)
    c = np.full(1, x, dtype=dtype)[0]
    r = slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = c

    return run


@register(*BINARY, lane_local=True)
def _c_binary(m: Compiled, op: Operation):
    fn = BINARY[op.name]
    sa, sb = slot_of(m, op.operands[0]), slot_of(m, op.operands[1])
    r = slot_of(m, op.results[0])
    dtype = storage_dtype(op.results[0].type)
    memo: list = [None, None, None]

    def run(fr: Frame, chunked: bool) -> None:
        env = fr.env
        a = env[sa]
        if a is None:
            a = m.pull(fr, sa)
        b = env[sb]
        if b is None:
            b = m.pull(fr, sb)
        if a is memo[0] and b is memo[1]:
            env[r] = memo[2]
            return
        if a.__class__ is View or b.__class__ is View:
            raise SimulationError("expected a scalar value, got a memref")
        x = fn(a, b)
        if x.dtype != dtype:
            x = x.astype(dtype)
        if x.__class__ is np.ndarray and x.ndim == 0:
            x = x[()]
        memo[0], memo[1], memo[2] = a, b, x
        env[r] = x

    return run


_ROUNDED_BY_LOOP = frozenset({"math.exp", "math.tanh", "math.log"})
"""Functions numpy's vectorised loops may round otherwise than its scalar
ones (they are not correctly rounded), so a lane's result may depend on the
array it is computed in."""


@register(*(name for name in UNARY if name not in _ROUNDED_BY_LOOP), lane_local=True)
@register(*(name for name in UNARY if name in _ROUNDED_BY_LOOP))
def _c_unary(m: Compiled, op: Operation):
    fn = UNARY[op.name]
    sa, r = slot_of(m, op.operands[0]), slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        a = m.arr(fr, sa)
        # On arrays even when uniform: numpy's vectorised math routines are
        # what the results were always computed with.
        fr.env[r] = fn(expand(a, fr.n))

    return run


@register(*CASTS, lane_local=True)
def _c_cast(m: Compiled, op: Operation):
    sa, r = slot_of(m, op.operands[0]), slot_of(m, op.results[0])
    dtype = storage_dtype(op.results[0].type)
    memo: list = [None, None]

    def run(fr: Frame, chunked: bool) -> None:
        a = m.arr(fr, sa)
        if a is memo[0]:
            fr.env[r] = memo[1]
            return
        x = a.astype(dtype)
        memo[0], memo[1] = a, x
        fr.env[r] = x

    return run


@register("arith.cmpi", lane_local=True)
def _c_cmpi(m: Compiled, op: Operation):
    pred = int(op_property(op, "predicate").value.data)  # type: ignore[union-attr]
    cmp = CMPI[pred]
    sa, sb, r = slot_of(m, op.operands[0]), slot_of(m, op.operands[1]), slot_of(m, op.results[0])
    memo: list = [None, None, None]

    def run(fr: Frame, chunked: bool) -> None:
        a, b = m.arr(fr, sa), m.arr(fr, sb)
        if a is memo[0] and b is memo[1]:
            fr.env[r] = memo[2]
            return
        x, y = a, b
        if pred >= 6:  # unsigned: compare as unsigned 64-bit
            x, y = a.astype(np.uint64), b.astype(np.uint64)
        out = lane_value(cmp(x, y))
        memo[0], memo[1], memo[2] = a, b, out
        fr.env[r] = out

    return run


@register("arith.cmpf", lane_local=True)
def _c_cmpf(m: Compiled, op: Operation):
    pred = int(op_property(op, "predicate").value.data)  # type: ignore[union-attr]
    sa, sb, r = slot_of(m, op.operands[0]), slot_of(m, op.operands[1]), slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        a, b = m.arr(fr, sa), m.arr(fr, sb)
        if pred == 0:
            out = np.zeros(np.shape(a), bool)
        elif pred == 15:
            out = np.ones(np.shape(a), bool)
        elif pred == 7:
            out = ~(np.isnan(a) | np.isnan(b))
        elif pred == 14:
            out = np.isnan(a) | np.isnan(b)
        else:
            out = CMPF[pred](a, b)
            nan = np.isnan(a) | np.isnan(b)
            out = (out | nan) if pred >= 8 else (out & ~nan)
        fr.env[r] = lane_value(out)

    return run


@register("arith.select", lane_local=True)
def _c_select(m: Compiled, op: Operation):
    sc, sa, sb = (slot_of(m, v) for v in op.operands)
    r = slot_of(m, op.results[0])
    # An i1 choosing between whole vectors: each lane's one condition
    # stands beside its vector's dimensions.
    rank = 0
    result, cond = op.results[0].type, op.operands[0].type
    if isinstance(result, VectorType) and not isinstance(cond, VectorType):
        rank = len(result.get_shape())

    def run(fr: Frame, chunked: bool) -> None:
        c, a, b = m.get(fr, sc), m.get(fr, sa), m.get(fr, sb)
        if a.__class__ is View:
            fr.env[r] = a  # only same-buffer selects reach here in practice
            return
        if rank and np.ndim(c):
            c = np.reshape(c, (*np.shape(c), *(1,) * rank))
        fr.env[r] = lane_value(np.where(c, a, b))

    return run
