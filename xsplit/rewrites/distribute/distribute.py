"""`distribute`: parallel loops mapped to processors become SPMD code.

An `scf.forall` whose `mapping` names processors (`#gpu.block`, `#gpu.warp`,
`#gpu.thread`, `#gpu.lane`, `#iree_linalg_ext.split_reduction_mapping`), on
memrefs or on tensors, and an `scf.parallel` mapped with `#gpu.loop_dim_map`
(or the same attributes), is replaced by code that every processor runs with
its own id (MLIR discourse "Tile/LowerToLoops + Distribute to processors"):

- `cyclic`: `scf.for %i = lb + id * step to ub step count * step`. Always right.
- `block-cyclic`: blocks of `chunk` consecutive iterations dealt out
  cyclically (`chunk=0`: one block of ceildiv(trips, count) each). Always right.
- `oversubscribed`: `scf.if id < trips` around one iteration. Right when there
  are at least as many processors as iterations.
- `exact`: one iteration, no loop and no guard. Right when they are equal.

`strategy=auto` (the default) proves how the trip count compares with the
processor count with the range analysis of `xsplit.analysis.ranges` and takes
the cheapest strategy it proves right (exact, then oversubscribed, else
cyclic), saying which and why in a remark. A strategy asked for by name that
cannot be proven right is an error: the pass never emits code that may skip
iterations.

Ids are `gpu.block_id`/`gpu.thread_id` (counts `gpu.grid_dim`/`gpu.block_dim`)
in a kernel, and `hal.interface.workgroup.id/count` for blocks inside a
dispatch. Counts come from the `grid`/`block` options, the function's
`gpu.known_grid_size`/`gpu.known_block_size`, or the dispatch's workgroup
count and `translation_info` workgroup size; a count that is known is emitted
as a constant.

Nested loops mapped to the same processors (a split-K chunk loop around a
tile loop, both on `#gpu.block<x>`) are linearized onto one processor space,
which the remark says. Loops that share only some of their processor
dimensions (an outer loop on `#gpu.block<x>`, an inner one on
`[#gpu.block<y>, #gpu.block<x>]`) are linearized on the ones they share,
outer-major, and their other dimensions are mapped as they would be alone;
a nest of more levels is linearized level by level. A nest that maps levels
inconsistently (a block loop inside a thread loop, a thread loop inside a warp
loop) is an error located at the inner loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects import affine, arith, func, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
)
from xdsl.dialects.gpu import LoopDimMapAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint
from xdsl.traits import MemoryEffectKind, get_effects

from xsplit.analysis.ranges import (
    AXES,
    LaunchFacts,
    Range,
    RangeAnalysis,
    in_dispatch,
    launch_facts,
    trip_count,
)
from xsplit.diagnostics import XsplitError, location_of, remark
from xsplit.dialects import gpu, hal
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.scf import ForallOp, InParallelOp
from xsplit.dialects.tensor import ParallelInsertSliceOp
from xsplit.rewrites.dsl import Match, Option, Pass, Pattern, Remark, where
from xsplit.rewrites.dsl.builders import FoldingIndexArithmetic, IRBuilder

STRATEGIES = ("auto", "cyclic", "block-cyclic", "oversubscribed", "exact")

Mixed = int | SSAValue

# ---------------------------------------------------------------------------
# Processor spaces
# ---------------------------------------------------------------------------

LEVEL_RANK = {"block": 0, "warp": 1, "thread": 1, "lane": 2}
"""Where each level sits in the hierarchy: a loop may only nest loops of its
own rank or deeper. Warps and threads are two ways to cut a block's threads,
so neither may hold the other."""


@dataclass(frozen=True)
class Space:
    """A set of processors a loop dimension is spread over: a level and an
    axis (`x`, `y`, `z`, or `linear` for all of the level's axes in one)."""

    level: str
    axis: str

    def __str__(self) -> str:
        return f"#gpu.{self.level}<{self.axis}>"


@dataclass
class LoopDim:
    lb: Mixed
    ub: Mixed
    step: Mixed
    iv: SSAValue
    """The loop's induction variable, replaced by the distributed value."""
    lb_range: Range = field(default_factory=Range)
    ub_range: Range = field(default_factory=Range)
    step_range: Range = field(default_factory=Range)

    def trips(self) -> Range:
        return trip_count(self.lb_range, self.ub_range, self.step_range)


@dataclass
class Group:
    """Loop dimensions distributed together: slowest-varying first. With one
    dimension the iterations are the loop's; with more (linear mappings and
    linearized nests) they are one linear range, delinearized in the body."""

    space: Space | None  # None: a sequential dimension of an scf.parallel
    dims: list[LoopDim]
    attr: str = ""

    def trips(self) -> Range:
        out = Range.exactly(1)
        for d in self.dims:
            out = out * d.trips()
        return out


class Unsupported(Exception):
    """A loop this pass leaves alone, and why (said in a remark)."""


def _space_of(attr: Attribute) -> Space | None:
    """The processor space of one mapping entry; None for a sequential one."""
    if isinstance(attr, gpu.BlockMappingAttr | gpu.WarpMappingAttr | gpu.ThreadMappingAttr | gpu.LaneMappingAttr):
        ident = attr.mapping_id.data
        return Space(attr.LEVEL, ident if ident in AXES else "linear")
    if isinstance(attr, SplitReductionMappingAttr):
        k = attr.dim.data
        if k >= 3:
            raise Unsupported(f"{attr} has no grid axis (only 0, 1, 2 map to z, y, x)")
        # The chunks of a split reduction go on the slowest grid axes, as in
        # hand-written split-K dispatches (K chunks along z).
        return Space("block", "zyx"[k])
    if isinstance(attr, LoopDimMapAttr):
        proc = attr.processor.data.value
        if proc == "sequential":
            return None
        amap = attr.map.data
        if amap != AffineMap.identity(1) or attr.bound.data != AffineMap.identity(1):
            raise Unsupported(f"{attr} has a non-identity map or bound")
        level, axis = proc.split("_")
        return Space(level, axis)
    raise Unsupported(f"{attr} is not a processor mapping distribute handles")


def _mapping(loop: Operation) -> list[Attribute] | None:
    if isinstance(loop, ForallOp):
        return None if loop.mapping is None else list(loop.mapping.data)
    attr = loop.attributes.get("mapping")
    return list(attr.data) if isinstance(attr, ArrayAttr) else None


def is_mapped_loop(op: Operation) -> bool:
    return isinstance(op, ForallOp | scf.ParallelOp) and bool(_mapping(op))


def _linear_index(attr: Attribute) -> int | None:
    ident = getattr(attr, "mapping_id", None)
    if ident is not None and ident.data.startswith("linear_dim_"):
        return int(ident.data.removeprefix("linear_dim_"))
    return None


def _loop_dims(loop: Operation, ranges: RangeAnalysis) -> list[LoopDim]:
    if isinstance(loop, ForallOp):
        bounds = []
        for static, dynamic in (
            (loop.staticLowerBound, loop.dynamicLowerBound),
            (loop.staticUpperBound, loop.dynamicUpperBound),
            (loop.staticStep, loop.dynamicStep),
        ):
            values = iter(dynamic)
            bounds.append([s if s != DYNAMIC_INDEX else next(values) for s in static.get_values()])
        ivs = list(loop.induction_vars)
    else:
        assert isinstance(loop, scf.ParallelOp)
        bounds = [list(loop.lowerBound), list(loop.upperBound), list(loop.step)]
        ivs = list(loop.body.block.args)
    dims = []
    for lb, ub, step, iv in zip(*bounds, ivs):
        r = [ranges.of(v) for v in (lb, ub, step)]
        # Constant bounds fold into the arithmetic distribution emits.
        lb, ub, step = (x.constant if x.constant is not None else v for x, v in zip(r, (lb, ub, step)))
        dims.append(LoopDim(lb, ub, step, iv, *r))
    return dims


def loop_groups(loop: Operation, ranges: RangeAnalysis) -> list[Group]:
    """The loop's dimensions grouped by the processors they go to, in loop order."""
    mapping = _mapping(loop) or []
    dims = _loop_dims(loop, ranges)
    if len(mapping) != len(dims):
        raise Unsupported(f"its mapping has {len(mapping)} entries for {len(dims)} dimensions")
    groups: list[Group] = []
    linear: dict[str, list[tuple[int, LoopDim, Attribute]]] = {}
    for d, attr in zip(dims, mapping):
        space = _space_of(attr)
        if space is not None and space.axis == "linear":
            k = _linear_index(attr)
            linear.setdefault(space.level, []).append((k or 0, d, attr))
            continue
        groups.append(Group(space, [d], str(attr)))
    for level, entries in linear.items():
        # linear_dim_0 varies fastest, as in MLIR's mapping of linear ids.
        entries.sort(key=lambda e: -e[0])
        groups.insert(
            0,
            Group(
                Space(level, "linear"),
                [d for _, d, _ in entries],
                ", ".join(str(a) for _, _, a in entries),
            ),
        )
    levels = {g.space.level for g in groups if g.space is not None}
    if len({LEVEL_RANK[lv] for lv in levels}) > 1 or len(levels) > 1:
        raise XsplitError(
            f"distribute: one loop maps dimensions to different levels ({', '.join(sorted(levels))}); "
            "nest one loop per level",
            loop,
        )
    seen: set[Space] = set()
    for g in groups:
        if g.space is not None:
            if g.space in seen:
                raise XsplitError(f"distribute: two dimensions of one loop map to {g.space}", loop)
            seen.add(g.space)
    return groups


# ---------------------------------------------------------------------------
# Nests: consistency and linearization
# ---------------------------------------------------------------------------


_READ_ONLY_OPS = frozenset(
    {
        "affine.apply",
        "affine.min",
        "affine.max",
        "memref.load",
        "memref.dim",
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.expand_shape",
        "memref.collapse_shape",
        "tensor.dim",
        "tensor.empty",
        "tensor.extract_slice",
    }
)
"""Ops that write no memory though xDSL 0.74 declares no effects for them."""


def _writes_memory(op: Operation) -> bool:
    if op.name in _READ_ONLY_OPS or op.name.split(".")[0] in ("arith", "math", "index"):
        return False
    effects = get_effects(op)
    return effects is None or any(e.kind == MemoryEffectKind.WRITE for e in effects)


def _mapped_ancestor(op: Operation, stop: Operation | None) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent is not stop and not isinstance(parent, func.FuncOp):
        if is_mapped_loop(parent):
            return parent
        parent = parent.parent_op()
    return None


def check_nest(root: Operation, ranges: RangeAnalysis) -> None:
    """Every mapped loop inside `root` must map a level at or below its
    mapped ancestor's, and never cut threads into warps and threads at once."""
    for inner in root.walk():
        if inner is root or not is_mapped_loop(inner):
            continue
        outer = _mapped_ancestor(inner, None)
        if outer is None:
            continue
        try:
            outer_levels = {g.space.level for g in loop_groups(outer, ranges) if g.space}
            inner_levels = {g.space.level for g in loop_groups(inner, ranges) if g.space}
        except Unsupported:
            continue
        for o in outer_levels:
            for i in inner_levels:
                bad = (
                    LEVEL_RANK[i] < LEVEL_RANK[o]
                    or (LEVEL_RANK[i] == LEVEL_RANK[o] and i != o)
                    or (i == "lane" and o != "warp")
                )
                if bad:
                    where = location_of(outer) or "an enclosing loop"
                    raise XsplitError(
                        f"distribute: a loop mapped to {i}s is nested in a loop mapped to {o}s "
                        f"({where}): the nest maps the processor hierarchy inconsistently",
                        inner,
                    )


def _linearizable_inner(
    loop: Operation, groups: list[Group], ranges: RangeAnalysis, defined: set[SSAValue]
) -> tuple[Operation, list[Group]] | None:
    """A loop directly in `loop`'s body mapped to processors that one of
    `groups` is on, to be linearized with it, and its groups; None if there is
    none. Raises when such a loop exists but cannot be linearized. `defined`
    holds the values of the loops already linearized (ivs and body results);
    this loop's are added to it."""
    spaces = {g.space for g in groups if g.space is not None}
    _check_overlaps(loop, groups, ranges)
    body = loop.regions[0].block
    candidates = []
    for op in body.ops:
        if is_mapped_loop(op):
            try:
                inner_groups = loop_groups(op, ranges)
            except Unsupported:
                continue
            if {g.space for g in inner_groups} & spaces:
                candidates.append((op, inner_groups))
    # A same-space loop deeper inside cannot be merged, and distributing it on
    # its own would give each processor only the iterations whose ids match at
    # both levels.
    for op in body.ops:
        if any(c is op for c, _ in candidates):
            continue
        for nested in op.walk():
            if nested is op or not is_mapped_loop(nested):
                continue
            try:
                inner_groups = loop_groups(nested, ranges)
            except Unsupported:
                continue
            if {g.space for g in inner_groups} & spaces:
                between = _mapped_ancestor(nested, loop)
                where = (
                    "it is nested in control flow"
                    if between is None
                    else f"it is nested in the loop at {location_of(between) or 'an inner loop'}, "
                    "which maps other processors"
                )
                raise XsplitError(
                    f"distribute: cannot linearize this loop with the enclosing loop on the same "
                    f"processors: {where}",
                    nested,
                )
    if not candidates:
        return None
    if len(candidates) > 1:
        raise XsplitError(
            "distribute: cannot linearize two loops on the same processors into one enclosing loop",
            candidates[1][0],
        )
    inner, inner_groups = candidates[0]
    shared = ", ".join(str(g.space) for g in inner_groups if g.space in spaces)
    if isinstance(loop, ForallOp) and loop.outputs or isinstance(inner, ForallOp) and inner.outputs:
        raise XsplitError(
            "distribute: cannot linearize nested loops on the same processors that carry tensors; "
            "bufferize them first",
            inner,
        )
    for op in body.ops:
        if op is not inner and not isinstance(op, InParallelOp | scf.ReduceOp) and _writes_memory(op):
            raise XsplitError(
                f"distribute: cannot linearize the nested loop on {shared}: "
                f"'{op.name}' in the enclosing loop writes memory, and every iteration of the "
                "linearized loop would run it",
                op,
            )
    for op in body.ops:
        if op is not inner:
            defined.update(op.results)
    defined.update(body.args)
    for g in inner_groups:
        for d in g.dims:
            for bound in (d.lb, d.ub, d.step):
                if isinstance(bound, SSAValue) and bound in defined:
                    raise XsplitError(
                        "distribute: cannot linearize the nested loop: its bounds depend on the "
                        "enclosing loop",
                        inner,
                    )
    return inner, inner_groups


def _check_overlaps(loop: Operation, groups: list[Group], ranges: RangeAnalysis) -> None:
    """Refuses a loop inside `loop` on one axis of a level that `loop` maps
    by linear id, or the reverse: each processor would run only the
    iterations whose two ids agree, and the spaces differ, so the two cannot
    be linearized into one."""
    for nested in loop.walk():
        if nested is loop or not is_mapped_loop(nested):
            continue
        try:
            inner_groups = loop_groups(nested, ranges)
        except Unsupported:
            continue
        for outer in groups:
            for inner in inner_groups:
                a, b = outer.space, inner.space
                if a is None or b is None or a == b or a.level != b.level:
                    continue
                if "linear" in (a.axis, b.axis):
                    raise XsplitError(
                        f"distribute: this loop on {inner.attr} is nested in the loop at "
                        f"{location_of(loop) or 'an enclosing loop'} on {outer.attr}, and the "
                        "two share processors without being on the same ones: map both on "
                        "axes or both on linear ids",
                        nested,
                    )


def _linearize(
    outer: list[Group], inner: list[Group]
) -> tuple[list[Group], list[tuple[Group, Group]]]:
    """The groups of a nest run as one loop: on each space both loops use,
    the outer's iterations times the inner's, outer-major; the others as they
    are. Also the (outer, inner) pairs that were merged."""
    by_space = {g.space: g for g in inner if g.space is not None}
    merged: list[Group] = []
    pairs: list[tuple[Group, Group]] = []
    for g in outer:
        partner = by_space.pop(g.space, None) if g.space is not None else None
        if partner is None:
            merged.append(g)
            continue
        pairs.append((g, partner))
        merged.append(Group(g.space, g.dims + partner.dims, g.attr))
    merged += [g for g in inner if g.space is None or g.space in by_space]
    return merged, pairs


# ---------------------------------------------------------------------------
# Code emission
# ---------------------------------------------------------------------------


class Emitter(FoldingIndexArithmetic):
    """Index arithmetic that folds constants, so distributed code stays small."""

    def __init__(self, b: Builder):
        self.b = b
        # One constant per value per block: the builder only appends to one block.
        self._constants: dict[int, SSAValue] = {}

    def at(self, block: Block) -> Emitter:
        return Emitter(Builder(InsertPoint.at_end(block)))

    def val(self, x: Mixed) -> SSAValue:
        if isinstance(x, int):
            if x not in self._constants:
                op = arith.ConstantOp(IntegerAttr(x, IndexType()))
                self._constants[x] = self.b.insert(op).result
            return self._constants[x]
        return x

    index_value = val

    def affine(self, text: str, *operands: SSAValue) -> SSAValue:
        from xsplit.rewrites.dsl.builders import parse_map

        amap = parse_map(text)
        return self.b.insert(affine.ApplyOp(list(operands), AffineMapAttr(amap))).result

    def scale_add(self, x: Mixed, scale: Mixed, offset: Mixed) -> Mixed:
        """`x * scale + offset`."""
        if isinstance(x, int) and isinstance(scale, int) and isinstance(offset, int):
            return x * scale + offset
        if isinstance(scale, int) and isinstance(offset, int) and isinstance(x, SSAValue):
            if scale == 1 and offset == 0:
                return x
            return self.affine(f"(d0) -> (d0 * {scale} + {offset})", x)
        return self.add(self.mul(x, scale), offset)

    def floordiv(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if b == 1:
            return a
        return self.b.insert(arith.DivUIOp(self.val(a), self.val(b))).result

    def rem(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        return self.b.insert(arith.RemUIOp(self.val(a), self.val(b))).result

    def ceildiv(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return -(-a // b)
        if b == 1:
            return a
        return self.b.insert(arith.CeilDivUIOp(self.val(a), self.val(b))).result

    def min(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        return self.b.insert(arith.MinUIOp(self.val(a), self.val(b))).result

    def ult(self, a: Mixed, b: Mixed) -> SSAValue:
        return self.b.insert(arith.CmpiOp(self.val(a), self.val(b), "ult")).result


@dataclass
class Context:
    """Where the loops are (a kernel or a dispatch) and what is known of the launch."""

    dispatch: bool
    facts: LaunchFacts
    warp_size: int

    def count_range(self, space: Space) -> Range:
        sizes = self.facts.grid if space.level == "block" else self.facts.block
        if space.level == "lane":
            return Range.exactly(self.warp_size)
        if space.axis == "linear":
            out = Range.exactly(1)
            for r in sizes:
                out = out * r
        else:
            out = sizes[AXES.index(space.axis)]
        if space.level == "warp" and space.axis in ("x", "linear"):
            out = out.ceildiv(self.warp_size)
        return out

    def source(self, space: Space) -> str:
        if space.level == "lane":
            return "the warp size"
        src = self.facts.grid_source if space.level == "block" else self.facts.block_source
        return src or "the launch, unknown here"

    def _axis_id(self, e: Emitter, level: str, d: int) -> SSAValue:
        if level == "block":
            if self.dispatch:
                return e.b.insert(hal.InterfaceWorkgroupIDOp(d)).result
            return e.b.insert(gpu.BlockIdOp(AXES[d])).result
        return e.b.insert(gpu.ThreadIdOp(AXES[d])).result

    def _axis_count(self, e: Emitter, level: str, d: int) -> Mixed:
        sizes = self.facts.grid if level == "block" else self.facts.block
        if (n := sizes[d].constant) is not None:
            return n
        if level == "block":
            if self.dispatch:
                return e.b.insert(hal.InterfaceWorkgroupCountOp(d)).result
            return e.b.insert(gpu.GridDimOp(AXES[d])).result
        return e.b.insert(gpu.BlockDimOp(AXES[d])).result

    def ids(self, e: Emitter, space: Space) -> tuple[SSAValue | int, Mixed]:
        """This processor's id in the space, and the space's size."""
        level = "block" if space.level == "block" else "thread"
        if space.level == "lane":
            # Lanes are the x threads modulo the warp size, whatever the axis.
            return e.rem(self._axis_id(e, "thread", 0), self.warp_size), self.warp_size
        if space.axis == "linear":
            ident: Mixed = 0
            stride: Mixed = 1
            for d in range(3):
                n = self._axis_count(e, level, d)
                if n == 1:
                    continue
                ident = e.add(ident, e.mul(self._axis_id(e, level, d), stride))
                stride = e.mul(stride, n)
            count = stride
        else:
            d = AXES.index(space.axis)
            ident = self._axis_id(e, level, d)
            count = self._axis_count(e, level, d)
        if space.level == "warp" and space.axis in ("x", "linear"):
            ident = e.floordiv(ident, self.warp_size)
            count = e.ceildiv(count, self.warp_size)
        return ident, count


@dataclass
class Decision:
    strategy: str
    reason: str


def decide(group: Group, ctx: Context, requested: str) -> Decision:
    """The strategy for one group of dimensions, proven from ranges."""
    assert group.space is not None
    trips = group.trips()
    procs = ctx.count_range(group.space)
    facts = f"trip count {trips}, {procs} processors ({ctx.source(group.space)})"
    exact = trips.constant is not None and trips.constant == procs.constant
    over = trips.hi is not None and procs.lo is not None and procs.lo >= trips.hi
    if requested == "auto":
        if exact:
            return Decision("exact", f"trip count {trips} = {procs} processors ({ctx.source(group.space)}): no loop, no guard")
        if over:
            return Decision(
                "oversubscribed",
                f"trip count {trips} <= {procs} processors ({ctx.source(group.space)}): "
                "one iteration per processor under a guard",
            )
        if trips.lo is not None and procs.hi is not None and trips.lo > procs.hi:
            why = f"trip count {trips} > {procs} processors ({ctx.source(group.space)})"
        else:
            why = f"cannot prove trip count <= processor count ({facts})"
        return Decision("cyclic", f"{why}: a loop strided by the processor count")
    if requested == "exact" and not exact:
        raise Unproven(f"strategy=exact needs trip count = processor count, which is not proven: {facts}")
    if requested == "oversubscribed" and not (over or exact):
        raise Unproven(
            f"strategy=oversubscribed needs trip count <= processor count, which is not proven: {facts}"
        )
    return Decision(requested, f"as asked; {facts}")


class Unproven(Exception):
    pass


def _results_types(outs: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in outs]


@dataclass
class Distribution:
    """Everything needed to rebuild one loop (and a linearized inner one)."""

    loop: Operation
    groups: list[Group]
    decisions: list[Decision | None]
    ctx: Context
    chunk: int
    inners: list[Operation] = field(default_factory=list)
    """Loops linearized with `loop`, outermost first, each directly in the
    body of the one before."""

    def emit(self, e: Emitter, outs: list[SSAValue]) -> list[SSAValue]:
        return self._emit_group(e, 0, outs, {})

    def _emit_group(
        self, e: Emitter, i: int, outs: list[SSAValue], ivs: dict[SSAValue, Mixed]
    ) -> list[SSAValue]:
        if i == len(self.groups):
            return self._inline_body(e, outs, ivs)
        group, decision = self.groups[i], self.decisions[i]
        if group.space is None:
            d = group.dims[0]
            return self._for(e, d.lb, d.ub, d.step, outs, lambda ib, iv, o: self._emit_group(ib, i + 1, o, {**ivs, d.iv: iv}))
        assert decision is not None
        ident, count = self.ctx.ids(e, group.space)
        linear = len(group.dims) > 1
        trips: Mixed = 1
        if linear or decision.strategy in ("oversubscribed", "block-cyclic"):
            trips = self._trips(e, group)

        def body(ib: Emitter, index: Mixed, o: list[SSAValue]) -> list[SSAValue]:
            """Runs the iteration with this linear (or, for one dim, trip) index."""
            new = dict(ivs)
            if not linear:
                d = group.dims[0]
                new[d.iv] = ib.scale_add(index, d.step, d.lb)
            else:
                rest = index
                for d in reversed(group.dims):
                    if d is group.dims[0]:
                        k = rest
                    else:
                        n = self._dim_trips(ib, d)
                        k = ib.rem(rest, n)
                        rest = ib.floordiv(rest, n)
                    new[d.iv] = ib.scale_add(k, d.step, d.lb)
            return self._emit_group(ib, i + 1, o, new)

        strategy = decision.strategy
        if strategy == "exact":
            return body(e, ident, outs)
        if strategy == "oversubscribed":
            return self._if(e, e.ult(ident, trips), outs, lambda ib, o: body(ib, ident, o))
        if strategy == "cyclic":
            if not linear:
                d = group.dims[0]
                start = e.scale_add(ident, d.step, d.lb)
                stride = e.mul(count, d.step)
                return self._for(
                    e, start, d.ub, stride, outs,
                    lambda ib, iv, o: self._emit_group(ib, i + 1, o, {**ivs, d.iv: iv}),
                )
            return self._for(e, ident, trips, count, outs, body)
        # block-cyclic: blocks of `chunk` iterations, dealt out cyclically.
        chunk: Mixed = self.chunk or e.ceildiv(trips, count)
        first = e.mul(ident, chunk)
        stride = e.mul(count, chunk)

        def block_body(ib: Emitter, start: SSAValue, o: list[SSAValue]) -> list[SSAValue]:
            end = ib.min(ib.add(start, chunk), trips)
            return self._for(ib, start, end, 1, o, body)

        return self._for(e, first, trips, stride, outs, block_body)

    def _dim_trips(self, e: Emitter, d: LoopDim) -> Mixed:
        if (t := d.trips().constant) is not None:
            return t
        span = e.sub(d.ub, d.lb)
        low = (d.ub_range - d.lb_range).lo
        if low is None or low < 0:
            # ub < lb is an empty loop, not a huge unsigned trip count.
            span = e.b.insert(arith.MaxSIOp(e.val(span), e.val(0))).result
        return e.ceildiv(span, d.step)

    def _trips(self, e: Emitter, group: Group) -> Mixed:
        out: Mixed = 1
        for d in group.dims:
            out = e.mul(out, self._dim_trips(e, d))
        return out

    def _for(
        self,
        e: Emitter,
        lb: Mixed,
        ub: Mixed,
        step: Mixed,
        outs: list[SSAValue],
        body: Callable[[Emitter, SSAValue, list[SSAValue]], list[SSAValue]],
    ) -> list[SSAValue]:
        block = Block(arg_types=[IndexType(), *_results_types(outs)])
        inner = e.at(block)
        results = body(inner, block.args[0], list(block.args[1:]))
        inner.b.insert(scf.YieldOp(*results))
        loop = scf.ForOp(e.val(lb), e.val(ub), e.val(step), outs, Region(block))
        e.b.insert(loop)
        return list(loop.results)

    def _if(
        self,
        e: Emitter,
        cond: SSAValue,
        outs: list[SSAValue],
        body: Callable[[Emitter, list[SSAValue]], list[SSAValue]],
    ) -> list[SSAValue]:
        then = Block()
        inner = e.at(then)
        results = body(inner, outs)
        inner.b.insert(scf.YieldOp(*results))
        orelse = None
        if outs:
            orelse = Region(Block([scf.YieldOp(*outs)]))
        op = scf.IfOp(cond, _results_types(outs), Region(then), orelse)
        e.b.insert(op)
        return list(op.results)

    def _inline_ops(self, e: Emitter, block: Block) -> None:
        for op in list(block.ops):
            if isinstance(op, InParallelOp | scf.ReduceOp):
                continue
            if any(op is inner for inner in self.inners):
                self._inline_ops(e, op.regions[0].block)
                continue
            op.detach()
            e.b.insert(op)

    def _inline_body(self, e: Emitter, outs: list[SSAValue], ivs: dict[SSAValue, Mixed]) -> list[SSAValue]:
        loop = self.loop
        block = loop.regions[0].block
        for iv, value in ivs.items():
            iv.replace_all_uses_with(e.val(value))
        inserts: list[tuple[ParallelInsertSliceOp, int]] = []
        if isinstance(loop, ForallOp):
            shared = list(loop.region_outputs)
            for op in loop.terminator.body.block.ops:
                assert isinstance(op, ParallelInsertSliceOp)
                inserts.append((op, shared.index(op.dest)))
            for arg, value in zip(shared, outs):
                arg.replace_all_uses_with(value)
        self._inline_ops(e, block)
        results = list(outs)
        for pis, k in inserts:
            insert = tensor.InsertSliceOp.build(
                operands=[pis.source, results[k], pis.offsets, pis.sizes, pis.strides],
                properties={
                    "static_offsets": pis.static_offsets,
                    "static_sizes": pis.static_sizes,
                    "static_strides": pis.static_strides,
                },
                result_types=[results[k].type],
            )
            results[k] = e.b.insert(insert).result
        return results


# ---------------------------------------------------------------------------
# The pattern
# ---------------------------------------------------------------------------


def parse_sizes(sizes: tuple[int, ...]) -> list[int] | None:
    """A `grid`/`block` option as three sizes (missing ones are 1); None when not given."""
    if not sizes:
        return None
    return [*sizes, 1, 1, 1][:3]


def check_sizes(sizes: tuple[int, ...]) -> str | None:
    if not sizes:
        return None
    if len(sizes) > 3 or any(not isinstance(p, int) or isinstance(p, bool) or p <= 0 for p in sizes):
        return f"must be X[,Y[,Z]] with positive integers, got {','.join(map(str, sizes))}"
    return None


def _context(m: Match) -> Context:
    key = ("distribute-context", id(m.root))
    if key not in m.analyses:
        facts = launch_facts(
            m.root, parse_sizes(m.options["grid"]), parse_sizes(m.options["block"])
        )
        warp = m.options["warp_size"] or facts.subgroup_size or 32
        m.analyses[key] = Context(in_dispatch(m.root), facts, warp)
    return m.analyses[key]


def _plan(m: Match) -> bool | str:
    """Groups the loop's dimensions and proves a strategy for each."""
    loop = m.root
    ctx = _context(m)
    ranges = RangeAnalysis(ctx.facts)
    if isinstance(loop, scf.ParallelOp) and (loop.initVals or loop.res):
        m.captures["unsupported"] = "it has reductions"
        return "it has reductions"
    try:
        groups = loop_groups(loop, ranges)
    except Unsupported as e:
        m.captures["unsupported"] = str(e)
        return str(e)
    check_nest(loop, ranges)
    # A nest on shared processors becomes one loop, however deep: each level's
    # loop directly in the previous one's body.
    inners: list[Operation] = []
    current: Operation = loop
    defined: set[SSAValue] = set()
    while (found := _linearizable_inner(current, groups, ranges, defined)) is not None:
        inner, inner_groups = found
        groups, pairs = _linearize(groups, inner_groups)
        for outer_group, inner_group in pairs:
            remark(
                loop,
                f"distribute: linearized the nested loop at {location_of(inner) or 'its body'} "
                f"({inner_group.attr}) with this one ({outer_group.attr}) onto one processor space "
                f"{outer_group.space}: {outer_group.trips()} x {inner_group.trips()} iterations",
            )
        inners.append(inner)
        current = inner
    # Sequential dimensions of an scf.parallel run innermost.
    groups = [g for g in groups if g.space is not None] + [g for g in groups if g.space is None]
    decisions: list[Decision | None] = []
    for g in groups:
        if g.space is None:
            decisions.append(None)
            continue
        try:
            decision = decide(g, ctx, m.options["strategy"])
        except Unproven as e:
            raise XsplitError(f"distribute: {e}", loop) from None
        dims = "dimension" if len(g.dims) == 1 else "dimensions"
        remark(loop, f"distribute: {dims} on {g.attr}: {decision.strategy}: {decision.reason}")
        decisions.append(decision)
    m.captures["distribution"] = Distribution(
        loop, groups, decisions, ctx, m.options["chunk"], inners
    )
    return True


def _rewrite(m: Match, ir: IRBuilder) -> list[SSAValue]:
    plan: Distribution = m["distribution"]
    outs = list(plan.loop.outputs) if isinstance(plan.loop, ForallOp) else []
    results = plan.emit(Emitter(ir.b), outs)
    # Innermost first: each is inside the one before, and the engine must not
    # find a loop left in a dead block.
    for inner in reversed(plan.inners):
        inner.detach()
        inner.erase()
    return results


is_mapped = where("is a loop mapped to processors", lambda m: is_mapped_loop(m.root) or "it has no mapping")
plans = where("has a distribution proven right", _plan)

DISTRIBUTE_LOOP = Pattern(
    name="distribute-mapped-loop",
    doc="turns an scf.forall or scf.parallel mapped to processors into SPMD code over processor ids",
    root=[ForallOp, scf.ParallelOp],
    where=is_mapped & plans,
    rewrite=_rewrite,
    options=("strategy", "chunk", "grid", "block", "warp_size"),
    # Loops nested in a distributed loop move with its body and are
    # distributed in their turn: the family must not shield them.
    family="distribute",
)

def _unsupported_message(m: Match) -> str:
    return f"distribute: loop left as it is: {m.captures.get('unsupported', 'unsupported mapping')}"


def _is_unsupported(m: Match) -> bool | str:
    if not is_mapped_loop(m.root):
        return "not mapped"
    ranges = RangeAnalysis(_context(m).facts)
    if isinstance(m.root, scf.ParallelOp) and (m.root.initVals or m.root.res):
        m.captures["unsupported"] = "it has reductions"
        return True
    try:
        loop_groups(m.root, ranges)
    except Unsupported as e:
        m.captures["unsupported"] = str(e)
        return True
    return "supported"


UNSUPPORTED_LOOP = Remark(
    name="distribute-unsupported",
    doc="says why a mapped loop is left as it is",
    root=[ForallOp, scf.ParallelOp],
    where=where("has a mapping distribute does not handle", _is_unsupported),
    message=_unsupported_message,
    family="distribute",
)

OPTIONS = (
    Option("strategy", str, "auto", "how iterations go to processors", choices=STRATEGIES),
    Option(
        "chunk",
        int,
        0,
        "iterations per block for block-cyclic (0: ceildiv(trip count, processors))",
        check=lambda v: None if v >= 0 else f"must not be negative, got {v}",
    ),
    Option("grid", tuple, (), "the launch grid, X[,Y[,Z]] blocks", check=check_sizes),
    Option("block", tuple, (), "the block size, X[,Y[,Z]] threads", check=check_sizes),
    Option("warp_size", int, 0, "threads per warp (0: the kernel's subgroup size, else 32)",
           check=lambda v: None if v >= 0 else f"must not be negative, got {v}"),
)

DISTRIBUTE = Pass(
    "distribute",
    "Turns parallel loops mapped to processors into SPMD code over processor ids.",
    [UNSUPPORTED_LOOP, DISTRIBUTE_LOOP],
    OPTIONS,
)
