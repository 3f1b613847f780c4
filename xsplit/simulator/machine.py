"""An SPMD machine that runs a GPU kernel's threads as numpy lanes.

Every thread of every workgroup is one lane. An op is evaluated for all lanes
that reach it at once. Between synchronization points (`gpu.barrier`, and
the subgroup ops that exchange values) the lanes run in *chunks*, one after
the other, in the order the schedule gives: that is how the simulator plays
threads against each other, the way a real GPU may. Divergent `scf.if` runs
both branches, each for its own lanes, and a loop whose bounds differ by
thread runs until no lane is left in it.

Every memory access is logged (element, lane, op, read/write/atomic, barrier
epoch) for `races.find_races`. The machine is also the sequential reference:
a program with `scf.forall` loops and no GPU ids runs as one lane, each
forall as a sequential loop nest.

How it is fast enough for a 512x512x512 GEMM of 16,384 threads:
- Lanes are compacted. Code runs in a `Frame`: the lanes that execute it,
  and one value per lane for each of them. A chunk, a branch taken by some
  lanes only, or the lanes still in a divergent loop get a frame of their
  own, so an op costs what its own lanes cost, not what the whole launch
  costs, and needs no mask.
- A value that is the same in every lane of a frame (a constant, a uniform
  loop's induction variable, index arithmetic on them) is held as one numpy
  scalar, so loop control and addresses of uniform loops are scalar work.
- Each op is compiled once per machine into a closure with its operands'
  slots, types and attributes decoded.
- A memory op remembers the address part its per-lane indices gave (by
  identity of those arrays, which nothing mutates), so a load in a loop
  whose per-lane index is loop-invariant adds one scalar per iteration.
- Reads of a buffer the kernel never writes cannot race and are not logged;
  reads of workgroup memory that nothing writes in the same barrier epoch
  are dropped from the log at the epoch's end (see `Machine._close_epoch`).

The machine here is the core: lanes, frames, scheduling, barriers, memory
and its log. What each op does is its dialect's module under `semantics/`,
found through `semantics.registry` by op name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue

from xsplit.analysis.writes import kernel_buffers, written_arguments
from xsplit.diagnostics import location_of
from xsplit.semantics import memory_space, op_property
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import (
    Frame,
    Launch,
    Schedule,
    assemble,
    chunked,
    expand,
    gather,
    lockstep,
)
from xsplit.simulator.memory import (
    ATOMIC,
    READ,
    WRITE,
    AccessLog,
    Buffer,
    View,
    memref_strides,
    storage_dtype,
)
from xsplit.simulator.semantics.registry import compile_op

__all__ = [
    "ATOMIC",
    "READ",
    "WRITE",
    "Launch",
    "Machine",
    "Schedule",
    "SimulationError",
    "chunked",
    "describe_op",
    "lockstep",
    "storage_dtype",
]

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


_NO_CHUNKS = object()
"""A frame's chunks when one chunk is the whole frame."""


@dataclass
class _Segment:
    fns: list
    escaping: list[int]
    """Slots it defines that code after it reads."""


@dataclass
class _Plan:
    """A block, compiled: its ops' closures, the segments and synchronization
    points it is cut into when run unchunked, and its yielded slots."""

    fns: list
    parts: list
    yields: list[int]


class Machine:
    """Runs one function on a launch, with a schedule; logs every access."""

    def __init__(self, launch: Launch, schedule: Schedule = lockstep, log: bool = True):
        self.launch = launch
        self.schedule = schedule
        self.log = AccessLog() if log else None
        self.epoch = 0
        self.buffers: list[Buffer] = []
        self.allocs: dict[int, View] = {}
        self.ops: list[Operation] = []
        self.op_index: dict[int, int] = {}
        self._sync_cache: dict[int, bool] = {}
        self.bindings: dict[int, View] = {}
        self.slots: dict[SSAValue, int] = {}
        self.values: list[SSAValue] = []
        self._fns: dict[int, Callable] = {}
        self._plans: dict[int, _Plan] = {}
        self._filter = log
        self._marks: dict[int, int] = {}
        self.returned: list[np.ndarray] = []
        self.dialect_state: dict[str, object] = {}
        """What a dialect's semantics keep from one op to the next (nvgpu's
        copies in flight), by dialect. `run`'s second run keeps it: nvgpu's
        group numbers only count relative to their lane's count."""

    # -- set-up --------------------------------------------------------------

    def new_buffer(self, name: str, t: MemRefType, data: np.ndarray | None = None) -> View:
        """A buffer, and its view for every lane of the launch."""
        shape = tuple(t.get_shape())
        if any(d < 0 for d in shape):
            raise SimulationError(f"dynamic shape {t} is not supported by the simulator")
        space = memory_space(t)
        dtype = storage_dtype(t.element_type)
        numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
        copies = {"workgroup": self.launch.blocks, "private": self.launch.lanes}.get(space, 1)
        if data is None:
            flat = np.full(numel * copies, np.nan if dtype.kind == "f" else -7777, dtype=dtype)
        else:
            flat = np.ascontiguousarray(data, dtype=dtype).reshape(-1).copy()
        buf = Buffer(name, shape, flat, space, len(self.buffers))
        buf.logged = self.log is not None and space != "private"
        self.buffers.append(buf)
        offset: np.ndarray | np.integer
        if space == "workgroup":
            offset = self.launch.block_of_lane * numel
        elif space == "private":
            offset = np.arange(self.launch.lanes, dtype=np.int64) * numel
        else:
            offset = np.int64(0)
        return View(buf, offset, shape, memref_strides(t))

    def run(self, func: Operation, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Runs `func` on copies of `args`; returns the arguments' final contents."""
        results = self._run(func, args)
        if any(b.escaped and b.dropped for b in self.buffers):
            # A view left its workgroup's copy after reads of that copy were
            # dropped from the log: they may race across workgroups. Run again
            # (deterministically: same results) keeping every read.
            self._reset()
            self._filter = False
            results = self._run(func, args)
        return results

    def _reset(self) -> None:
        self.log = AccessLog()
        self.epoch = 0
        self.buffers = []
        self.allocs = {}
        self.bindings = {}
        self._fns = {}
        self._plans = {}
        self._marks = {}
        self.returned = []

    def _run(self, func: Operation, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        body = func.regions[0].blocks[0]
        for op in func.walk():  # op indices in program order
            self.index_of(op)
        self._number_values(func)
        written = set(written_arguments(func)) if self.log is not None else set()
        root = Frame(np.arange(self.launch.lanes, dtype=np.int64), len(self.values))
        views = []
        for i, ((name, t, holder), value) in enumerate(zip(kernel_buffers(func), args)):
            if not isinstance(t, MemRefType):
                raise SimulationError(
                    f"argument {i} has type {t}; the simulator runs kernels on memrefs", func
                )
            view = self.new_buffer(name, t, value)
            view.buffer.logged = view.buffer.logged and i in written
            if isinstance(holder, Operation):
                self.bindings[id(holder)] = view
            else:
                root.env[self.slots[holder]] = view  # type: ignore[index]
            views.append(view)
        with np.errstate(all="ignore"):
            returned = self.exec_block(body, root, chunked=False)
        self._close_epoch()
        # What the function returns, as lane 0 has it: a sequential
        # reference's results, when it takes its inputs only.
        self.returned = [
            v.buffer.data[self.box(v, root)[0]].copy()
            if isinstance(v, View)
            else np.asarray(expand(v, root.n)[0]).copy()
            for v in returned
        ]
        return [v.buffer.data.reshape(v.buffer.shape).copy() for v in views]

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
        if key not in self._sync_cache:
            self._sync_cache[key] = op.name in SYNC_OPS or any(
                inner.name in SYNC_OPS for r in op.regions for inner in r.walk()
            )
        return self._sync_cache[key]

    def index_of(self, op: Operation) -> int:
        key = id(op)
        if key not in self.op_index:
            self.op_index[key] = len(self.ops)
            self.ops.append(op)
        return self.op_index[key]

    def fn(self, op: Operation) -> Callable:
        """The op's compiled closure `(frame, chunked) -> None`. What cannot be
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

    def plan(self, block: Block) -> _Plan:
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
        p = _Plan(fns, parts, yields)
        self._plans[key] = p
        return p

    def _segment(self, block: Block, ops: list[Operation]) -> _Segment:
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
        return _Segment([self.fn(op) for op in ops], escaping)

    def exec_block(self, block: Block, fr: Frame, chunked: bool) -> list[object]:
        """Runs a block's ops; returns what its terminator yields."""
        p = self.plan(block)
        if chunked:
            for f in p.fns:
                f(fr, True)
        else:
            for part in p.parts:
                if part.__class__ is _Segment:
                    self._run_segment(part, fr)
                else:
                    self.exec_sync(part[0], part[1], fr)
        env = fr.env
        out = []
        for s in p.yields:
            v = env[s]
            out.append(v if v is not None else self.pull(fr, s))
        return out

    def _chunks(self, fr: Frame):
        if fr.chunks is None:
            mask = np.zeros(self.launch.lanes, dtype=bool)
            mask[fr.lanes] = True
            parts = self.schedule(mask)
            if len(parts) == 1 and int(parts[0].sum()) == fr.n:
                fr.chunks = _NO_CHUNKS
            else:
                pos = self.position(fr)
                fr.chunks = [pos[np.nonzero(p)[0]] for p in parts]
        return fr.chunks

    def position(self, fr: Frame) -> np.ndarray:
        """Each global lane's index in the frame, -1 for lanes not in it."""
        if fr.position is None:
            pos = np.full(self.launch.lanes, -1, dtype=np.int64)
            pos[fr.lanes] = np.arange(fr.n, dtype=np.int64)
            fr.position = pos
        return fr.position

    def _run_segment(self, seg: _Segment, fr: Frame) -> None:
        chunks = self._chunks(fr)
        if chunks is _NO_CHUNKS:
            for f in seg.fns:
                f(fr, True)
            return
        parts: dict[int, list] = {s: [] for s in seg.escaping}
        for sel in chunks:
            c = fr.child(sel)
            for f in seg.fns:
                f(c, True)
            for s in seg.escaping:
                v = c.env[s]
                if v is not None:
                    parts[s].append((sel, v))
        for s, ps in parts.items():
            if ps:
                fr.env[s] = assemble(ps, fr.n)

    def exec_sync(self, op: Operation, f: Callable, fr: Frame) -> None:
        """An op at or around a synchronization point: all lanes together."""
        if op.name == "gpu.barrier":
            self._check_converged(op, fr)
            self._close_epoch()
            self.epoch += 1
            return
        if op.name in ("scf.for", "scf.if", "affine.for"):
            self._check_uniform(op, fr)
        f(fr, False)

    def _check_converged(self, op: Operation, fr: Frame) -> None:
        per_block = np.bincount(self.launch.block_of_lane[fr.lanes], minlength=self.launch.blocks)
        if np.any((per_block > 0) & (per_block < self.launch.threads)):
            raise SimulationError(
                "gpu.barrier reached by only some threads of a workgroup (divergent barrier)", op
            )

    def _check_uniform(self, op: Operation, fr: Frame) -> None:
        blocks = self.launch.block_of_lane[fr.lanes]
        # The bounds or the condition; loop-carried values may differ freely.
        controls = op.operands[:3] if op.name == "scf.for" else op.operands[:1]
        if op.name == "affine.for":
            lbm, ubm = op_property(op, "lowerBoundMap").data, op_property(op, "upperBoundMap").data  # type: ignore[union-attr]
            n = lbm.num_dims + lbm.num_symbols + ubm.num_dims + ubm.num_symbols
            controls = op.operands[:n]
        for v in controls:
            value = self.lookup(fr, v)
            if not isinstance(value, np.ndarray) or value.ndim != 1:
                continue
            if value.size:
                first = np.full(self.launch.blocks, 0, dtype=value.dtype)
                first[blocks[::-1]] = value[::-1]
                if np.any(first[blocks] != value):
                    raise SimulationError(
                        f"'{op.name}' around a barrier has bounds or a condition that differ "
                        "between threads of a workgroup (divergent barrier)",
                        op,
                    )

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

    # memory -----------------------------------------------------------------

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
                    self._out_of_bounds(int(i[(i < 0) | (i >= size)][0]), d, size, view, op)
                base = base + i * stride
                pat.append(i)
            else:
                x = int(i)
                if x < 0 or x >= size:
                    self._out_of_bounds(x, d, size, view, op)
                add += x * stride
                pat.append(None)
        memo[0], memo[1], memo[2] = view, tuple(pat), base
        return base + add if add else base

    @staticmethod
    def _out_of_bounds(bad: int, d: int, size: int, view: View, op: Operation):
        raise SimulationError(
            f"index {bad} out of bounds [0, {size}) in dimension {d} of {view.buffer.name}", op
        )

    def access(self, view: View, flat, fr: Frame, k: int, kind: int) -> None:
        buf = view.buffer
        if buf.logged:
            if flat.__class__ is not np.ndarray:
                flat = np.full(fr.n, flat, dtype=np.int64)
            self.log.record(buf, flat, fr.lanes, k, kind, self.epoch)  # type: ignore[union-attr]

    def box(self, view: View, fr: Frame) -> np.ndarray:
        """Flat addresses of every element of a view, per lane: (lanes, *shape)."""
        offs = expand(view.offset, fr.n)
        flat = offs.reshape((-1,) + (1,) * len(view.shape))
        for d, (size, stride) in enumerate(zip(view.shape, view.strides)):
            shape = [1] * (len(view.shape) + 1)
            shape[d + 1] = size
            flat = flat + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
        return flat

    def read_box(self, view: View, fr: Frame, k: int) -> np.ndarray:
        flat = self.box(view, fr)
        self._log_box(view, flat, fr, k, READ)
        return view.buffer.data[flat]

    def write_box(self, view: View, values: np.ndarray, fr: Frame, k: int) -> None:
        flat = self.box(view, fr)
        self._log_box(view, flat, fr, k, WRITE)
        view.buffer.data[flat] = values.astype(view.buffer.data.dtype, copy=False)

    def _log_box(self, view: View, flat: np.ndarray, fr: Frame, k: int, kind: int) -> None:
        if not view.buffer.logged:
            return
        lanes = np.repeat(fr.lanes, flat[0].size if flat.shape[0] else 0)
        self.log.record(view.buffer, flat.reshape(-1), lanes, k, kind, self.epoch)  # type: ignore[union-attr]

    def note_view(self, view: View, fr: Frame) -> None:
        """Marks a workgroup buffer whose view reaches outside a lane's own copy."""
        buf = view.buffer
        if buf.space != "workgroup" or buf.escaped or any(s <= 0 for s in view.shape):
            return
        lo = sum(min(0, (s - 1) * st) for s, st in zip(view.shape, view.strides))
        hi = sum(max(0, (s - 1) * st) for s, st in zip(view.shape, view.strides))
        numel = buf.numel
        base = self.launch.block_of_lane[fr.lanes] * numel
        if np.any(view.offset + lo < base) or np.any(view.offset + hi >= base + numel):
            buf.escaped = True

    def _close_epoch(self) -> None:
        """Drops the reads of workgroup memory, in the epoch that ends, of
        elements nothing wrote or updated atomically in that epoch.

        Exact for `find_races`: a race within a workgroup needs a write or an
        atomic in the same epoch on the same element, and every read of such
        an element is kept, in order. A race across workgroups cannot involve
        workgroup memory while every view of it stays in the lane's own
        workgroup's copy; `run` runs again, keeping every read, if one did not."""
        if self.log is None or not self._filter:
            return
        for ident, entries in self.log.entries.items():
            buf = self.buffers[ident]
            start = self._marks.get(ident, 0)
            if buf.space != "workgroup" or buf.escaped or start >= len(entries):
                self._marks[ident] = len(entries)
                continue
            new = entries[start:]
            writes = [e for e in new if e[3] != READ]
            if not writes:
                kept = []
            else:
                touched = np.zeros(buf.data.size, dtype=bool)
                for e in writes:
                    touched[e[0]] = True
                kept = []
                for e in new:
                    if e[3] != READ:
                        kept.append(e)
                        continue
                    keep = touched[e[0]]
                    if keep.all():
                        kept.append(e)
                    elif keep.any():
                        kept.append((e[0][keep], e[1][keep], e[2], e[3], e[4]))
            if len(kept) != len(new) or any(a is not b for a, b in zip(kept, new)):
                buf.dropped = True
            entries[start:] = kept
            self._marks[ident] = len(entries)


def describe_op(op: Operation) -> str:
    """Where an op is in its file, and its name, for a race's report."""
    return f"{location_of(op) or '<unknown>'} ({op.name})"
