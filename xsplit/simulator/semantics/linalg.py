"""`linalg` on memrefs: copies, fills and matmuls of whole views, per lane."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation

from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, expand
from xsplit.simulator.memory import View
from xsplit.simulator.semantics.operands import slot_of
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


def _linalg_slots(m: Compiled, op: Operation) -> tuple[list[int], list[int]]:
    ins = [slot_of(m, v) for v in op.inputs]  # type: ignore[attr-defined]
    outs = [slot_of(m, v) for v in op.outputs]  # type: ignore[attr-defined]
    return ins, outs


def _linalg_views(m: Compiled, op: Operation, fr: Frame, ins, outs) -> tuple[list, list[View]]:
    i = [m.get(fr, s) for s in ins]
    o = [m.get(fr, s) for s in outs]
    if not all(v.__class__ is View for v in o):
        raise SimulationError(f"the simulator runs '{op.name}' on memrefs only", op)
    return i, o


@register("linalg.copy", lane_local=True)
def _c_linalg_copy(m: Compiled, op: Operation):
    ins, outs = _linalg_slots(m, op)
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        i, o = _linalg_views(m, op, fr, ins, outs)
        fr.m.write_box(o[0], fr.m.read_box(i[0], fr, k), fr, k)

    return run


@register("linalg.fill", lane_local=True)
def _c_fill(m: Compiled, op: Operation):
    ins, outs = _linalg_slots(m, op)
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        i, o = _linalg_views(m, op, fr, ins, outs)
        out = o[0]
        value = expand(i[0], fr.n)
        shape = (fr.n, *out.shape)
        per_lane = value.reshape((-1,) + (1,) * len(out.shape))
        fr.m.write_box(out, np.broadcast_to(per_lane, shape), fr, k)

    return run


@register("linalg.matmul")
def _c_matmul(m: Compiled, op: Operation):
    ins, outs = _linalg_slots(m, op)
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        i, o = _linalg_views(m, op, fr, ins, outs)
        a = fr.m.read_box(i[0], fr, k)
        b = fr.m.read_box(i[1], fr, k)
        c = fr.m.read_box(o[0], fr, k)
        # In f64, so that the order of the sum does not matter at f32 precision.
        product = np.einsum("lmk,lkn->lmn", a.astype(np.float64), b.astype(np.float64))
        fr.m.write_box(o[0], c.astype(np.float64) + product, fr, k)

    return run
