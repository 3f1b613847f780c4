"""A kernel compiled for a launch, once, and run by as many machines as
there are thread orders and launches of it.

Compiling an op decodes what it needs at every execution (its operands'
slots, dtypes, attributes, the launch's id tables) into a closure
`run(frame, chunked)`. The closure holds no machine: what a run changes (its
buffers, its access log, the barrier epoch, allocations) it reaches through
the frame, `fr.m`, so that one `Compiled` serves every `Machine` that runs
the same function on the same launch. The compiler and the closures also
use the value helpers here (`get`, `arr`, `pull`, `flat_index`), which read
only frames and views.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Block, Operation, SSAValue

from xsplit.analysis.writes import kernel_buffers, written_arguments
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, Launch, gather
from xsplit.simulator.memory import View
from xsplit.simulator.semantics.registry import compile_op, is_lane_local

SYNC_OPS = frozenset(
    {
        "gpu.barrier", "gpu.shuffle", "gpu.subgroup_reduce", "nvgpu.mma.sync", "nvgpu.ldmatrix",
        "amdgpu.mfma",
    }
)
"""Ops where lanes meet: no chunk may run past one before the others reach it."""

_TERMINATORS = frozenset(
    {"scf.yield", "func.return", "affine.yield", "scf.forall.in_parallel", "scf.reduce"}
)


@dataclass
class Segment:
    fns: list
    escaping: list[int]
    """Slots it defines that code after it reads."""
    lane_local: bool = False
    """Every op in it, nested ones too, is `lane_local` (see the registry):
    it may run for all its lanes at once (`speculation`)."""


@dataclass
class Plan:
    """A block, compiled: its ops' closures, the segments and synchronization
    points it is cut into when run unchunked, and its yielded slots."""

    fns: list
    parts: list
    yields: list[int]


class Compiled:
    """`func`'s ops compiled for `launch`: closures, block plans, and the slot
    of every SSA value in a frame's environment.

    `hook`, when given, is asked for each op's closure when a block is
    planned (a machine that wraps closures to measure what they do); it gets
    the plain closure from `compiled`."""

    def __init__(
        self, func: Operation, launch: Launch, hook: Callable[[Operation], Callable] | None = None
    ):
        self.func = func
        self.launch = launch
        self.ops: list[Operation] = []
        self.op_index: dict[int, int] = {}
        self.slots: dict[SSAValue, int] = {}
        self.values: list[SSAValue] = []
        self._hook = hook
        self._fns: dict[int, Callable] = {}
        self._plans: dict[int, Plan] = {}
        self._sync_cache: dict[int, bool] = {}
        self._local_cache: dict[int, bool] = {}
        for op in func.walk():  # op indices in program order
            self.index_of(op)
        self._number_values(func)
        self.buffers = kernel_buffers(func)
        """The kernel's buffers: (name, type, the value or op that holds it)."""
        self.written = frozenset(written_arguments(func))
        """The positions of the buffers it may write."""

    def _number_values(self, func: Operation) -> None:
        def add(v: SSAValue) -> None:
            if v not in self.slots:
                self.slots[v] = len(self.values)
                self.values.append(v)

        def visit(op: Operation) -> None:
            for r in op.results:
                add(r)
            for region in op.regions:
                for block in region.blocks:
                    for a in block.args:
                        add(a)
                    for inner in block.ops:
                        visit(inner)

        visit(func)

    # -- structure -----------------------------------------------------------

    def contains_sync(self, op: Operation) -> bool:
        key = id(op)
        known = self._sync_cache.get(key)
        if known is None:
            known = op.name in SYNC_OPS or any(
                self.contains_sync(inner) for r in op.regions for b in r.blocks for inner in b.ops
            )
            self._sync_cache[key] = known
        return known

    def lane_local(self, op: Operation) -> bool:
        """Whether the op and every op nested in it is `lane_local`."""
        key = id(op)
        known = self._local_cache.get(key)
        if known is None:
            known = (op.name in _TERMINATORS or is_lane_local(op.name)) and all(
                self.lane_local(inner) for r in op.regions for b in r.blocks for inner in b.ops
            )
            self._local_cache[key] = known
        return known

    def index_of(self, op: Operation) -> int:
        key = id(op)
        if key not in self.op_index:
            self.op_index[key] = len(self.ops)
            self.ops.append(op)
        return self.op_index[key]

    def compiled(self, op: Operation) -> Callable:
        """The op's closure `(frame, chunked) -> None`. What cannot be
        compiled raises when the op runs, as it did before compilation existed."""
        key = id(op)
        f = self._fns.get(key)
        if f is None:
            try:
                f = compile_op(self, op)
            except Exception as e:  # noqa: BLE001 - raised where the op runs
                error = e

                def f(fr: Frame, chunked: bool) -> None:
                    raise error

            self._fns[key] = f
        return f

    def fn(self, op: Operation) -> Callable:
        """The closure a plan runs for `op`: the hook's, else `compiled`'s."""
        return self._hook(op) if self._hook is not None else self.compiled(op)

    def plan(self, block: Block) -> Plan:
        key = id(block)
        p = self._plans.get(key)
        if p is not None:
            return p
        ops = list(block.ops)
        terminator = ops[-1] if ops and ops[-1].name in _TERMINATORS else None
        if terminator is not None:
            ops = ops[:-1]
        fns = [self.fn(op) for op in ops]
        parts: list = []
        segment: list[Operation] = []
        for op in ops:
            if self.contains_sync(op):
                if segment:
                    parts.append(self._segment(block, segment))
                segment = []
                parts.append((op, self.fn(op)))
            else:
                segment.append(op)
        if segment:
            parts.append(self._segment(block, segment))
        yields = [self.slots[v] for v in terminator.operands] if terminator is not None else []
        p = Plan(fns, parts, yields)
        self._plans[key] = p
        return p

    def _segment(self, block: Block, ops: list[Operation]) -> Segment:
        inside = {id(op) for op in ops}
        escaping = []
        for op in ops:
            for r in op.results:
                for use in r.uses:
                    user: Operation | None = use.operation
                    while user is not None and user.parent_block() is not block:
                        user = user.parent_op()
                    if user is None or id(user) not in inside:
                        escaping.append(self.slots[r])
                        break
        local = all(self.lane_local(op) for op in ops)
        return Segment([self.fn(op) for op in ops], escaping, local)

    # -- values --------------------------------------------------------------

    def pull(self, fr: Frame, s: int):
        """A value of enclosing code, gathered into `fr` from its parents."""
        parent = fr.parent
        if parent is None:
            v = self.values[s]
            raise SimulationError("value used before the simulator defined it", v.owner)  # type: ignore[arg-type]
        v = parent.env[s]
        if v is None:
            v = self.pull(parent, s)
        g = gather(v, fr.sel)
        fr.env[s] = g
        return g

    def lookup(self, fr: Frame, v: SSAValue):
        """The value, or None where it is not defined."""
        s = self.slots.get(v)
        if s is None:
            return None
        try:
            return fr.env[s] if fr.env[s] is not None else self.pull(fr, s)
        except SimulationError:
            return None

    def get(self, fr: Frame, s: int):
        v = fr.env[s]
        return v if v is not None else self.pull(fr, s)

    def arr(self, fr: Frame, s: int):
        v = fr.env[s]
        if v is None:
            v = self.pull(fr, s)
        if v.__class__ is View:
            raise SimulationError("expected a scalar value, got a memref")
        return v

    def flat_index(self, view: View, indices: Sequence, op: Operation, memo: list):
        """Flat element per lane (a scalar when every lane agrees). `memo`
        remembers the part the per-lane index arrays give, for the next time
        the same view and the same arrays come."""
        shape, strides = view.shape, view.strides
        add = 0
        if memo[0] is view:
            # The same view: the same per-lane index arrays give the same
            # part; the scalar indices are checked and added here.
            pattern = memo[1]
            hit = len(pattern) == len(indices)
            if hit:
                for d, i in enumerate(indices):
                    p = pattern[d]
                    if i.__class__ is np.ndarray:
                        if p is not i:
                            hit = False
                            break
                    elif p is not None:
                        hit = False
                        break
                    else:
                        x = int(i)
                        if x < 0 or x >= shape[d]:
                            hit = False  # the slow path says which index, in order
                            break
                        add += x * strides[d]
            if hit:
                base = memo[2]
                return base + add if add else base
            add = 0
        base = view.offset
        pat = []
        for d, (i, size, stride) in enumerate(zip(indices, shape, strides)):
            if i.__class__ is np.ndarray:
                if i.min() < 0 or i.max() >= size:
                    _out_of_bounds(int(i[(i < 0) | (i >= size)][0]), d, size, view, op)
                base = base + i * stride
                pat.append(i)
            else:
                x = int(i)
                if x < 0 or x >= size:
                    _out_of_bounds(x, d, size, view, op)
                add += x * stride
                pat.append(None)
        memo[0], memo[1], memo[2] = view, tuple(pat), base
        return base + add if add else base

    # -- the running machine's, for semantics that ask the compiled function --

    @staticmethod
    def access(view: View, flat, fr: Frame, k: int, kind: int) -> None:
        fr.m.access(view, flat, fr, k, kind)

    @staticmethod
    def exec_block(block: Block, fr: Frame, chunked: bool) -> list[object]:
        return fr.m.exec_block(block, fr, chunked)

    @staticmethod
    def read_box(view: View, fr: Frame, k: int) -> np.ndarray:
        return fr.m.read_box(view, fr, k)

    @staticmethod
    def write_box(view: View, values: np.ndarray, fr: Frame, k: int) -> None:
        fr.m.write_box(view, values, fr, k)

    @staticmethod
    def note_view(view: View, fr: Frame) -> None:
        fr.m.note_view(view, fr)

    @staticmethod
    def position(fr: Frame) -> np.ndarray:
        return fr.m.position(fr)


def _out_of_bounds(bad: int, d: int, size: int, view: View, op: Operation):
    raise SimulationError(
        f"index {bad} out of bounds [0, {size}) in dimension {d} of {view.buffer.name}", op
    )
