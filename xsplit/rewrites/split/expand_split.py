"""split-k's `strategy=expand` (the seed's first IR): for a chunk size that
divides K, the operands are reshaped with `tensor.expand_shape` and the
reduction becomes one `linalg.generic` with a parallel chunk loop, then the
merge (`forall_split.merge_partials`).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from xsplit.analysis.reduction import (
    Reduction,
    identity_value,
)
from xsplit.rewrites.dsl import (
    divides,
)
from xsplit.rewrites.dsl.builders import IRBuilder, Mixed
from xsplit.rewrites.split.chunks import ChunkPlan
from xsplit.rewrites.split.forall_split import merge_partials


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
    return merge_partials(red, batched.results[0], builder), batched


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
