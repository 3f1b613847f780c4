"""`scf`: loops whose bounds may differ by lane, divergent `scf.if`, and
`scf.forall` run sequentially (the reference semantics)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Block, Operation

from xsplit.semantics import op_property
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, assemble, expand, gather
from xsplit.simulator.memory import View
from xsplit.simulator.semantics.operands import slot_of, static_values
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


def run_loop(m: Compiled, fr: Frame, chunked: bool, body: Block, lb, ub, step, carried: list) -> list:
    """Runs a loop's body from `lb` while below `ub`; returns the carried values.

    Uniform bounds: the iterations run in `fr`, the induction variable a
    scalar. Otherwise each lane runs its own trip count; while some lanes are
    done, the others run in a child frame."""
    p = m.plan(body)
    args = [m.slots[a] for a in body.args]
    iv_slot, carried_slots = args[0], args[1:]
    if not any(x.__class__ is np.ndarray for x in (lb, ub, step)):
        i, end, by = int(lb), int(ub), int(step)
        env = fr.env
        fns = p.fns
        yields = p.yields
        while i < end:
            env[iv_slot] = np.int64(i)
            for s, c in zip(carried_slots, carried):
                env[s] = c
            if chunked:
                for f in fns:
                    f(fr, True)
                carried = [env[s] if env[s] is not None else m.pull(fr, s) for s in yields]
            else:
                carried = fr.m.exec_block(body, fr, False)
            i += by
        return carried
    n = fr.n
    iv = np.array(np.broadcast_to(lb, (n,)), dtype=np.int64)
    active = iv < ub
    count = n
    sub: Frame | None = None
    sel = None
    while active.any():
        live = int(active.sum())
        if live == n:
            fr.env[iv_slot] = iv
            for s, c in zip(carried_slots, carried):
                fr.env[s] = c
            carried = fr.m.exec_block(body, fr, chunked)
        else:
            if sub is None or live != count:
                sel = np.nonzero(active)[0]
                sub = fr.child(sel)
                count = live
            sub.env[iv_slot] = iv[sel]
            for s, c in zip(carried_slots, carried):
                sub.env[s] = gather(c, sel)
            yielded = fr.m.exec_block(body, sub, chunked)
            carried = [_scatter(c, y, sel, n) for c, y in zip(carried, yielded)]
        iv = np.where(active, iv + step, iv)
        active = active & (iv < ub)
    return carried


def _scatter(old, new, sel: np.ndarray, n: int):
    """`old` with the lanes `sel` replaced by `new` (a child frame's value)."""
    if new.__class__ is View:
        offset = expand(old.offset, n).copy() if old.__class__ is View else np.zeros(n, np.int64)
        offset[sel] = new.offset
        return View(new.buffer, offset, new.shape, new.strides)
    if old.__class__ is View:
        return new
    out = np.array(np.broadcast_to(old, (n,)), dtype=np.result_type(new, old))
    out[sel] = new
    return out


@register("scf.for", lane_local=True)
def _c_scf_for(m: Compiled, op: Operation):
    sl, su, ss = (slot_of(m, v) for v in op.operands[:3])
    carried_slots = [slot_of(m, v) for v in op.operands[3:]]
    results = [slot_of(m, r) for r in op.results]
    body = op.regions[0].blocks[0]

    def run(fr: Frame, chunked: bool) -> None:
        lb, ub, step = m.arr(fr, sl), m.arr(fr, su), m.arr(fr, ss)
        carried = [m.get(fr, s) for s in carried_slots]
        carried = run_loop(m, fr, chunked, body, lb, ub, step, carried)
        for r, value in zip(results, carried):
            fr.env[r] = value

    return run


@register("scf.if", lane_local=True)
def _c_scf_if(m: Compiled, op: Operation):
    sc = slot_of(m, op.operands[0])
    then_block = op.regions[0].blocks[0]
    else_block = op.regions[1].blocks[0] if len(op.regions) > 1 and op.regions[1].blocks else None
    results = [slot_of(m, r) for r in op.results]

    def run(fr: Frame, chunked: bool) -> None:
        cond = m.arr(fr, sc)
        if cond.__class__ is np.ndarray:
            c = cond.astype(bool)
            taken = c.sum()
            if taken == fr.n:
                cond = True
            elif taken == 0:
                cond = False
            else:
                _split_if(m, fr, chunked, c, then_block, else_block, results)
                return
        if cond:
            vals = fr.m.exec_block(then_block, fr, chunked)
        elif else_block is not None:
            vals = fr.m.exec_block(else_block, fr, chunked)
        else:
            return
        for r, v in zip(results, vals):
            fr.env[r] = v

    return run


def _split_if(m: Compiled, fr: Frame, chunked: bool, c, then_block, else_block, results) -> None:
    t_sel = np.nonzero(c)[0]
    e_sel = np.nonzero(~c)[0]
    then_vals = fr.m.exec_block(then_block, fr.child(t_sel), chunked)
    if else_block is None:
        return
    else_vals = fr.m.exec_block(else_block, fr.child(e_sel), chunked)
    for r, t, e in zip(results, then_vals, else_vals):
        if t.__class__ is View or e.__class__ is View:
            fr.env[r] = assemble([(e_sel, e), (t_sel, t)], fr.n)
        else:
            fr.env[r] = assemble([(t_sel, t), (e_sel, e)], fr.n, np.result_type(t, e))


@register("scf.forall", lane_local=True)
def _c_forall(m: Compiled, op: Operation):
    """Sequential semantics: the iterations one after the other, in order."""
    n = len(op_property(op, "staticLowerBound").get_values())  # type: ignore[union-attr]
    dyn_slots = [slot_of(m, v) for v in op.operands]
    nl = len(op.dynamicLowerBound)  # type: ignore[attr-defined]
    nu = len(op.dynamicUpperBound)  # type: ignore[attr-defined]
    s_lb = op_property(op, "staticLowerBound")
    s_ub = op_property(op, "staticUpperBound")
    s_step = op_property(op, "staticStep")
    body = op.regions[0].blocks[0]
    args = [slot_of(m, a) for a in body.args]

    def run(fr: Frame, chunked: bool) -> None:
        dyn = [m.arr(fr, s) for s in dyn_slots]
        lbs = static_values(s_lb, dyn[:nl])  # type: ignore[arg-type]
        ubs = static_values(s_ub, dyn[nl : nl + nu])  # type: ignore[arg-type]
        steps = static_values(s_step, dyn[nl + nu :])  # type: ignore[arg-type]

        def uniform(x) -> int:
            if isinstance(x, int):
                return x
            sel = np.atleast_1d(x)
            if sel.size == 0 or np.any(sel != sel[0]):
                raise SimulationError(
                    "scf.forall bounds that differ between lanes are not supported", op
                )
            return int(sel[0])

        ranges = [range(uniform(lbs[i]), uniform(ubs[i]), uniform(steps[i])) for i in range(n)]
        for point in itertools.product(*ranges):
            for s, value in zip(args, point):
                fr.env[s] = np.int64(value)
            fr.m.exec_block(body, fr, chunked)

    return run
