"""The grouped-GEMM route to split-K (the seed's solution 1), and its lowering.

- `split-k{strategy=grouped}` turns a reduction into one
  `linalg_ext.split_grouped_gemm` over K-groups, on partials filled with the
  combiner's identity, and merges them with `rock.reduce` into the original
  init, so the init is counted exactly once.
- Materializing the grouped op gives the `scf.forall` over groups that IREE
  distributes: late (`materialize-late`, inside the dispatch formed around the
  op) or early (`materialize-early`, at graph level before dispatches form).
- `rock.reduce` becomes a `linalg.reduce`, which IREE compiles
  (`encoding/lower_rock_reduce.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import CopyOp, FillOp, GenericOp, ReduceOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xsplit.analysis.reduction import Reduction, identity_value
from xsplit.attr_names import mark_split_part
from xsplit.dialects.flow import ReturnOp
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.linalg import BatchMatmulOp, MatmulOp, MatvecOp, VecmatOp
from xsplit.dialects.op_helpers import dense_i64
from xsplit.dialects.rock import ReduceMethod
from xsplit.dialects.rock import ReduceOp as RockReduceOp
from xsplit.dialects.scf import ForallOp, InParallelOp
from xsplit.dialects.tensor import ParallelInsertSliceOp
from xsplit.dialects.xsplit_linalg_ext import SplitGroupedGemmOp
from xsplit.rewrites.dispatch.form_dispatch_regions import is_graph_level, new_dispatch_region
from xsplit.rewrites.dsl import Constraint, Match, Pattern, Template, ceildiv, dim, option, where
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.structure import arguments, operands, region_ops, the_value
from xsplit.rewrites.dsl.builders import IRBuilder, Mixed
from xsplit.rewrites.split.chunks import (
    CHUNK,
    FULL,
    TAIL,
    ChunkPlan,
    K,
    StaticChunks,
    capture_reduction_operands,
    chunk_bounds,
    static_chunks,
)
from xsplit.rewrites.split.static_chunks import combiner


def _keep_dim_groups(rank: int) -> ArrayAttr:
    """Reassociation adding a leading unit dimension: [[0, 1], [2], ...]."""
    groups = [[0, 1]] + [[d + 1] for d in range(1, rank)]
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])


def with_leading_unit(ir: IRBuilder, value: SSAValue) -> SSAValue:
    """`tensor.expand_shape` of a tensor to one with a leading dimension of 1."""
    t = value.type
    assert isinstance(t, TensorType)
    sizes: list[Mixed] = [1, *ir.sizes_of(value)]
    static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    return ir.b.insert(
        tensor.ExpandShapeOp(
            value,
            [s for s in sizes if not isinstance(s, int)],
            _keep_dim_groups(t.get_num_dims()),
            static,
            TensorType(t.element_type, static),
        )
    ).result


def without_leading_unit(ir: IRBuilder, value: SSAValue) -> SSAValue:
    t = value.type
    assert isinstance(t, TensorType)
    return ir.b.insert(
        tensor.CollapseShapeOp.build(
            operands=[value],
            result_types=[TensorType(t.element_type, t.get_shape()[1:])],
            properties={"reassociation": _keep_dim_groups(t.get_num_dims() - 1)},
        )
    ).results[0]


ROCK_METHODS: dict[type[Operation], ReduceMethod] = {
    arith.AddfOp: ReduceMethod.SUM,
    arith.AddiOp: ReduceMethod.SUM,
    arith.MaximumfOp: ReduceMethod.MAX,
    arith.MaxSIOp: ReduceMethod.MAX,
}
"""The combiners a rock.reduce merge (and its lowering) reproduces exactly;
unsigned or NaN-ignoring max are not among them."""


def split_with_grouped_gemm(
    red: Reduction, plan: ChunkPlan, k: int | None, ir: IRBuilder
) -> SSAValue:
    """The grouped op over partials of the combiner's identity, then a
    `rock.reduce` of the partials into the original init."""
    assert plan.count is not None
    element = red.acc_type.element_type
    identity = ir.constant(identity_value(red.combiner, element))
    identity.name_hint = "identity"
    out_sizes = ir.sizes_of(red.init)
    count = plan.count
    if k is not None:
        # Groups of one static size and a shorter last one, which
        # materializing makes a static loop and a tail.
        static = static_chunks(plan, k)
        groups: dict[str, object] = {"group_offsets": _group_offsets(static, k)}
        count = static.count
    else:
        groups = {"group_count": plan.count, "balanced": plan.balanced}
    partials_init = ir.fill(identity, ir.empty([count, *out_sizes], element))
    partials_init.name_hint = "partials_init"
    iterators = [
        _iterator("reduction" if d == red.reduction_dim else "parallel")
        for d in range(red.num_loops)
    ]
    grouped = ir.b.insert(
        SplitGroupedGemmOp(
            red.inputs,
            partials_init,
            red.body(),
            [*red.input_maps, red.output_map],
            iterators,
            **groups,  # type: ignore[arg-type]
        )
    )
    grouped.result.name_hint = "partials"
    method = ROCK_METHODS[red.combiner]
    merged = ir.b.insert(RockReduceOp(method, grouped.result, with_leading_unit(ir, red.init), 0))
    merged.result.name_hint = "merged"
    return without_leading_unit(ir, merged.result)


def _iterator(kind: str) -> IteratorTypeAttr:
    return IteratorTypeAttr.parallel() if kind == "parallel" else IteratorTypeAttr.reduction()


def _static_bound(plan: ChunkPlan, s: int, k: int) -> int:
    """Where group s starts along a static K (s = count gives K)."""
    assert plan.count is not None
    if plan.balanced:
        return (s * k) // plan.count
    tile = plan.tile if plan.tile is not None else ceildiv(k, plan.count)
    return min(s * tile, k)


def _plan_of(op: SplitGroupedGemmOp, k: int | None) -> ChunkPlan | None:
    """The chunk plan whose bounds are the op's groups, if they have one."""
    count = op.num_groups()
    if op.group_offsets is None:
        return ChunkPlan(count, balanced=op.balanced is not None)
    assert k is not None
    offsets = list(op.group_offsets.get_values())
    for plan in (ChunkPlan(count, balanced=True), ChunkPlan(count, tile=offsets[1] or 1)):
        if [_static_bound(plan, s, k) for s in range(count + 1)] == offsets:
            return plan
    return None


def _group_bounds(
    ir: IRBuilder, op: SplitGroupedGemmOp, s: SSAValue, k: Mixed
) -> tuple[Mixed, Mixed]:
    plan = _plan_of(op, k if isinstance(k, int) else None)
    if plan is not None:
        return chunk_bounds(ir, plan, s, k)
    # Arbitrary offsets: look them up in a constant table.
    assert op.group_offsets is not None
    offsets = list(op.group_offsets.get_values())
    table_type = TensorType(IndexType(), [len(offsets)])
    table = ir.constant(DenseIntOrFPElementsAttr.from_list(table_type, offsets))
    next_s = ir.apply("(d0) -> (d0 + 1)", s)
    lo = ir.b.insert(tensor.ExtractOp(table, [s], IndexType())).result
    hi = ir.b.insert(tensor.ExtractOp(table, [next_s], IndexType())).result
    return lo, ir.apply("(d0, d1) -> (d1 - d0)", lo, hi)


def _uniform_with_tail(op: SplitGroupedGemmOp, k: Mixed) -> tuple[int, int] | None:
    """(chunk, full) where a static K's groups are `full` of one size and a
    shorter last one (split-k's static plans), else None."""
    if op.group_offsets is None or not isinstance(k, int):
        return None
    offsets = list(op.group_offsets.get_values())
    chunk = offsets[1]
    full = len(offsets) - 2
    if chunk == 0 or offsets[:-1] != [s * chunk for s in range(full + 1)]:
        return None
    if not 0 < k - offsets[-2] < chunk:
        return None
    return chunk, full


def materialize_grouped_gemm(
    op: SplitGroupedGemmOp, ir: IRBuilder, tail_ir: IRBuilder | None = None
) -> SSAValue:
    """An `scf.forall` over the groups, mapped for IREE to distribute: group s
    reads its chunk of each input and `init[s]`, and writes result[s]. With
    `tail_ir`, groups of one static size and a shorter last one (split-k's
    plans on a static K) are a loop over the full groups, and the last group
    is computed at `tail_ir` and written into its slot: no group then has a
    dynamic size (IREE 3.13's CUDA code for a dynamic-K matmul can be wrong,
    and has no K tile)."""
    maps = op.maps
    init_type = op.init.type
    assert isinstance(init_type, TensorType)
    count = op.num_groups()
    input_sizes = [ir.sizes_of(v) for v in op.inputs]
    k = _k_of(op, input_sizes)
    out_sizes = ir.sizes_of(op.init)[1:]
    empty = ir.empty([count, *out_sizes], init_type.element_type)
    empty.name_hint = "partials_init"
    static = _uniform_with_tail(op, k) if tail_ir is not None else None

    body = Block(arg_types=[IndexType(), empty.type])
    s, shared = body.args
    s.name_hint, shared.name_hint = "group", "partials_out"
    inner = IRBuilder(Builder(InsertPoint.at_end(body)))
    if static is not None:
        offset: Mixed = inner.apply(f"(d0) -> (d0 * {static[0]})", s)
        size: Mixed = static[0]
    else:
        offset, size = _group_bounds(inner, op, s, k)
    slot = ([s] + [0] * len(out_sizes), [1, *out_sizes])
    # Each group accumulates into its own slot of the loop's output, which IREE
    # can write in place; a slice of a read-only input would be copied to the
    # stack.
    own_slot = inner.extract_slice(shared, *slot, drop_dims=[0])
    partial = _group_partial(op, inner, offset, size, input_sizes, own_slot, slot)
    body.add_op(InParallelOp([ParallelInsertSliceOp(partial, shared, *slot)]))
    loop_count = count if static is None else static[1]
    forall = ir.b.insert(
        ForallOp(
            [0], [loop_count], [1], [empty], Region(body), mapping=[SplitReductionMappingAttr(0)]
        )
    )
    forall.results[0].name_hint = "partials"
    if static is None:
        return forall.results[0]
    assert tail_ir is not None and isinstance(k, int)
    chunk, full = static
    # Sizes read again where the tail goes: `ir` may build inside a dispatch.
    tail_sizes = [tail_ir.sizes_of(v) for v in op.inputs]
    tail_out = tail_ir.sizes_of(op.init)[1:]
    tail_slot = ([full] + [0] * len(tail_out), [1, *tail_out])
    fresh = tail_ir.empty(tail_out, init_type.element_type)
    tail = _group_partial(
        op, tail_ir, full * chunk, k - full * chunk, tail_sizes, fresh, tail_slot, "tail"
    )
    tail_ir.b.insert(tail.owner)  # type: ignore[arg-type]
    mark_split_part(tail.owner, "tail")  # type: ignore[arg-type]
    tail.name_hint = "tail"
    return _insert_slot(tail_ir, tail, forall.results[0], tail_slot)


def _k_of(op: SplitGroupedGemmOp, input_sizes: list[list[Mixed]]) -> Mixed:
    r = op.reduction_dim
    return next(
        sizes[pos]
        for sizes, m in zip(input_sizes, op.maps)
        for pos, e in enumerate(m.results)
        if isinstance(e, AffineDimExpr) and e.position == r
    )


def _group_partial(
    op: SplitGroupedGemmOp,
    ir: IRBuilder,
    offset: Mixed,
    size: Mixed,
    input_sizes: list[list[Mixed]],
    own_slot: SSAValue,
    slot: tuple[list, list],
    part: str | None = None,
) -> SSAValue:
    """One group's partial into `own_slot` (the group's `slot` of the
    partials), from its slot of the init. The partial is inserted at `ir`
    inside a loop and returned detached (its owner) for a tail."""
    r = op.reduction_dim
    chunks: list[SSAValue] = []
    for value, m, full in zip(op.inputs, op.maps, input_sizes):
        on_k = [isinstance(e, AffineDimExpr) and e.position == r for e in m.results]
        if not any(on_k):
            chunks.append(value)
            continue
        chunk = ir.extract_slice(
            value,
            [offset if x else 0 for x in on_k],
            [size if x else f for x, f in zip(on_k, full)],
        )
        if part is not None:
            mark_split_part(chunk.owner, part)  # type: ignore[arg-type]
            chunk.name_hint = f"{value.name_hint or 'input'}_{part}"
        chunks.append(chunk)
    # A fill of the init is redone per slot; any other init is copied in.
    fill = op.init.owner
    if isinstance(fill, FillOp):
        acc = ir.fill(fill.inputs[0], own_slot)
        # IREE 3.13's CPU pipeline puts a filled slot of a linalg.generic, or a
        # copied-in slot of a named op, on the stack; the other two pairs work.
        named = _named_partial(op, chunks, acc)
    else:
        init_slot = ir.extract_slice(op.init, *slot, drop_dims=[0])
        acc = ir.b.insert(CopyOp([init_slot], [own_slot], [own_slot.type])).results[0]
        named = None
    if part is not None:
        mark_split_part(acc.owner, part)  # type: ignore[arg-type]
    acc.name_hint = "group_init" if part is None else f"{part}_init"
    partial = named or GenericOp(
        chunks, [acc], op.body.clone(), op.indexing_maps.data, op.iterator_types.data, [acc.type]
    )
    partial.results[0].name_hint = "partial"
    if part is None:
        ir.b.insert(partial)
    return partial.results[0]


def _insert_slot(
    ir: IRBuilder, value: SSAValue, into: SSAValue, slot: tuple[list, list]
) -> SSAValue:
    """`value` written into `slot` of `into` (a leading unit dimension dropped)."""
    offsets, sizes = slot
    static_sizes = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    insert = ir.b.insert(
        tensor.InsertSliceOp.get(
            value,
            into,
            static_offsets=offsets,
            static_sizes=static_sizes,
            static_strides=[1] * len(sizes),
            sizes=[s for s in sizes if not isinstance(s, int)],
        )
    )
    mark_split_part(insert, "tail")
    insert.result.name_hint = "partials_with_tail"
    return insert.result


def _body_signature(region: Region) -> list[tuple[str, tuple]]:
    return [(o.name, tuple(r.type for r in o.results)) for o in region.block.ops]


def _named_partial(
    op: SplitGroupedGemmOp, chunks: list[SSAValue], acc: SSAValue
) -> Operation | None:
    """The group's partial as the named op the grouped op came from, when its
    maps and body are that op's: IREE compiles named ops better, and 3.13 puts
    a filled slot of a linalg.generic on the CPU stack."""
    maps = op.maps
    for cls in (MatmulOp, BatchMatmulOp, MatvecOp, VecmatOp):
        if maps == list(cls.DEFAULT_MAPS):
            named = cls(chunks, [acc])
            if _body_signature(named.regions[0]) == _body_signature(op.body):
                return named
    r = op.reduction_dim
    identity = AffineMap.identity(maps[0].num_dims)
    dropped = tuple(e for i, e in enumerate(identity.results) if i != r)
    if len(chunks) == 1 and maps == [identity, AffineMap(identity.num_dims, 0, dropped)]:
        return ReduceOp(chunks[0], acc, dense_i64([r]), op.body.clone())
    return None


__all__: Sequence[str] = [
    "materialize_grouped_gemm",
    "split_with_grouped_gemm",
]


# Patterns.


def _grouped_applies(m: Match) -> bool | str:
    red: Reduction = m["red"]
    plan: ChunkPlan = m["plan"]
    if plan.count is None:
        return "the group count is dynamic (tile= with a dynamic K)"
    if red.arg is not None:
        return "rock.reduce merges one result, not a value and its index"
    if not red.simple:
        return "the grouped op takes one reduction loop and projected-permutation maps"
    if red.combiner not in ROCK_METHODS:
        return "rock.reduce merges only sum and max"
    if red.acc_type.get_num_dims() == 0:
        return "the result is a scalar"
    return True


grouped_applies = where("a grouped op and rock.reduce can express the split", _grouped_applies)


GROUPED_MATMUL = Template(
    """
%identity = arith.constant $identity
%0 = tensor.empty() : $partials_type
%partials_init = linalg.fill ins(%identity : $c.element_type) outs(%0 : $partials_type) -> $partials_type
%partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: $offsets>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins($a, $b : $a.type, $b.type) outs(%partials_init : $partials_type) {
^bb0(%1: $c.element_type, %2: $c.element_type, %3: $c.element_type):
  %4 = arith.mulf %1, %2 : $c.element_type
  %5 = arith.addf %3, %4 : $c.element_type
  linalg.yield %5 : $c.element_type
} -> $partials_type
%6 = tensor.expand_shape $c [[0, 1], [2]] output_shape [1, $m, $n] : $c.type into $c_row
%merged = rock.reduce sum %partials into %6 {axis = 0 : index} : $partials_type into $c_row -> $c_row
%7 = tensor.collapse_shape %merged [[0, 1], [2]] : $c_row into $c.type
""",
    identity=lambda m: identity_value(combiner(m), m["c"].type.element_type),
    offsets=lambda m: _group_offsets(StaticChunks(CHUNK(m), FULL(m), TAIL(m)), K(m)),
    m=dim("M"),
    n=dim("N"),
    partials_type=lambda m: TensorType(
        m["c"].type.element_type, [ceildiv(K, CHUNK)(m), dim("M")(m), dim("N")(m)]
    ),
    c_row=lambda m: TensorType(m["c"].type.element_type, [1, *m["c"].type.get_shape()]),
)
"""A static matmul of one float type: the grouped op over groups of one
static size and a shorter last one, from partials of 0, then a `rock.reduce`
sum into C given a unit leading dimension."""


GROUPED_BATCH_MATMUL = Template(
    """
%identity = arith.constant $identity
%0 = tensor.empty() : $partials_type
%partials_init = linalg.fill ins(%identity : $c.element_type) outs(%0 : $partials_type) -> $partials_type
%partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: $offsets>, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins($a, $b : $a.type, $b.type) outs(%partials_init : $partials_type) {
^bb0(%1: $c.element_type, %2: $c.element_type, %3: $c.element_type):
  %4 = arith.mulf %1, %2 : $c.element_type
  %5 = arith.addf %3, %4 : $c.element_type
  linalg.yield %5 : $c.element_type
} -> $partials_type
%6 = tensor.expand_shape $c [[0, 1], [2], [3]] output_shape [1, $batch, $m, $n] : $c.type into $c_row
%merged = rock.reduce sum %partials into %6 {axis = 0 : index} : $partials_type into $c_row -> $c_row
%7 = tensor.collapse_shape %merged [[0, 1], [2], [3]] : $c_row into $c.type
""",
    identity=lambda m: identity_value(combiner(m), m["c"].type.element_type),
    offsets=lambda m: _group_offsets(StaticChunks(CHUNK(m), FULL(m), TAIL(m)), K(m)),
    batch=dim("B"),
    m=dim("M"),
    n=dim("N"),
    partials_type=lambda m: TensorType(
        m["c"].type.element_type,
        [ceildiv(K, CHUNK)(m), dim("B")(m), dim("M")(m), dim("N")(m)],
    ),
    c_row=lambda m: TensorType(m["c"].type.element_type, [1, *m["c"].type.get_shape()]),
)
"""`GROUPED_MATMUL` for a `linalg.batch_matmul`: the groups lead the
partials, each group every batch."""


def _group_offsets(static: StaticChunks, k: int) -> list[int]:
    """Where each group starts, and K: a shorter last group is the tail."""
    return [s * static.chunk for s in range(static.full + 1)] + ([k] if static.tail else [])


def _wrap_and_materialize_grouped(m: Match, ir: IRBuilder) -> list[SSAValue]:
    """`flow.dispatch.region { the grouped op's loop; flow.return }`: the op is
    materialized as the region forms, while its init is still the fill outside."""
    op = m.root
    assert isinstance(op, SplitGroupedGemmOp)
    init_type = op.init.type
    assert isinstance(init_type, TensorType)
    dims = [
        ir.dim(op.init, d) for d, size in enumerate(init_type.get_shape()) if size == DYNAMIC_INDEX
    ]
    body = Block()
    inside = IRBuilder(Builder(InsertPoint.at_end(body)))
    # The last group of a static K runs beside the dispatch, in its own.
    tail = Block()
    result = materialize_grouped_gemm(op, inside, IRBuilder(Builder(InsertPoint.at_end(tail))))
    insert = tail.last_op
    if insert is None:
        body.add_op(ReturnOp(result))
        return [ir.b.insert(new_dispatch_region([init_type], Region(body), dims)).results[0]]
    assert isinstance(insert, tensor.InsertSliceOp)
    body.add_op(ReturnOp(insert.dest))
    region = ir.b.insert(new_dispatch_region([init_type], Region(body), dims))
    insert.operands[1] = region.results[0]
    for tail_op in list(tail.ops):
        tail_op.detach()
        ir.b.insert(tail_op)
    return [insert.result]


WRAP_GROUPED_GEMM = Pattern(
    name="materialize-grouped-gemm-in-dispatch-region",
    doc="forms a flow.dispatch.region around a graph-level grouped GEMM, holding "
    "its distributed scf.forall",
    root=SplitGroupedGemmOp,
    where=is_graph_level,
    rewrite=_wrap_and_materialize_grouped,
)

MATERIALIZE_GROUPED_IN_DISPATCH = Pattern(
    name="materialize-grouped-gemm-in-dispatch",
    doc="turns a linalg_ext.split_grouped_gemm inside a dispatch into the distributed scf.forall",
    root=SplitGroupedGemmOp,
    where=~is_graph_level,
    rewrite=lambda m, ir: [materialize_grouped_gemm(m.root, ir)],  # type: ignore[arg-type]
)

MATERIALIZE_GROUPED_EARLY = Pattern(
    name="materialize-grouped-gemm-early",
    doc="turns a graph-level linalg_ext.split_grouped_gemm into the scf.forall form",
    root=SplitGroupedGemmOp,
    where=is_graph_level,
    rewrite=lambda m, ir: [materialize_grouped_gemm(m.root, ir, ir)],  # type: ignore[arg-type]
)


# Any reduction of static shapes that the grouped op takes, as a template:
# its maps, loops and inputs are lists from the reduction, its body the op's own.


def _red(m: Match) -> Reduction:
    return m["red"]


def _static_groups(m: Match) -> StaticChunks:
    return static_chunks(m["plan"], m["k"])


def _grouped_partials(m: Match) -> TensorType:
    """A partial per group, ahead of the init's dimensions."""
    c = m["c"].type
    return TensorType(c.element_type, [_static_groups(m).count, *c.get_shape()])


def _grouped_maps(m: Match) -> list[AffineMapAttr]:
    red = _red(m)
    return [AffineMapAttr(x) for x in (*red.input_maps, red.output_map)]


def _grouped_iterators(m: Match) -> list[IteratorTypeAttr]:
    red = _red(m)
    return [_iterator("reduction" if d == red.reduction_dim else "parallel") for d in range(red.num_loops)]


def _unit_row_groups(m: Match) -> list[list[int]]:
    """The init given a leading unit dimension: [[0, 1], [2], ...]."""
    rank = m["c"].type.get_num_dims()
    return [[0, 1]] + [[d + 1] for d in range(1, rank)]


GROUPED_REDUCTION = CloningTemplate(
    """
%identity = arith.constant $identity
%0 = tensor.empty() : $partials_type
%partials_init = linalg.fill ins(%identity : $c.element_type) outs(%0 : $partials_type) -> $partials_type
%partials = linalg_ext.split_grouped_gemm {group_offsets = array<i64: $offsets>, indexing_maps = [$maps], iterator_types = [$iterators]} ins($ins : $ins.type) outs(%partials_init : $partials_type) {
^bb0(${j in $body_args: %9$j: $body_args[$j].type}):
  %8:1 = $clone $body.ops replacing $body_args with %9 yielding $yielded
  linalg.yield %8#0 : $c.element_type
} -> $partials_type
%6 = tensor.expand_shape $c [$unit_row] output_shape [1, $c_shape] : $c.type into $c_row
%merged = rock.reduce $method %partials into %6 {axis = 0 : index} : $partials_type into $c_row -> $c_row
%7 = tensor.collapse_shape %merged [$unit_row] : $c_row into $c.type
""",
    identity=lambda m: identity_value(_red(m).combiner, m["c"].type.element_type),
    offsets=lambda m: _group_offsets(_static_groups(m), m["k"]),
    partials_type=_grouped_partials,
    maps=_grouped_maps,
    iterators=_grouped_iterators,
    unit_row=_unit_row_groups,
    c_shape=lambda m: list(m["c"].type.get_shape()),
    c_row=lambda m: TensorType(m["c"].type.element_type, [1, *m["c"].type.get_shape()]),
    method=lambda m: ROCK_METHODS[_red(m).combiner].value,
)
"""Any reduction the grouped op takes, static shapes: the grouped op over
groups of one static size and a shorter last one, on the op's inputs, maps
and body, from partials of the combiner's identity, then a `rock.reduce`
into the init given a unit leading dimension."""


def grouped_static_pattern(
    options: list[str], splits_by_grouped: Constraint, roots: tuple[str, ...]
) -> Pattern:
    """`split-k-grouped-static`, declared before the builder pattern it
    specializes, `split-k-grouped` (which keeps a dynamic K or size and
    `target=`)."""
    from xsplit.rewrites.split.memo import shape

    return Pattern(
        name="split-k-grouped-static",
        doc="any reduction of static shapes the grouped op takes: one "
        "linalg_ext.split_grouped_gemm over K-groups, the op's body in it, then a rock.reduce "
        "merge (grouped.GROUPED_REDUCTION, the IR as a template)",
        root=roots,
        where=splits_by_grouped
        & ~option("target").is_set()
        & operands().each(the_value.has_static_shape())
        & where("its inputs and init are captured", capture_reduction_operands, pure=True)
        & region_ops(0, "body", yielded="yielded")
        & arguments().capture("body_args"),
        rewrite=GROUPED_REDUCTION,
        benefit=2,
        options=options,
        family="split-k",
        memo=shape,
    )
