"""An SPMD machine that runs a GPU kernel's threads as numpy lanes.

Every thread of every workgroup is one lane. An op is evaluated for all lanes
at once, under a mask of the lanes that reach it: divergent `scf.if` runs
both branches under complementary masks, and a loop whose bounds differ by
thread runs until no lane is left in it. Between synchronization points
(`gpu.barrier`, and the subgroup ops that exchange values) the lanes run in
*chunks*, one after the other, in the order the schedule gives: that is how
the simulator plays threads against each other, the way a real GPU may.

Every memory access is logged (element, lane, op, read/write/atomic, barrier
epoch) for `races.find_races`. The machine is also the sequential reference:
a program with `scf.forall` loops and no GPU ids runs as one lane, each
forall as a sequential loop nest.
"""

from __future__ import annotations

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

from xsplit.analysis.writes import kernel_buffers
from xsplit.diagnostics import XsplitError, location_of
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

SYNC_OPS = frozenset({"gpu.barrier", "gpu.shuffle", "gpu.subgroup_reduce"})
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


@dataclass
class Buffer:
    """One allocation: an argument, or a `memref.alloc` (one copy per
    workgroup in workgroup memory, one per lane in private memory)."""

    name: str
    shape: tuple[int, ...]
    data: np.ndarray
    space: str
    ident: int

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def element(self, flat: int) -> str:
        flat %= max(self.numel, 1)
        index = np.unravel_index(flat, self.shape) if self.shape else ()
        return f"{self.name}[{', '.join(str(int(i)) for i in index)}]"


@dataclass
class View:
    """A memref value: a buffer, a per-lane offset and the view's shape/strides."""

    buffer: Buffer
    offset: np.ndarray
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    def merged(self, other: View, mask: np.ndarray) -> View:
        if other.buffer is not self.buffer:
            return self
        offset = np.where(mask, self.offset, other.offset)
        return View(self.buffer, offset, self.shape, self.strides)


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


def eval_affine(expr: AffineExpr, dims: Sequence[np.ndarray], syms: Sequence[np.ndarray]):
    if isinstance(expr, AffineConstantExpr):
        return np.int64(expr.value)
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    assert isinstance(expr, AffineBinaryOpExpr)
    a = eval_affine(expr.lhs, dims, syms)
    b = eval_affine(expr.rhs, dims, syms)
    kind = expr.kind
    if kind == AffineBinaryOpKind.Add:
        return a + b
    if kind == AffineBinaryOpKind.Mul:
        return a * b
    if kind == AffineBinaryOpKind.FloorDiv:
        return a // safe_divisor(np.asarray(b))
    if kind == AffineBinaryOpKind.CeilDiv:
        return -((-a) // safe_divisor(np.asarray(b)))
    return a % safe_divisor(np.asarray(b))


def eval_map(m: AffineMap, operands: Sequence[np.ndarray]) -> list[np.ndarray]:
    dims, syms = operands[: m.num_dims], operands[m.num_dims :]
    return [np.asarray(eval_affine(e, dims, syms), dtype=np.int64) for e in m.results]


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


class Machine:
    """Runs one function on a launch, with a schedule; logs every access."""

    def __init__(self, launch: Launch, schedule: Schedule = lockstep, log: bool = True):
        self.launch = launch
        self.schedule = schedule
        self.log = AccessLog() if log else None
        self.env: dict[SSAValue, object] = {}
        self.epoch = 0
        self.buffers: list[Buffer] = []
        self.allocs: dict[int, View] = {}
        self.ops: list[Operation] = []
        self.op_index: dict[int, int] = {}
        self._sync_cache: dict[int, bool] = {}
        self.bindings: dict[int, View] = {}

    # -- set-up --------------------------------------------------------------

    def new_buffer(self, name: str, t: MemRefType, data: np.ndarray | None = None) -> View:
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
        self.buffers.append(buf)
        if space == "workgroup":
            offset = self.launch.block_of_lane * numel
        elif space == "private":
            offset = np.arange(self.launch.lanes, dtype=np.int64) * numel
        else:
            offset = np.zeros(self.launch.lanes, dtype=np.int64)
        return View(buf, offset, shape, memref_strides(t))

    def run(self, func: Operation, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Runs `func` on copies of `args`; returns the arguments' final contents."""
        body = func.regions[0].blocks[0]
        for op in func.walk():  # op indices in program order
            self.index_of(op)

        views = []
        for i, ((name, t, holder), value) in enumerate(zip(kernel_buffers(func), args)):
            if not isinstance(t, MemRefType):
                raise SimulationError(
                    f"argument {i} has type {t}; the simulator runs kernels on memrefs", func
                )
            view = self.new_buffer(name, t, value)
            if isinstance(holder, Operation):
                self.bindings[id(holder)] = view
            else:
                self.env[holder] = view  # type: ignore[index]
            views.append(view)
        mask = np.ones(self.launch.lanes, dtype=bool)
        with np.errstate(all="ignore"):
            self.exec_block(body, mask, chunked=False)
        return [v.buffer.data.reshape(v.buffer.shape).copy() for v in views]

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

    def exec_block(self, block: Block, mask: np.ndarray, chunked: bool) -> list[object]:
        """Runs a block's ops; returns what its terminator yields."""
        segment: list[Operation] = []
        ops = list(block.ops)
        terminator = ops[-1] if ops and ops[-1].name in _TERMINATORS else None
        if terminator is not None:
            ops = ops[:-1]
        for op in ops:
            if not chunked and self.contains_sync(op):
                self._run_segment(segment, mask)
                segment = []
                self.exec_sync(op, mask)
            else:
                segment.append(op)
        if chunked:
            for op in segment:
                self.exec_op(op, mask, chunked=True)
        else:
            self._run_segment(segment, mask)
        if terminator is None:
            return []
        return [self.env[v] for v in terminator.operands]

    def _run_segment(self, segment: list[Operation], mask: np.ndarray) -> None:
        if not segment or not mask.any():
            return
        for chunk in self.schedule(mask):
            for op in segment:
                self.exec_op(op, chunk, chunked=True)

    def exec_sync(self, op: Operation, mask: np.ndarray) -> None:
        """An op at or around a synchronization point: all lanes together."""
        if op.name == "gpu.barrier":
            self._check_converged(op, mask)
            self.epoch += 1
            return
        if op.name in ("gpu.shuffle", "gpu.subgroup_reduce"):
            self.exec_op(op, mask, chunked=False)
            return
        if op.name in ("scf.for", "scf.if", "affine.for"):
            self._check_uniform(op, mask)
        self.exec_op(op, mask, chunked=False)

    def _check_converged(self, op: Operation, mask: np.ndarray) -> None:
        per_block = np.bincount(self.launch.block_of_lane[mask], minlength=self.launch.blocks)
        if np.any((per_block > 0) & (per_block < self.launch.threads)):
            raise SimulationError(
                "gpu.barrier reached by only some threads of a workgroup (divergent barrier)", op
            )

    def _check_uniform(self, op: Operation, mask: np.ndarray) -> None:
        blocks = self.launch.block_of_lane
        # The bounds or the condition; loop-carried values may differ freely.
        controls = op.operands[:3] if op.name == "scf.for" else op.operands[:1]
        if op.name == "affine.for":
            lbm, ubm = op_property(op, "lowerBoundMap").data, op_property(op, "upperBoundMap").data  # type: ignore[union-attr]
            n = lbm.num_dims + lbm.num_symbols + ubm.num_dims + ubm.num_symbols
            controls = op.operands[:n]
        for v in controls:
            value = self.env.get(v)
            if not isinstance(value, np.ndarray) or value.ndim != 1:
                continue
            sel = value[mask]
            if sel.size and np.any(np.bincount(blocks[mask], minlength=1) > 0):
                first = np.full(self.launch.blocks, 0, dtype=value.dtype)
                first[blocks[mask][::-1]] = sel[::-1]
                if np.any(first[blocks[mask]] != sel):
                    raise SimulationError(
                        f"'{op.name}' around a barrier has bounds or a condition that differ "
                        "between threads of a workgroup (divergent barrier)",
                        op,
                    )

    # -- values --------------------------------------------------------------

    def get(self, v: SSAValue) -> object:
        try:
            return self.env[v]
        except KeyError:
            raise SimulationError("value used before the simulator defined it", v.owner) from None  # type: ignore[arg-type]

    def arr(self, v: SSAValue) -> np.ndarray:
        value = self.get(v)
        if isinstance(value, View):
            raise SimulationError("expected a scalar value, got a memref")
        return value  # type: ignore[return-value]

    def set(self, v: SSAValue, value: object, mask: np.ndarray) -> None:
        old = self.env.get(v)
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = np.full(self.launch.lanes, value, dtype=value.dtype)
        if isinstance(value, np.ndarray) and isinstance(old, np.ndarray) and not mask.all():
            value = np.where(mask, value, old).astype(value.dtype, copy=False)
        elif isinstance(value, View) and isinstance(old, View) and not mask.all():
            value = value.merged(old, mask)
        self.env[v] = value

    def full(self, x, dtype) -> np.ndarray:
        return np.full(self.launch.lanes, x, dtype=dtype)

    # -- ops -----------------------------------------------------------------

    def exec_op(self, op: Operation, mask: np.ndarray, chunked: bool) -> None:
        name = op.name
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, op, mask, chunked)
            return
        if name in BINARY:
            a, b = self.arr(op.operands[0]), self.arr(op.operands[1])
            r = BINARY[name](a, b)
            dtype = self._dtype(op.results[0])
            self.set(op.results[0], np.asarray(r).astype(dtype, copy=False), mask)
            return
        if name in UNARY:
            self.set(op.results[0], UNARY[name](self.arr(op.operands[0])), mask)
            return
        if name in CASTS:
            dtype = self._dtype(op.results[0])
            self.set(op.results[0], self.arr(op.operands[0]).astype(dtype), mask)
            return
        raise SimulationError(f"the simulator does not run '{name}'", op)

    def _dtype(self, v: SSAValue) -> np.dtype:
        return storage_dtype(v.type)

    # memory -----------------------------------------------------------------

    def flat_index(
        self, view: View, indices: Sequence[np.ndarray], op: Operation, mask: np.ndarray
    ) -> np.ndarray:
        flat = view.offset[mask].copy()
        for d, (i, size, stride) in enumerate(zip(indices, view.shape, view.strides)):
            idx = np.broadcast_to(i, mask.shape)[mask]
            if np.any((idx < 0) | (idx >= size)):
                bad = int(idx[(idx < 0) | (idx >= size)][0])
                raise SimulationError(
                    f"index {bad} out of bounds [0, {size}) in dimension {d} of {view.buffer.name}",
                    op,
                )
            flat += idx * stride
        return flat

    def access(self, view: View, flat: np.ndarray, mask: np.ndarray, op: Operation, kind: int):
        if self.log is not None and view.buffer.space != "private":
            lanes = np.nonzero(mask)[0]
            self.log.record(view.buffer, flat, lanes, self.index_of(op), kind, self.epoch)

    def load(self, view: View, indices, mask, op) -> np.ndarray:
        flat = self.flat_index(view, indices, op, mask)
        self.access(view, flat, mask, op, READ)
        out = np.zeros(self.launch.lanes, dtype=view.buffer.data.dtype)
        out[mask] = view.buffer.data[flat]
        return out

    def store(self, view: View, indices, value: np.ndarray, mask, op) -> None:
        flat = self.flat_index(view, indices, op, mask)
        self.access(view, flat, mask, op, WRITE)
        vals = np.broadcast_to(value, mask.shape)[mask]
        view.buffer.data[flat] = vals.astype(view.buffer.data.dtype, copy=False)

    def box(self, view: View, mask: np.ndarray) -> np.ndarray:
        """Flat addresses of every element of a view, per active lane: (lanes, *shape)."""
        offs = view.offset[mask]
        flat = offs.reshape((-1,) + (1,) * len(view.shape))
        for d, (size, stride) in enumerate(zip(view.shape, view.strides)):
            shape = [1] * (len(view.shape) + 1)
            shape[d + 1] = size
            flat = flat + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
        return flat

    def read_box(self, view: View, mask, op) -> np.ndarray:
        flat = self.box(view, mask)
        self._log_box(view, flat, mask, op, READ)
        return view.buffer.data[flat]

    def write_box(self, view: View, values: np.ndarray, mask, op) -> None:
        flat = self.box(view, mask)
        self._log_box(view, flat, mask, op, WRITE)
        view.buffer.data[flat] = values.astype(view.buffer.data.dtype, copy=False)

    def _log_box(self, view: View, flat: np.ndarray, mask, op, kind: int) -> None:
        if self.log is None or view.buffer.space == "private":
            return
        lanes = np.repeat(np.nonzero(mask)[0], flat[0].size if flat.shape[0] else 0)
        self.log.record(view.buffer, flat.reshape(-1), lanes, self.index_of(op), kind, self.epoch)


_TERMINATORS = frozenset(
    {"scf.yield", "func.return", "affine.yield", "scf.forall.in_parallel", "scf.reduce"}
)


def _constant(m: Machine, op: Operation, mask, chunked) -> None:
    value = op_property(op, "value")
    dtype = m._dtype(op.results[0])
    if isinstance(value, IntegerAttr):
        x = value.value.data
    elif isinstance(value, FloatAttr):
        x = value.value.data
    else:
        raise SimulationError("only scalar constants are supported by the simulator", op)
    m.set(op.results[0], m.full(x, dtype), mask)


def _cmpi(m: Machine, op, mask, chunked) -> None:
    pred = int(op_property(op, "predicate").value.data)  # type: ignore[union-attr]
    a, b = m.arr(op.operands[0]), m.arr(op.operands[1])
    if pred >= 6:  # unsigned: compare as unsigned 64-bit
        a, b = a.astype(np.uint64), b.astype(np.uint64)
    m.set(op.results[0], CMPI[pred](a, b), mask)


def _cmpf(m: Machine, op, mask, chunked) -> None:
    pred = int(op_property(op, "predicate").value.data)  # type: ignore[union-attr]
    a, b = m.arr(op.operands[0]), m.arr(op.operands[1])
    if pred == 0:
        r = np.zeros(a.shape, bool)
    elif pred == 15:
        r = np.ones(a.shape, bool)
    elif pred == 7:
        r = ~(np.isnan(a) | np.isnan(b))
    elif pred == 14:
        r = np.isnan(a) | np.isnan(b)
    else:
        r = CMPF[pred](a, b)
        nan = np.isnan(a) | np.isnan(b)
        r = (r | nan) if pred >= 8 else (r & ~nan)
    m.set(op.results[0], r, mask)


def _select(m: Machine, op, mask, chunked) -> None:
    c, a, b = (m.get(v) for v in op.operands)
    if isinstance(a, View):
        m.set(op.results[0], a, mask)  # only same-buffer selects reach here in practice
        return
    m.set(op.results[0], np.where(c, a, b), mask)  # type: ignore[arg-type]


def _affine_apply(m: Machine, op, mask, chunked) -> None:
    amap = op_property(op, "map").data  # type: ignore[union-attr]
    vals = [m.arr(v) for v in op.operands]
    m.set(op.results[0], eval_map(amap, vals)[0], mask)


def _affine_minmax(fn):
    def run(m: Machine, op, mask, chunked) -> None:
        amap = op_property(op, "map").data  # type: ignore[union-attr]
        vals = eval_map(amap, [m.arr(v) for v in op.operands])
        m.set(op.results[0], fn(np.broadcast_arrays(*vals), axis=0), mask)

    return run


def _id_op(kind: str):
    def run(m: Machine, op, mask, chunked) -> None:
        d = _dim_index(op)
        launch = m.launch
        value = {
            "thread": lambda: launch.tid[d],
            "block": lambda: launch.bid[d],
            "block_dim": lambda: m.full(launch.block[d], np.int64),
            "grid_dim": lambda: m.full(launch.grid[d], np.int64),
        }[kind]()
        m.set(op.results[0], np.asarray(value, dtype=np.int64), mask)

    return run


def _lane_id(m: Machine, op, mask, chunked) -> None:
    m.set(op.results[0], m.launch.thread_of_lane % m.launch.subgroup_size, mask)


def _subgroup_id(m: Machine, op, mask, chunked) -> None:
    m.set(op.results[0], m.launch.thread_of_lane // m.launch.subgroup_size, mask)


def _subgroup_size(m: Machine, op, mask, chunked) -> None:
    m.set(op.results[0], m.full(m.launch.subgroup_size, np.int64), mask)


def _memref_load(m: Machine, op, mask, chunked) -> None:
    view = m.get(op.operands[0])
    idx = [m.arr(v) for v in op.operands[1:]]
    m.set(op.results[0], m.load(view, idx, mask, op), mask)  # type: ignore[arg-type]


def _memref_store(m: Machine, op, mask, chunked) -> None:
    value = m.arr(op.operands[0])
    view = m.get(op.operands[1])
    idx = [m.arr(v) for v in op.operands[2:]]
    m.store(view, idx, value, mask, op)  # type: ignore[arg-type]


def _affine_load(m: Machine, op, mask, chunked) -> None:
    view = m.get(op.operands[0])
    idx = eval_map(op_property(op, "map").data, [m.arr(v) for v in op.operands[1:]])  # type: ignore[union-attr]
    m.set(op.results[0], m.load(view, idx, mask, op), mask)  # type: ignore[arg-type]


def _affine_store(m: Machine, op, mask, chunked) -> None:
    value = m.arr(op.operands[0])
    view = m.get(op.operands[1])
    idx = eval_map(op_property(op, "map").data, [m.arr(v) for v in op.operands[2:]])  # type: ignore[union-attr]
    m.store(view, idx, value, mask, op)  # type: ignore[arg-type]


def atomic_kind(op: Operation) -> str:
    kind = op_property(op, "kind")
    if isinstance(kind, IntegerAttr):
        return _ATOMIC_KINDS[int(kind.value.data)]
    text = str(kind)
    for k in sorted(_ATOMIC_KINDS, key=len, reverse=True):
        if re.search(rf"\b{k}\b", text):
            return k
    raise SimulationError(f"unknown atomic kind {text}", op)


def _atomic_rmw(m: Machine, op, mask, chunked) -> None:
    value = m.arr(op.operands[0])
    view: View = m.get(op.operands[1])  # type: ignore[assignment]
    idx = [m.arr(v) for v in op.operands[2:]]
    flat = m.flat_index(view, idx, op, mask)
    m.access(view, flat, mask, op, ATOMIC)
    data = view.buffer.data
    vals = value[mask].astype(data.dtype, copy=False)
    old = np.zeros(m.launch.lanes, dtype=data.dtype)
    old[mask] = data[flat]
    kind = atomic_kind(op)
    ufunc = {
        "addf": np.add, "addi": np.add, "mulf": np.multiply, "muli": np.multiply,
        "maximumf": np.maximum, "maxs": np.maximum, "maxu": np.maximum, "maxnumf": np.fmax,
        "minimumf": np.minimum, "mins": np.minimum, "minu": np.minimum, "minnumf": np.fmin,
        "ori": np.bitwise_or, "andi": np.bitwise_and,
    }.get(kind)  # fmt: skip
    if ufunc is None:
        data[flat] = vals
    else:
        ufunc.at(data, flat, vals)
    m.set(op.results[0], old, mask)


def _alloc(m: Machine, op, mask, chunked) -> None:
    key = id(op)
    if key not in m.allocs:
        if op.operands:
            raise SimulationError("dynamically sized allocations are not supported", op)
        name = op.results[0].name_hint
        label = f"%{name}" if name else f"%alloc{len(m.allocs)}"
        m.allocs[key] = m.new_buffer(label, op.results[0].type)
    m.set(op.results[0], m.allocs[key], mask)


def _subview(m: Machine, op, mask, chunked) -> None:
    src: View = m.get(op.operands[0])  # type: ignore[assignment]
    n_off = len(op.offsets)  # type: ignore[attr-defined]
    n_size = len(op.sizes)  # type: ignore[attr-defined]
    dyn = [m.arr(v) for v in op.operands[1:]]
    offsets = _static_values(op_property(op, "static_offsets"), dyn[:n_off])  # type: ignore[arg-type]
    sizes = _static_values(op_property(op, "static_sizes"), dyn[n_off : n_off + n_size])  # type: ignore[arg-type]
    strides = _static_values(op_property(op, "static_strides"), dyn[n_off + n_size :])  # type: ignore[arg-type]
    if any(isinstance(s, np.ndarray) for s in strides):
        raise SimulationError("subviews with dynamic strides are not supported", op)
    offset = src.offset.copy()
    for o, stride in zip(offsets, src.strides):
        offset = offset + np.asarray(o, dtype=np.int64) * stride
    result_shape = tuple(op.results[0].type.get_shape())
    # A dynamic size: the view takes the largest, and relies on the type; rank
    # reduction drops the unit dimensions the result type does not keep.
    full = [(s if isinstance(s, int) else -1) for s in sizes]
    new_strides = [src_s * int(s) for src_s, s in zip(src.strides, strides)]
    kept = list(range(len(full)))
    if len(result_shape) != len(full):
        kept = [i for i, s in enumerate(full) if s != 1]
        if len(kept) != len(result_shape):
            raise SimulationError("this rank-reducing subview is not supported", op)
        full = [full[i] for i in kept]
        new_strides = [new_strides[i] for i in kept]
    shape = []
    for d, s in enumerate(full):
        if s < 0:
            dyn_size = sizes[kept[d]]
            sel = np.asarray(dyn_size)[mask] if isinstance(dyn_size, np.ndarray) else None
            if sel is None or sel.size == 0 or np.any(sel != sel[0]):
                raise SimulationError(
                    "subviews whose size differs between threads are not supported", op
                )
            s = int(sel[0])
        shape.append(s)
    m.set(op.results[0], View(src.buffer, offset, tuple(shape), tuple(new_strides)), mask)


def _passthrough(m: Machine, op, mask, chunked) -> None:
    src = m.get(op.operands[0])
    if op.results:
        if isinstance(src, View):
            t = op.results[0].type
            if isinstance(t, MemRefType) and all(d >= 0 for d in t.get_shape()):
                src = View(src.buffer, src.offset, tuple(t.get_shape()), src.strides)
        m.set(op.results[0], src, mask)


def _nothing(m: Machine, op, mask, chunked) -> None:
    return


def _dim(m: Machine, op, mask, chunked) -> None:
    view: View = m.get(op.operands[0])  # type: ignore[assignment]
    d = m.arr(op.operands[1])
    sel = d[mask]
    m.set(op.results[0], m.full(view.shape[int(sel[0]) if sel.size else 0], np.int64), mask)


def _copy(m: Machine, op, mask, chunked) -> None:
    src: View = m.get(op.operands[0])  # type: ignore[assignment]
    dst: View = m.get(op.operands[1])  # type: ignore[assignment]
    if not mask.any():
        return
    m.write_box(dst, m.read_box(src, mask, op), mask, op)


def _linalg_views(m: Machine, op: Operation) -> tuple[list[object], list[View]]:
    ins = [m.get(v) for v in op.inputs]  # type: ignore[attr-defined]
    outs = [m.get(v) for v in op.outputs]  # type: ignore[attr-defined]
    if not all(isinstance(o, View) for o in outs):
        raise SimulationError(f"the simulator runs '{op.name}' on memrefs only", op)
    return ins, outs  # type: ignore[return-value]


def _fill(m: Machine, op, mask, chunked) -> None:
    if not mask.any():
        return
    ins, outs = _linalg_views(m, op)
    value = np.asarray(ins[0])[mask]
    out = outs[0]
    shape = (int(mask.sum()), *out.shape)
    m.write_box(out, np.broadcast_to(value.reshape((-1,) + (1,) * len(out.shape)), shape), mask, op)


def _matmul(m: Machine, op, mask, chunked) -> None:
    if not mask.any():
        return
    ins, outs = _linalg_views(m, op)
    a = m.read_box(ins[0], mask, op)  # type: ignore[arg-type]
    b = m.read_box(ins[1], mask, op)  # type: ignore[arg-type]
    c = m.read_box(outs[0], mask, op)
    # In f64, so that the order of the sum does not matter at f32 precision.
    product = np.einsum("lmk,lkn->lmn", a.astype(np.float64), b.astype(np.float64))
    acc = c.astype(np.float64) + product
    m.write_box(outs[0], acc, mask, op)


def _scf_for(m: Machine, op, mask, chunked) -> None:
    lb, ub, step = (m.arr(v) for v in op.operands[:3])
    carried = [m.get(v) for v in op.operands[3:]]
    body = op.regions[0].blocks[0]
    iv = np.broadcast_to(lb, mask.shape).astype(np.int64).copy()
    active = mask & (iv < ub)
    while active.any():
        m.set(body.args[0], iv, active)
        for arg, value in zip(body.args[1:], carried):
            m.set(arg, value, active)
        yielded = m.exec_block(body, active, chunked)
        carried = [
            np.where(active, y, c) if isinstance(y, np.ndarray) else y  # type: ignore[arg-type]
            for y, c in zip(yielded, carried)
        ]
        iv = np.where(active, iv + step, iv)
        active = active & (iv < ub)
    for r, value in zip(op.results, carried):
        m.set(r, value, mask)


def _affine_for(m: Machine, op, mask, chunked) -> None:
    lbm, ubm = op_property(op, "lowerBoundMap").data, op_property(op, "upperBoundMap").data  # type: ignore[union-attr]
    n_lb = lbm.num_dims + lbm.num_symbols
    n_ub = ubm.num_dims + ubm.num_symbols
    vals = [m.arr(v) for v in op.operands[: n_lb + n_ub]]
    lb = np.max(np.broadcast_arrays(*eval_map(lbm, vals[:n_lb])), axis=0)
    ub = np.min(np.broadcast_arrays(*eval_map(ubm, vals[n_lb:])), axis=0)
    step = int(op_property(op, "step").value.data)  # type: ignore[union-attr]
    carried = [m.get(v) for v in op.operands[n_lb + n_ub :]]
    body = op.regions[0].blocks[0]
    iv = np.broadcast_to(lb, mask.shape).astype(np.int64).copy()
    active = mask & (iv < ub)
    while active.any():
        m.set(body.args[0], iv, active)
        for arg, value in zip(body.args[1:], carried):
            m.set(arg, value, active)
        yielded = m.exec_block(body, active, chunked)
        carried = [np.where(active, y, c) for y, c in zip(yielded, carried)]  # type: ignore[arg-type]
        iv = np.where(active, iv + step, iv)
        active = active & (iv < ub)
    for r, value in zip(op.results, carried):
        m.set(r, value, mask)


def _scf_if(m: Machine, op, mask, chunked) -> None:
    cond = m.arr(op.operands[0]).astype(bool)
    then_mask = mask & cond
    else_mask = mask & ~cond
    then_vals = None
    if then_mask.any():
        then_vals = m.exec_block(op.regions[0].blocks[0], then_mask, chunked)
    else_vals = None
    if len(op.regions) > 1 and op.regions[1].blocks and else_mask.any():
        else_vals = m.exec_block(op.regions[1].blocks[0], else_mask, chunked)
    for i, r in enumerate(op.results):
        t = then_vals[i] if then_vals is not None else None
        e = else_vals[i] if else_vals is not None else None
        if t is None and e is None:
            continue
        if t is None or e is None:
            m.set(r, t if t is not None else e, mask)
        elif isinstance(t, View):
            m.set(r, t.merged(e, cond), mask)  # type: ignore[arg-type]
        else:
            m.set(r, np.where(cond, t, e), mask)  # type: ignore[arg-type]


def _forall(m: Machine, op, mask, chunked) -> None:
    """Sequential semantics: the iterations one after the other, in order."""
    n = len(op_property(op, "staticLowerBound").get_values())  # type: ignore[union-attr]
    dyn = [m.arr(v) for v in op.operands]
    nl = len(op.dynamicLowerBound)  # type: ignore[attr-defined]
    nu = len(op.dynamicUpperBound)  # type: ignore[attr-defined]
    lbs = _static_values(op_property(op, "staticLowerBound"), dyn[:nl])  # type: ignore[arg-type]
    ubs = _static_values(op_property(op, "staticUpperBound"), dyn[nl : nl + nu])  # type: ignore[arg-type]
    steps = _static_values(op_property(op, "staticStep"), dyn[nl + nu :])  # type: ignore[arg-type]

    def uniform(x) -> int:
        if isinstance(x, int):
            return x
        sel = x[mask]
        if sel.size == 0 or np.any(sel != sel[0]):
            raise SimulationError(
                "scf.forall bounds that differ between lanes are not supported", op
            )
        return int(sel[0])

    ranges = [range(uniform(lbs[i]), uniform(ubs[i]), uniform(steps[i])) for i in range(n)]
    body = op.regions[0].blocks[0]
    import itertools

    for point in itertools.product(*ranges):
        for arg, value in zip(body.args, point):
            m.set(arg, m.full(value, np.int64), mask)
        m.exec_block(body, mask, chunked)


def _shuffle(m: Machine, op, mask, chunked) -> None:
    value, offset, width = (m.arr(v) for v in op.operands[:3])
    mode = str(op_property(op, "mode"))
    lane = m.launch.thread_of_lane
    base = m.launch.block_of_lane * m.launch.threads
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
    result = value[src_lane]
    m.set(op.results[0], np.where(valid, result, value), mask)
    if len(op.results) > 1:
        m.set(op.results[1], valid, mask)


def _subgroup_reduce(m: Machine, op, mask, chunked) -> None:
    value = m.arr(op.operands[0])
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
    if ufunc is None:
        raise SimulationError(f"unknown subgroup reduction {text}", op)
    cluster = op_property(op, "cluster_size")
    size = int(cluster.value.data) if isinstance(cluster, IntegerAttr) else m.launch.subgroup_size
    lanes = m.launch.lanes
    group = (m.launch.block_of_lane * m.launch.threads + m.launch.thread_of_lane) // size
    ngroups = int(group.max()) + 1 if lanes else 0
    acc = np.zeros(ngroups, dtype=value.dtype) if ufunc is np.add else None
    if ufunc is np.add:
        np.add.at(acc, group[mask], value[mask])  # type: ignore[arg-type]
    else:
        first = np.zeros(ngroups, dtype=value.dtype)
        first[group[mask][::-1]] = value[mask][::-1]
        acc = first.copy()
        ufunc.at(acc, group[mask], value[mask])
    m.set(op.results[0], acc[group], mask)  # type: ignore[index]


def _hal_id(kind: str):
    def run(m: Machine, op, mask, chunked) -> None:
        d = _dim_index(op)
        value = m.launch.bid[d] if kind == "id" else m.full(m.launch.grid[d], np.int64)
        m.set(op.results[0], np.asarray(value, dtype=np.int64), mask)

    return run


def _subspan(m: Machine, op, mask, chunked) -> None:
    m.set(op.results[0], m.bindings[id(op)], mask)


def _unsupported_call(m: Machine, op, mask, chunked) -> None:
    raise SimulationError("the simulator does not run function calls", op)


_HANDLERS: dict[str, Callable[[Machine, Operation, np.ndarray, bool], None]] = {
    "arith.constant": _constant,
    "arith.cmpi": _cmpi,
    "arith.cmpf": _cmpf,
    "arith.select": _select,
    "affine.apply": _affine_apply,
    "affine.min": _affine_minmax(np.min),
    "affine.max": _affine_minmax(np.max),
    "gpu.thread_id": _id_op("thread"),
    "gpu.block_id": _id_op("block"),
    "gpu.block_dim": _id_op("block_dim"),
    "gpu.grid_dim": _id_op("grid_dim"),
    "gpu.lane_id": _lane_id,
    "gpu.subgroup_id": _subgroup_id,
    "gpu.subgroup_size": _subgroup_size,
    "gpu.shuffle": _shuffle,
    "gpu.subgroup_reduce": _subgroup_reduce,
    "hal.interface.workgroup.id": _hal_id("id"),
    "hal.interface.workgroup.count": _hal_id("count"),
    "memref.load": _memref_load,
    "memref.store": _memref_store,
    "affine.load": _affine_load,
    "affine.store": _affine_store,
    "memref.atomic_rmw": _atomic_rmw,
    "memref.alloc": _alloc,
    "memref.alloca": _alloc,
    "memref.subview": _subview,
    "memref.cast": _passthrough,
    "memref.assume_alignment": _passthrough,
    "memref.dealloc": _nothing,
    "memref.dim": _dim,
    "memref.copy": _copy,
    "linalg.copy": lambda m, op, mask, c: _copy_linalg(m, op, mask),
    "linalg.fill": _fill,
    "linalg.matmul": _matmul,
    "scf.for": _scf_for,
    "affine.for": _affine_for,
    "scf.if": _scf_if,
    "scf.forall": _forall,
    "func.call": _unsupported_call,
    "hal.interface.binding.subspan": _subspan,
}


def _copy_linalg(m: Machine, op, mask) -> None:
    ins, outs = _linalg_views(m, op)
    if mask.any():
        m.write_box(outs[0], m.read_box(ins[0], mask, op), mask, op)  # type: ignore[arg-type]


def describe_op(op: Operation) -> str:
    return f"{location_of(op) or '<unknown>'} ({op.name})"
