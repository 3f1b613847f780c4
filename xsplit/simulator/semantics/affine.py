"""`affine`: maps evaluated on lane values, and affine's loads, stores and
loops, which run as memref's and scf's do once their maps are applied."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from xsplit.semantics import op_property, safe_divisor
from xsplit.simulator.lanes import Frame, lane_value
from xsplit.simulator.semantics.memref import compile_load, compile_store
from xsplit.simulator.semantics.operands import slot_of
from xsplit.simulator.semantics.registry import register
from xsplit.simulator.semantics.scf import run_loop

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


def _compile_affine(expr: AffineExpr, num_dims: int) -> Callable[[Sequence], object]:
    """A closure that evaluates an affine expression on lane values (operands
    in dims-then-symbols order). Division and modulo by zero divide by one,
    as `semantics.safe_divisor` does everywhere."""
    if isinstance(expr, AffineConstantExpr):
        c = np.int64(expr.value)
        return lambda ops: c
    if isinstance(expr, AffineDimExpr):
        p = expr.position
        return lambda ops: ops[p]
    if isinstance(expr, AffineSymExpr):
        p = num_dims + expr.position
        return lambda ops: ops[p]
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs = _compile_affine(expr.lhs, num_dims)
    rhs = _compile_affine(expr.rhs, num_dims)
    kind = expr.kind
    if kind == AffineBinaryOpKind.Add:
        return lambda ops: lhs(ops) + rhs(ops)
    if kind == AffineBinaryOpKind.Mul:
        return lambda ops: lhs(ops) * rhs(ops)
    if kind == AffineBinaryOpKind.FloorDiv:
        return lambda ops: lhs(ops) // safe_divisor(np.asarray(rhs(ops)))
    if kind == AffineBinaryOpKind.CeilDiv:
        return lambda ops: -((-lhs(ops)) // safe_divisor(np.asarray(rhs(ops))))
    return lambda ops: lhs(ops) % safe_divisor(np.asarray(rhs(ops)))


def compile_map(m: AffineMap) -> Callable[[Sequence], list]:
    """A closure that evaluates an affine map's results on lane values, as
    int64 lane values (numpy scalars when uniform)."""
    fns = [_compile_affine(e, m.num_dims) for e in m.results]

    def run(ops: Sequence) -> list:
        return [lane_value(np.asarray(f(ops), dtype=np.int64)) for f in fns]

    return run


@register("affine.apply", lane_local=True)
def _c_affine_apply(m: Compiled, op: Operation):
    f = compile_map(op_property(op, "map").data)  # type: ignore[union-attr]
    slots = [slot_of(m, v) for v in op.operands]
    r = slot_of(m, op.results[0])
    memo: list = [None, None]

    def run(fr: Frame, chunked: bool) -> None:
        vals = [m.arr(fr, s) for s in slots]
        last = memo[0]
        if last is not None and all(a is b for a, b in zip(vals, last)):
            fr.env[r] = memo[1]
            return
        out = f(vals)[0]
        memo[0], memo[1] = vals, out
        fr.env[r] = out

    return run


def _c_affine_minmax(fn):
    def make(m: Compiled, op: Operation):
        f = compile_map(op_property(op, "map").data)  # type: ignore[union-attr]
        slots = [slot_of(m, v) for v in op.operands]
        r = slot_of(m, op.results[0])

        def run(fr: Frame, chunked: bool) -> None:
            vals = f([m.arr(fr, s) for s in slots])
            fr.env[r] = lane_value(fn(np.broadcast_arrays(*vals), axis=0))

        return run

    return make


@register("affine.for", lane_local=True)
def _c_affine_for(m: Compiled, op: Operation):
    lbm, ubm = op_property(op, "lowerBoundMap").data, op_property(op, "upperBoundMap").data  # type: ignore[union-attr]
    n_lb = lbm.num_dims + lbm.num_symbols
    n_ub = ubm.num_dims + ubm.num_symbols
    lbf, ubf = compile_map(lbm), compile_map(ubm)
    step = np.int64(int(op_property(op, "step").value.data))  # type: ignore[union-attr]
    bound_slots = [slot_of(m, v) for v in op.operands[: n_lb + n_ub]]
    carried_slots = [slot_of(m, v) for v in op.operands[n_lb + n_ub :]]
    results = [slot_of(m, r) for r in op.results]
    body = op.regions[0].blocks[0]

    def run(fr: Frame, chunked: bool) -> None:
        vals = [m.arr(fr, s) for s in bound_slots]
        lb = lane_value(np.max(np.broadcast_arrays(*lbf(vals[:n_lb])), axis=0))
        ub = lane_value(np.min(np.broadcast_arrays(*ubf(vals[n_lb:])), axis=0))
        carried = [m.get(fr, s) for s in carried_slots]
        carried = run_loop(m, fr, chunked, body, lb, ub, step, carried)
        for r, value in zip(results, carried):
            fr.env[r] = value

    return run


@register("affine.load", lane_local=True)
def _c_load(m: Compiled, op: Operation):
    """`memref.load` at the indices the op's map gives."""
    return compile_load(m, op, compile_map(op_property(op, "map").data))  # type: ignore[union-attr]


@register("affine.store", lane_local=True)
def _c_store(m: Compiled, op: Operation):
    """`memref.store` at the indices the op's map gives."""
    return compile_store(m, op, compile_map(op_property(op, "map").data))  # type: ignore[union-attr]


register("affine.min", lane_local=True)(_c_affine_minmax(np.min))
register("affine.max", lane_local=True)(_c_affine_minmax(np.max))
