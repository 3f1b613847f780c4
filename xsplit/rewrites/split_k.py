"""`split-k`: rewrites a reduction into partial reductions over K-chunks and a
merge, for any K, whether or not the factor divides it.

```
%r = linalg.matmul ins(%A, %B) outs(%C)
```
becomes, with `strategy=forall` (the seed's solution 2):
```
%partials = scf.forall (%s) in (S) shared_outs(%p = %empty) {
  ... chunk s of K: offset, size ...
  %acc = linalg.fill ins(%identity) outs(slice s of %p)
  %part = linalg.matmul ins(chunk s of %A, chunk s of %B) outs(%acc)
  scf.forall.in_parallel { tensor.parallel_insert_slice %part into %p[..., %s] }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
%r = linalg.reduce ins(%partials) outs(%C) dimensions = [last]
```
The merge folds the partials into the original init, so `C + A*B` stays right.
With `strategy=expand` (the seed's first IR, for factors that divide K) the
operands are reshaped with `tensor.expand_shape` and the reduction becomes one
`linalg.generic` with a parallel chunk loop.

Chunks: `tile=T` makes chunks of T with a shorter last one; `factor=S` makes
S chunks of ceil(K/S); `balanced=true` makes chunk sizes differ by at most one
(chunk s covers [floor(s*K/S), floor((s+1)*K/S))). `target=NAME` lets the cost
model (`cost_model`) choose a balanced chunk count for that target, or leave
the op whole, and records the count as `xsplit.split_factor` on the op that
computes the partials. With none of these the default rule applies
(`default_plan`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xsplit.diagnostics import remark
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.linalg import ContractionOp
from xsplit.dialects.scf import ForallOp, InParallelOp
from xsplit.dialects.tensor import ParallelInsertSliceOp
from xsplit.dialects.utils import dense_i64
from xsplit.interop.targets import TARGETS, Target, target
from xsplit.rewrites.builders import IRBuilder, Mixed
from xsplit.rewrites.chunks import ChunkPlan, chunk_bounds, plan_chunks
from xsplit.rewrites.cost_model import choose_split, problem_of
from xsplit.rewrites.dsl import (
    Match,
    Option,
    Pass,
    Pattern,
    Remark,
    divides,
    option,
    positive,
    where,
)
from xsplit.rewrites.grouped import grouped_applies, split_with_grouped_gemm
from xsplit.rewrites.reduction import (
    Reduction,
    identity_value,
    match_reduction,
)


def _slice_along_k(
    ir: IRBuilder,
    red: Reduction,
    offset: Mixed,
    size: Mixed,
    sizes_of: Sequence[list[Mixed]],
) -> list[SSAValue]:
    """Each input cut to one chunk of the reduction loop."""
    slices: list[SSAValue] = []
    for value, m, full in zip(red.inputs, red.input_maps, sizes_of):
        on_k = [isinstance(e, AffineDimExpr) and e.position == red.reduction_dim for e in m.results]
        if not any(on_k):
            slices.append(value)
            continue
        offsets = [offset if k else 0 for k in on_k]
        sizes = [size if k else f for k, f in zip(on_k, full)]
        chunk = ir.extract_slice(value, offsets, sizes)
        if value.name_hint:
            chunk.name_hint = f"{value.name_hint}_chunk"
        slices.append(chunk)
    return slices


def _merge(red: Reduction, partials: SSAValue, builder: Builder) -> SSAValue:
    """`linalg.reduce` of the partials over their last dimension into the init."""
    element = red.acc_type.element_type
    region = Region(Block(arg_types=[element, element]))
    block = region.block
    combine = red.combiner(block.args[0], block.args[1])
    block.add_ops([combine, linalg.YieldOp(combine.results[0])])
    rank = red.acc_type.get_num_dims()
    reduce = builder.insert(linalg.ReduceOp(partials, red.init, dense_i64([rank]), region))
    reduce.results[0].name_hint = "merged"
    return reduce.results[0]


def _name(value: Mixed, hint: str) -> None:
    if isinstance(value, SSAValue):
        value.name_hint = hint


def split_with_forall(red: Reduction, plan: ChunkPlan, ir: IRBuilder) -> SSAValue:
    """The seed's solution 2: an `scf.forall` over chunks, then the merge."""
    op = red.op
    builder = ir.b
    element = red.acc_type.element_type
    identity = ir.constant(identity_value(red.combiner, element))
    identity.name_hint = "identity"
    input_sizes = [ir.sizes_of(v) for v in red.inputs]
    out_sizes = ir.sizes_of(red.init)
    i, j = red.k_operand()
    k: int | SSAValue = input_sizes[i][j]
    if plan.count is not None:
        count: Mixed = plan.count
    else:
        assert plan.tile is not None and not isinstance(k, int)
        count = ir.apply(f"()[s0] -> (s0 ceildiv {plan.tile})", k)
    partials = ir.empty([*out_sizes, count], element)
    partials.name_hint = "partials_init"
    rank = len(out_sizes)

    body = Block(arg_types=[IndexType(), partials.type])
    s, shared = body.args
    s.name_hint, shared.name_hint = "chunk", "partials_out"
    inner = IRBuilder(Builder(InsertPoint.at_end(body)))
    offset, size = chunk_bounds(inner, plan, s, k)
    _name(offset, "chunk_offset")
    _name(size, "chunk_size")
    slices = _slice_along_k(inner, red, offset, size, input_sizes)
    slot = ([0] * rank + [s], [*out_sizes, 1])
    acc = inner.fill(identity, inner.extract_slice(shared, *slot, drop_dims=[rank]))
    acc.name_hint = "partial_init"
    partial = op.clone()
    partial.operands = [*slices, acc]
    partial.results[0].name_hint = "partial"
    body.add_op(partial)
    body.add_op(InParallelOp([ParallelInsertSliceOp(partial.results[0], shared, *slot)]))
    forall = builder.insert(
        ForallOp(
            [0],
            [count],
            [1],
            [partials],
            Region(body),
            mapping=[SplitReductionMappingAttr(0)],
        )
    )
    forall.results[0].name_hint = "partials"
    return _merge(red, forall.results[0], builder)


def split_with_expand(red: Reduction, plan: ChunkPlan, k: int, ir: IRBuilder) -> SSAValue:
    """
    The seed's first IR: K = S x (K/S) through `tensor.expand_shape`, one
    `linalg.generic` with a parallel chunk loop, then the merge.
    """
    assert plan.count is not None and divides(plan.count, k)
    builder = ir.b
    count, chunk = plan.count, k // plan.count
    element = red.acc_type.element_type
    n, r = red.num_loops, red.reduction_dim
    chunk_dim = AffineExpr.dimension(n)

    expanded: list[SSAValue] = []
    maps: list[AffineMap] = []
    for value, m in zip(red.inputs, red.input_maps):
        results: list[AffineExpr] = []
        groups: list[list[int]] = []
        sizes: list[Mixed] = []
        for expr, full in zip(m.results, ir.sizes_of(value)):
            start = len(results)
            if isinstance(expr, AffineDimExpr) and expr.position == r:
                results += [chunk_dim, expr]
                sizes += [count, chunk]
            else:
                results.append(expr)
                sizes.append(full)
            groups.append(list(range(start, len(results))))
        maps.append(AffineMap(n + 1, 0, tuple(results)))
        if len(results) == len(m.results):
            expanded.append(value)
            continue
        expanded.append(_expand_shape(builder, value, groups, sizes))

    out_sizes = ir.sizes_of(red.init)
    identity = ir.constant(identity_value(red.combiner, element))
    partials = ir.fill(identity, ir.empty([*out_sizes, count], element))
    out_map = AffineMap(n + 1, 0, (*red.output_map.results, chunk_dim))
    iterators = [
        IteratorTypeAttr.reduction() if d == r else IteratorTypeAttr.parallel()
        for d in range(n + 1)
    ]
    identity.name_hint = "identity"
    batched = builder.insert(
        linalg.GenericOp(
            expanded,
            [partials],
            red.body(),
            [AffineMapAttr(m) for m in (*maps, out_map)],
            iterators,
            [partials.type],
        )
    )
    batched.results[0].name_hint = "partials"
    return _merge(red, batched.results[0], builder)


def _expand_shape(
    builder: Builder, value: SSAValue, groups: list[list[int]], sizes: list[Mixed]
) -> SSAValue:
    t = value.type
    assert isinstance(t, TensorType)
    static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    result_type = TensorType(t.element_type, static)
    reassociation = ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])
    return builder.insert(
        tensor.ExpandShapeOp(
            value,
            [s for s in sizes if not isinstance(s, int)],
            reassociation,
            static,
            result_type,
        )
    ).result


def _inside_split(op: Operation) -> bool:
    """Whether `op` is already a partial reduction of an earlier split."""
    parent = op.parent_op()
    return (
        isinstance(parent, ForallOp)
        and parent.mapping is not None
        and any(isinstance(m, SplitReductionMappingAttr) for m in parent.mapping.data)
    )


# The match side: what makes an op splittable, and how K is cut.

REDUCTION_ROOTS = (
    "linalg.matmul",
    "linalg.batch_matmul",
    "linalg.matvec",
    "linalg.vecmat",
    "linalg.generic",
    "linalg.reduce",
)


def _capture_reduction(m: Match) -> bool | str:
    red = match_reduction(m.root)
    if isinstance(red, str):
        return red
    m.captures["red"] = red
    m.captures["k"] = red.static_k()
    return True


def _capture_plan(m: Match) -> bool | str:
    o = m.options
    if o["target"] is not None and not (o["merge"] and (o["factor"] or o["tile"])):
        return _capture_modeled_plan(m, target(o["target"]))
    plan = plan_chunks(m.root, m["k"], o["factor"], o["tile"], o["balanced"])
    if plan is None:
        return "the options leave one chunk (see the remark)"
    m.captures["plan"] = plan
    return True


def _capture_modeled_plan(m: Match, chosen_for: Target) -> bool | str:
    """The cost model's chunk count for this op on the target, or why none."""
    problem = problem_of(m["red"])
    if isinstance(problem, str):
        remark(m.root, f"not split: {problem}")
        return problem
    choice = choose_split(problem, chosen_for)
    if choice.factor == 1:
        remark(m.root, f"not split: {choice.reason}")
        return choice.reason
    remark(m.root, f"split-k: {choice.reason}")
    m.captures["plan"] = ChunkPlan(choice.factor, balanced=True)
    m.captures["chosen_factor"] = choice.factor
    return True


def _chunks_divide_k(m: Match) -> bool | str:
    k, plan = m["k"], m["plan"]
    if k is None:
        return "K is dynamic"
    return divides(plan.count, k) or f"{plan.count} does not divide K = {k}"


is_splittable_reduction = where("is a splittable reduction", _capture_reduction)
is_not_a_partial = where(
    "is not the partial of an earlier split", lambda m: not _inside_split(m.root)
)
k_splits_into_chunks = where("K splits into more than one chunk", _capture_plan)
chunk_count_divides_k = where("the chunk count divides K", _chunks_divide_k)
splits = is_splittable_reduction & is_not_a_partial & k_splits_into_chunks
"""What every split-k strategy needs: a reduction, not already a partial,
whose K the options cut into more than one chunk."""


# The rewrite side.


SPLIT_FACTOR_ATTR = "xsplit.split_factor"
"""Set on the op that computes the partials when the cost model chose the
chunk count (`target=`), so that the choice can be read off the output."""


def record_choice(m: Match, merged: SSAValue) -> list[SSAValue]:
    """Marks the partials' producer, the merge's first operand, with the
    factor the cost model chose."""
    factor = m.captures.get("chosen_factor")
    merge = merged.owner
    if factor is not None and isinstance(merge, Operation):
        partials = merge.operands[0].owner
        if isinstance(partials, Operation):
            partials.attributes[SPLIT_FACTOR_ATTR] = IntegerAttr(factor, i64)
    return [merged]


def _rewrite_with_forall(m: Match, ir: IRBuilder) -> list[SSAValue]:
    return record_choice(m, split_with_forall(m["red"], m["plan"], ir))


def _rewrite_with_expand(m: Match, ir: IRBuilder) -> list[SSAValue]:
    return record_choice(m, split_with_expand(m["red"], m["plan"], m["k"], ir))


def _rewrite_with_grouped(m: Match, ir: IRBuilder) -> list[SSAValue]:
    return record_choice(m, split_with_grouped_gemm(m["red"], m["plan"], m["k"], ir))


OPTIONS = (
    Option("factor", int, None, "the number of chunks", check=positive),
    Option("tile", int, None, "the size of each chunk (the last may be shorter)", check=positive),
    Option(
        "strategy",
        str,
        "forall",
        "forall (graph-level scf.forall), expand (expand_shape + generic) or "
        "grouped (linalg_ext.split_grouped_gemm + rock.reduce)",
        choices=("forall", "expand", "grouped"),
    ),
    Option("balanced", bool, False, "chunk sizes differ by at most one"),
    Option(
        "merge",
        str,
        "",
        "GPU targets: merge the partials inside the split kernel with atomics (atomic) or a "
        "fixed-order second kernel (deterministic), by lower-reduce's lowering",
        choices=("", "atomic", "deterministic"),
    ),
    Option(
        "target",
        str,
        None,
        "choose the chunk count with the cost model for this target "
        f"({', '.join(TARGETS)}); leaves ops no split pays for whole",
        choices=tuple(TARGETS) + tuple(a for t in TARGETS.values() for a in t.aliases),
    ),
)


def _shape(m: Match) -> Hashable:
    """Everything a split depends on besides the root's operand values, so that
    the engine builds each distinct split once and clones it for the others."""
    root = m.root
    body = "" if isinstance(root, ContractionOp) else str(root.regions[0])
    return (
        root.name,
        tuple(v.type for v in root.operands),
        tuple(root.result_types),
        tuple(sorted(root.properties.items())),
        tuple(sorted(root.attributes.items())),
        body,
        tuple(sorted(m.options.items())),
        m["plan"],
    )


SPLIT_K_EXPAND = Pattern(
    name="split-k-expand",
    doc="K = S x K/S through tensor.expand_shape, a batched linalg.generic, then a merge",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "expand") & splits & chunk_count_divides_k,
    rewrite=_rewrite_with_expand,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=_shape,
)

SPLIT_K_FORALL = Pattern(
    name="split-k-forall",
    doc="partial reductions over K-chunks in an scf.forall, then a linalg.reduce merge",
    root=REDUCTION_ROOTS,
    where=splits,
    rewrite=_rewrite_with_forall,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=_shape,
)

EXPAND_FALLS_BACK = Remark(
    name="split-k-expand-falls-back",
    doc="says when strategy=expand cannot be used and forall is",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "expand") & splits & ~chunk_count_divides_k,
    message=lambda m: (
        "expand needs a factor that divides K "
        f"({chunk_count_divides_k.check(m).reason}); using forall"
    ),  # type: ignore[union-attr]
)


SPLIT_K_GROUPED = Pattern(
    name="split-k-grouped",
    doc="one linalg_ext.split_grouped_gemm over K-groups, then a rock.reduce merge",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "grouped") & splits & grouped_applies,
    rewrite=_rewrite_with_grouped,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=_shape,
)

GROUPED_FALLS_BACK = Remark(
    name="split-k-grouped-falls-back",
    doc="says when strategy=grouped cannot be used and forall is",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "grouped") & splits & ~grouped_applies,
    message=lambda m: (
        f"grouped cannot express this split ({grouped_applies.check(m).reason}); "  # type: ignore[union-attr]
        "using forall"
    ),
    family="split-k",
)


def _one_way_to_choose_chunks(options: Mapping[str, Any]) -> str | None:
    given = [name for name in ("factor", "tile", "target") if options[name] is not None]
    if len(given) > 1 and not (options["merge"] and given == ["factor", "target"]):
        return f"give one of factor=, tile= and target=, not {' and '.join(given)}"
    if options["merge"] and options["target"] is None:
        return "merge= needs target= (the GPU the merged kernel is for)"
    return None


def _rewrite_merged(m: Match, ir: IRBuilder) -> None:
    from xsplit.rewrites.lower_reduce import lower_split

    plan, k = m["plan"], m["k"]
    chunk = plan.tile or -(-k // plan.count)
    lower_split(m.root, chunk, m.options["merge"], m.options["target"] or "")


SPLIT_K_MERGED = Pattern(
    name="split-k-merged",
    doc="a kernel whose chunks merge their partials inside it (lower-reduce's lowering)",
    root=REDUCTION_ROOTS,
    where=where("merge= is given", lambda m: bool(m.options["merge"]) or "merge is not given")
    & splits
    & where("K is static", lambda m: m["k"] is not None or "K is dynamic"),
    rewrite=_rewrite_merged,
    benefit=3,
    options=[o.name for o in OPTIONS],
    family="split-k",
)


SPLIT_K = Pass(
    "split-k",
    "Splits each linalg reduction into partial reductions over chunks of K and a merge.",
    [SPLIT_K_MERGED, EXPAND_FALLS_BACK, GROUPED_FALLS_BACK, SPLIT_K_EXPAND, SPLIT_K_GROUPED, SPLIT_K_FORALL],
    OPTIONS,
    validate=_one_way_to_choose_chunks,
)
