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
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from xsplit.analysis.writes import kernel_buffers, may_write, written_arguments
from xsplit.diagnostics import XsplitError, location_of
from xsplit.dialects.amdgpu import MFMAOp
from xsplit.dialects.fragments import INTRINSICS, Intrinsic, fragment_matrix
from xsplit.dialects.llvm import pointer_memref
from xsplit.semantics import (
    BINARY,
    CASTS,
    CMPF,
    CMPI,
    UNARY,
    id_dimension,
    memory_space,
    op_property,
    safe_divisor,
)
from xsplit.semantics import memref_strides as _static_strides

READ, WRITE, ATOMIC = 1, 2, 4

SYNC_OPS = frozenset(
    {
        "gpu.barrier", "gpu.shuffle", "gpu.subgroup_reduce", "nvgpu.mma.sync", "nvgpu.ldmatrix",
        "amdgpu.mfma",
    }
)
"""Ops where lanes meet: no chunk may run past one before the others reach it."""

class SimulationError(XsplitError):
    """The kernel does something the machine cannot run, or undefined behavior."""


def storage_dtype(t: Attribute) -> np.dtype:
    """How the simulator holds values of type `t`: every integer in int64, so
    that index arithmetic on any integer width cannot overflow."""
    text = str(t)
    table = {
        "f16": np.float16,
        "f32": np.float32,
        "f64": np.float64,
        "bf16": np.float32,
        "i1": np.bool_,
        "index": np.int64,
    }
    if text in table:
        return np.dtype(table[text])
    if isinstance(t, IntegerType):
        return np.dtype(np.int64)
    raise SimulationError(f"element type {text} is not supported by the simulator")


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


_ATOMIC_KINDS = [
    "addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu",
    "mulf", "muli", "ori", "andi", "maxnumf", "minnumf",
]  # fmt: skip


def _compile_affine(expr: AffineExpr, num_dims: int) -> Callable[[Sequence], object]:
    """A closure that evaluates an affine expression on lane values (operands
    in dims-then-symbols order). Division and modulo by zero divide by one,
    as `semantics.safe_divisor` does everywhere."""
    if isinstance(expr, AffineConstantExpr):
        c = np.int64(expr.value)
        return lambda ops: c
    if isinstance(expr, AffineDimExpr):
        p = expr.position
        return lambda ops: ops[p]
    if isinstance(expr, AffineSymExpr):
        p = num_dims + expr.position
        return lambda ops: ops[p]
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs = _compile_affine(expr.lhs, num_dims)
    rhs = _compile_affine(expr.rhs, num_dims)
    kind = expr.kind
    if kind == AffineBinaryOpKind.Add:
        return lambda ops: lhs(ops) + rhs(ops)
    if kind == AffineBinaryOpKind.Mul:
        return lambda ops: lhs(ops) * rhs(ops)
    if kind == AffineBinaryOpKind.FloorDiv:
        return lambda ops: lhs(ops) // safe_divisor(np.asarray(rhs(ops)))
    if kind == AffineBinaryOpKind.CeilDiv:
        return lambda ops: -((-lhs(ops)) // safe_divisor(np.asarray(rhs(ops))))
    return lambda ops: lhs(ops) % safe_divisor(np.asarray(rhs(ops)))


def _compile_map(m: AffineMap) -> Callable[[Sequence], list]:
    """A closure that evaluates an affine map's results on lane values, as
    int64 lane values (numpy scalars when uniform)."""
    fns = [_compile_affine(e, m.num_dims) for e in m.results]

    def run(ops: Sequence) -> list:
        return [_lane_value(np.asarray(f(ops), dtype=np.int64)) for f in fns]

    return run


def _dim_index(op: Operation) -> int:
    d = id_dimension(op)
    if d is None:
        raise SimulationError(f"cannot tell which dimension '{op.name}' reads", op)
    return d


def _static_values(static: DenseArrayBase, dynamic: Sequence[np.ndarray]) -> list[np.ndarray | int]:
    out: list[np.ndarray | int] = []
    dyn = iter(dynamic)
    for v in static.get_values():
        out.append(next(dyn) if v == -(2**63) else int(v))
    return out


def memref_strides(t: MemRefType) -> tuple[int, ...]:
    try:
        return _static_strides(t)
    except ValueError as e:
        raise SimulationError(str(e)) from None


# -- lane values ---------------------------------------------------------------
#
# A value in a frame is a 1-D array with one element per lane of the frame, a
# numpy scalar (the same in every lane), or a View. Numpy scalars keep their
# dtype in arithmetic (NEP 50), so an op on them gives what it gives on arrays.


def _lane_value(x):
    """A numpy result as a lane value: a 0-d array becomes a numpy scalar."""
    if x.__class__ is np.ndarray and x.ndim == 0:
        return x[()]
    return x


def _gather(v, sel: np.ndarray):
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


def _expand(v, n: int) -> np.ndarray:
    if v.__class__ is np.ndarray:
        return v
    return np.full(n, v, dtype=np.asarray(v).dtype)


def _same_scalar(a, b) -> bool:
    return (
        a.__class__ is not np.ndarray
        and b.__class__ is not np.ndarray
        and isinstance(a, np.generic)
        and isinstance(b, np.generic)
        and a.dtype == b.dtype
        and a.tobytes() == b.tobytes()
    )


def _assemble(parts: list[tuple[np.ndarray, object]], n: int, dtype=None):
    """One value for a frame of `n` lanes from its disjoint parts `(sel, value)`,
    which together cover it."""
    last = parts[-1][1]
    if last.__class__ is View:
        offs = [v.offset for _, v in parts]
        if all(_same_scalar(offs[0], o) for o in offs[1:]):
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
    if all(_same_scalar(first, v) for _, v in parts[1:]):
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
    gathered from its parent on first use."""

    __slots__ = ("chunks", "env", "lanes", "n", "parent", "position", "sel")

    def __init__(self, lanes: np.ndarray, size: int, parent: Frame | None = None, sel=None):
        self.lanes = lanes
        self.n = len(lanes)
        self.env: list = [None] * size
        self.parent = parent
        self.sel = sel
        self.chunks = None
        self.position = None

    def child(self, sel: np.ndarray) -> Frame:
        return Frame(self.lanes[sel], len(self.env), self, sel)


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
            else np.asarray(_expand(v, root.n)[0]).copy()
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
                f = _compile(self, op)
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
                fr.env[s] = _assemble(ps, fr.n)

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
        g = _gather(v, fr.sel)
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
        offs = _expand(view.offset, fr.n)
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


_TERMINATORS = frozenset(
    {"scf.yield", "func.return", "affine.yield", "scf.forall.in_parallel", "scf.reduce"}
)


# -- op compilers ----------------------------------------------------------------
#
# Each takes the machine and an op and returns `run(frame, chunked)`. What an
# op's handler used to look up per execution (slots, dtypes, attributes) is
# looked up here once.


def _slot(m: Machine, v: SSAValue) -> int:
    return m.slots[v]


def _c_constant(m: Machine, op: Operation):
    value = op_property(op, "value")
    dtype = storage_dtype(op.results[0].type)
    if isinstance(value, IntegerAttr):
        x = value.value.data
    elif isinstance(value, FloatAttr):
        x = value.value.data
    else:
        raise SimulationError("only scalar constants are supported by the simulator", op)
    c = np.full(1, x, dtype=dtype)[0]
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = c

    return run


def _c_binary(m: Machine, op: Operation):
    fn = BINARY[op.name]
    sa, sb = _slot(m, op.operands[0]), _slot(m, op.operands[1])
    r = _slot(m, op.results[0])
    dtype = storage_dtype(op.results[0].type)
    memo: list = [None, None, None]

    def run(fr: Frame, chunked: bool) -> None:
        env = fr.env
        a = env[sa]
        if a is None:
            a = m.pull(fr, sa)
        b = env[sb]
        if b is None:
            b = m.pull(fr, sb)
        if a is memo[0] and b is memo[1]:
            env[r] = memo[2]
            return
        if a.__class__ is View or b.__class__ is View:
            raise SimulationError("expected a scalar value, got a memref")
        x = fn(a, b)
        if x.dtype != dtype:
            x = x.astype(dtype)
        if x.__class__ is np.ndarray and x.ndim == 0:
            x = x[()]
        memo[0], memo[1], memo[2] = a, b, x
        env[r] = x

    return run


def _c_unary(m: Machine, op: Operation):
    fn = UNARY[op.name]
    sa, r = _slot(m, op.operands[0]), _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        a = m.arr(fr, sa)
        # On arrays even when uniform: numpy's vectorised math routines are
        # what the results were always computed with.
        fr.env[r] = fn(_expand(a, fr.n))

    return run


def _c_cast(m: Machine, op: Operation):
    sa, r = _slot(m, op.operands[0]), _slot(m, op.results[0])
    dtype = storage_dtype(op.results[0].type)
    memo: list = [None, None]

    def run(fr: Frame, chunked: bool) -> None:
        a = m.arr(fr, sa)
        if a is memo[0]:
            fr.env[r] = memo[1]
            return
        x = a.astype(dtype)
        memo[0], memo[1] = a, x
        fr.env[r] = x

    return run


def _c_cmpi(m: Machine, op: Operation):
    pred = int(op_property(op, "predicate").value.data)  # type: ignore[union-attr]
    cmp = CMPI[pred]
    sa, sb, r = _slot(m, op.operands[0]), _slot(m, op.operands[1]), _slot(m, op.results[0])
    memo: list = [None, None, None]

    def run(fr: Frame, chunked: bool) -> None:
        a, b = m.arr(fr, sa), m.arr(fr, sb)
        if a is memo[0] and b is memo[1]:
            fr.env[r] = memo[2]
            return
        x, y = a, b
        if pred >= 6:  # unsigned: compare as unsigned 64-bit
            x, y = a.astype(np.uint64), b.astype(np.uint64)
        out = _lane_value(cmp(x, y))
        memo[0], memo[1], memo[2] = a, b, out
        fr.env[r] = out

    return run


def _c_cmpf(m: Machine, op: Operation):
    pred = int(op_property(op, "predicate").value.data)  # type: ignore[union-attr]
    sa, sb, r = _slot(m, op.operands[0]), _slot(m, op.operands[1]), _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        a, b = m.arr(fr, sa), m.arr(fr, sb)
        if pred == 0:
            out = np.zeros(np.shape(a), bool)
        elif pred == 15:
            out = np.ones(np.shape(a), bool)
        elif pred == 7:
            out = ~(np.isnan(a) | np.isnan(b))
        elif pred == 14:
            out = np.isnan(a) | np.isnan(b)
        else:
            out = CMPF[pred](a, b)
            nan = np.isnan(a) | np.isnan(b)
            out = (out | nan) if pred >= 8 else (out & ~nan)
        fr.env[r] = _lane_value(out)

    return run


def _c_select(m: Machine, op: Operation):
    sc, sa, sb = (_slot(m, v) for v in op.operands)
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        c, a, b = m.get(fr, sc), m.get(fr, sa), m.get(fr, sb)
        if a.__class__ is View:
            fr.env[r] = a  # only same-buffer selects reach here in practice
            return
        fr.env[r] = _lane_value(np.where(c, a, b))

    return run


def _c_affine_apply(m: Machine, op: Operation):
    f = _compile_map(op_property(op, "map").data)  # type: ignore[union-attr]
    slots = [_slot(m, v) for v in op.operands]
    r = _slot(m, op.results[0])
    memo: list = [None, None]

    def run(fr: Frame, chunked: bool) -> None:
        vals = [m.arr(fr, s) for s in slots]
        last = memo[0]
        if last is not None and all(a is b for a, b in zip(vals, last)):
            fr.env[r] = memo[1]
            return
        out = f(vals)[0]
        memo[0], memo[1] = vals, out
        fr.env[r] = out

    return run


def _c_affine_minmax(fn):
    def make(m: Machine, op: Operation):
        f = _compile_map(op_property(op, "map").data)  # type: ignore[union-attr]
        slots = [_slot(m, v) for v in op.operands]
        r = _slot(m, op.results[0])

        def run(fr: Frame, chunked: bool) -> None:
            vals = f([m.arr(fr, s) for s in slots])
            fr.env[r] = _lane_value(fn(np.broadcast_arrays(*vals), axis=0))

        return run

    return make


def _c_id_op(kind: str):
    def make(m: Machine, op: Operation):
        d = _dim_index(op)
        launch = m.launch
        r = _slot(m, op.results[0])
        if kind in ("thread", "block"):
            source = (launch.tid if kind == "thread" else launch.bid)[d]

            def run(fr: Frame, chunked: bool) -> None:
                fr.env[r] = source[fr.lanes]

            return run
        size = np.int64(launch.block[d] if kind == "block_dim" else launch.grid[d])

        def run_size(fr: Frame, chunked: bool) -> None:
            fr.env[r] = size

        return run_size

    return make


def _c_lanes(values: Callable[[Launch], np.ndarray]):
    def make(m: Machine, op: Operation):
        source = values(m.launch)
        r = _slot(m, op.results[0])

        def run(fr: Frame, chunked: bool) -> None:
            fr.env[r] = source[fr.lanes]

        return run

    return make


def _c_subgroup_size(m: Machine, op: Operation):
    size = np.int64(m.launch.subgroup_size)
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = size

    return run


def _c_load(m: Machine, op: Operation, affine: bool = False):
    sv = _slot(m, op.operands[0])
    sidx = [_slot(m, v) for v in op.operands[1:]]
    amap = _compile_map(op_property(op, "map").data) if affine else None  # type: ignore[union-attr]
    r = _slot(m, op.results[0])
    k = m.index_of(op)
    memo: list = [None, (), None]

    def run(fr: Frame, chunked: bool) -> None:
        env = fr.env
        view = env[sv]
        if view is None:
            view = m.pull(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        if amap is not None:
            idx = amap(idx)
        flat = m.flat_index(view, idx, op, memo)
        if view.buffer.logged:
            m.access(view, flat, fr, k, READ)
        env[r] = view.buffer.data[flat]

    return run


def _c_vector_load(m: Machine, op: Operation):
    """`vector.load` of a 1-D vector: w consecutive elements along the last
    index, each logged as its own read. A vector value is held as an
    (n, w) array, lanes first, so that frames gather it like a scalar;
    only `vector.extract` reads it."""
    sv = _slot(m, op.operands[0])
    sidx = [_slot(m, v) for v in op.operands[1:]]
    shape = op.results[0].type.get_shape()  # type: ignore[attr-defined]
    if len(shape) != 1:
        raise SimulationError("only 1-D vector loads are supported", op)
    width = shape[0]
    r = _slot(m, op.results[0])
    k = m.index_of(op)
    memos: list[list] = [[None, (), None] for _ in range(width)]

    def run(fr: Frame, chunked: bool) -> None:
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        parts = []
        for e in range(width):
            flat = m.flat_index(view, [*idx[:-1], idx[-1] + e], op, memos[e])
            if view.buffer.logged:
                m.access(view, flat, fr, k, READ)
            parts.append(_expand(view.buffer.data[flat], fr.n))
        fr.env[r] = np.stack(parts, axis=1)

    return run


def _c_vector_store(m: Machine, op: Operation):
    """`vector.store` of a 1-D vector: w consecutive elements along the last
    index, each logged as its own write."""
    sval, sv = _slot(m, op.operands[0]), _slot(m, op.operands[1])
    sidx = [_slot(m, v) for v in op.operands[2:]]
    shape = op.operands[0].type.get_shape()  # type: ignore[attr-defined]
    if len(shape) != 1:
        raise SimulationError("only 1-D vector stores are supported", op)
    width = shape[0]
    k = m.index_of(op)
    memos: list[list] = [[None, (), None] for _ in range(width)]

    def run(fr: Frame, chunked: bool) -> None:
        value = m.arr(fr, sval)
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        data = view.buffer.data
        for e in range(width):
            flat = _expand(m.flat_index(view, [*idx[:-1], idx[-1] + e], op, memos[e]), fr.n)
            if view.buffer.logged:
                m.access(view, flat, fr, k, WRITE)
            data[flat] = value[:, e].astype(data.dtype, copy=False)

    return run


def _c_vector_extract(m: Machine, op: Operation):
    """`vector.extract` of one element at a static position of a vector."""
    position = op_property(op, "static_position").get_values()  # type: ignore[union-attr]
    rank = len(op.operands[0].type.get_shape())  # type: ignore[attr-defined]
    if len(position) != rank or any(p < 0 for p in position):
        raise SimulationError("only static extracts of one element are supported", op)
    sv, r = _slot(m, op.operands[0]), _slot(m, op.results[0])
    at = (slice(None), *(int(p) for p in position))

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = m.arr(fr, sv)[at]

    return run


def _c_vector_from_elements(m: Machine, op: Operation):
    """`vector.from_elements`: a (lanes, *shape) array of its scalars."""
    shape = tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
    slots = [_slot(m, v) for v in op.operands]
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        parts = [_expand(m.arr(fr, s), fr.n) for s in slots]
        fr.env[r] = np.stack(parts, axis=1).reshape((fr.n, *shape))

    return run


def _warps(m: Machine, op: Operation, fr: Frame, lanes: int):
    """Each frame lane's warp (0, 1, ... in the frame) and lane within it,
    and the frame index of every (warp, lane); all lanes of a warp must be
    there."""
    launch = m.launch
    thread = launch.block_of_lane[fr.lanes] * launch.threads + launch.thread_of_lane[fr.lanes]
    warps, slot = np.unique(thread // lanes, return_inverse=True)
    lane = thread % lanes
    if len(fr.lanes) != len(warps) * lanes:
        raise SimulationError(
            f"{op.name} reached by only some lanes of a warp (divergent warp collective)", op
        )
    where = np.zeros((len(warps), lanes), dtype=np.int64)
    where[slot, lane] = np.arange(fr.n)
    return slot, lane, where


def _c_ldmatrix(m: Machine, op: Operation):
    """`nvgpu.ldmatrix`: lanes 8i..8i+7 give the rows of matrix i; lane l
    gets the pair at row l / 4, columns 2 (l % 4) + e, or transposed at rows
    2 (l % 4) + e of column l / 4 (PTX ISA, ldmatrix)."""
    tiles = op.num_tiles.value.data  # type: ignore[attr-defined]
    transpose = bool(op.transpose.value.data)  # type: ignore[attr-defined]
    sv = _slot(m, op.operands[0])
    sidx = [_slot(m, v) for v in op.operands[1:]]
    r = _slot(m, op.results[0])
    k = m.index_of(op)
    if m.launch.threads % 32:
        raise SimulationError(f"{op.name} needs workgroups of whole 32-lane warps", op)

    def run(fr: Frame, chunked: bool) -> None:
        slot, lane, where = _warps(m, op, fr, 32)
        view = m.get(fr, sv)
        idx = [_expand(m.arr(fr, s), fr.n) for s in sidx]
        out = None
        for i in range(tiles):
            for e in range(2):
                pair = 2 * (lane % 4) + e
                row, col = (pair, lane // 4) if transpose else (lane // 4, pair)
                source = where[slot, 8 * i + row]  # the lane that addresses this row
                at = [x[source] for x in idx]
                flat = m.flat_index(view, [*at[:-1], at[-1] + col], op, [None, (), None])
                if view.buffer.logged:
                    m.access(view, flat, fr, k, READ)
                value = view.buffer.data[flat]
                if out is None:
                    out = np.zeros((fr.n, tiles, 2), dtype=view.buffer.data.dtype)
                out[:, i, e] = value
        fr.env[r] = out

    return run


def warp_matrix_multiply(m: Machine, op: Operation, intr: Intrinsic, a, b, c):
    """The closure of a warp-collective `D = A · B + C` by the intrinsic
    `intr` (fragments.py), its A, B and C fragments the values `a`, `b`,
    `c`: the lanes of each warp (`intr.lanes` consecutive threads of a
    workgroup) meet; their fragments are placed in the matrices by the
    intrinsic's layout, multiplied in f32 (products of 16-bit floats are
    exact in f32) and D's elements go back to the lanes that hold them in C.
    A warp whose lanes do not all arrive is an error, as on the hardware.
    Every intrinsic's op (`nvgpu.mma.sync`, ...) simulates through it."""
    sa, sb, sc = (_slot(m, v) for v in (a, b, c))
    r = _slot(m, op.results[0])
    if m.launch.threads % intr.lanes:
        raise SimulationError(f"{op.name} needs workgroups of whole {intr.lanes}-lane warps", op)
    layouts = [fragment_matrix(f, intr.lanes) for f in (intr.a, intr.b, intr.c)]
    dims = [(intr.m, intr.k), (intr.k, intr.n), (intr.m, intr.n)]

    def run(fr: Frame, chunked: bool) -> None:
        slot, lane, _ = _warps(m, op, fr, intr.lanes)
        warps = int(slot.max()) + 1 if fr.n else 0
        c_dtype = np.asarray(m.arr(fr, sc)).dtype
        mats = []
        for s, (rows, cols), dim in zip((sa, sb, sc), layouts, dims):
            value = m.arr(fr, s).reshape(fr.n, -1).astype(np.float32)
            mat = np.zeros((warps, *dim), dtype=np.float32)
            mat[slot[:, None], rows[lane].reshape(fr.n, -1), cols[lane].reshape(fr.n, -1)] = value
            mats.append(mat)
        d = mats[0] @ mats[1] + mats[2]
        rows, cols = layouts[2]
        out = d[slot[:, None], rows[lane].reshape(fr.n, -1), cols[lane].reshape(fr.n, -1)]
        fr.env[r] = out.reshape(fr.n, *intr.c.shape).astype(c_dtype)

    return run


def _c_mma_sync(m: Machine, op: Operation):
    """`nvgpu.mma.sync`: the intrinsic of its `mmaShape` (m16n8k16)."""
    shape = tuple(a.value.data for a in op_property(op, "mmaShape").data)  # type: ignore[union-attr]
    intr = next(
        (i for i in INTRINSICS.values() if i.op == op.name and (i.m, i.n, i.k) == shape), None
    )
    if intr is None:
        raise SimulationError(f"no fragment layout for {op.name} of shape {list(shape)}", op)
    return warp_matrix_multiply(m, op, intr, *op.operands)

def _c_mfma(m: Machine, op: Operation):
    """`amdgpu.mfma`: the intrinsic of its shape and A's element type (a
    64-lane wavefront, CDNA3's layouts)."""
    assert isinstance(op, MFMAOp)
    intr = op.intrinsic
    if intr is None:
        raise SimulationError(f"no fragment layout for {op.name} of shape {list(op.shape)}", op)
    return warp_matrix_multiply(m, op, intr, *op.operands)


def _c_gather_to_lds(m: Machine, op: Operation):
    """`amdgpu.gather_to_lds`: each lane reads `transferType` (one element or
    a short vector along the last index) at its own source place and writes
    it to workgroup memory at the destination place, which every lane of a
    wavefront gives alike, plus its lane number (thread % 64) times the
    transfer. On gfx942 the write lands by the next barrier (whose release
    fence waits for it); here it lands at once and is logged then, so that
    a read of the destination by another thread before that barrier races."""
    n_src = len(op.src_indices)  # type: ignore[attr-defined]
    ssrc = _slot(m, op.operands[0])
    ssi = [_slot(m, v) for v in op.operands[1 : 1 + n_src]]
    sdst = _slot(m, op.operands[1 + n_src])
    sdi = [_slot(m, v) for v in op.operands[2 + n_src :]]
    transfer = op.transfer_type  # type: ignore[attr-defined]
    count = transfer.get_shape()[0] if isinstance(transfer, VectorType) else 1
    k = m.index_of(op)
    launch = m.launch
    lanes = 64

    def run(fr: Frame, chunked: bool) -> None:
        src, dst = m.get(fr, ssrc), m.get(fr, sdst)
        si = [m.arr(fr, s) for s in ssi]
        di = [m.arr(fr, s) for s in sdi]
        thread = launch.thread_of_lane[fr.lanes]
        wave = launch.block_of_lane[fr.lanes] * launch.threads + thread - thread % lanes
        base = _expand(m.flat_index(dst, di, op, [None, (), None]), fr.n)
        for w in np.unique(wave):
            if len(np.unique(base[wave == w])) > 1:
                raise SimulationError(
                    "amdgpu.gather_to_lds: the lanes of a wavefront give different destinations", op
                )
        end = dst.offset + int(np.prod(dst.shape))
        data = dst.buffer.data
        for x in range(count):
            flat = m.flat_index(src, [*si[:-1], si[-1] + x], op, [None, (), None])
            if src.buffer.logged:
                m.access(src, flat, fr, k, READ)
            to = base + (thread % lanes) * count + x
            if np.any(to >= end):
                raise SimulationError("amdgpu.gather_to_lds writes past its destination", op)
            if dst.buffer.logged:
                m.access(dst, to, fr, k, WRITE)
            data[to] = _expand(src.buffer.data[flat], fr.n)

    return run


def _c_vector_broadcast(m: Machine, op: Operation):
    """`vector.broadcast` of a scalar to a 1-D vector: each lane's value in
    every element."""
    shape = op.results[0].type.get_shape()  # type: ignore[attr-defined]
    if len(shape) != 1 or isinstance(op.operands[0].type, VectorType):
        raise SimulationError("only broadcasts of a scalar to a 1-D vector are supported", op)
    sv, r, width = _slot(m, op.operands[0]), _slot(m, op.results[0]), shape[0]

    def run(fr: Frame, chunked: bool) -> None:
        value = _expand(m.arr(fr, sv), fr.n)
        fr.env[r] = np.repeat(value[:, None], width, axis=1)

    return run


@dataclass(eq=False)
class _AsyncCopies:
    """sm_80's asynchronous copies in flight: what each issued copy will
    write, per lane, and which of the lane's groups it belongs to (-1: not
    yet in a group). A copy lands when a `device_async_wait` of its lane
    leaves its group behind, not when it is issued."""

    count: np.ndarray
    """Groups each lane has committed."""
    pending: list[dict] = field(default_factory=list)


def _async_state(m: Machine) -> _AsyncCopies:
    state = getattr(m, "_async_copies", None)
    if state is None:
        state = _AsyncCopies(np.zeros(m.launch.lanes, dtype=np.int64))
        m._async_copies = state  # type: ignore[attr-defined]
    return state


def _c_async_copy(m: Machine, op: Operation):
    """`nvgpu.device_async_copy`: `dstElements` elements along the last
    index, the first `srcElements` read (all without it) and the rest zero.
    The source is read when the copy is issued; the destination is written
    when a wait covers the copy's group (`_c_async_wait`), so that a read
    before the wait sees the old contents (a wrong result). The write is
    logged both at the issue and where it lands: a copy may write any time
    in between, so it races with another thread's access at either end that
    no barrier orders. (An access strictly between the two, in an epoch of
    its own, is caught only by its wrong value.)"""
    n_dst = len(op.dst_indices)  # type: ignore[attr-defined]
    n_src = len(op.src_indices)  # type: ignore[attr-defined]
    sdst = _slot(m, op.operands[0])
    sdi = [_slot(m, v) for v in op.operands[1 : 1 + n_dst]]
    ssrc = _slot(m, op.operands[1 + n_dst])
    ssi = [_slot(m, v) for v in op.operands[2 + n_dst : 2 + n_dst + n_src]]
    scount = _slot(m, op.src_elements) if op.src_elements is not None else None  # type: ignore[attr-defined]
    width = op.elements  # type: ignore[attr-defined]
    r = _slot(m, op.results[0])
    k = m.index_of(op)
    memos = [[None, (), None] for _ in range(width)]
    state = _async_state(m)

    def run(fr: Frame, chunked: bool) -> None:
        dst, src = m.get(fr, sdst), m.get(fr, ssrc)
        di = [m.arr(fr, s) for s in sdi]
        si = [m.arr(fr, s) for s in ssi]
        count = _expand(m.arr(fr, scount), fr.n) if scount is not None else np.full(fr.n, width)
        for e in range(width):
            read = count > e
            value = np.zeros(fr.n, dtype=dst.buffer.data.dtype)
            if read.any():
                sel = np.nonzero(read)[0]
                idx = [_gather(x, sel) if x.__class__ is np.ndarray else x for x in si]
                flat = m.flat_index(_gather(src, sel), [*idx[:-1], idx[-1] + e], op, [None, (), None])
                if src.buffer.logged:
                    m.access(src, flat, fr.child(sel), k, READ)
                value[sel] = src.buffer.data[flat]
            flat = _expand(m.flat_index(dst, [*di[:-1], di[-1] + e], op, memos[e]), fr.n)
            if dst.buffer.logged:
                # The copy may write any time until its wait: logged at the
                # issue too, so that one into a tile others still read races.
                m.access(dst, flat, fr, k, WRITE)
            state.pending.append({
                "lanes": fr.lanes.copy(), "buffer": dst.buffer, "flat": np.array(flat),
                "value": value, "op": k, "group": np.full(fr.n, -1, dtype=np.int64),
            })  # fmt: skip
        fr.env[r] = np.int64(0)

    return run


def _lane_set(m: Machine, fr: Frame) -> np.ndarray:
    """Whether each lane of the launch is in `fr`."""
    inframe = np.zeros(m.launch.lanes, dtype=bool)
    inframe[fr.lanes] = True
    return inframe


def _c_async_group(m: Machine, op: Operation):
    """`device_async_create_group`: the frame's lanes' ungrouped copies form
    their next group."""
    r = _slot(m, op.results[0])
    state = _async_state(m)

    def run(fr: Frame, chunked: bool) -> None:
        inframe = _lane_set(m, fr)
        for copy in state.pending:
            mine = inframe[copy["lanes"]] & (copy["group"] == -1)
            copy["group"][mine] = state.count[copy["lanes"][mine]]
        state.count[fr.lanes] += 1
        fr.env[r] = np.int64(0)

    return run


def _c_async_wait(m: Machine, op: Operation):
    """`device_async_wait {numGroups = N}`: each lane's copies in all but
    its N newest groups land now (all of its groups without N)."""
    groups = op.num_groups  # type: ignore[attr-defined]
    keep = 0 if groups is None else groups.value.data
    state = _async_state(m)

    def run(fr: Frame, chunked: bool) -> None:
        inframe = _lane_set(m, fr)
        left = []
        for copy in state.pending:
            lanes, group = copy["lanes"], copy["group"]
            done = inframe[lanes] & (group >= 0) & (group < state.count[lanes] - keep)
            if done.any():
                buf, flat = copy["buffer"], copy["flat"][done]
                buf.data[flat] = copy["value"][done]
                if buf.logged and m.log is not None:
                    m.log.record(buf, flat, lanes[done], copy["op"], WRITE, m.epoch)
                copy["group"][done] = -2  # landed
            if (copy["group"] != -2).any():
                left.append(copy)
        state.pending[:] = left

    return run


def _c_store(m: Machine, op: Operation, affine: bool = False):
    sval, sv = _slot(m, op.operands[0]), _slot(m, op.operands[1])
    sidx = [_slot(m, v) for v in op.operands[2:]]
    amap = _compile_map(op_property(op, "map").data) if affine else None  # type: ignore[union-attr]
    k = m.index_of(op)
    memo: list = [None, (), None]

    def run(fr: Frame, chunked: bool) -> None:
        value = m.arr(fr, sval)
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        if amap is not None:
            idx = amap(idx)
        flat = m.flat_index(view, idx, op, memo)
        if flat.__class__ is not np.ndarray:
            flat = np.full(fr.n, flat, dtype=np.int64)
        if view.buffer.logged:
            m.access(view, flat, fr, k, WRITE)
        data = view.buffer.data
        if value.__class__ is np.ndarray:
            data[flat] = value.astype(data.dtype, copy=False)
        else:
            data[flat] = _expand(value, fr.n).astype(data.dtype, copy=False)

    return run


def atomic_kind(op: Operation) -> str:
    kind = op_property(op, "kind")
    if isinstance(kind, IntegerAttr):
        return _ATOMIC_KINDS[int(kind.value.data)]
    text = str(kind)
    for k in sorted(_ATOMIC_KINDS, key=len, reverse=True):
        if re.search(rf"\b{k}\b", text):
            return k
    raise SimulationError(f"unknown atomic kind {text}", op)


_ATOMIC_UFUNCS = {
    "addf": np.add, "addi": np.add, "mulf": np.multiply, "muli": np.multiply,
    "maximumf": np.maximum, "maxs": np.maximum, "maxu": np.maximum, "maxnumf": np.fmax,
    "minimumf": np.minimum, "mins": np.minimum, "minu": np.minimum, "minnumf": np.fmin,
    "ori": np.bitwise_or, "andi": np.bitwise_and,
}  # fmt: skip


def _c_atomic_rmw(m: Machine, op: Operation):
    sval, sv = _slot(m, op.operands[0]), _slot(m, op.operands[1])
    sidx = [_slot(m, v) for v in op.operands[2:]]
    r = _slot(m, op.results[0])
    k = m.index_of(op)
    ufunc = _ATOMIC_UFUNCS.get(atomic_kind(op))
    memo: list = [None, (), None]

    def run(fr: Frame, chunked: bool) -> None:
        value = m.arr(fr, sval)
        view = m.get(fr, sv)
        idx = [m.arr(fr, s) for s in sidx]
        flat = m.flat_index(view, idx, op, memo)
        if flat.__class__ is not np.ndarray:
            flat = np.full(fr.n, flat, dtype=np.int64)
        m.access(view, flat, fr, k, ATOMIC)
        data = view.buffer.data
        vals = _expand(value, fr.n).astype(data.dtype, copy=False)
        old = data[flat]
        if ufunc is None:
            data[flat] = vals
        else:
            ufunc.at(data, flat, vals)
        fr.env[r] = old

    return run


def _c_aligned_pointer(m: Machine, op: Operation):
    # The base is address 0 of the buffer: an address built on it is then
    # the byte offset of an element, which `llvm.atomicrmw` maps back.
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = np.int64(0)

    return run


def _c_inttoptr(m: Machine, op: Operation):
    sa, r = _slot(m, op.operands[0]), _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = m.arr(fr, sa)

    return run


_LLVM_ATOMIC_UFUNCS = {11: np.add, 13: np.fmax, 14: np.fmin}
"""`llvm.atomicrmw` float ops by `LLVM::AtomicBinOp` (fadd, fmax, fmin)."""


def _c_llvm_atomicrmw(m: Machine, op: Operation):
    """Like `memref.atomic_rmw` on the element the pointer addresses."""
    ref = pointer_memref(op)
    if ref is None:
        raise SimulationError("the pointer is not a memref's aligned base plus an offset", op)
    sp, sval, sv = _slot(m, op.operands[0]), _slot(m, op.operands[1]), _slot(m, ref)
    r = _slot(m, op.results[0])
    k = m.index_of(op)
    width = ref.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    bin_op = int(op_property(op, "bin_op").value.data)  # type: ignore[union-attr]
    ufunc = _LLVM_ATOMIC_UFUNCS.get(bin_op)
    if ufunc is None:
        raise SimulationError(f"the simulator does not run llvm.atomicrmw op {bin_op}", op)

    def run(fr: Frame, chunked: bool) -> None:
        view = m.get(fr, sv)
        flat = _expand(m.arr(fr, sp), fr.n).astype(np.int64) // width
        data = view.buffer.data
        if flat.min() < 0 or flat.max() >= data.size:
            raise SimulationError(f"address out of bounds of {view.buffer.name}", op)
        m.access(view, flat, fr, k, ATOMIC)
        vals = _expand(m.arr(fr, sval), fr.n).astype(data.dtype, copy=False)
        old = data[flat]
        ufunc.at(data, flat, vals)
        fr.env[r] = old

    return run


def _c_alloc(m: Machine, op: Operation):
    key = id(op)
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        if key not in m.allocs:
            if op.operands:
                raise SimulationError("dynamically sized allocations are not supported", op)
            name = op.results[0].name_hint
            label = f"%{name}" if name else f"%alloc{len(m.allocs)}"
            view = m.new_buffer(label, op.results[0].type)  # type: ignore[arg-type]
            view.buffer.logged = view.buffer.logged and may_write(op.results[0])
            m.allocs[key] = view
        fr.env[r] = _gather(m.allocs[key], fr.lanes)

    return run


def _c_subview(m: Machine, op: Operation):
    ss = _slot(m, op.operands[0])
    dyn_slots = [_slot(m, v) for v in op.operands[1:]]
    n_off = len(op.offsets)  # type: ignore[attr-defined]
    n_size = len(op.sizes)  # type: ignore[attr-defined]
    s_offsets = op_property(op, "static_offsets")
    s_sizes = op_property(op, "static_sizes")
    s_strides = op_property(op, "static_strides")
    result_shape = tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        src: View = m.get(fr, ss)
        dyn = [m.arr(fr, s) for s in dyn_slots]
        offsets = _static_values(s_offsets, dyn[:n_off])  # type: ignore[arg-type]
        sizes = _static_values(s_sizes, dyn[n_off : n_off + n_size])  # type: ignore[arg-type]
        strides = _static_values(s_strides, dyn[n_off + n_size :])  # type: ignore[arg-type]
        if any(not isinstance(s, int) for s in strides):
            raise SimulationError("subviews with dynamic strides are not supported", op)
        offset = src.offset
        for o, stride in zip(offsets, src.strides):
            offset = offset + np.asarray(o, dtype=np.int64) * stride
        offset = _lane_value(offset)
        # A dynamic size: the view takes the largest, and relies on the type; rank
        # reduction drops the unit dimensions the result type does not keep.
        full = [(s if isinstance(s, int) else -1) for s in sizes]
        new_strides = [src_s * int(s) for src_s, s in zip(src.strides, strides)]
        kept = list(range(len(full)))
        if len(result_shape) != len(full):
            # The unit dimensions dropped are matched greedily against the
            # result's shape, as MLIR infers them ([1, 37, 1] into 37x1
            # keeps the last two).
            kept, j = [], 0
            for i, s in enumerate(full):
                if j < len(result_shape) and s in (result_shape[j], -1):
                    kept.append(i)
                    j += 1
            if len(kept) != len(result_shape):
                raise SimulationError("this rank-reducing subview is not supported", op)
            full = [full[i] for i in kept]
            new_strides = [new_strides[i] for i in kept]
        shape = []
        for d, s in enumerate(full):
            if s < 0:
                sel = np.atleast_1d(np.asarray(sizes[kept[d]]))
                if sel.size == 0 or np.any(sel != sel[0]):
                    raise SimulationError(
                        "subviews whose size differs between threads are not supported", op
                    )
                s = int(sel[0])
            shape.append(s)
        view = View(src.buffer, offset, tuple(shape), tuple(new_strides))
        m.note_view(view, fr)
        fr.env[r] = view

    return run


def _c_passthrough(m: Machine, op: Operation):
    ss = _slot(m, op.operands[0])
    r = _slot(m, op.results[0]) if op.results else None
    t = op.results[0].type if op.results else None
    shape = tuple(t.get_shape()) if isinstance(t, MemRefType) else None
    if shape is not None and any(d < 0 for d in shape):
        shape = None  # a dynamic result keeps the source's shape

    def run(fr: Frame, chunked: bool) -> None:
        src = m.get(fr, ss)
        if r is None:
            return
        if src.__class__ is View and shape is not None:
            src = View(src.buffer, src.offset, shape, src.strides)
            m.note_view(src, fr)
        fr.env[r] = src

    return run


def _c_nothing(m: Machine, op: Operation):
    def run(fr: Frame, chunked: bool) -> None:
        return

    return run


def _c_dim(m: Machine, op: Operation):
    sv, sd, r = _slot(m, op.operands[0]), _slot(m, op.operands[1]), _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        view: View = m.get(fr, sv)
        d = np.atleast_1d(m.arr(fr, sd))
        fr.env[r] = np.int64(view.shape[int(d[0])])

    return run


def _linalg_slots(m: Machine, op: Operation) -> tuple[list[int], list[int]]:
    ins = [_slot(m, v) for v in op.inputs]  # type: ignore[attr-defined]
    outs = [_slot(m, v) for v in op.outputs]  # type: ignore[attr-defined]
    return ins, outs


def _linalg_views(m: Machine, op: Operation, fr: Frame, ins, outs) -> tuple[list, list[View]]:
    i = [m.get(fr, s) for s in ins]
    o = [m.get(fr, s) for s in outs]
    if not all(v.__class__ is View for v in o):
        raise SimulationError(f"the simulator runs '{op.name}' on memrefs only", op)
    return i, o


def _c_copy(m: Machine, op: Operation):
    ssrc, sdst = _slot(m, op.operands[0]), _slot(m, op.operands[1])
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        src: View = m.get(fr, ssrc)
        dst: View = m.get(fr, sdst)
        m.write_box(dst, m.read_box(src, fr, k), fr, k)

    return run


def _c_linalg_copy(m: Machine, op: Operation):
    ins, outs = _linalg_slots(m, op)
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        i, o = _linalg_views(m, op, fr, ins, outs)
        m.write_box(o[0], m.read_box(i[0], fr, k), fr, k)

    return run


def _c_fill(m: Machine, op: Operation):
    ins, outs = _linalg_slots(m, op)
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        i, o = _linalg_views(m, op, fr, ins, outs)
        out = o[0]
        value = _expand(i[0], fr.n)
        shape = (fr.n, *out.shape)
        per_lane = value.reshape((-1,) + (1,) * len(out.shape))
        m.write_box(out, np.broadcast_to(per_lane, shape), fr, k)

    return run


def _c_matmul(m: Machine, op: Operation):
    ins, outs = _linalg_slots(m, op)
    k = m.index_of(op)

    def run(fr: Frame, chunked: bool) -> None:
        i, o = _linalg_views(m, op, fr, ins, outs)
        a = m.read_box(i[0], fr, k)
        b = m.read_box(i[1], fr, k)
        c = m.read_box(o[0], fr, k)
        # In f64, so that the order of the sum does not matter at f32 precision.
        product = np.einsum("lmk,lkn->lmn", a.astype(np.float64), b.astype(np.float64))
        m.write_box(o[0], c.astype(np.float64) + product, fr, k)

    return run


def _loop(m: Machine, fr: Frame, chunked: bool, body: Block, lb, ub, step, carried: list) -> list:
    """Runs a loop's body from `lb` while below `ub`; returns the carried values.

    Uniform bounds: the iterations run in `fr`, the induction variable a
    scalar. Otherwise each lane runs its own trip count; while some lanes are
    done, the others run in a child frame."""
    p = m.plan(body)
    args = [m.slots[a] for a in body.args]
    iv_slot, carried_slots = args[0], args[1:]
    if not any(x.__class__ is np.ndarray for x in (lb, ub, step)):
        i, end, by = int(lb), int(ub), int(step)
        env = fr.env
        fns = p.fns
        yields = p.yields
        while i < end:
            env[iv_slot] = np.int64(i)
            for s, c in zip(carried_slots, carried):
                env[s] = c
            if chunked:
                for f in fns:
                    f(fr, True)
                carried = [env[s] if env[s] is not None else m.pull(fr, s) for s in yields]
            else:
                carried = m.exec_block(body, fr, False)
            i += by
        return carried
    n = fr.n
    iv = np.array(np.broadcast_to(lb, (n,)), dtype=np.int64)
    active = iv < ub
    count = n
    sub: Frame | None = None
    sel = None
    while active.any():
        live = int(active.sum())
        if live == n:
            fr.env[iv_slot] = iv
            for s, c in zip(carried_slots, carried):
                fr.env[s] = c
            carried = m.exec_block(body, fr, chunked)
        else:
            if sub is None or live != count:
                sel = np.nonzero(active)[0]
                sub = fr.child(sel)
                count = live
            sub.env[iv_slot] = iv[sel]
            for s, c in zip(carried_slots, carried):
                sub.env[s] = _gather(c, sel)
            yielded = m.exec_block(body, sub, chunked)
            carried = [_scatter(c, y, sel, n) for c, y in zip(carried, yielded)]
        iv = np.where(active, iv + step, iv)
        active = active & (iv < ub)
    return carried


def _scatter(old, new, sel: np.ndarray, n: int):
    """`old` with the lanes `sel` replaced by `new` (a child frame's value)."""
    if new.__class__ is View:
        offset = _expand(old.offset, n).copy() if old.__class__ is View else np.zeros(n, np.int64)
        offset[sel] = new.offset
        return View(new.buffer, offset, new.shape, new.strides)
    if old.__class__ is View:
        return new
    out = np.array(np.broadcast_to(old, (n,)), dtype=np.result_type(new, old))
    out[sel] = new
    return out


def _c_scf_for(m: Machine, op: Operation):
    sl, su, ss = (_slot(m, v) for v in op.operands[:3])
    carried_slots = [_slot(m, v) for v in op.operands[3:]]
    results = [_slot(m, r) for r in op.results]
    body = op.regions[0].blocks[0]

    def run(fr: Frame, chunked: bool) -> None:
        lb, ub, step = m.arr(fr, sl), m.arr(fr, su), m.arr(fr, ss)
        carried = [m.get(fr, s) for s in carried_slots]
        carried = _loop(m, fr, chunked, body, lb, ub, step, carried)
        for r, value in zip(results, carried):
            fr.env[r] = value

    return run


def _c_affine_for(m: Machine, op: Operation):
    lbm, ubm = op_property(op, "lowerBoundMap").data, op_property(op, "upperBoundMap").data  # type: ignore[union-attr]
    n_lb = lbm.num_dims + lbm.num_symbols
    n_ub = ubm.num_dims + ubm.num_symbols
    lbf, ubf = _compile_map(lbm), _compile_map(ubm)
    step = np.int64(int(op_property(op, "step").value.data))  # type: ignore[union-attr]
    bound_slots = [_slot(m, v) for v in op.operands[: n_lb + n_ub]]
    carried_slots = [_slot(m, v) for v in op.operands[n_lb + n_ub :]]
    results = [_slot(m, r) for r in op.results]
    body = op.regions[0].blocks[0]

    def run(fr: Frame, chunked: bool) -> None:
        vals = [m.arr(fr, s) for s in bound_slots]
        lb = _lane_value(np.max(np.broadcast_arrays(*lbf(vals[:n_lb])), axis=0))
        ub = _lane_value(np.min(np.broadcast_arrays(*ubf(vals[n_lb:])), axis=0))
        carried = [m.get(fr, s) for s in carried_slots]
        carried = _loop(m, fr, chunked, body, lb, ub, step, carried)
        for r, value in zip(results, carried):
            fr.env[r] = value

    return run


def _c_scf_if(m: Machine, op: Operation):
    sc = _slot(m, op.operands[0])
    then_block = op.regions[0].blocks[0]
    else_block = op.regions[1].blocks[0] if len(op.regions) > 1 and op.regions[1].blocks else None
    results = [_slot(m, r) for r in op.results]

    def run(fr: Frame, chunked: bool) -> None:
        cond = m.arr(fr, sc)
        if cond.__class__ is np.ndarray:
            c = cond.astype(bool)
            taken = c.sum()
            if taken == fr.n:
                cond = True
            elif taken == 0:
                cond = False
            else:
                _split_if(m, fr, chunked, c, then_block, else_block, results)
                return
        if cond:
            vals = m.exec_block(then_block, fr, chunked)
        elif else_block is not None:
            vals = m.exec_block(else_block, fr, chunked)
        else:
            return
        for r, v in zip(results, vals):
            fr.env[r] = v

    return run


def _split_if(m: Machine, fr: Frame, chunked: bool, c, then_block, else_block, results) -> None:
    t_sel = np.nonzero(c)[0]
    e_sel = np.nonzero(~c)[0]
    then_vals = m.exec_block(then_block, fr.child(t_sel), chunked)
    if else_block is None:
        return
    else_vals = m.exec_block(else_block, fr.child(e_sel), chunked)
    for r, t, e in zip(results, then_vals, else_vals):
        if t.__class__ is View or e.__class__ is View:
            fr.env[r] = _assemble([(e_sel, e), (t_sel, t)], fr.n)
        else:
            fr.env[r] = _assemble([(t_sel, t), (e_sel, e)], fr.n, np.result_type(t, e))


def _c_forall(m: Machine, op: Operation):
    """Sequential semantics: the iterations one after the other, in order."""
    n = len(op_property(op, "staticLowerBound").get_values())  # type: ignore[union-attr]
    dyn_slots = [_slot(m, v) for v in op.operands]
    nl = len(op.dynamicLowerBound)  # type: ignore[attr-defined]
    nu = len(op.dynamicUpperBound)  # type: ignore[attr-defined]
    s_lb = op_property(op, "staticLowerBound")
    s_ub = op_property(op, "staticUpperBound")
    s_step = op_property(op, "staticStep")
    body = op.regions[0].blocks[0]
    args = [_slot(m, a) for a in body.args]

    def run(fr: Frame, chunked: bool) -> None:
        dyn = [m.arr(fr, s) for s in dyn_slots]
        lbs = _static_values(s_lb, dyn[:nl])  # type: ignore[arg-type]
        ubs = _static_values(s_ub, dyn[nl : nl + nu])  # type: ignore[arg-type]
        steps = _static_values(s_step, dyn[nl + nu :])  # type: ignore[arg-type]

        def uniform(x) -> int:
            if isinstance(x, int):
                return x
            sel = np.atleast_1d(x)
            if sel.size == 0 or np.any(sel != sel[0]):
                raise SimulationError(
                    "scf.forall bounds that differ between lanes are not supported", op
                )
            return int(sel[0])

        ranges = [range(uniform(lbs[i]), uniform(ubs[i]), uniform(steps[i])) for i in range(n)]
        for point in itertools.product(*ranges):
            for s, value in zip(args, point):
                fr.env[s] = np.int64(value)
            m.exec_block(body, fr, chunked)

    return run


def _c_shuffle(m: Machine, op: Operation):
    sv, so, sw = (_slot(m, v) for v in op.operands[:3])
    mode = str(op_property(op, "mode"))
    results = [_slot(m, r) for r in op.results]
    launch = m.launch

    def run(fr: Frame, chunked: bool) -> None:
        value, offset, width = m.arr(fr, sv), m.arr(fr, so), m.arr(fr, sw)
        lane = launch.thread_of_lane[fr.lanes]
        base = launch.block_of_lane[fr.lanes] * launch.threads
        w = np.broadcast_to(width, lane.shape)
        seg_start = lane - lane % safe_divisor(w)
        within = lane % safe_divisor(w)
        if "xor" in mode:
            src = within ^ offset
        elif "down" in mode:
            src = within + offset
        elif "up" in mode:
            src = within - offset
        else:
            src = np.broadcast_to(offset, lane.shape)
        valid = (src >= 0) & (src < w)
        src_lane = base + seg_start + np.where(valid, src, within)
        # Control flow around a synchronizing op is uniform in each workgroup
        # (`_check_uniform`), so this frame holds whole workgroups and the
        # source lane, in the same workgroup, is in it.
        full = _expand(value, fr.n)
        result = full[m.position(fr)[src_lane]]
        fr.env[results[0]] = np.where(valid, result, full)
        if len(results) > 1:
            fr.env[results[1]] = valid

    return run


def _c_subgroup_reduce(m: Machine, op: Operation):
    sv, r = _slot(m, op.operands[0]), _slot(m, op.results[0])
    text = str(op_property(op, "op"))
    kinds = (
        "add", "mul", "minsi", "minui", "minimumf", "minnumf", "maxsi", "maxui", "maximumf",
        "maxnumf", "and", "or", "xor",
    )  # fmt: skip
    kind = next((k for k in kinds if re.search(rf"\b{k}\b", text)), None)
    ufunc = {
        "add": np.add, "mul": np.multiply, "minsi": np.minimum, "minui": np.minimum,
        "minimumf": np.minimum, "minnumf": np.fmin, "maxsi": np.maximum, "maxui": np.maximum,
        "maximumf": np.maximum, "maxnumf": np.fmax, "and": np.bitwise_and, "or": np.bitwise_or,
        "xor": np.bitwise_xor,
    }.get(kind or "")  # fmt: skip
    cluster = op_property(op, "cluster_size")
    launch = m.launch
    size = int(cluster.value.data) if isinstance(cluster, IntegerAttr) else launch.subgroup_size
    stride_attr = op_property(op, "cluster_stride")
    stride = int(stride_attr.value.data) if isinstance(stride_attr, IntegerAttr) else 1
    flat = launch.block_of_lane * launch.threads + launch.thread_of_lane
    # A cluster is `size` lanes `stride` apart: lanes i and j meet when they
    # share the span of size * stride lanes and their offset modulo stride.
    groups = (flat // (size * stride)) * stride + flat % stride
    ngroups = int(groups.max()) + 1 if launch.lanes else 0

    def run(fr: Frame, chunked: bool) -> None:
        value = _expand(m.arr(fr, sv), fr.n)
        if ufunc is None:
            raise SimulationError(f"unknown subgroup reduction {text}", op)
        group = groups[fr.lanes]
        if ufunc is np.add:
            acc = np.zeros(ngroups, dtype=value.dtype)
            np.add.at(acc, group, value)
        else:
            first = np.zeros(ngroups, dtype=value.dtype)
            first[group[::-1]] = value[::-1]
            acc = first.copy()
            ufunc.at(acc, group, value)
        fr.env[r] = acc[group]

    return run


def _c_hal_id(kind: str):
    def make(m: Machine, op: Operation):
        d = _dim_index(op)
        r = _slot(m, op.results[0])
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


def _c_subspan(m: Machine, op: Operation):
    key = id(op)
    r = _slot(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = _gather(m.bindings[key], fr.lanes)

    return run


def _c_unsupported_call(m: Machine, op: Operation):
    def run(fr: Frame, chunked: bool) -> None:
        raise SimulationError("the simulator does not run function calls", op)

    return run


_COMPILERS: dict[str, Callable[[Machine, Operation], Callable[[Frame, bool], None]]] = {
    "arith.constant": _c_constant,
    "arith.cmpi": _c_cmpi,
    "arith.cmpf": _c_cmpf,
    "arith.select": _c_select,
    "affine.apply": _c_affine_apply,
    "affine.min": _c_affine_minmax(np.min),
    "affine.max": _c_affine_minmax(np.max),
    "gpu.thread_id": _c_id_op("thread"),
    "gpu.block_id": _c_id_op("block"),
    "gpu.block_dim": _c_id_op("block_dim"),
    "gpu.grid_dim": _c_id_op("grid_dim"),
    "gpu.lane_id": _c_lanes(lambda launch: launch.thread_of_lane % launch.subgroup_size),
    "gpu.subgroup_id": _c_lanes(lambda launch: launch.thread_of_lane // launch.subgroup_size),
    "gpu.subgroup_size": _c_subgroup_size,
    "gpu.shuffle": _c_shuffle,
    "gpu.subgroup_reduce": _c_subgroup_reduce,
    "amdgpu.mfma": _c_mfma,
    "amdgpu.gather_to_lds": _c_gather_to_lds,
    "hal.interface.workgroup.id": _c_hal_id("id"),
    "hal.interface.workgroup.count": _c_hal_id("count"),
    "memref.load": _c_load,
    "memref.store": _c_store,
    "affine.load": lambda m, op: _c_load(m, op, affine=True),
    "affine.store": lambda m, op: _c_store(m, op, affine=True),
    "memref.atomic_rmw": _c_atomic_rmw,
    "llvm.atomicrmw": _c_llvm_atomicrmw,
    "llvm.inttoptr": _c_inttoptr,
    "memref.extract_aligned_pointer_as_index": _c_aligned_pointer,
    "vector.load": _c_vector_load,
    "vector.extract": _c_vector_extract,
    "vector.broadcast": _c_vector_broadcast,
    "vector.store": _c_vector_store,
    "vector.from_elements": _c_vector_from_elements,
    "nvgpu.mma.sync": _c_mma_sync,
    "nvgpu.ldmatrix": _c_ldmatrix,
    "nvgpu.device_async_copy": _c_async_copy,
    "nvgpu.device_async_create_group": _c_async_group,
    "nvgpu.device_async_wait": _c_async_wait,
    "memref.alloc": _c_alloc,
    "memref.alloca": _c_alloc,
    "memref.subview": _c_subview,
    "memref.cast": _c_passthrough,
    "memref.assume_alignment": _c_passthrough,
    "memref.dealloc": _c_nothing,
    "memref.dim": _c_dim,
    "memref.copy": _c_copy,
    "linalg.copy": _c_linalg_copy,
    "linalg.fill": _c_fill,
    "linalg.matmul": _c_matmul,
    "scf.for": _c_scf_for,
    "affine.for": _c_affine_for,
    "scf.if": _c_scf_if,
    "scf.forall": _c_forall,
    "func.call": _c_unsupported_call,
    "hal.interface.binding.subspan": _c_subspan,
}


def _compile(m: Machine, op: Operation) -> Callable[[Frame, bool], None]:
    name = op.name
    maker = _COMPILERS.get(name)
    if maker is not None:
        return maker(m, op)
    if name in BINARY:
        return _c_binary(m, op)
    if name in UNARY:
        return _c_unary(m, op)
    if name in CASTS:
        return _c_cast(m, op)
    raise SimulationError(f"the simulator does not run '{name}'", op)


def describe_op(op: Operation) -> str:
    return f"{location_of(op) or '<unknown>'} ({op.name})"
