"""The simulator's memory: buffers, the views memref values hold, and the log
of every access that `races.find_races` reads."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.ir import Attribute

from xsplit.semantics import memref_strides as _static_strides
from xsplit.simulator.errors import SimulationError

READ, WRITE, ATOMIC = 1, 2, 4
"""Access kinds, as the log records them."""


_STORAGE = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "bf16": np.float32,
    "i1": np.bool_,
    "index": np.int64,
}
_storage_of: dict[Attribute, np.dtype] = {}
"""What `storage_dtype` answered per type: the simulator asks once for every
op it compiles (tens of thousands in a tiled kernel), and printing the type
to name it cost more than the rest of compiling most ops."""


def storage_dtype(t: Attribute) -> np.dtype:
    """How the simulator holds values of type `t`: every integer in int64, so
    that index arithmetic on any integer width cannot overflow."""
    known = _storage_of.get(t)
    if known is not None:
        return known
    text = str(t)
    if text in _STORAGE:
        dtype = np.dtype(_STORAGE[text])
    elif isinstance(t, IntegerType):
        dtype = np.dtype(np.int64)
    else:
        raise SimulationError(f"element type {text} is not supported by the simulator")
    _storage_of[t] = dtype
    return dtype


@dataclass(eq=False)
class Buffer:
    """One allocation: an argument, or a `memref.alloc` (one copy per
    workgroup in workgroup memory, one per lane in private memory)."""

    name: str
    shape: tuple[int, ...]
    data: np.ndarray
    space: str
    ident: int
    logged: bool = True
    """Whether its accesses go to the log: not in private memory, and not a
    buffer the kernel never writes (reads alone cannot race)."""
    escaped: bool = False
    """Some view of this workgroup buffer reaches outside a lane's own
    workgroup's copy (an out-of-bounds subview)."""
    dropped: bool = False
    """Some read of it was left out of the log (see `Machine._close_epoch`)."""

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def element(self, flat: int) -> str:
        flat %= max(self.numel, 1)
        index = np.unravel_index(flat, self.shape) if self.shape else ()
        return f"{self.name}[{', '.join(str(int(i)) for i in index)}]"


@dataclass(eq=False)
class View:
    """A memref value: a buffer, a per-lane offset (one numpy scalar when all
    lanes agree) and the view's shape/strides."""

    buffer: Buffer
    offset: np.ndarray | np.integer
    shape: tuple[int, ...]
    strides: tuple[int, ...]


@dataclass
class AccessLog:
    """Every access, per buffer: flat element, lane, op index, kind, epoch."""

    entries: dict[int, list[tuple[np.ndarray, np.ndarray, int, int, int]]] = field(
        default_factory=dict
    )

    def record(
        self, buf: Buffer, flat: np.ndarray, lanes: np.ndarray, op: int, kind: int, epoch: int
    ) -> None:
        if len(flat):
            self.entries.setdefault(buf.ident, []).append((flat, lanes, op, kind, epoch))


def memref_strides(t: MemRefType) -> tuple[int, ...]:
    """A memref type's strides in elements; dynamic ones cannot be simulated."""
    try:
        return _static_strides(t)
    except ValueError as e:
        raise SimulationError(str(e)) from None

