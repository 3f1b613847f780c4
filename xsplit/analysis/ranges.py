"""Integer ranges of index values, for proofs about trip counts and processors.

`distribute` may drop a loop (or a guard) only when it can prove how a loop's
trip count compares with the number of processors it runs on. The facts come
from static sizes, `affine.min`/`affine.max` bounds, the launch sizes a kernel
declares (`gpu.known_block_size`/`gpu.known_grid_size`, a dispatch's
workgroup count and workgroup size, or a pass option), and processor ids,
which are below their counts. Every range here is sound: the value is always
inside it; unknown ends are None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, func, memref, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from xsplit.dialects import gpu, hal
from xsplit.dialects.affine import MaxOp
from xsplit.dialects.flow import DispatchWorkgroupsOp
from xsplit.dialects.iree_codegen import TRANSLATION_INFO, TranslationInfoAttr
from xsplit.dialects.scf import ForallOp

Bound = int | None


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Range:
    """A closed interval [lo, hi] of integers; None is an unknown end."""

    lo: Bound = None
    hi: Bound = None

    @staticmethod
    def exactly(n: int) -> Range:
        return Range(n, n)

    @property
    def constant(self) -> int | None:
        return self.lo if self.lo is not None and self.lo == self.hi else None

    @property
    def known(self) -> bool:
        return self.lo is not None and self.hi is not None

    def __str__(self) -> str:
        if self.constant is not None:
            return str(self.constant)
        lo = "-inf" if self.lo is None else str(self.lo)
        hi = "inf" if self.hi is None else str(self.hi)
        return f"[{lo}, {hi}]"

    def __add__(self, other: Range) -> Range:
        return Range(_opt(self.lo, other.lo, int.__add__), _opt(self.hi, other.hi, int.__add__))

    def __neg__(self) -> Range:
        return Range(None if self.hi is None else -self.hi, None if self.lo is None else -self.lo)

    def __sub__(self, other: Range) -> Range:
        return self + (-other)

    def __mul__(self, other: Range) -> Range:
        if self.constant == 0 or other.constant == 0:
            return Range.exactly(0)
        if not (self.known and other.known):
            # Products of non-negative ranges keep a lower bound.
            if _nonneg(self) and _nonneg(other):
                lo = self.lo * other.lo  # type: ignore[operator]
                hi = None
                if self.hi is not None and other.hi is not None:
                    hi = self.hi * other.hi
                return Range(lo, hi)
            return Range()
        corners = [a * b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]  # type: ignore[operator]
        return Range(min(corners), max(corners))

    def floordiv(self, d: int) -> Range:
        if d <= 0:
            return Range()
        return Range(
            None if self.lo is None else self.lo // d, None if self.hi is None else self.hi // d
        )

    def ceildiv(self, d: int) -> Range:
        if d <= 0:
            return Range()
        return Range(
            None if self.lo is None else _cdiv(self.lo, d),
            None if self.hi is None else _cdiv(self.hi, d),
        )

    def mod(self, d: int) -> Range:
        if d <= 0:
            return Range()
        if self.known and self.lo // d == self.hi // d:  # type: ignore[operator]
            return Range(self.lo % d, self.hi % d)  # type: ignore[operator]
        return Range(0, d - 1)

    def min(self, other: Range) -> Range:
        lo = None if self.lo is None or other.lo is None else min(self.lo, other.lo)
        his = [h for h in (self.hi, other.hi) if h is not None]
        return Range(lo, min(his) if his else None)

    def max(self, other: Range) -> Range:
        hi = None if self.hi is None or other.hi is None else max(self.hi, other.hi)
        los = [lo for lo in (self.lo, other.lo) if lo is not None]
        return Range(max(los) if los else None, hi)

    def meet(self, other: Range) -> Range:
        """The intersection: both facts hold."""
        lo = max((b for b in (self.lo, other.lo) if b is not None), default=None)
        hi = min((b for b in (self.hi, other.hi) if b is not None), default=None)
        return Range(lo, hi)

    def clamp_nonneg(self) -> Range:
        """max(self, 0): a span that may be negative is an empty loop."""
        return Range(
            0 if self.lo is None else max(self.lo, 0), None if self.hi is None else max(self.hi, 0)
        )


def _nonneg(r: Range) -> bool:
    return r.lo is not None and r.lo >= 0


def _opt(a: Bound, b: Bound, f: Callable[[int, int], int]) -> Bound:
    return None if a is None or b is None else f(a, b)


def trip_count(lb: Range, ub: Range, step: Range) -> Range:
    """The number of iterations of `for i = lb to ub step step` (never negative)."""
    span = (ub - lb).clamp_nonneg()
    if step.constant is not None and step.constant > 0:
        return span.ceildiv(step.constant)
    if step.lo is not None and step.lo > 0:
        hi = None if span.hi is None else _cdiv(span.hi, step.lo)
        lo = 0 if span.lo is None or step.hi is None else _cdiv(span.lo, step.hi)
        return Range(lo, hi)
    return Range(0, None)


AXES = ("x", "y", "z")


@dataclass
class LaunchFacts:
    """What is known of a kernel's launch: grid and block sizes along x, y, z,
    and where each fact came from (for remarks)."""

    grid: list[Range] = field(default_factory=lambda: [Range(1, None)] * 3)
    block: list[Range] = field(default_factory=lambda: [Range(1, None)] * 3)
    grid_source: str = ""
    block_source: str = ""
    subgroup_size: int | None = None


def _array_sizes(attr: object) -> list[int] | None:
    if isinstance(attr, DenseArrayBase):
        values = [int(v) for v in attr.get_values()]
        return values if len(values) == 3 else None
    return None


def export_of(kernel: func.FuncOp) -> hal.ExecutableExportOp | None:
    """The `hal.executable.export` that launches a function in a `hal.executable.source`."""
    op = kernel.parent_op()
    while op is not None and not isinstance(op, hal.ExecutableSourceOp):
        op = op.parent_op()
    if op is None:
        return None
    for export in op.exports():
        if export.sym_name.data == kernel.sym_name.data:
            return export
    return None


def _constant_index(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def launch_facts(
    kernel: Operation | None,
    grid: Sequence[int] | None = None,
    block: Sequence[int] | None = None,
) -> LaunchFacts:
    """The launch sizes of the function holding `kernel`: from the options,
    else `gpu.known_grid_size`/`gpu.known_block_size`, else its dispatch's
    workgroup count and `translation_info` workgroup size."""
    facts = LaunchFacts()
    fn = kernel if isinstance(kernel, func.FuncOp) else _enclosing_func(kernel)
    if grid is not None:
        facts.grid = [Range.exactly(n) for n in grid]
        facts.grid_source = "the grid option"
    if block is not None:
        facts.block = [Range.exactly(n) for n in block]
        facts.block_source = "the block option"
    if fn is None:
        return facts
    attrs = fn.attributes
    if grid is None and (sizes := _array_sizes(attrs.get(gpu.KNOWN_GRID_SIZE))):
        facts.grid = [Range.exactly(n) for n in sizes]
        facts.grid_source = gpu.KNOWN_GRID_SIZE
    if block is None and (sizes := _array_sizes(attrs.get(gpu.KNOWN_BLOCK_SIZE))):
        facts.block = [Range.exactly(n) for n in sizes]
        facts.block_source = gpu.KNOWN_BLOCK_SIZE
    info = attrs.get(TRANSLATION_INFO)
    if isinstance(info, TranslationInfoAttr):
        if not facts.block_source and info.workgroup_sizes:
            sizes = [*info.workgroup_sizes, 1, 1, 1][:3]
            facts.block = [Range.exactly(n) for n in sizes]
            facts.block_source = "the translation_info workgroup size"
        facts.subgroup_size = info.subgroup_size.data or None
    if not facts.grid_source and (export := export_of(fn)) is not None:
        count = export.workgroup_count
        if count.blocks and isinstance(ret := count.block.last_op, hal.ReturnOp):
            values = [_constant_index(v) for v in ret.values]
            if all(v is not None for v in values):
                facts.grid = [Range.exactly(v) for v in values]  # type: ignore[arg-type]
                facts.grid_source = f"the workgroup count of @{export.sym_name.data}"
    return facts


def _enclosing_func(op: Operation | None) -> func.FuncOp | None:
    while op is not None and not isinstance(op, func.FuncOp):
        op = op.parent_op()
    return op


class RangeAnalysis:
    """Ranges of index and integer values, computed on demand and memoized."""

    def __init__(self, facts: LaunchFacts | None = None):
        self.facts = facts or LaunchFacts()
        self._memo: dict[SSAValue, Range] = {}

    def of(self, value: SSAValue | int) -> Range:
        if isinstance(value, int):
            return Range.exactly(value)
        if value not in self._memo:
            self._memo[value] = Range()  # cycles (loop-carried values) stay unknown
            self._memo[value] = self._compute(value)
        return self._memo[value]

    def _compute(self, value: SSAValue) -> Range:
        if isinstance(value, BlockArgument):
            return self._block_argument(value)
        assert isinstance(value, OpResult)
        op = value.op
        f = self.facts
        match op:
            case arith.ConstantOp(value=IntegerAttr() as c):
                return Range.exactly(c.value.data)
            case gpu.ThreadIdOp() | gpu.BlockIdOp() | gpu.GlobalIdOp():
                sizes = f.block if isinstance(op, gpu.ThreadIdOp) else f.grid
                d = AXES.index(op.dim)
                count = sizes[d]
                if isinstance(op, gpu.GlobalIdOp):
                    count = f.grid[d] * f.block[d]
                hi = None if count.hi is None else count.hi - 1
                return _bounded(Range(0, hi), op.upper_bound, -1)
            case gpu.BlockDimOp() | gpu.GridDimOp():
                sizes = f.block if isinstance(op, gpu.BlockDimOp) else f.grid
                return _bounded(sizes[AXES.index(op.dim)], op.upper_bound, 0)
            case hal.InterfaceWorkgroupIDOp():
                count = f.grid[op.dim]
                hi = None if count.hi is None else count.hi - 1
                return _bounded(Range(0, hi), op.upper_bound, -1)
            case hal.InterfaceWorkgroupCountOp():
                return _bounded(f.grid[op.dim], op.upper_bound, 0)
            case hal.InterfaceWorkgroupSizeOp():
                return _bounded(f.block[op.dim], op.upper_bound, 0)
            case affine.ApplyOp():
                return self._affine(op.map.data.results[0], op.map.data, list(op.operands))
            case affine.MinOp() | MaxOp():
                amap = op.map.data
                parts = [self._affine(e, amap, list(op.operands)) for e in amap.results]
                out = parts[0]
                for p in parts[1:]:
                    out = out.min(p) if isinstance(op, affine.MinOp) else out.max(p)
                return out
            case arith.AddiOp():
                return self.of(op.lhs) + self.of(op.rhs)
            case arith.SubiOp():
                return self.of(op.lhs) - self.of(op.rhs)
            case arith.MuliOp():
                return self.of(op.lhs) * self.of(op.rhs)
            case arith.MinUIOp() | arith.MinSIOp():
                return self.of(op.lhs).min(self.of(op.rhs))
            case arith.MaxUIOp() | arith.MaxSIOp():
                return self.of(op.lhs).max(self.of(op.rhs))
            case arith.DivUIOp() | arith.FloorDivSIOp() | arith.DivSIOp():
                d = self.of(op.rhs).constant
                lhs = self.of(op.lhs)
                if d is not None and d > 0 and (_nonneg(lhs) or isinstance(op, arith.FloorDivSIOp)):
                    return lhs.floordiv(d)
            case arith.CeilDivUIOp() | arith.CeilDivSIOp():
                d = self.of(op.rhs).constant
                lhs = self.of(op.lhs)
                if d is not None and d > 0 and _nonneg(lhs):
                    return lhs.ceildiv(d)
            case arith.RemUIOp():
                d = self.of(op.rhs).constant
                if d is not None and d > 0:
                    return self.of(op.lhs).mod(d) if _nonneg(self.of(op.lhs)) else Range(0, d - 1)
            case arith.IndexCastOp():
                return self.of(op.input)
            case tensor.DimOp() | memref.DimOp():
                return self._dim(op)
            case _:
                pass
        if isinstance(value.type, IndexType):
            # Sizes and ids are never negative; an unknown index may be.
            return Range()
        if isinstance(value.type, IntegerType) and value.type.width.data == 1:
            return Range(0, 1)
        return Range()

    def _dim(self, op: Operation) -> Range:
        source, index = op.operands[0], op.operands[1]
        t = source.type
        d = self.of(index).constant
        if isinstance(t, TensorType | MemRefType) and d is not None and 0 <= d < t.get_num_dims():
            n = t.get_shape()[d]
            if n != DYNAMIC_INDEX:
                return Range.exactly(n)
        return Range(0, None)

    def _block_argument(self, arg: BlockArgument) -> Range:
        block = arg.block
        owner = block.parent_op() if isinstance(block, Block) else None
        if isinstance(owner, scf.ForOp) and arg.index == 0:
            lb, ub = self.of(owner.lb), self.of(owner.ub)
            hi = None if ub.hi is None else ub.hi - 1
            return Range(lb.lo, hi)
        if isinstance(owner, ForallOp) and arg.index < owner.rank:
            return self.forall_iv(owner, arg.index)
        if isinstance(owner, scf.ParallelOp) and arg.index < len(owner.lowerBound):
            lb, ub = self.of(owner.lowerBound[arg.index]), self.of(owner.upperBound[arg.index])
            return Range(lb.lo, None if ub.hi is None else ub.hi - 1)
        return Range()

    def forall_bounds(self, loop: ForallOp) -> list[tuple[Range, Range, Range]]:
        """(lower bound, upper bound, step) of each dimension of an scf.forall."""
        out: list[tuple[Range, Range, Range]] = []
        for static, dynamic in (
            (loop.staticLowerBound, loop.dynamicLowerBound),
            (loop.staticUpperBound, loop.dynamicUpperBound),
            (loop.staticStep, loop.dynamicStep),
        ):
            values = iter(dynamic)
            out.append(
                [Range.exactly(s) if s != DYNAMIC_INDEX else self.of(next(values)) for s in static.get_values()]  # type: ignore[arg-type]
            )
        return list(zip(*out))  # type: ignore[arg-type]

    def forall_iv(self, loop: ForallOp, d: int) -> Range:
        lb, ub, _ = self.forall_bounds(loop)[d]
        return Range(lb.lo, None if ub.hi is None else ub.hi - 1)

    def _affine(self, expr: AffineExpr, amap: AffineMap, operands: list[SSAValue]) -> Range:
        match expr:
            case AffineConstantExpr(value=v):
                return Range.exactly(v)
            case AffineDimExpr(position=p):
                return self.of(operands[p])
            case AffineSymExpr(position=p):
                return self.of(operands[amap.num_dims + p])
            case AffineBinaryOpExpr(kind=kind, lhs=lhs, rhs=rhs):
                a = self._affine(lhs, amap, operands)
                b = self._affine(rhs, amap, operands)
                c = b.constant
                match kind:
                    case AffineBinaryOpKind.Add:
                        return a + b
                    case AffineBinaryOpKind.Mul:
                        return a * b
                    case AffineBinaryOpKind.FloorDiv if c is not None:
                        return a.floordiv(c)
                    case AffineBinaryOpKind.CeilDiv if c is not None:
                        return a.ceildiv(c)
                    case AffineBinaryOpKind.Mod if c is not None:
                        return a.mod(c)
                    case _:
                        return Range()
            case _:
                return Range()


def _bounded(r: Range, upper_bound: IntegerAttr | None, shift: int) -> Range:
    """Meets `r` with an op's `upper_bound` (ids are below it, counts at most it)."""
    if upper_bound is None:
        return r
    return r.meet(Range(None, upper_bound.value.data + shift))


def in_dispatch(op: Operation) -> bool:
    """Whether `op` is code of a dispatch (an executable's kernel or a
    `flow.dispatch.workgroups` body), where workgroup ids are HAL ops."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp | DispatchWorkgroupsOp):
        parent = parent.parent_op()
    if isinstance(parent, DispatchWorkgroupsOp):
        return True
    while parent is not None:
        if isinstance(parent, hal.ExecutableSourceOp):
            return True
        parent = parent.parent_op()
    return False
