"""Running a lowered module in the simulator as a test does: its host
program where it has one (a kernel and its merge are several launches),
else its one kernel."""

from __future__ import annotations

import numpy as np

from xsplit.simulator.program import host_function, simulate_program
from xsplit.simulator.run import pick_function, simulate


def simulate_module(
    module,
    want: list[np.ndarray],
    inputs: list[np.ndarray],
    subgroup_size: int = 32,
    orders: list[str] | None = None,
):
    """The simulator's report of `module` run on `inputs`, compared with
    `want`, under `orders` (default: every thread order)."""
    host = host_function(module, None)
    if host is not None:
        return simulate_program(
            module, host, want, inputs, orders=orders, subgroup_size=subgroup_size
        )
    return simulate(
        pick_function(module, None),
        reference=want,
        inputs=inputs,
        orders=orders,
        subgroup_size=subgroup_size,
    )
