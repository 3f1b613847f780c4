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
    """Some view of this workgroup (private) buffer reaches outside a lane's
    own workgroup's (own) copy: an out-of-bounds subview."""
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


Entry = tuple[np.ndarray, np.ndarray, int, int, int, int]
"""One op's accesses: flat elements, their lanes, op index, kind, epoch, and
the chunk region (-1: none; see `AccessLog.regions`)."""


@dataclass
class AccessLog:
    """Every access, per buffer, in the order the schedule made them.

    Except that a stretch the machine ran for all its lanes at once
    (`speculation`) logs its accesses in program order, each entry tagged
    with its region: `regions[r]` gives each lane's chunk there, and the
    schedule's order is a stable sort of the region's accesses by chunk
    (`in_schedule_order`), made only where races are looked for."""

    entries: dict[int, list[Entry]] = field(default_factory=dict)
    regions: list[np.ndarray] = field(default_factory=list)

    def record(
        self,
        buf: Buffer,
        flat: np.ndarray,
        lanes: np.ndarray,
        op: int,
        kind: int,
        epoch: int,
        region: int = -1,
    ) -> None:
        if len(flat):
            self.entries.setdefault(buf.ident, []).append((flat, lanes, op, kind, epoch, region))

    def in_schedule_order(self, entries: list[Entry]) -> np.ndarray | None:
        """The permutation that puts the concatenated accesses of `entries`
        (one buffer's) in the schedule's order; None where they are."""
        if all(e[5] < 0 for e in entries):
            return None
        sizes = np.fromiter((len(e[0]) for e in entries), np.int64, len(entries))
        ends = np.cumsum(sizes)
        order = np.arange(int(ends[-1]) if len(ends) else 0)
        i = 0
        while i < len(entries):
            region = entries[i][5]
            j = i + 1
            while j < len(entries) and entries[j][5] == region:
                j += 1
            if region >= 0:
                lo = int(ends[i] - sizes[i])
                lanes = np.concatenate([e[1] for e in entries[i:j]])
                chunk = self.regions[region][lanes]
                order[lo : int(ends[j - 1])] = lo + np.argsort(chunk, kind="stable")
            i = j
        return order


def memref_strides(t: MemRefType) -> tuple[int, ...]:
    """A memref type's strides in elements; dynamic ones cannot be simulated."""
    try:
        return _static_strides(t)
    except ValueError as e:
        raise SimulationError(str(e)) from None

