"""Lanes: the launch (every thread of every workgroup is one lane), the
schedules that order them, and the values code holds per lane in a `Frame`.

A value in a frame is a 1-D array with one element per lane of the frame, a
numpy scalar (the same in every lane), or a `memory.View`. Numpy scalars
keep their dtype in arithmetic (NEP 50), so an op on them gives what it
gives on arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from xsplit.simulator.memory import View


@dataclass
class Launch:
    """Grid and block sizes, and each lane's ids."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    subgroup_size: int = 32

    def __post_init__(self) -> None:
        self.threads = int(np.prod(self.block))
        self.blocks = int(np.prod(self.grid))
        self.lanes = self.threads * self.blocks
        lane = np.arange(self.lanes, dtype=np.int64)
        t = lane % self.threads
        b = lane // self.threads
        self.block_of_lane = b
        self.thread_of_lane = t
        bx, by, _ = self.block
        gx, gy, _ = self.grid
        self.tid = (t % bx, (t // bx) % by, t // (bx * by))
        self.bid = (b % gx, (b // gx) % gy, b // (gx * gy))

    def describe_lane(self, lane: int) -> str:
        b = tuple(int(a[lane]) for a in self.bid)
        t = tuple(int(a[lane]) for a in self.tid)
        return f"block ({b[0]},{b[1]},{b[2]}) thread ({t[0]},{t[1]},{t[2]})"


Schedule = Callable[[np.ndarray], list[np.ndarray]]
"""Splits the lanes a segment runs (a mask) into chunks run in that order."""


def lockstep(mask: np.ndarray) -> list[np.ndarray]:
    return [mask]


def chunked(order: np.ndarray, chunks: int) -> Schedule:
    """Runs lanes in `order`, `chunks` groups one after the other."""

    def schedule(mask: np.ndarray) -> list[np.ndarray]:
        out = []
        for part in np.array_split(order, min(chunks, len(order))):
            m = np.zeros_like(mask)
            m[part] = True
            m &= mask
            if m.any():
                out.append(m)
        return out

    return schedule



def lane_value(x):
    """A numpy result as a lane value: a 0-d array becomes a numpy scalar."""
    if x.__class__ is np.ndarray and x.ndim == 0:
        return x[()]
    return x


def gather(v, sel: np.ndarray):
    """A parent frame's value for the lanes `sel` of a child frame."""
    cls = v.__class__
    if cls is np.ndarray:
        return v[sel]
    if cls is View:
        off = v.offset
        if off.__class__ is np.ndarray:
            return View(v.buffer, off[sel], v.shape, v.strides)
        return v
    return v


def expand(v, n: int) -> np.ndarray:
    if v.__class__ is np.ndarray:
        return v
    return np.full(n, v, dtype=np.asarray(v).dtype)


def same_scalar(a, b) -> bool:
    return (
        a.__class__ is not np.ndarray
        and b.__class__ is not np.ndarray
        and isinstance(a, np.generic)
        and isinstance(b, np.generic)
        and a.dtype == b.dtype
        and a.tobytes() == b.tobytes()
    )


def assemble(parts: list[tuple[np.ndarray, object]], n: int, dtype=None):
    """One value for a frame of `n` lanes from its disjoint parts `(sel, value)`,
    which together cover it."""
    last = parts[-1][1]
    if last.__class__ is View:
        offs = [v.offset for _, v in parts]
        if all(same_scalar(offs[0], o) for o in offs[1:]):
            offset = offs[0]
        else:
            offset = np.empty(n, dtype=np.int64)
            for (sel, _), o in zip(parts, offs):
                offset[sel] = o
        # Lanes that hold views of different buffers cannot be modelled: the
        # last part's buffer is kept (the then-branch's, for an scf.if), as
        # the machine always did.
        return View(last.buffer, offset, last.shape, last.strides)
    first = parts[0][1]
    if all(same_scalar(first, v) for _, v in parts[1:]):
        return first
    # A vector value is (lanes, *its shape): the parts keep their trailing dims.
    trailing = last.shape[1:] if last.__class__ is np.ndarray else ()
    out = np.empty((n, *trailing), dtype=dtype if dtype is not None else np.asarray(last).dtype)
    for sel, v in parts:
        out[sel] = v
    return out


class Frame:
    """Lanes that run a piece of code together, and their values by slot.

    `lanes` are global lane ids, ascending: the order the old mask-based
    machine visited lanes in, which stores with colliding addresses, atomics
    and the log depend on. A child frame's values of enclosing code are
    gathered from its parent on first use. `m` is the machine that runs
    the frame: compiled code, which several machines share, reaches what a
    run changes (buffers, the access log, the epoch) through it."""

    __slots__ = ("chunks", "env", "lanes", "m", "n", "parent", "position", "sel")

    def __init__(self, lanes: np.ndarray, size: int, parent: Frame | None = None, sel=None):
        self.m = parent.m if parent is not None else None
        self.lanes = lanes
        self.n = len(lanes)
        self.env: list = [None] * size
        self.parent = parent
        self.sel = sel
        self.chunks = None
        self.position = None

    def child(self, sel: np.ndarray) -> Frame:
        return Frame(self.lanes[sel], len(self.env), self, sel)

