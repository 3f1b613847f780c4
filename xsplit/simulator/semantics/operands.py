"""What several dialects' compilers decode from an op the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Operation, SSAValue

from xsplit.semantics import id_dimension
from xsplit.simulator.errors import SimulationError

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


def slot_of(m: Compiled, v: SSAValue) -> int:
    """Where a value lives in every frame's environment."""
    return m.slots[v]


def dim_index(op: Operation) -> int:
    """The x/y/z (0/1/2) an id or size op reads."""
    d = id_dimension(op)
    if d is None:
        raise SimulationError(f"cannot tell which dimension '{op.name}' reads", op)
    return d


def static_values(static: DenseArrayBase, dynamic: Sequence[np.ndarray]) -> list[np.ndarray | int]:
    """An op's mixed static/dynamic list (offsets, sizes, bounds): the static
    entries as ints, the dynamic ones (marked by MLIR's kDynamic) in order
    from `dynamic`."""
    out: list[np.ndarray | int] = []
    dyn = iter(dynamic)
    for v in static.get_values():
        out.append(next(dyn) if v == -(2**63) else int(v))
    return out
