"""Which elements each thread of a distributed kernel reads and writes.

For every memref access inside a kernel (SPMD code on `gpu.thread_id` /
`gpu.block_id`, or `scf.forall` loops mapped to threads before distribution),
`AccessAnalysis` gives:

- `Access.indices`: the element it touches, as an affine function of the
  thread ids (`tx`, `ty`, `tz`), loop indices, the box offsets of a view a
  linalg op covers (`r0`, `r1`, ... each below its size) and uniform symbols
  (block ids, arguments); `None` in a dimension where it is not affine, and
  `Access.unknown` set when the op may touch anything (an op the analysis does
  not model);
- `conflict(a, b, ...)`: whether two threads of one workgroup may touch one
  element through `a` and `b`, at least one writing, decided exactly for the
  block's size. The index computations are evaluated for every thread of the
  block (and every iteration of loops with bounds fixed by the thread ids)
  as numpy arrays, with the uniform symbols kept symbolic: a symbol cancels
  when both sides use it alike, and otherwise the question is undecidable.
  Loops shared by both ops are compared in the same iteration, or in
  different iterations, as the caller asks.

The algebra it computes in (symbolic affine forms, values over a block's
threads, the comparison of two accesses' points) is `access_algebra`.

Buffers are the kernel's arguments, allocations and HAL bindings; distinct
ones are taken not to alias (arguments are `noalias`, as IREE's are).
Cross-workgroup dependences are out of scope: no barrier orders them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, MemRefType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap, AffineSymExpr

from xsplit.analysis.access_algebra import (
    MAX_POINTS,
    Affine,
    Num,
    Space,
    TooLarge,
    add_nums,
    affine_numeric,
    affine_symbolic,
    aligned_consts,
    is_uniform,
    meet,
    mul_nums,
    point_keys,
    scale_num,
    trailing_broadcast,
)
from xsplit.dialects.llvm import pointer_memref
from xsplit.semantics import (
    BINARY,
    CMPI,
    id_dimension,
    memory_space,
    memref_strides,
    op_property,
)

__all__ = [
    "ATOMIC",
    "LOOP_OPS",
    "READ",
    "WRITE",
    "Access",
    "AccessAnalysis",
    "Affine",
    "TooLarge",
    "Verdict",
    "is_uniform",
]

READ, WRITE, ATOMIC = "read", "write", "atomic"

_THREAD_OPS = {"gpu.thread_id"}
_UNIFORM_ID_OPS = {
    "gpu.block_id", "gpu.block_dim", "gpu.grid_dim", "hal.interface.workgroup.id",
    "hal.interface.workgroup.count", "hal.interface.workgroup.size",
}  # fmt: skip
LOOP_OPS = {"scf.for", "affine.for"}
_VIEW_OPS = {"memref.subview", "memref.cast", "memref.assume_alignment", "memref.reinterpret_cast"}
_PURE_MEMREF_USERS = _VIEW_OPS | {"memref.dim", "memref.dealloc", "func.return", "func.call"}


def _dim_of(op: Operation) -> int:
    d = id_dimension(op)
    return 0 if d is None else d


@dataclass
class Access:
    """One memref access of one op."""

    op: Operation
    kind: str
    base: SSAValue | Operation | None
    space_name: str
    indices: list[Affine | None] | None
    """Per dimension of the base buffer; None when not known per dimension."""
    box: tuple[int, ...] = ()
    loop_indices: tuple[str, ...] = ()
    unknown: bool = False
    reason: str = ""
    order: int = 0
    lane: int = 0
    """Which element of a vector access this is: its offset along the last index."""

    @property
    def writes(self) -> bool:
        return self.kind in (WRITE, ATOMIC)

    @property
    def undecidable(self) -> bool:
        """May touch anything, as far as the analysis can tell."""
        return self.unknown or self.indices is None or any(i is None for i in self.indices)

    def affine_map(self) -> tuple[AffineMap, list[str], list[str]] | None:
        """The indices as an affine map: dimensions are the thread ids, loop
        indices and box offsets (names returned first), symbols the uniform
        values (names returned second). None when undecidable."""
        if self.undecidable:
            return None
        names = sorted({k for i in self.indices for k, _ in i.coeffs})  # type: ignore[union-attr]
        dims = [n for n in names if n in ("tx", "ty", "tz") or n.startswith(("tlinear", "r"))]
        dims += [n for n in self.loop_indices if n in names and n not in dims]
        syms = [n for n in names if n not in dims]
        exprs = []
        for i in self.indices:  # type: ignore[union-attr]
            e: AffineExpr = AffineConstantExpr(i.const)  # type: ignore[union-attr]
            for k, c in i.coeffs:  # type: ignore[union-attr]
                v = AffineDimExpr(dims.index(k)) if k in dims else AffineSymExpr(syms.index(k))
                e = e + v * c
            exprs.append(e)
        return AffineMap(len(dims), len(syms), tuple(exprs)), dims, syms

    def describe_indices(self) -> str:
        name = _base_name(self.base)
        if self.indices is None:
            return f"{name}[?]"
        return f"{name}[{', '.join(str(i) if i is not None else '?' for i in self.indices)}]"


def _base_name(base) -> str:
    if isinstance(base, SSAValue):
        return f"%{base.name_hint}" if base.name_hint else "%<arg>"
    if isinstance(base, Operation) and base.results and base.results[0].name_hint:
        return f"%{base.results[0].name_hint}"
    return "%<buffer>"


@dataclass
class Verdict:
    """The answer to one dependence question."""

    status: str
    """'none' (proved: no two threads share an element), 'conflict' or 'unknown'."""
    detail: str = ""


class AccessAnalysis:
    """Accesses of one kernel function, and the dependence test between them."""

    def __init__(self, func: Operation, block_size: Sequence[int] | None = None):
        self.func = func
        self.block = tuple(block_size) if block_size else self._block_size()
        self.threads = int(np.prod(self.block)) if self.block else 0
        self._nums: dict[tuple[int, tuple[int, ...]], Num] = {}
        self._syms: dict[SSAValue, Affine | None] = {}
        self._spaces: dict[int, Space] = {}
        self._loop_info: dict[int, tuple[str, object]] = {}
        self._atom_names: dict[int, str] = {}
        self._atom_steps: dict[str, int] = {}
        self._atom_lower: dict[str, int] = {}
        self.accesses: list[Access] = []
        for i, op in enumerate(func.walk()):
            self.accesses.extend(self._accesses_of(op, i))

    # -- set-up -------------------------------------------------------------

    def _block_size(self) -> tuple[int, int, int] | None:
        attr = op_property(self.func, "gpu.known_block_size")
        if isinstance(attr, DenseArrayBase):
            sizes = [int(v) for v in attr.get_values()]
            return tuple((sizes + [1, 1, 1])[:3])  # type: ignore[return-value]
        info = op_property(self.func, "translation_info")
        if info is not None:
            import re

            m = re.search(r"workgroup_size\s*=\s*\[([0-9,\s]+)\]", str(info))
            if m:
                sizes = [int(x) for x in m.group(1).split(",")]
                return tuple((sizes + [1, 1, 1])[:3])  # type: ignore[return-value]
        # Before distribution: the largest extent any thread-mapped loop asks for.
        extents = [0, 0, 0]
        for op in self.func.walk():
            if op.name == "scf.forall" and "#gpu.thread" in str(op_property(op, "mapping")):
                for dim, trip in self._forall_thread_dims(op):
                    extents[dim] = max(extents[dim], trip)
        if not any(extents):
            return None
        return tuple(max(e, 1) for e in extents)  # type: ignore[return-value]

    def _forall_thread_dims(self, op: Operation) -> list[tuple[int, int]]:
        """(thread dimension, trip count) of a forall's x/y/z-mapped
        dimensions; linear dimensions count as x, with their product."""
        info = self._forall_info(op)
        if info is None:
            return []
        out = [(dim, trip) for kind, dim, _, _, trip in info if kind == "xyz"]
        linear = [trip for kind, _, _, _, trip in info if kind == "linear"]
        if linear:
            out.append((0, int(np.prod(linear))))
        return out

    def _forall_info(self, op: Operation) -> list[tuple[str, int, int, int, int]] | None:
        """Per dimension of a thread-mapped forall with static bounds: ('xyz',
        dim) or ('linear', k), lower bound, step, trip count."""
        mapping = op_property(op, "mapping")
        if mapping is None or "#gpu.thread" not in str(mapping):
            return None
        lbs = op_property(op, "staticLowerBound").get_values()  # type: ignore[union-attr]
        ubs = op_property(op, "staticUpperBound").get_values()  # type: ignore[union-attr]
        steps = op_property(op, "staticStep").get_values()  # type: ignore[union-attr]
        out = []
        for i, m in enumerate(mapping.data):  # type: ignore[union-attr]
            text = str(m)
            if min(lbs[i], ubs[i], steps[i]) < 0 or steps[i] == 0 or "#gpu.thread" not in text:
                return None
            trip = max(0, -(-(ubs[i] - lbs[i]) // steps[i]))
            if "linear_dim_" in text:
                out.append(("linear", int(text.split("linear_dim_")[1].split(">")[0]), lbs[i], steps[i], trip))
            else:
                dim = next((d for d, c in enumerate("xyz") if f"<{c}>" in text), None)
                if dim is None:
                    return None
                out.append(("xyz", dim, lbs[i], steps[i], trip))
        return out

    def _forall_ids(self, op: Operation) -> tuple[list[np.ndarray], np.ndarray] | None:
        """Each dimension's index per thread of the block, and which threads
        run an iteration (the others are surplus)."""
        info = self._forall_info(op)
        if info is None or not self.block:
            return None
        t = np.arange(self.threads)
        valid = np.ones(self.threads, dtype=bool)
        ivs: list[np.ndarray] = [np.zeros(self.threads, np.int64)] * len(info)
        linear = sorted((k, i) for i, (kind, k, _, _, _) in enumerate(info) if kind == "linear")
        rest = t.copy()
        for _, i in linear:
            trip = info[i][4]
            ivs[i] = rest % max(trip, 1)
            rest = rest // max(trip, 1)
        if linear:
            valid &= rest == 0
        for i, (kind, dim, lb, step, trip) in enumerate(info):
            if kind == "xyz":
                ivs[i] = self._tid(dim)
                valid &= ivs[i] < trip
            ivs[i] = lb + step * ivs[i]
        return ivs, valid

    @staticmethod
    def _vector_width(op: Operation) -> int:
        value = op.operands[0] if op.name == "vector.store" else op.results[0]
        return value.type.get_shape()[0]  # type: ignore[attr-defined]

    def _whole_buffer_vector(self, op: Operation) -> bool:
        """A 1-D vector load or store on the buffer itself, not a view."""
        value = op.operands[0] if op.name == "vector.store" else op.results[0]
        memref = op.operands[1] if op.name == "vector.store" else op.operands[0]
        return len(value.type.get_shape()) == 1 and not self._base(memref)[1]  # type: ignore[attr-defined]

    def _accesses_of(self, op: Operation, order: int) -> Iterator[Access]:
        name = op.name
        if name == "memref.load":
            yield self._make(op, READ, op.operands[0], list(op.operands[1:]), order)
        elif name == "memref.store":
            yield self._make(op, WRITE, op.operands[1], list(op.operands[2:]), order)
        elif name == "memref.atomic_rmw":
            yield self._make(op, ATOMIC, op.operands[1], list(op.operands[2:]), order)
        elif name == "llvm.atomicrmw" and (ref := pointer_memref(op)) is not None:
            # The element is behind pointer arithmetic: the whole buffer, as
            # an atomic (which races with plain accesses only).
            yield self._make(op, ATOMIC, ref, None, order)
        elif name in ("vector.load", "vector.store") and self._whole_buffer_vector(op):
            # A 1-D vector touches `width` consecutive elements along the last
            # index: one access per element, so that none is missed.
            store = name == "vector.store"
            kind, memref = (WRITE, op.operands[1]) if store else (READ, op.operands[0])
            indices = list(op.operands[2:] if store else op.operands[1:])
            for lane in range(self._vector_width(op)):
                access = self._make(op, kind, memref, indices, order)
                if lane and access.indices is not None and access.indices[-1] is not None:
                    access.indices[-1] = access.indices[-1] + Affine.constant(lane)
                access.lane = lane
                yield access
        elif name == "nvgpu.ldmatrix":
            # Each lane passes the start of one matrix row of 8 elements (16
            # bytes, also when transposed: the transpose is in the registers).
            # Lanes past the matrices' rows pass addresses ldmatrix ignores;
            # reading them too only over-approximates the reads.
            for lane in range(8):
                access = self._make(op, READ, op.operands[0], list(op.operands[1:]), order)
                if lane and access.indices is not None and access.indices[-1] is not None:
                    access.indices[-1] = access.indices[-1] + Affine.constant(lane)
                access.lane = lane
                yield access
        elif name in ("affine.load", "affine.store"):
            memref = op.operands[0] if name == "affine.load" else op.operands[1]
            operands = list(op.operands[1:] if name == "affine.load" else op.operands[2:])
            kind = READ if name == "affine.load" else WRITE
            yield self._make(op, kind, memref, operands, order, amap=op_property(op, "map").data)  # type: ignore[union-attr]
        elif name == "memref.copy":
            yield self._make(op, READ, op.operands[0], None, order)
            yield self._make(op, WRITE, op.operands[1], None, order)
        elif name.startswith("linalg.") and hasattr(op, "outputs"):
            for v in op.inputs:  # type: ignore[attr-defined]
                if isinstance(v.type, MemRefType):
                    yield self._make(op, READ, v, None, order)
            for v in op.outputs:  # type: ignore[attr-defined]
                if isinstance(v.type, MemRefType):
                    if name != "linalg.fill" and name != "linalg.copy":
                        yield self._make(op, READ, v, None, order)
                    yield self._make(op, WRITE, v, None, order)
        elif name not in _PURE_MEMREF_USERS and not name.startswith("gpu."):
            for v in op.operands:
                if isinstance(v.type, MemRefType):
                    base, _ = self._base(v)
                    yield Access(
                        op, WRITE, base, self._space_of(v), None, unknown=True,
                        reason=f"'{op.name}' is not modeled", order=order,
                    )  # fmt: skip

    def _space_of(self, v: SSAValue) -> str:
        return memory_space(v.type) if isinstance(v.type, MemRefType) else "global"

    def _base(self, v: SSAValue) -> tuple[SSAValue | Operation | None, list[Operation]]:
        chain: list[Operation] = []
        while isinstance(v.owner, Operation) and v.owner.name in _VIEW_OPS:
            chain.append(v.owner)
            v = v.owner.operands[0]
        if isinstance(v, BlockArgument):
            return v, chain[::-1]
        return v.owner, chain[::-1]  # type: ignore[return-value]

    def _make(self, op, kind, memref: SSAValue, operands, order, amap=None) -> Access:
        base, chain = self._base(memref)
        space = self._space_of(memref)
        indices: list[Affine | None] | None
        box: tuple[int, ...] = ()
        mt = memref.type
        if operands is None:
            box = tuple(mt.get_shape())  # type: ignore[union-attr]
            local = [Affine.of(f"r{i}") for i in range(len(box))]
        elif amap is not None:
            vals = [self.symbolic(v) for v in operands]
            nd = amap.num_dims
            local = [affine_symbolic(e, vals[:nd], vals[nd:]) for e in amap.results]
        else:
            local = [self.symbolic(v) for v in operands]
        indices = self._compose(chain, local)
        loops = tuple(
            loop.regions[0].blocks[0].args[0].name_hint or ""
            for loop in self.space_loops_all(op)
        )
        return Access(op, kind, base, space, indices, box, loops, order=order)

    def _compose(self, chain: list[Operation], local: list[Affine | None]) -> list[Affine | None] | None:
        """Indices in the base buffer's coordinates, through a chain of views."""
        for view in reversed(chain):
            if view.name != "memref.subview":
                continue
            src_rank = len(view.operands[0].type.get_shape())  # type: ignore[union-attr]
            offsets = self._mixed(view, "static_offsets", view.offsets)  # type: ignore[attr-defined]
            strides = self._mixed(view, "static_strides", view.strides)  # type: ignore[attr-defined]
            sizes = op_property(view, "static_sizes").get_values()  # type: ignore[union-attr]
            if len(local) != src_rank:
                kept = _kept_dims(sizes, view.results[0].type)
                if kept is None or len(kept) != len(local):
                    return None
                full: list[Affine | None] = [Affine.constant(0)] * src_rank
                for i, v in zip(kept, local):
                    full[i] = v
                local = full
            out: list[Affine | None] = []
            for o, s, i in zip(offsets, strides, local):
                if o is None or i is None or s is None or not s.is_constant:
                    out.append(None)
                else:
                    out.append(o + i.scale(s.const))
            local = out
        return local

    def _mixed(self, op, static_name, dynamic) -> list[Affine | None]:
        dyn = iter(dynamic)
        return [
            self.symbolic(next(dyn)) if v == -(2**63) else Affine.constant(int(v))
            for v in op_property(op, static_name).get_values()
        ]

    # -- symbolic values -------------------------------------------------------

    def symbolic(self, v: SSAValue) -> Affine | None:
        if v not in self._syms:
            self._syms[v] = None
            self._syms[v] = self._symbolic(v)
        return self._syms[v]

    def _symbolic(self, v: SSAValue) -> Affine | None:
        if isinstance(v, BlockArgument):
            owner = v.block.parent_op()
            if owner is not None and owner.name == "scf.forall":
                info = self._forall_info(owner)
                if info is not None:
                    kind, dim, lb, step, _ = info[v.index]
                    name = f"t{'xyz'[dim]}" if kind == "xyz" else f"tlinear{dim}"
                    return Affine.of(name).scale(step) + Affine.constant(lb)
            return Affine.of(v.name_hint or f"arg{v.index}")
        op = v.owner
        assert isinstance(op, Operation)
        name = op.name
        if name == "arith.constant":
            value = op_property(op, "value")
            return Affine.constant(int(value.value.data)) if isinstance(value, IntegerAttr) else None
        if name in _THREAD_OPS:
            return Affine.of("t" + "xyz"[_dim_of(op)])
        if name in ("gpu.block_id", "hal.interface.workgroup.id"):
            return Affine.of("b" + "xyz"[_dim_of(op)])
        if name in ("arith.index_cast", "arith.index_castui"):
            return self.symbolic(op.operands[0])
        if name in ("arith.addi", "arith.subi", "arith.muli"):
            a, b = self.symbolic(op.operands[0]), self.symbolic(op.operands[1])
            if a is None or b is None:
                return None
            if name == "arith.addi":
                return a + b
            if name == "arith.subi":
                return a + b.scale(-1)
            if b.is_constant:
                return a.scale(b.const)
            if a.is_constant:
                return b.scale(a.const)
            return None
        if name == "affine.apply":
            amap = op_property(op, "map").data  # type: ignore[union-attr]
            vals = [self.symbolic(x) for x in op.operands]
            return affine_symbolic(amap.results[0], vals[: amap.num_dims], vals[amap.num_dims :])
        if v.name_hint and name in _UNIFORM_ID_OPS:
            return Affine.of(v.name_hint)
        return None

    # -- numeric evaluation ------------------------------------------------------

    def space_of(self, op: Operation | None) -> Space:
        """The space of the points where `op` runs (its enclosing loops')."""
        loops: list[Operation] = []
        guards: list[tuple[Operation, int]] = []
        cur = op
        while cur is not None and cur is not self.func:
            parent_block = cur.parent_block()
            parent = cur.parent_op()
            if parent is not None and parent.name in LOOP_OPS:
                loops.append(parent)
            if parent is not None and parent.name == "scf.forall" and self._forall_info(parent):
                guards.append((parent, 2))
            if parent is not None and parent.name == "scf.if" and parent_block is not None:
                region = parent_block.parent_region()
                guards.append((parent, 0 if region is parent.regions[0] else 1))
            cur = parent
        return self._space(tuple(reversed(loops)), tuple(reversed(guards)))

    def _space(self, loops: tuple[Operation, ...], guards=()) -> Space:
        key = (tuple(map(id, loops)), tuple((id(g), b) for g, b in guards))
        if key in self._spaces:
            return self._spaces[key]
        if not loops:
            space = Space((), (self.threads,), np.ones(self.threads, dtype=bool))
        else:
            outer = self._space(loops[:-1])
            loop = loops[-1]
            info = self.loop_bounds(loop, outer)
            if info is None:
                space = outer  # not enumerated: its index is a symbol
            else:
                trips, size = info
                space = outer.extend(loop, trips, size)
        for guard, branch in guards:
            if branch == 2:
                ids = self._forall_ids(guard)
                if ids is not None:
                    valid = space.valid & trailing_broadcast(ids[1], space.shape)
                    space = Space(space.loops, space.shape, valid)
                continue
            cond = self.num(guard.operands[0], space)
            if cond is not None and cond.concrete:
                c = trailing_broadcast(cond.const, space.shape).astype(bool)
                valid = space.valid & (c if branch == 0 else ~c)
                space = Space(space.loops, space.shape, valid)
        self._spaces[key] = space
        return space

    def loop_bounds(self, loop: Operation, outer: Space) -> tuple[np.ndarray, int] | None:
        """Trip counts per point of the outer space, if the bounds are concrete."""
        key = id(loop)
        if key in self._loop_info:
            info = self._loop_info[key]
            return info[1] if info[0] == "enum" else None  # type: ignore[return-value]
        lb, ub, step = self._bounds(loop, outer)
        if lb is None or ub is None or step is None or not (lb.concrete and ub.concrete and step.concrete):
            self._loop_info[key] = ("atom", None)
            return None
        lbv, ubv, stv = (trailing_broadcast(x.const, outer.shape) for x in (lb, ub, step))
        stv = np.where(stv <= 0, 1, stv)
        trips = np.maximum(0, -((lbv - ubv) // stv))
        trips = np.broadcast_to(trips, outer.shape)
        size = int(trips[outer.valid].max()) if outer.valid.any() else 0
        if size * outer.valid.size > MAX_POINTS:
            self._loop_info[key] = ("atom", None)
            return None
        self._loop_info[key] = ("enum", (trips, max(size, 1)))
        return trips, max(size, 1)

    def _bounds(self, loop: Operation, outer: Space):
        if loop.name == "scf.for":
            return tuple(self.num(v, outer) for v in loop.operands[:3])
        lbm, ubm = op_property(loop, "lowerBoundMap").data, op_property(loop, "upperBoundMap").data  # type: ignore[union-attr]
        n = lbm.num_dims + lbm.num_symbols
        m = ubm.num_dims + ubm.num_symbols
        lbs = self._map(lbm, loop.operands[:n], outer)
        ubs = self._map(ubm, loop.operands[n : n + m], outer)
        if lbs is None or ubs is None or not all(x.concrete for x in lbs + ubs):
            return None, None, None
        lb = Num(np.max(np.broadcast_arrays(*[trailing_broadcast(x.const, outer.shape) for x in lbs]), axis=0))
        ub = Num(np.min(np.broadcast_arrays(*[trailing_broadcast(x.const, outer.shape) for x in ubs]), axis=0))
        step = int(op_property(loop, "step").value.data)  # type: ignore[union-attr]
        return lb, ub, Num(np.array(step))

    def _map(self, amap, operands, space: Space) -> list[Num] | None:
        vals = [self.num(v, space) for v in operands]
        if any(v is None for v in vals):
            return None
        dims, syms = vals[: amap.num_dims], vals[amap.num_dims :]
        return [affine_numeric(e, dims, syms, space) for e in amap.results]  # type: ignore[arg-type]

    def num(self, v: SSAValue, space: Space) -> Num | None:
        """`v` at every point of `space` (which encloses v's definition)."""
        key = (id(v), tuple(map(id, space.loops)))
        if key not in self._nums:
            self._nums[key] = self._num(v, space)  # type: ignore[assignment]
        return self._nums[key]

    def _atom(self, v: SSAValue, uniform: bool, step: int | None = None) -> Num:
        name = self._atom_names.setdefault(id(v), f"{v.name_hint or 'v'}#{len(self._atom_names)}")
        if step is not None:
            self._atom_steps[name] = step
            self._atom_steps[name + "'"] = step
        return Num(np.zeros(1, dtype=np.int64), {name: 1}, varying_unknown=not uniform)

    def _num(self, v: SSAValue, space: Space) -> Num | None:
        if isinstance(v, BlockArgument):
            owner = v.block.parent_op()
            if owner is not None and owner.name in LOOP_OPS and v.index == 0:
                if owner in space.loops:
                    axis = 1 + space.loops.index(owner)
                    outer = self._space(space.loops[: axis - 1])
                    lb, _, step = self._bounds(owner, outer)
                    k = np.arange(space.shape[axis]).reshape((1,) * axis + (-1,))
                    prefix = space.shape[: axis + 1]
                    start = trailing_broadcast(lb.const, prefix)  # type: ignore[union-attr]
                    return Num(start + trailing_broadcast(step.const, prefix) * k)  # type: ignore[union-attr]
                outer = self.space_of(owner)
                lb, _, step = self._bounds(owner, outer)
                uniform = lb is not None and step is not None and is_uniform(lb) and is_uniform(step)
                return self._atom(v, uniform, self._lower_bound(step) if uniform else None)
            if owner is not None and owner.name == "scf.forall":
                ids = self._forall_ids(owner)
                if ids is not None:
                    return Num(ids[0][v.index])
                return self._atom(v, self._forall_info(owner) is None)
            if owner is self.func:
                return self._atom(v, True)
            if owner is not None and owner.name == "scf.for" and v.index > 0:
                return self._carried(owner, v, space)
            return self._atom(v, False)
        op = v.owner
        assert isinstance(op, Operation)
        name = op.name
        if name == "arith.constant":
            value = op_property(op, "value")
            if isinstance(value, IntegerAttr):
                return Num(np.array(int(value.value.data)))
            return self._atom(v, True)
        if name in _THREAD_OPS:
            return Num(self._tid(_dim_of(op)))
        if name == "gpu.block_dim" and self.block:
            return Num(np.array(self.block[_dim_of(op)]))
        if name in _UNIFORM_ID_OPS:
            atom = self._atom(v, True)
            counts = (
                "gpu.block_dim", "gpu.grid_dim", "hal.interface.workgroup.count",
                "hal.interface.workgroup.size",
            )  # fmt: skip
            self._atom_lower[next(iter(atom.atoms))] = 1 if name in counts else 0
            return atom
        if name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
            return self.num(op.operands[0], space)
        operands = [self.num(x, space) for x in op.operands]
        if any(x is None for x in operands):
            return self._atom(v, False)
        if name == "affine.apply":
            amap = op_property(op, "map").data  # type: ignore[union-attr]
            return affine_numeric(amap.results[0], operands[: amap.num_dims], operands[amap.num_dims :], space)  # type: ignore[arg-type]
        if name in ("affine.min", "affine.max"):
            amap = op_property(op, "map").data  # type: ignore[union-attr]
            dims, syms = operands[: amap.num_dims], operands[amap.num_dims :]
            vals = [affine_numeric(e, dims, syms, space) for e in amap.results]  # type: ignore[arg-type]
            if all(x.concrete for x in vals):
                fn = np.min if name == "affine.min" else np.max
                return Num(fn(np.broadcast_arrays(*[trailing_broadcast(x.const, space.shape) for x in vals]), axis=0))
            return self._atom(v, all(is_uniform(x) for x in vals))
        a = operands[0]
        b = operands[1] if len(operands) > 1 else None
        if name == "arith.addi":
            return add_nums(a, b)  # type: ignore[arg-type]
        if name == "arith.subi":
            return add_nums(a, scale_num(b, -1))  # type: ignore[arg-type]
        if name == "arith.muli":
            if b.concrete and np.all(b.const == np.ravel(b.const)[0]):  # type: ignore[union-attr]
                return scale_num(a, int(np.ravel(b.const)[0]))  # type: ignore[arg-type, union-attr]
            if a.concrete and np.all(a.const == np.ravel(a.const)[0]):  # type: ignore[union-attr]
                return scale_num(b, int(np.ravel(a.const)[0]))  # type: ignore[arg-type, union-attr]
        if all(x.concrete for x in operands):  # type: ignore[union-attr]
            # Values of different loop depths carry different numbers of
            # trailing axes: pad them as `add_nums` does before combining.
            consts = aligned_consts([x.const for x in operands])  # type: ignore[union-attr]
            if name in BINARY and b is not None:
                with np.errstate(all="ignore"):
                    return Num(np.asarray(BINARY[name](consts[0], consts[1])))
            if name == "arith.cmpi" and b is not None:
                pred = int(op_property(op, "predicate").value.data)  # type: ignore[union-attr]
                return Num(np.asarray(CMPI[pred](consts[0], consts[1])))
            if name == "arith.select":
                return Num(np.where(consts[0], consts[1], consts[2]))
        return self._atom(v, all(is_uniform(x) for x in operands))  # type: ignore[arg-type]

    def _lower_bound(self, x: Num | None) -> int | None:
        """A positive lower bound of a uniform step, from its symbols' (counts >= 1, ids >= 0)."""
        if x is None or x.varying_unknown:
            return None
        c = np.ravel(x.const)
        if c.size == 0 or np.any(c != c[0]):
            return None
        total = int(c[0])
        for k, coef in x.atoms.items():
            low = self._atom_lower.get(k)
            if low is None or coef < 0:
                return None
            total += coef * low
        return total if total > 0 else None

    def _carried(self, loop: Operation, v: BlockArgument, space: Space) -> Num:
        """A loop-carried value: a uniform symbol when it starts uniform and
        each iteration yields a uniform value from uniform ones (assumed for
        itself while checking, which induction over the iterations justifies)."""
        key = (id(v), tuple(map(id, space.loops)))
        atom = self._atom(v, True)
        before = set(self._nums)
        self._nums[key] = atom
        init = self.num(loop.operands[3 + v.index - 1], self.space_of(loop))
        body = loop.regions[0].blocks[0]
        yielded = body.last_op.operands[v.index - 1] if body.last_op is not None else None
        inner = self.space_of(body.last_op) if body.last_op is not None else space
        step = self.num(yielded, inner) if yielded is not None else None
        if init is None or step is None or not (is_uniform(init) and is_uniform(step)):
            atom = self._atom(v, False)
            # What was computed under the assumption does not hold.
            for stale in set(self._nums) - before:
                del self._nums[stale]
        else:
            del self._nums[key]
        return atom

    def _tid(self, d: int) -> np.ndarray:
        t = np.arange(self.threads)
        bx, by, _ = self.block
        return [t % bx, (t // bx) % by, t // (bx * by)][d]

    # -- points of an access ----------------------------------------------------

    def points(
        self, access: Access, space: Space, rename: dict[str, str]
    ) -> tuple[list[np.ndarray], list[dict[str, int]], np.ndarray, Space] | None:
        """The flat element per point (threads x loops x box) with the uniform
        symbols' coefficients, and the validity mask; None if not evaluable."""
        if access.unknown:
            return None
        memref = self._memref_operand(access)
        base, chain = self._base(memref)
        base_type = (base.type if isinstance(base, SSAValue) else base.results[0].type)  # type: ignore[union-attr]
        strides = _strides(base_type)
        if strides is None:
            return None
        # Indices in the access's own view, then composed through the views.
        op = access.op
        if access.box:
            local = []
            nbox = len(access.box)
            shape = space.shape + access.box
            for i, s in enumerate(access.box):
                k = np.arange(s).reshape((1,) * (len(space.shape) + i) + (s,) + (1,) * (nbox - i - 1))
                local.append(Num(k))
            full_shape = shape
        else:
            full_shape = space.shape
            if op.name in ("affine.load", "affine.store"):
                amap = op_property(op, "map").data  # type: ignore[union-attr]
                operands = list(op.operands[1:] if op.name == "affine.load" else op.operands[2:])
                vals = self._map(amap, operands, space)
                if vals is None:
                    return None
                local = vals
            elif op.name.startswith("linalg."):
                local = []  # a linalg op on a 0-d view touches its one element
            else:
                first = {
                    "memref.load": 1, "memref.store": 2, "memref.atomic_rmw": 2, "vector.load": 1,
                    "vector.store": 2, "nvgpu.ldmatrix": 1,
                }[op.name]
                local = [self.num(x, space) for x in op.operands[first:]]  # type: ignore[misc]
                if any(x is None for x in local):
                    return None
                if access.lane:
                    local[-1] = add_nums(local[-1], Num(np.array(access.lane)))  # type: ignore[arg-type]
        for sub in reversed(chain):
            if sub.name != "memref.subview":
                continue
            src_rank = len(sub.operands[0].type.get_shape())  # type: ignore[union-attr]
            sizes = op_property(sub, "static_sizes").get_values()  # type: ignore[union-attr]
            offs = self._num_mixed(sub, "static_offsets", sub.offsets, space)  # type: ignore[attr-defined]
            strs = self._num_mixed(sub, "static_strides", sub.strides, space)  # type: ignore[attr-defined]
            if offs is None or strs is None or not all(s.concrete for s in strs):
                return None
            if len(local) != src_rank:
                kept = _kept_dims(sizes, sub.results[0].type)
                if kept is None or len(kept) != len(local):
                    return None
                full = [Num(np.array(0))] * src_rank
                for i, x in zip(kept, local):
                    full[i] = x
                local = full
            local = [add_nums(o, mul_nums(x, s)) for o, x, s in zip(offs, local, strs)]
        del strides
        if not local:  # a 0-d buffer: every access touches its one element
            local = [Num(np.array(0))]
        if any(x.varying_unknown for x in local):
            return None
        consts = [np.broadcast_to(trailing_broadcast(x.const, full_shape), full_shape) for x in local]
        atoms = [{rename.get(k, k): c for k, c in x.atoms.items()} for x in local]
        valid = np.broadcast_to(trailing_broadcast(space.valid, full_shape), full_shape)
        return consts, atoms, valid, space

    def _memref_operand(self, access: Access) -> SSAValue:
        op = access.op
        reads = ("memref.load", "affine.load", "memref.copy", "vector.load", "nvgpu.ldmatrix")
        if op.name in reads and access.kind == READ:
            return op.operands[0]
        if op.name in ("memref.store", "affine.store", "memref.atomic_rmw", "vector.store"):
            return op.operands[1]
        if op.name == "memref.copy":
            return op.operands[1]
        # linalg: find the operand whose indices match this access
        return self._linalg_operand(access)

    def _linalg_operand(self, access: Access) -> SSAValue:
        op = access.op
        accs = [a for a in self.accesses if a.op is op]
        operands = []
        name = op.name
        for v in op.inputs:  # type: ignore[attr-defined]
            if isinstance(v.type, MemRefType):
                operands.append(v)
        for v in op.outputs:  # type: ignore[attr-defined]
            if isinstance(v.type, MemRefType):
                if name not in ("linalg.fill", "linalg.copy"):
                    operands.append(v)
                operands.append(v)
        return operands[[id(a) for a in accs].index(id(access))]

    def _num_mixed(self, op, static_name, dynamic, space) -> list[Num] | None:
        dyn = iter(dynamic)
        out = []
        for v in op_property(op, static_name).get_values():
            if v == -(2**63):
                x = self.num(next(dyn), space)
                if x is None:
                    return None
                out.append(x)
            else:
                out.append(Num(np.array(int(v))))
        return out

    # -- the dependence test -------------------------------------------------------

    def common_loops(self, a: Operation, b: Operation) -> list[Operation]:
        la = self.space_loops_all(a)
        lb = self.space_loops_all(b)
        common = []
        for x, y in zip(la, lb):
            if x is not y:
                break
            common.append(x)
        return common

    def space_loops_all(self, op: Operation) -> list[Operation]:
        loops = []
        cur = op.parent_op()
        while cur is not None and cur is not self.func:
            if cur.name in LOOP_OPS:
                loops.append(cur)
            cur = cur.parent_op()
        return loops[::-1]

    def conflict(self, a: Access, b: Access, shared: int) -> Verdict:
        """May two different threads of a block touch one element through `a`
        and `b`? The first `shared` common loops run the same iteration for
        both; the loops inside those run any iterations, independently."""
        if not self.block:
            return Verdict("unknown", "the block size is not known (no gpu.known_block_size)")
        if a.unknown or b.unknown:
            return Verdict("unknown", a.reason or b.reason)
        common = self.common_loops(a.op, b.op)
        shared_loops = common[:shared]
        pa = self.points(a, self.space_of(a.op), {})
        rename_b: dict[str, str] = {}
        for loop in common[shared:]:
            # Different iterations of a loop whose index is a symbol: the two
            # sides' indices are different symbols.
            iv = loop.regions[0].blocks[0].args[0]
            name = self._atom_names.get(id(iv))
            if name is not None:
                rename_b[name] = name + "'"
        pb = self.points(b, self.space_of(b.op), rename_b)
        if pa is None or pb is None:
            return Verdict("unknown", "an index is not an affine or thread-computable function")
        ca, atoms_a, va, sa = pa
        cb, atoms_b, vb, sb = pb
        for d, (xa, xb) in enumerate(zip(atoms_a, atoms_b)):
            if xa == xb:
                continue
            diff = {k: xa.get(k, 0) - xb.get(k, 0) for k in set(xa) | set(xb)}
            diff = {k: c for k, c in diff.items() if c}
            separated = self._separated(diff, rename_b, ca[d][va], cb[d][vb])
            if separated:
                return Verdict("none", f"disjoint: {separated}")
            names = sorted({k.split("#")[0] for k in diff})
            return Verdict("unknown", f"the indices differ by symbols ({', '.join(names)})")
        # Shared enumerated loops: their iteration is part of the key.
        shared_axes = [
            (sa.loops.index(loop), sb.loops.index(loop))
            for loop in shared_loops
            if loop in sa.loops and loop in sb.loops
        ]
        ka = point_keys(ca, va, shared_axes, 0)
        kb = point_keys(cb, vb, shared_axes, 1)
        return self._compare(ka, kb, a, b)

    def _separated(self, diff: dict[str, int], rename: dict[str, str], ca, cb) -> str | None:
        """Whether one dimension differs by c*(iv' - iv) for a loop run in two
        different iterations, a nonzero multiple of c*step, while the rest of
        the index spans less than that: then the two never meet."""
        pairs = [(k, c) for k, c in diff.items() if k in rename and diff.get(rename[k]) == -c]
        if len(pairs) != 1 or len(diff) != 2 or ca.size == 0 or cb.size == 0:
            return None
        name, c = pairs[0]
        step = self._atom_steps.get(name)
        if step is None:
            return None
        sep = abs(c) * step
        span = max(int(ca.max()) - int(cb.min()), int(cb.max()) - int(ca.min()))
        if span < sep:
            return (
                f"different iterations of the loop over {name.split('#')[0]} step at least "
                f"{step} touch different elements"
            )
        return None

    def _compare(self, ka, kb, a: Access, b: Access) -> Verdict:
        meeting = meet(ka, kb)
        if meeting.empty:
            return Verdict("none", "disjoint: one of the accesses never runs")
        if meeting.threads is None:
            shared = "coincide" if meeting.shared else "disjoint"
            return Verdict("none", f"{shared}: checked for all {self.threads} threads")
        t1, t2 = meeting.threads
        return Verdict(
            "conflict",
            f"threads {self._thread_name(t1)} and {self._thread_name(t2)} both touch "
            f"{_base_name(a.base)}{meeting.element}",
        )

    def _thread_name(self, t: int) -> str:
        bx, by, _ = self.block
        return f"({t % bx},{(t // bx) % by},{t // (bx * by)})"


def _strides(t: MemRefType) -> list[int] | None:
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return None
    try:
        return list(memref_strides(t))
    except Exception:
        return None


def _kept_dims(sizes, result) -> list[int] | None:
    """The source dimensions a rank-reducing subview keeps: matched
    greedily against its result's shape, as MLIR infers the dropped unit
    dimensions (so `[1, 37, 1]` into `37x1` keeps the last two)."""
    shape = list(result.get_shape()) if isinstance(result, MemRefType) else None
    if shape is None:
        return None
    kept, j = [], 0
    for i, size in enumerate(sizes):
        if j < len(shape) and size == shape[j]:
            kept.append(i)
            j += 1
        elif size != 1:
            return None
    return kept if j == len(shape) else None
