"""`func`: calls are the host's (`program.py` runs them launch by launch),
not a kernel's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.ir import Operation

from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


@register("func.call")
def _c_unsupported_call(m: Compiled, op: Operation):
    def run(fr: Frame, chunked: bool) -> None:
        raise SimulationError("the simulator does not run function calls", op)

    return run
