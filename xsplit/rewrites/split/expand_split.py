"""split-k's `strategy=expand` (the seed's first IR): for a chunk size that
divides K, the operands are reshaped with `tensor.expand_shape` and the
reduction becomes one `linalg.generic` with a parallel chunk loop, then the
merge (`forall_split.merge_partials`).

For a plain matmul of one float type that IR is `EXPANDED_MATMUL`, a
template. For any reduction of static shapes whose inputs all read K it is
`EXPANDED_REDUCTION`, a template whose reshapes, maps and loops are lists
from small helpers of the reduction's maps, and whose body is the op's own.
`split_with_expand` builds the rest: dynamic sizes (a `tensor.dim` per
dynamic size, before the reshape that needs it), an input that does not
read K (passed whole), and a split the cost model chose (`target=`, which
marks the partials' op with its factor).
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
    bf16,
    f16,
    f32,
    f64,
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
from xsplit.rewrites.dsl import Match, Pattern, Template, dim, divides, input, option, where
from xsplit.rewrites.dsl.constraints import Constraint
from xsplit.rewrites.dsl.structure import arguments, operands, region_ops, the_value
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.builders import IRBuilder, Mixed
from xsplit.rewrites.split.chunks import (
    COUNT,
    K,
    ChunkPlan,
    capture_reduction_operands,
    every_input_reads_k,
    reads_k,
)
from xsplit.rewrites.split.forall_split import merge_partials
from xsplit.rewrites.split.static_chunks import combiner


EXPANDED_MATMUL = Template(
    """
%0 = tensor.expand_shape $a [[0], [1, 2]] output_shape [$m, $count, $chunk] : $a.type into $a_expanded
%1 = tensor.expand_shape $b [[0, 1], [2]] output_shape [$count, $chunk, $n] : $b.type into $b_expanded
%identity = arith.constant $identity
%2 = tensor.empty() : $partials_type
%3 = linalg.fill ins(%identity : $c.element_type) outs(%2 : $partials_type) -> $partials_type
%partials = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%0, %1 : $a_expanded, $b_expanded) outs(%3 : $partials_type) {
^bb0(%4: $c.element_type, %5: $c.element_type, %6: $c.element_type):
  %7 = arith.mulf %4, %5 : $c.element_type
  %8 = arith.addf %6, %7 : $c.element_type
  linalg.yield %8 : $c.element_type
} -> $partials_type
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [2] {xsplit.split_part = "merge"}
  (%9: $c.element_type, %10: $c.element_type) {
    %11 = arith.addf %9, %10 : $c.element_type
    linalg.yield %11 : $c.element_type
  }
""",
    results=["%merged"],
    identity=lambda m: identity_value(combiner(m), m["c"].type.element_type),
    count=COUNT,
    chunk=K // COUNT,
    m=dim("M"),
    n=dim("N"),
    a_expanded=lambda m: _expanded(m, "a", 1),
    b_expanded=lambda m: _expanded(m, "b", 0),
    partials_type=lambda m: TensorType(
        m["c"].type.element_type, [dim("M")(m), dim("N")(m), COUNT(m)]
    ),
)
"""K = S x K/S: A's and B's K dimension reshaped into (chunk, within), one
batched linalg.generic with the chunk loop parallel (d3), then the merge."""


EXPANDED_BATCH_MATMUL = Template(
    """
%0 = tensor.expand_shape $a [[0], [1], [2, 3]] output_shape [$batch, $m, $count, $chunk] : $a.type into $a_expanded
%1 = tensor.expand_shape $b [[0], [1, 2], [3]] output_shape [$batch, $count, $chunk, $n] : $b.type into $b_expanded
%identity = arith.constant $identity
%2 = tensor.empty() : $partials_type
%3 = linalg.fill ins(%identity : $c.element_type) outs(%2 : $partials_type) -> $partials_type
%partials = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%0, %1 : $a_expanded, $b_expanded) outs(%3 : $partials_type) {
^bb0(%4: $c.element_type, %5: $c.element_type, %6: $c.element_type):
  %7 = arith.mulf %4, %5 : $c.element_type
  %8 = arith.addf %6, %7 : $c.element_type
  linalg.yield %8 : $c.element_type
} -> $partials_type
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [3] {xsplit.split_part = "merge"}
  (%9: $c.element_type, %10: $c.element_type) {
    %11 = arith.addf %9, %10 : $c.element_type
    linalg.yield %11 : $c.element_type
  }
""",
    results=["%merged"],
    identity=lambda m: identity_value(combiner(m), m["c"].type.element_type),
    batch=dim("B"),
    count=COUNT,
    chunk=K // COUNT,
    m=dim("M"),
    n=dim("N"),
    a_expanded=lambda m: _expanded(m, "a", 2),
    b_expanded=lambda m: _expanded(m, "b", 1),
    partials_type=lambda m: TensorType(
        m["c"].type.element_type, [dim("B")(m), dim("M")(m), dim("N")(m), COUNT(m)]
    ),
)
"""`EXPANDED_MATMUL` for a `linalg.batch_matmul`: the batch loop d0 leads
every operand, the chunk loop (d4) is the partials' last dimension."""


def _expanded(m: Match, operand: str, k_dim: int) -> TensorType:
    t = m[operand].type
    shape = list(t.get_shape())
    count = COUNT(m)
    shape[k_dim : k_dim + 1] = [count, shape[k_dim] // count]
    return TensorType(t.element_type, shape)


one_float_type = (
    input(0).element_type(f16, bf16, f32, f64)
    & input(1).same_element_type_as("c")
    & input(0).same_element_type_as("c")
)
"""The matmul's body is a mulf and an addf (no extension between types)."""


def _reduction(m: Match) -> Reduction:
    return m["red"]


def _count(m: Match) -> int:
    """The chunk count the options or the model chose (`splits` planned it)."""
    plan: ChunkPlan = m["plan"]
    assert plan.count is not None, "expand splits by a count that divides K"
    return plan.count


def _chunk_dim(m: Match) -> AffineExpr:
    """The chunk loop: one more loop after the op's own."""
    return AffineExpr.dimension(_reduction(m).num_loops)


def expanded_groups(m: Match) -> list[list[list[int]]]:
    """Each input's reassociation: K's dimension becomes two, (chunk, within)."""
    groups: list[list[list[int]]] = []
    for input_map in _reduction(m).input_maps:
        at, mine = 0, []
        for expr in input_map.results:
            width = 2 if reads_k(expr, m) else 1
            mine.append(list(range(at, at + width)))
            at += width
        groups.append(mine)
    return groups


def expanded_shapes(m: Match) -> list[list[int]]:
    """Each input's shape with K as (count, K / count)."""
    red, count = _reduction(m), _count(m)
    shapes: list[list[int]] = []
    for value, input_map in zip(red.inputs, red.input_maps):
        shape: list[int] = []
        for expr, size in zip(input_map.results, value.type.get_shape()):  # type: ignore[union-attr]
            shape += [count, size // count] if reads_k(expr, m) else [size]
        shapes.append(shape)
    return shapes


def expanded_types(m: Match) -> list[TensorType]:
    red = _reduction(m)
    return [
        TensorType(v.type.element_type, shape)  # type: ignore[union-attr]
        for v, shape in zip(red.inputs, expanded_shapes(m))
    ]


def expanded_maps(m: Match) -> list[AffineMapAttr]:
    """The op's maps over one more loop, the chunk loop: each input reads K
    as (chunk, within), the partials are written with the chunk last."""
    red, chunk = _reduction(m), _chunk_dim(m)
    loops = red.num_loops + 1
    maps = [
        AffineMap(loops, 0, tuple(r for e in im.results for r in ((chunk, e) if reads_k(e, m) else (e,))))
        for im in red.input_maps
    ]
    maps.append(AffineMap(loops, 0, (*red.output_map.results, chunk)))
    return [AffineMapAttr(x) for x in maps]


def expanded_iterators(m: Match) -> list[IteratorTypeAttr]:
    """The op's loops keep their kinds (a conv's window stays a reduction);
    the chunk loop is parallel. A `linalg.reduce` names none: its reduced
    dimension is K."""
    red = _reduction(m)
    if isinstance(red.op, linalg.ReduceOp):
        return [
            IteratorTypeAttr.reduction() if d == red.reduction_dim else IteratorTypeAttr.parallel()
            for d in range(red.num_loops + 1)
        ]
    return [*red.op.get_iterator_types().data, IteratorTypeAttr.parallel()]  # type: ignore[attr-defined]


def partials_of_reduction(m: Match) -> TensorType:
    """The init's type with one more dimension, a partial per chunk."""
    c = m["c"].type
    return TensorType(c.element_type, [*c.get_shape(), _count(m)])


a_static_reduction_read_by_templates = (
    ~option("target").is_set()
    & operands().each(the_value.has_static_shape())
    & where("every input reads K", every_input_reads_k)
    & where("its inputs and init are captured", capture_reduction_operands, pure=True)
    & region_ops(0, "body", yielded="yielded")
    & arguments().capture("body_args")
)
"""What `EXPANDED_REDUCTION` writes, after `splits` read the op as a
reduction: static shapes, every input reshaped, no cost-model choice to
record, and the op's body and its arguments captured to copy."""


EXPANDED_REDUCTION = CloningTemplate(
    """
$for i in $ins:
%7$i = tensor.expand_shape $ins[$i] [$groups[$i]] output_shape [$shapes[$i]] : $ins[$i].type into $expanded[$i]
$end
%identity = arith.constant $identity
%2 = tensor.empty() : $partials_type
%3 = linalg.fill ins(%identity : $c.element_type) outs(%2 : $partials_type) -> $partials_type
%partials = linalg.generic {indexing_maps = [$maps], iterator_types = [$iterators]} ins(${i in $ins: %7$i} : $expanded) outs(%3 : $partials_type) {
^bb0(${j in $body_args: %9$j: $body_args[$j].type}):
  %8:1 = $clone $body.ops replacing $body_args with %9 yielding $yielded
  linalg.yield %8#0 : $c.element_type
} -> $partials_type
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [$rank] {xsplit.split_part = "merge"}
  (%4: $c.element_type, %5: $c.element_type) {
    %6 = $combine %4, %5 : $c.element_type
    linalg.yield %6 : $c.element_type
  }
""",
    results=["%merged"],
    groups=expanded_groups,
    shapes=expanded_shapes,
    expanded=expanded_types,
    identity=lambda m: identity_value(combiner(m), m["c"].type.element_type),
    partials_type=partials_of_reduction,
    maps=expanded_maps,
    iterators=expanded_iterators,
    rank=lambda m: m["c"].type.get_num_dims(),
    combine=lambda m: combiner(m).name,
)
"""Any reduction's expand split, static shapes: each input reshaped so that K
is (chunk, within), one `linalg.generic` with the op's body over one more
loop, the parallel chunk loop, writing a partial per chunk, then the merge.
`$body` is the op's body (a named op's too), copied onto the generic's
block arguments `%90, %91, ...`."""


def expand_static_pattern(
    options: list[str], splits_by_expand: Constraint, roots: tuple[str, ...]
) -> Pattern:
    """`split-k-expand-static`, declared before the builder pattern it
    specializes, `split-k-expand`, with its options and its match."""
    from xsplit.rewrites.split.memo import shape

    return Pattern(
        name="split-k-expand-static",
        doc="any reduction of static shapes whose inputs all read K: K = S x K/S through "
        "tensor.expand_shape, the op's body in a batched linalg.generic, then a merge "
        "(expand_split.EXPANDED_REDUCTION, the IR as a template)",
        root=roots,
        where=splits_by_expand & a_static_reduction_read_by_templates,
        rewrite=EXPANDED_REDUCTION,
        benefit=2,
        options=options,
        family="split-k",
        memo=shape,
    )


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


# A linalg.generic contraction of rank 2 (generic_chunks.FORMS): the same
# IR, the batched op a copy of the user's generic (its body as it was) with
# the chunk loop d3 in its maps.

_EXPANDED_GENERIC = """
%0 = tensor.expand_shape $a {a_groups} output_shape {a_shape} : $a.type into $a_expanded
%1 = tensor.expand_shape $b {b_groups} output_shape {b_shape} : $b.type into $b_expanded
%identity = arith.constant $identity
%2 = tensor.empty() : $partials_type
%3 = linalg.fill ins(%identity : $c.element_type) outs(%2 : $partials_type) -> $partials_type
%partials = $clone $product(%0, %1, %3 : $a_expanded, $b_expanded, $partials_type) -> ($partials_type) with {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> {a_map}>, affine_map<(d0, d1, d2, d3) -> {b_map}>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>, #linalg.iterator_type<parallel>]}} renamed
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [2] {{xsplit.split_part = "merge"}}
  (%4: $c.element_type, %5: $c.element_type) {{
    %6 = $combine %4, %5 : $c.element_type
    linalg.yield %6 : $c.element_type
  }}
"""
"""A's and B's K reshaped into (chunk, within), a copy of the generic on them
whose maps read K as (d3, d2) and write the chunk loop d3 last, then the
merge; `{a_groups}`, `{a_shape}` and `{a_map}` say where A holds K."""

_LOOP_OF = {"M": "d0", "N": "d1"}


def _expanded_form(dims: str) -> dict[str, str]:
    """An input whose dimensions `dims` names (`"KM"` for A^T): its reshape's
    groups and sizes, and its map in the batched generic."""
    other = "$m" if "M" in dims else "$n"
    if dims[0] == "K":
        return dict(
            groups="[[0, 1], [2]]",
            shape=f"[$count, $chunk, {other}]",
            map=f"(d3, d2, {_LOOP_OF[dims[1]]})",
        )
    return dict(
        groups="[[0], [1, 2]]",
        shape=f"[{other}, $count, $chunk]",
        map=f"({_LOOP_OF[dims[0]]}, d3, d2)",
    )


def expanded_generic(a_dims: str, b_dims: str) -> Template:
    """`_EXPANDED_GENERIC` for a generic reading A as `a_dims` and B as `b_dims`."""
    from xsplit.rewrites.dsl.clone import CloningTemplate

    a, b = _expanded_form(a_dims), _expanded_form(b_dims)
    text = _EXPANDED_GENERIC.format(
        a_groups=a["groups"], a_shape=a["shape"], a_map=a["map"],
        b_groups=b["groups"], b_shape=b["shape"], b_map=b["map"],
    )
    return CloningTemplate(
        text,
        results=["%merged"],
        identity=lambda m: identity_value(combiner(m), m["c"].type.element_type),
        combine=lambda m: combiner(m).name,
        count=COUNT,
        chunk=K // COUNT,
        m=dim("M"),
        n=dim("N"),
        a_expanded=lambda m: _expanded(m, "a", a_dims.index("K")),
        b_expanded=lambda m: _expanded(m, "b", b_dims.index("K")),
        partials_type=lambda m: TensorType(
            m["c"].type.element_type, [dim("M")(m), dim("N")(m), COUNT(m)]
        ),
    )
