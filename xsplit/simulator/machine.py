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
- Each op is compiled once per function and launch into a closure with its
  operands' slots, types and attributes decoded (`compiled.Compiled`), and
  every thread order and every launch of the same kernel runs that code.
- A chunked stretch of `lane_local` ops runs for all its lanes at once
  when no element passes between its chunks (`speculation`), else chunk by
  chunk: the thread orders cost what lockstep does where they cannot differ.
- A memory op remembers the address part its per-lane indices gave (by
  identity of those arrays, which nothing mutates), so a load in a loop
  whose per-lane index is loop-invariant adds one scalar per iteration.
- Reads of a buffer the kernel never writes cannot race and are not logged;
  reads of workgroup memory that nothing writes in the same barrier epoch
  are dropped from the log at the epoch's end (see `Machine._close_epoch`).

The machine here is the core of a run: frames, scheduling, barriers, memory
and its log. What each op does is its dialect's module under `semantics/`,
found through `semantics.registry` by op name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue

from xsplit.collector import collector_paused
from xsplit.diagnostics import location_of
from xsplit.semantics import memory_space, op_property
from xsplit.simulator.compiled import SYNC_OPS, Compiled, Plan, Segment
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import (
    Frame,
    Launch,
    Schedule,
    assemble,
    chunked,
    expand,
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
from xsplit.simulator.speculation import speculate

__all__ = [
    "ATOMIC",
    "READ",
    "WRITE",
    "Launch",
    "SYNC_OPS",
    "Compiled",
    "Machine",
    "Schedule",
    "SimulationError",
    "chunked",
    "describe_op",
    "lockstep",
    "storage_dtype",
]

_NO_CHUNKS = object()
"""A frame's chunks when one chunk is the whole frame."""


class Machine:
    """Runs one function on a launch, with a schedule; logs every access.

    `code` is the function compiled for the launch, shared by the machines
    that run it in other orders; without it the machine compiles the
    function it runs itself, asking its own `fn` for each op's closure (a
    subclass may wrap them to measure what they do)."""

    def __init__(
        self,
        launch: Launch,
        schedule: Schedule = lockstep,
        log: bool = True,
        code: Compiled | None = None,
    ):
        if code is not None and code.launch is not launch:
            raise ValueError("a machine runs code compiled for its own launch")
        self.launch = launch
        self.schedule = schedule
        self.code = code
        self.log = AccessLog() if log else None
        self.epoch = 0
        self.buffers: list[Buffer] = []
        self.allocs: dict[int, View] = {}
        self.bindings: dict[int, View] = {}
        self._filter = log
        self._marks: dict[int, int] = {}
        self.returned: list[np.ndarray] = []
        self.dialect_state: dict[str, object] = {}
        """What a dialect's semantics keep from one op to the next (nvgpu's
        copies in flight), by dialect. `run`'s second run keeps it: nvgpu's
        group numbers only count relative to their lane's count."""

    # -- the compiled function's, under the names the machine always had ----

    @property
    def ops(self) -> list[Operation]:
        return self._code().ops

    @property
    def slots(self) -> dict[SSAValue, int]:
        return self._code().slots

    @property
    def values(self) -> list[SSAValue]:
        return self._code().values

    def _code(self) -> Compiled:
        if self.code is None:
            raise SimulationError("the machine has run nothing yet")
        return self.code

    def fn(self, op: Operation) -> Callable:
        """The op's compiled closure `(frame, chunked) -> None`."""
        return self._code().compiled(op)

    def index_of(self, op: Operation) -> int:
        return self._code().index_of(op)

    def plan(self, block: Block) -> Plan:
        return self._code().plan(block)

    def get(self, fr: Frame, s: int):
        return self._code().get(fr, s)

    def arr(self, fr: Frame, s: int):
        return self._code().arr(fr, s)

    def pull(self, fr: Frame, s: int):
        return self._code().pull(fr, s)

    def lookup(self, fr: Frame, v: SSAValue):
        return self._code().lookup(fr, v)

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
        # Compiling a kernel makes a closure or two for each of its ops (tens
        # of thousands) while the module is alive: the cyclic collector
        # rescanned that heap again and again, some two thirds of a run.
        with collector_paused():
            return self._run_compiled(func, args)

    def _run_compiled(self, func: Operation, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        if self.code is None:
            self.code = Compiled(func, self.launch, self.fn)
        elif self.code.func is not func:
            raise ValueError("a machine runs the function its code was compiled from")
        results = self._run(self.code, args)
        if any(b.escaped and b.dropped for b in self.buffers):
            # A view left its workgroup's copy after reads of that copy were
            # dropped from the log: they may race across workgroups. Run again
            # (deterministically: same results) keeping every read.
            self._reset()
            self._filter = False
            results = self._run(self.code, args)
        return results

    def _reset(self) -> None:
        self.log = AccessLog()
        self.epoch = 0
        self.buffers = []
        self.allocs = {}
        self.bindings = {}
        self._marks = {}
        self.returned = []

    def _run(self, code: Compiled, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        func = code.func
        body = func.regions[0].blocks[0]
        written = code.written if self.log is not None else frozenset()
        root = Frame(np.arange(self.launch.lanes, dtype=np.int64), len(code.values))
        root.m = self
        views = []
        for i, ((name, t, holder), value) in enumerate(zip(code.buffers, args)):
            if not isinstance(t, MemRefType):
                raise SimulationError(
                    f"argument {i} has type {t}; the simulator runs kernels on memrefs", func
                )
            view = self.new_buffer(name, t, value)
            view.buffer.logged = view.buffer.logged and i in written
            if isinstance(holder, Operation):
                self.bindings[id(holder)] = view
            else:
                root.env[code.slots[holder]] = view  # type: ignore[index]
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

    # -- running blocks ------------------------------------------------------

    def exec_block(self, block: Block, fr: Frame, chunked: bool) -> list[object]:
        """Runs a block's ops; returns what its terminator yields."""
        code = self.code
        p = code.plan(block)  # type: ignore[union-attr]
        if chunked:
            for f in p.fns:
                f(fr, True)
        else:
            for part in p.parts:
                if part.__class__ is Segment:
                    self._run_segment(part, fr)
                else:
                    self.exec_sync(part[0], part[1], fr)
        env = fr.env
        out = []
        for s in p.yields:
            v = env[s]
            out.append(v if v is not None else code.pull(fr, s))  # type: ignore[union-attr]
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

    def _run_segment(self, seg: Segment, fr: Frame) -> None:
        chunks = self._chunks(fr)
        if chunks is _NO_CHUNKS:
            for f in seg.fns:
                f(fr, True)
            return
        if seg.lane_local and self.log is not None and speculate(self, seg, fr, chunks):
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
            value = self._code().lookup(fr, v)
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

    # memory -----------------------------------------------------------------

    def flat_index(self, view: View, indices: Sequence, op: Operation, memo: list):
        return self._code().flat_index(view, indices, op, memo)

    def access(self, view: View, flat, fr: Frame, k: int, kind: int) -> None:
        """Logs an access of the frame's lanes to the elements `flat`. An op
        calls it before it writes them (`speculation` keeps their old
        contents then)."""
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
        """Marks a workgroup or private buffer whose view reaches outside a
        lane's own copy (its workgroup's, or its own)."""
        buf = view.buffer
        space = buf.space
        if space == "global" or buf.escaped or any(s <= 0 for s in view.shape):
            return
        lo = sum(min(0, (s - 1) * st) for s, st in zip(view.shape, view.strides))
        hi = sum(max(0, (s - 1) * st) for s, st in zip(view.shape, view.strides))
        numel = buf.numel
        copy = self.launch.block_of_lane[fr.lanes] if space == "workgroup" else fr.lanes
        base = copy * numel
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
                        kept.append((e[0][keep], e[1][keep], e[2], e[3], e[4], e[5]))
            if len(kept) != len(new) or any(a is not b for a, b in zip(kept, new)):
                buf.dropped = True
            entries[start:] = kept
            self._marks[ident] = len(entries)


def describe_op(op: Operation) -> str:
    """Where an op is in its file, and its name, for a race's report."""
    return f"{location_of(op) or '<unknown>'} ({op.name})"
