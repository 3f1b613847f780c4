"""`hal`: an IREE dispatch's workgroup ids and counts and its bindings."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation

from xsplit.simulator.lanes import Frame, gather
from xsplit.simulator.semantics.operands import dim_index, slot_of
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


def _c_hal_id(kind: str):
    def make(m: Compiled, op: Operation):
        d = dim_index(op)
        r = slot_of(m, op.results[0])
        if kind == "id":
            source = m.launch.bid[d]

            def run(fr: Frame, chunked: bool) -> None:
                fr.env[r] = source[fr.lanes]

            return run
        count = np.int64(m.launch.grid[d])

        def run_count(fr: Frame, chunked: bool) -> None:
            fr.env[r] = count

        return run_count

    return make


@register("hal.interface.binding.subspan", lane_local=True)
def _c_subspan(m: Compiled, op: Operation):
    key = id(op)
    r = slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = gather(fr.m.bindings[key], fr.lanes)

    return run


register("hal.interface.workgroup.id", lane_local=True)(_c_hal_id("id"))
register("hal.interface.workgroup.count", lane_local=True)(_c_hal_id("count"))
