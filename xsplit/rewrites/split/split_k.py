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

`align=A` (and `pad_m=P`) cut a contraction with static shapes into chunks
of one static size, a multiple of A, with the rest of K as a zero-padded tail
beside the loop and M padded to a multiple of P (`aligned_split`): IREE's CPU
code is several times slower on other sizes. `cpu_tiles=true` also gives
each chunk's f32 matmul IREE CPU tile sizes (`Target.partial_tiles`: a
workgroup over all of M and a cache line of N). `target=cpu` takes all
three from the target table.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    NoneAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xsplit import attr_names
from xsplit.analysis.cost_model import choose_split, problem_of
from xsplit.analysis.reduction import (
    Reduction,
    identity_value,
    loop_name,
    match_reduction,
)
from xsplit.diagnostics import remark
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.linalg import BatchMmt4DOp, Mmt4DOp, StructuredNamedOp, linear_form
from xsplit.dialects.scf import ForallOp, InParallelOp
from xsplit.dialects.tensor import ParallelInsertSliceOp
from xsplit.dialects.utils import dense_i64, zero_attr
from xsplit.rewrites.dsl import (
    Match,
    Option,
    Pass,
    Pattern,
    Remark,
    ceildiv,
    divides,
    option,
    positive,
    where,
)
from xsplit.rewrites.dsl.builders import IRBuilder, Mixed
from xsplit.rewrites.split.aligned_split import aligned_chunks, aligned_split_applies, split_aligned
from xsplit.rewrites.split.chunks import ChunkPlan, chunk_bounds, plan_chunks
from xsplit.rewrites.split.encoded_split import make_split_encoded_pattern
from xsplit.rewrites.split.grouped import grouped_applies, split_with_grouped_gemm
from xsplit.target.targets import TARGETS, Target, target


def _affine_sum(ir: IRBuilder, terms: Sequence[tuple[int, Mixed]], const: int) -> Mixed:
    """`const + sum(c * x)`, folded to an int where every `x` is one."""
    dynamic: list[tuple[int, SSAValue]] = []
    for c, x in terms:
        if isinstance(x, int):
            const += c * x
        else:
            dynamic.append((c, x))
    if not dynamic:
        return const
    if dynamic == [(1, dynamic[0][1])] and const == 0:
        return dynamic[0][1]
    dims = ", ".join(f"d{i}" for i in range(len(dynamic)))
    expr = " + ".join(f"d{i} * {c}" for i, (c, _) in enumerate(dynamic))
    return ir.apply(f"({dims}) -> ({expr} + {const})", *(x for _, x in dynamic))


def _loop_sizes(red: Reduction, sizes_of: Sequence[list[Mixed]]) -> dict[int, Mixed]:
    """Each loop's extent, from an operand (inputs, then inits) that indexes it plainly."""
    sizes: dict[int, Mixed] = {}
    maps = [*red.input_maps, *(red.output_map for _ in red.inits)]
    for m, full in zip(maps, sizes_of):
        for e, size in zip(m.results, full):
            if isinstance(e, AffineDimExpr):
                sizes.setdefault(e.position, size)
    return sizes


def _slice_along_k(
    ir: IRBuilder,
    red: Reduction,
    offset: Mixed,
    size: Mixed,
    sizes_of: Sequence[list[Mixed]],
    loop_sizes: Mapping[int, Mixed],
) -> list[SSAValue]:
    """Each input cut to one chunk of the split loop. A dimension indexed by a
    window `c_r * r + sum(c_d * d)` (a conv's input rows under a split filter
    height) gets the rows that chunk reads: from `c_r * offset`, for
    `c_r * (size - 1) + sum(c_d * (extent_d - 1)) + 1` rows."""
    r = red.reduction_dim
    slices: list[SSAValue] = []
    for value, m, full in zip(red.inputs, red.input_maps, sizes_of):
        offsets: list[Mixed] = []
        sizes: list[Mixed] = []
        for expr, f in zip(m.results, full):
            linear = linear_form(expr)
            coeffs, const = linear if linear is not None else ({}, 0)
            if r not in coeffs:
                offsets.append(0)
                sizes.append(f)
            elif isinstance(expr, AffineDimExpr):
                offsets.append(offset)
                sizes.append(size)
            else:
                offsets.append(_affine_sum(ir, [(coeffs[r], offset)], 0))
                # The last row read, + 1: sum(c * (extent - 1)) + const + 1.
                extents = [(c, size if d == r else loop_sizes[d]) for d, c in coeffs.items()]
                sizes.append(_affine_sum(ir, extents, const + 1 - sum(coeffs.values())))
        if all(o == 0 for o in offsets) and sizes == full:
            slices.append(value)
            continue
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


def _merge_arg(
    red: Reduction,
    partials: Sequence[SSAValue],
    identities: Sequence[SSAValue],
    ir: IRBuilder,
) -> list[SSAValue]:
    """
    The partial (value, index) pairs merged in two steps. First the chunks
    among themselves: the best value wins and, among equal values, the
    smallest index (the largest for a non-strict comparison) wins. That rule
    does not depend on the order the chunks are visited in, so any reduction
    order IREE picks gives the unsplit answer on ties. Then that winner against
    the original init, by the op's own comparison, as the unsplit loop would
    have compared them.
    """
    arg = red.arg
    assert arg is not None
    v_type, i_type = (t.element_type for t in (red.acc_type, red.inits[1].type))  # type: ignore[union-attr]
    out_sizes = ir.sizes_of(red.init)
    rank = len(out_sizes)
    accs = [
        ir.fill(identities[0], ir.empty(out_sizes, v_type)),
        ir.fill(identities[1], ir.empty(out_sizes, i_type)),
    ]
    accs[0].name_hint, accs[1].name_hint = "best_init", "best_index_init"

    chunks = Block(arg_types=[v_type, i_type, v_type, i_type])
    pv, pi, av, ai = chunks.args
    better = arg.compare(pv, av, arg.strict_predicate())
    equal = arg.compare(pv, av, arg.equal_predicate())
    earlier = arith.CmpiOp(pi, ai, "slt" if arg.strict else "sgt")
    tie = arith.AndIOp(equal, earlier)
    take = arith.OrIOp(better, tie)
    v = arith.SelectOp(take, pv, av)
    i = arith.SelectOp(take, pi, ai)
    chunks.add_ops([better, equal, earlier, tie, take, v, i, linalg.YieldOp(v, i)])
    full = AffineMap.identity(rank + 1)
    kept = AffineMap(rank + 1, 0, full.results[:rank])
    merged = ir.b.insert(
        linalg.GenericOp(
            list(partials),
            accs,
            Region(chunks),
            [AffineMapAttr(m) for m in (full, full, kept, kept)],
            [IteratorTypeAttr.parallel()] * rank + [IteratorTypeAttr.reduction()],
            [a.type for a in accs],
        )
    )
    merged.results[0].name_hint, merged.results[1].name_hint = "best", "best_index"

    final = Block(arg_types=[v_type, i_type, v_type, i_type])
    mv, mi, iv, ii = final.args
    keep = arg.compare(mv, iv, arg.predicate)
    value = (
        arg.value_combiner(mv, iv) if arg.value_combiner else arith.SelectOp(keep, mv, iv)
    )
    index = arith.SelectOp(keep, mi, ii)
    final.add_ops([keep, value, index, linalg.YieldOp(value.results[0], index.result)])
    same = AffineMap.identity(rank)
    combined = ir.b.insert(
        linalg.GenericOp(
            list(merged.results),
            list(red.inits),
            Region(final),
            [AffineMapAttr(same)] * 4,
            [IteratorTypeAttr.parallel()] * rank,
            [v.type for v in red.inits],
        )
    )
    combined.results[0].name_hint, combined.results[1].name_hint = "merged", "merged_index"
    return list(combined.results)


def _offset_index(partial: Operation, loop: int, offset: Mixed, ir: IRBuilder) -> None:
    """Inside a chunk's op, `linalg.index loop` counts from the chunk's start;
    the index an arg-reduction keeps must count from K's."""
    if isinstance(offset, int):
        offset = ir.index(offset)
    for inner in list(partial.walk()):
        if not isinstance(inner, linalg.IndexOp) or inner.dim.value.data != loop:
            continue
        shifted = arith.AddiOp(inner.result, offset)
        block = inner.parent_block()
        assert block is not None
        block.insert_op_after(shifted, inner)
        for use in list(inner.result.uses):
            if use.operation is not shifted:
                use.operation.operands[use.index] = shifted.result


def _partial_op(red: Reduction, operands: list[SSAValue]) -> Operation:
    """The op that reduces one chunk: the original op on the chunk's operands.
    mmt4d goes in its generic form: IREE 3.13 computes a `linalg.mmt4d` wrongly
    as the partial inside a split-reduction loop (CPU results off by the
    order of the values), while the same generic is right."""
    op = red.op
    if isinstance(op, Mmt4DOp | BatchMmt4DOp):
        return linalg.GenericOp(
            operands[: len(red.inputs)],
            operands[len(red.inputs) :],
            red.body(),
            list(op.get_indexing_maps().data),
            list(op.get_iterator_types().data),
            [v.type for v in operands[len(red.inputs) :]],
        )
    partial = op.clone()
    partial.operands = operands
    return partial


def _name(value: Mixed, hint: str) -> None:
    if isinstance(value, SSAValue):
        value.name_hint = hint


def split_with_forall(
    red: Reduction, plan: ChunkPlan, ir: IRBuilder
) -> tuple[list[SSAValue], Operation]:
    """The seed's solution 2: an `scf.forall` over chunks, then the merge.
    Returns the merged results and the loop that computes the partials."""
    builder = ir.b
    elements = [t.element_type for t in (v.type for v in red.inits)]  # type: ignore[union-attr]
    identity_values = [identity_value(red.combiner, elements[0])]
    if red.arg is not None:
        identity_values.append(zero_attr(elements[1]))
    identities = [ir.constant(v) for v in identity_values]
    identities[0].name_hint = "identity"
    input_sizes = [ir.sizes_of(v) for v in red.inputs]
    out_sizes = ir.sizes_of(red.init)
    loop_sizes = _loop_sizes(red, [*input_sizes, out_sizes])
    i, j = red.k_operand()
    k: int | SSAValue = input_sizes[i][j]
    if plan.count is not None:
        count: Mixed = plan.count
    else:
        assert plan.tile is not None and not isinstance(k, int)
        count = ir.apply(f"()[s0] -> (s0 ceildiv {plan.tile})", k)
    partials = [ir.empty([*out_sizes, count], e) for e in elements]
    partials[0].name_hint = "partials_init"
    if red.arg is not None:
        identities[1].name_hint = "index_identity"
        partials[1].name_hint = "partial_indices_init"
    rank = len(out_sizes)

    body = Block(arg_types=[IndexType(), *(p.type for p in partials)])
    s, *shared = body.args
    s.name_hint = "chunk"
    shared[0].name_hint = "partials_out"
    inner = IRBuilder(Builder(InsertPoint.at_end(body)))
    offset, size = chunk_bounds(inner, plan, s, k)
    _name(offset, "chunk_offset")
    _name(size, "chunk_size")
    slices = _slice_along_k(inner, red, offset, size, input_sizes, loop_sizes)
    slot = ([0] * rank + [s], [*out_sizes, 1])
    accs = [
        inner.fill(identity, inner.extract_slice(out, *slot, drop_dims=[rank]))
        for identity, out in zip(identities, shared)
    ]
    accs[0].name_hint = "partial_init"
    partial = _partial_op(red, [*slices, *accs])
    partial.results[0].name_hint = "partial"
    if red.arg is not None:
        shared[1].name_hint = "partial_indices_out"
        accs[1].name_hint = "partial_index_init"
        partial.results[1].name_hint = "partial_index"
    body.add_op(partial)
    if red.arg is not None:
        _offset_index(partial, red.reduction_dim, offset, inner)
    body.add_op(
        InParallelOp(
            [
                ParallelInsertSliceOp(result, out, *slot)
                for result, out in zip(partial.results, shared)
            ]
        )
    )
    forall = builder.insert(
        ForallOp(
            [0],
            [count],
            [1],
            partials,
            Region(body),
            mapping=[SplitReductionMappingAttr(0)],
        )
    )
    forall.results[0].name_hint = "partials"
    if red.arg is not None:
        forall.results[1].name_hint = "partial_indices"
        return _merge_arg(red, forall.results, identities, ir), forall
    return [_merge(red, forall.results[0], builder)], forall


def split_with_expand(
    red: Reduction, plan: ChunkPlan, k: int, ir: IRBuilder
) -> tuple[SSAValue, Operation]:
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
    # The chunk loop is parallel; every original loop keeps its kind, so the
    # loops a chunk reduces whole (a conv's window) stay reductions.
    if isinstance(red.op, linalg.ReduceOp):
        iterators = [
            IteratorTypeAttr.reduction() if d == r else IteratorTypeAttr.parallel()
            for d in range(n + 1)
        ]
    else:
        iterators = [*red.op.get_iterator_types().data, IteratorTypeAttr.parallel()]  # type: ignore[attr-defined]
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
    return _merge(red, batched.results[0], builder), batched


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
    "linalg.mmt4d",
    "linalg.batch_mmt4d",
    "linalg.batch_reduce_matmul",
    "linalg.contract",
    "linalg.conv_2d_nhwc_hwcf",
    "linalg.conv_2d_nchw_fchw",
    "linalg.depthwise_conv_2d_nhwc_hwc",
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
        chosen = _capture_modeled_plan(m, target(o["target"]))
        if chosen is True:
            _say_which_loop(m)
        return chosen
    plan = plan_chunks(
        m.root, m["k"], o["factor"], o["tile"], o["balanced"], o["align"], o["pad_m"],
        o["cpu_tiles"],
    )
    if plan is None:
        return "the options leave one chunk (see the remark)"
    m.captures["plan"] = plan
    _say_which_loop(m)
    return True


def _say_which_loop(m: Match) -> None:
    """With several reduction loops, which one is cut is a choice; say it."""
    red: Reduction = m["red"]
    if len(red.reduction_dims) < 2:
        return
    op, r = m.root, red.reduction_dim
    k = red.static_k()
    others = [loop_name(op, d) for d in red.reduction_dims if d != r]
    remark(
        op,
        f"split-k: cutting reduction loop {loop_name(op, r)} "
        f"(extent {'?' if k is None else k}), the longest; {', '.join(others)} "
        f"{'stays' if len(others) == 1 else 'stay'} whole in each chunk",
    )


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
    m.captures["plan"] = ChunkPlan(
        choice.factor,
        balanced=True,
        align=m.options["align"] or chosen_for.split_align,
        pad_m=m.options["pad_m"] or chosen_for.split_pad_m,
        cpu_tiles=m.options["cpu_tiles"] or chosen_for.split_tiles,
    )
    m.captures["chosen_factor"] = choice.factor
    return True


def _chunks_divide_k(m: Match) -> bool | str:
    k, plan = m["k"], m["plan"]
    if k is None:
        return "K is dynamic"
    return divides(plan.count, k) or f"{plan.count} does not divide K = {k}"


def _expressible_by_expand(m: Match) -> bool | str:
    """expand_shape reshapes the split loop's dimension in place: it cannot cut
    a window dimension, and a batched generic's linalg.index would count
    within a chunk."""
    red: Reduction = m["red"]
    if red.arg is not None:
        return "an arg-reduction's index must count from the start of K"
    if not red.split_only_plainly():
        return "the split loop indexes an input inside a window"
    return True


is_splittable_reduction = where("is a splittable reduction", _capture_reduction)
is_not_a_partial = where(
    "is not the partial of an earlier split", lambda m: not _inside_split(m.root)
)
k_splits_into_chunks = where("K splits into more than one chunk", _capture_plan)
chunk_count_divides_k = where("the chunk count divides K", _chunks_divide_k)
expand_expresses_it = where("expand_shape can express the split", _expressible_by_expand)
is_not_encoded = where(
    "has no encoded operand (split-k-encoded splits those)",
    lambda m: not any(
        isinstance(v.type, TensorType) and v.type.encoding != NoneAttr() for v in m.root.operands
    )
    or "its operands are encoded",
)
splits = is_splittable_reduction & is_not_encoded & is_not_a_partial & k_splits_into_chunks
"""What every split-k strategy needs: a reduction, not already a partial,
whose K the options cut into more than one chunk."""


# The rewrite side.


SPLIT_FACTOR_ATTR = attr_names.SPLIT_FACTOR


def record_choice(m: Match, producer: Operation) -> None:
    """Marks the op that computes the partials with the factor the cost model chose."""
    factor = m.captures.get("chosen_factor")
    if factor is not None:
        producer.attributes[SPLIT_FACTOR_ATTR] = IntegerAttr(factor, i64)


def _capture_aligned_chunks(m: Match) -> bool | str:
    plan: ChunkPlan = m["plan"]
    if plan.align is None:
        return "no alignment is asked for"
    if m["k"] is None:
        return "K is dynamic"
    applies = aligned_split_applies(m["red"])
    if applies is not True:
        return applies
    count = plan.count if plan.count is not None else ceildiv(m["k"], plan.tile)
    chunks = aligned_chunks(m["k"], count, plan.align)
    if isinstance(chunks, str):
        return chunks
    m.captures["aligned"] = chunks
    return True


chunks_align = where("K cuts into aligned static chunks", _capture_aligned_chunks)


def _rewrite_aligned(m: Match, ir: IRBuilder) -> list[SSAValue]:
    plan: ChunkPlan = m["plan"]
    tiles_for = target("cpu") if plan.cpu_tiles else None
    merged, producer = split_aligned(m["red"], m["aligned"], plan.pad_m, ir, tiles_for)
    record_choice(m, producer)
    return [merged]


def _rewrite_with_forall(m: Match, ir: IRBuilder) -> list[SSAValue]:
    merged, producer = split_with_forall(m["red"], m["plan"], ir)
    record_choice(m, producer)
    return merged


def _rewrite_with_expand(m: Match, ir: IRBuilder) -> list[SSAValue]:
    merged, producer = split_with_expand(m["red"], m["plan"], m["k"], ir)
    record_choice(m, producer)
    return [merged]


def _rewrite_with_grouped(m: Match, ir: IRBuilder) -> list[SSAValue]:
    merged = split_with_grouped_gemm(m["red"], m["plan"], m["k"], ir)
    rock_reduce = merged.owner
    while isinstance(rock_reduce, Operation) and rock_reduce.name != "rock.reduce":
        rock_reduce = rock_reduce.operands[0].owner
    if isinstance(rock_reduce, Operation):
        producer = rock_reduce.operands[0].owner
        if isinstance(producer, Operation):
            record_choice(m, producer)
    return [merged]


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
        "align",
        int,
        None,
        "contractions with static shapes: chunks of one static size, a multiple of this, "
        "and the rest of K as a zero-padded tail chunk (target=cpu: the target's)",
        check=positive,
    ),
    Option(
        "pad_m",
        int,
        None,
        "with align: pad M (rows of the LHS) to a multiple of this where it is longer "
        "(target=cpu: the target's)",
        check=positive,
    ),
    Option(
        "cpu_tiles",
        bool,
        False,
        "with align: give the partial matmul IREE CPU tile sizes chosen from the cpu target "
        "(a workgroup takes all of M and a cache line of N; target=cpu: the target's)",
    ),
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
    # A named op's body follows from its operand types.
    body = "" if isinstance(root, StructuredNamedOp) else str(root.regions[0])
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
    where=(option("strategy") == "expand")
    & splits
    & expand_expresses_it
    & chunk_count_divides_k,
    rewrite=_rewrite_with_expand,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=_shape,
)

SPLIT_K_ALIGNED = Pattern(
    name="split-k-aligned",
    doc="static chunks of a multiple of align= in an scf.forall, the zero-padded tail "
    "beside it, M padded, then one merge",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "forall") & splits & chunks_align,
    rewrite=_rewrite_aligned,
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
    where=(option("strategy") == "expand") & splits & ~expand_expresses_it,
    message=lambda m: (
        f"expand cannot express this split ({expand_expresses_it.check(m).reason}); "  # type: ignore[union-attr]
        "using forall"
    ),
    family="split-k",
)

EXPAND_NEEDS_DIVIDING_FACTOR = Remark(
    name="split-k-expand-needs-dividing-factor",
    doc="says when strategy=expand needs a factor that divides K and forall is used",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "expand")
    & splits
    & expand_expresses_it
    & ~chunk_count_divides_k,
    message=lambda m: (
        "expand needs a factor that divides K "
        f"({chunk_count_divides_k.check(m).reason}); using forall"
    ),  # type: ignore[union-attr]
    family="split-k",
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


# An encoded contraction (set-encoding ran first) splits into encoded partials
# (encoded_split.py), so that they run as batch_mmt4d.
SPLIT_K_ENCODED = make_split_encoded_pattern([o.name for o in OPTIONS])


def _rewrite_merged(m: Match, ir: IRBuilder) -> None:
    from xsplit.rewrites.reduce.lower_reduce import lower_split

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
    [
        SPLIT_K_MERGED,
        SPLIT_K_ENCODED,
        EXPAND_FALLS_BACK,
        EXPAND_NEEDS_DIVIDING_FACTOR,
        GROUPED_FALLS_BACK,
        SPLIT_K_EXPAND,
        SPLIT_K_GROUPED,
        SPLIT_K_ALIGNED,
        SPLIT_K_FORALL,
    ],
    OPTIONS,
    validate=_one_way_to_choose_chunks,
)
