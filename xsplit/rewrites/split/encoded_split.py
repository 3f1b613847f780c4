"""Split-K composed with data tiling: the split's partial products as one
encoded batch contraction, so that they run as `batch_mmt4d` on packed tiles.

IREE 3.13 cannot combine the two (its own split gives "operand does not
dominate this use"; a split dispatch with encodings, "failed to legalize
operation 'flow.tensor.encode'"), but it data-tiles a contraction with a
batch loop. So K is cut into S chunks of kc, kc rounded up to a multiple of
the inner K tile so that no pack pads inside a chunk, K is zero-padded to
S x kc, and each input is reshaped so that the chunk index is a loop of its
own (`tensor.expand_shape`, K -> S x kc). The partial products are then one
contraction with the chunk loop as a batch loop, which is encoded as IREE's
SetEncoding would encode it, and a `linalg.reduce` over the chunks merges
them into the original accumulator:

    %a_p = tensor.pad %a ... (K -> S*kc, zeros)      only when kc*S != K
    %a_e = tensor.expand_shape %a_p ... M x S x kc
    %partials = unset_encoding(<contraction over (s, m, n, k)>(set_encoding ...))
    %r = linalg.reduce ins(%partials : S x M x N) outs(%c) dimensions = [0]

Both orders of `set-encoding` and `split-k` end in this form: `split-k` on an
encoded contraction (`SPLIT_ENCODED`, which split-k runs), and
`set-encoding` on a split-k loop (`ENCODE_SPLIT_LOOP` in set_encoding.py).
"""

from __future__ import annotations

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    IntegerAttr,
    IntegerType,
    TensorType,
    f32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

import xsplit.attr_names as attr_names
from xsplit.analysis.contraction import op_contraction_dims
from xsplit.analysis.reduction import match_reduction
from xsplit.dialects.op_helpers import zero_attr
from xsplit.rewrites.common.encodings import encode, expand
from xsplit.dialects.iree_encoding import EncodingAttr
from xsplit.rewrites.dispatch.form_dispatch_regions import is_graph_level
from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Template,
    attr,
    ceildiv,
    dim,
    init,
    input,
    no_discardable_attributes,
    operand,
    root_is,
)
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.split.chunks import COUNT, plan_chunks
from xsplit.rewrites.split.static_chunks import MATMUL_MAPS
from xsplit.rewrites.split.aligned_split import aligned_chunk_size, pad_with_zeros

K_ALIGN = {"f32": 1, "f16": 2, "i8": 8}
"""The chunk alignment per input element class: a multiple of every inner K
tile IREE's CPU data tiling uses for it (i8 VNNI tiles reach 8), so that
chunks never straddle a tile."""


def k_align(element) -> int:  # type: ignore[no-untyped-def]
    if isinstance(element, IntegerType) and element.width.data <= 8:
        return K_ALIGN["i8"]
    if isinstance(element, AnyFloat) and element.bitwidth <= 16:
        return K_ALIGN["f16"]
    return K_ALIGN["f32"]


def chunking(k: int, count: int, align: int) -> tuple[int, int]:
    """(chunks, chunk size): about `count` chunks of a multiple of `align`
    covering K, the last padded."""
    chunk = aligned_chunk_size(k, count, align)
    return ceildiv(k, chunk), chunk


def split_and_encode(
    op: Operation, inputs: list[SSAValue], init: SSAValue, count: int, ir: IRBuilder
) -> SSAValue:
    """`op`'s contraction over `inputs` into `init`, split into about `count`
    chunks of K whose partial products are one encoded contraction; returns
    the merged result."""
    dims = op_contraction_dims(op)
    assert not isinstance(dims, str)
    red = match_reduction(op)
    assert not isinstance(red, str)
    maps = [m.data for m in op.get_indexing_maps().data]  # type: ignore[attr-defined]
    n, k_loop = dims.num_loops, dims.k
    k_size = next(
        t.get_shape()[list(e.position for e in m.results).index(k_loop)]  # type: ignore[union-attr]
        for v, m in zip(inputs, maps[:2])
        if isinstance(t := v.type, TensorType)
    )
    first = inputs[0].type
    assert isinstance(first, TensorType)
    chunks, chunk = chunking(k_size, count, k_align(first.element_type))
    s = AffineExpr.dimension(n)

    expanded: list[SSAValue] = []
    new_maps: list[AffineMap] = []
    for value, m in zip(inputs, maps[:2]):
        t = value.type
        assert isinstance(t, TensorType)
        positions = [e.position for e in m.results]  # type: ignore[union-attr]
        at = positions.index(k_loop)
        value = pad_with_zeros(ir, value, {at: chunks * chunk})
        shape = list(t.get_shape())
        groups, sizes, results = [], [], []
        for i, (expr, size) in enumerate(zip(m.results, shape)):
            start = len(sizes)
            if i == at:
                sizes += [chunks, chunk]
                results += [s, expr]
            else:
                sizes.append(size)
                results.append(expr)
            groups.append(list(range(start, len(sizes))))
        expanded.append(expand(ir, value, groups, sizes))
        new_maps.append(AffineMap(n + 1, 0, tuple(results)))

    acc_type = init.type
    assert isinstance(acc_type, TensorType)
    out_shape = [chunks, *acc_type.get_shape()]
    zero = ir.constant(zero_attr(acc_type.element_type))
    # The partials' init is built detached: `encode` reads it and builds the
    # encoded init in its place.
    empty = tensor.EmptyOp([], TensorType(acc_type.element_type, out_shape))
    fill = linalg.FillOp([zero], [empty.tensor], [empty.tensor.type])
    partials_init = fill.results[0]
    out_map = AffineMap(n + 1, 0, (s, *maps[2].results))
    iterators = [
        IteratorTypeAttr.reduction() if d == k_loop else IteratorTypeAttr.parallel()
        for d in range(n + 1)
    ]
    partial = linalg.GenericOp(
        expanded,
        [partials_init],
        red.body(),
        [AffineMapAttr(m) for m in (*new_maps, out_map)],
        iterators,
        [partials_init.type],
    )
    partial.attributes[SPLIT_CHUNKS_ATTR] = IntegerAttr(chunks, i64)
    partials = encode(partial, ir)
    for detached in (partial, fill, empty):
        detached.erase()
    partials.name_hint = "partials"
    return merge_chunks(ir, partials, init)


def merge_chunks(ir: IRBuilder, partials: SSAValue, init: SSAValue) -> SSAValue:
    """`linalg.reduce` of the partials over their first dimension into `init`."""
    element = init.type.element_type  # type: ignore[attr-defined]
    region = Region(Block(arg_types=[element, element]))
    block = region.block
    add = (arith.AddfOp if isinstance(element, AnyFloat) else arith.AddiOp)(
        block.args[0], block.args[1]
    )
    block.add_ops([add, linalg.YieldOp(add.result)])
    from xsplit.dialects.op_helpers import dense_i64

    merged = ir.b.insert(linalg.ReduceOp(partials, init, dense_i64([0]), region)).results[0]
    merged.name_hint = "merged"
    return merged


def k_of(op: Operation) -> int | None:
    dims = op_contraction_dims(op)
    if isinstance(dims, str):
        return None
    maps = [m.data for m in op.get_indexing_maps().data]  # type: ignore[attr-defined]
    for v, m in zip(op.operands[:2], maps[:2]):
        positions = [e.position for e in m.results if isinstance(e, AffineDimExpr)]
        t = v.type
        if dims.k in positions and isinstance(t, TensorType):
            return t.get_shape()[positions.index(dims.k)]
    return None


# `split-k` on an encoded contraction (set-encoding ran first).


def _capture_encoded_split(m):  # type: ignore[no-untyped-def]
    from xsplit.analysis.cost_model import choose_tiling, problem_of
    from xsplit.diagnostics import remark
    from xsplit.rewrites.common.encodings import match_encoded
    from xsplit.rewrites.dispatch.form_dispatch_regions import in_dispatch
    from xsplit.rewrites.split.chunks import plan_chunks
    from xsplit.analysis.devices import modeled

    if in_dispatch(m.root):
        return "it is inside a dispatch"
    ec = match_encoded(m.root)
    if isinstance(ec, str):
        return ec
    if _is_split(ec.op):
        return "it already holds the partial products of a split"
    k = ec.size(ec.dims.k)
    o = m.options
    if o["target"] is not None:
        red = match_reduction(ec.op)
        problem = problem_of(red) if not isinstance(red, str) else red
        placed = modeled(ec.op, o["target"])
        assert placed is not None
        on = placed.prefix()
        if isinstance(problem, str):
            remark(m.root, f"{on}not split: {problem}")
            return problem
        decision = choose_tiling(problem, placed.target)
        if decision.factor == 1:
            remark(m.root, f"{on}not split: {decision.reason}")
            return decision.reason
        remark(m.root, f"{on}split-k: {decision.reason}")
        count = decision.factor
    else:
        plan = plan_chunks(m.root, k, o["factor"], o["tile"], o["balanced"])
        if plan is None:
            return "the options leave one chunk (see the remark)"
        assert plan.count is not None
        count = plan.count
    m.captures.update(ec=ec, count=count)
    return True


def _is_split(op: Operation) -> bool:
    return SPLIT_CHUNKS_ATTR in op.attributes or attr_names.SPLIT_FACTOR in op.attributes


SPLIT_CHUNKS_ATTR = attr_names.SPLIT_CHUNKS


def _rewrite_encoded_split(m, ir: IRBuilder) -> list[SSAValue]:  # type: ignore[no-untyped-def]
    ec = m["ec"]
    init = ec.init
    if init is None:
        t = ec.unset.result.type
        assert isinstance(t, TensorType)
        init = ir.fill(ec.fill_value, ir.empty(list(t.get_shape()), t.element_type))
    return [split_and_encode(ec.op, ec.inputs, init, m["count"], ir)]


def make_split_encoded_pattern(options: list[str]):  # type: ignore[no-untyped-def]
    """The split-k pattern for an encoded contraction, with split-k's options."""
    from xsplit.rewrites.dsl import Pattern, where

    return Pattern(
        name="split-k-encoded",
        doc="splits an encoded contraction into encoded partial products over "
        "chunks aligned to the inner K tile (K padded), then a merge",
        root="iree_encoding.unset_encoding",
        where=where("ends an encoded contraction split-k can split", _capture_encoded_split),
        rewrite=_rewrite_encoded_split,
        benefit=3,
        options=options,
        family="split-k",
    )


# The common root as a template: an f32 `linalg.matmul` between set_encoding
# and unset_encoding, as `set-encoding` leaves it, split by the options.

K = dim("K")
ENCODED_CHUNK = ceildiv(K, COUNT)
"""An f32 chunk: the count the options make of K, rounded to the f32 K tile
of 1 (`chunking`)."""
ENCODED_CHUNKS = ceildiv(K, ENCODED_CHUNK)
PADDED_K = ENCODED_CHUNKS * ENCODED_CHUNK

_MAPS = [
    AffineMapAttr(AffineMap.from_callable(lambda m, n, k, s: (m, s, k))),
    AffineMapAttr(AffineMap.from_callable(lambda m, n, k, s: (s, k, n))),
    AffineMapAttr(AffineMap.from_callable(lambda m, n, k, s: (s, m, n))),
]
"""The partial product's maps: A[m, s, k], B[s, k, n], P[s, m, n]."""


def _chunks(m: Match) -> int:
    """The chunk count; the chunk plan says its remarks here (a factor above
    K, a count rounded), as `split-k-encoded`'s match does."""
    o = m.options
    plan = plan_chunks(m.root, K(m), o["factor"], o["tile"], o["balanced"])
    assert plan is not None and plan.count == COUNT(m), "options_cut_k and plan_chunks disagree"
    return ENCODED_CHUNKS(m)


def _encoded(index: int, shape):  # type: ignore[no-untyped-def]
    """The f32 type of `shape` with the encoding IREE's SetEncoding gives
    operand `index` of the partial product."""

    def encoded(m: Match) -> TensorType:
        sizes = [dim("M")(m), dim("N")(m), ENCODED_CHUNK(m), ENCODED_CHUNKS(m)]
        encoding = EncodingAttr(index, [f32, f32, f32], _MAPS, sizes)
        return TensorType(f32, shape(m), encoding)

    return encoded


def _padded_name(operand: str, unnamed: str):  # type: ignore[no-untyped-def]
    """`%a_padded` for `%a`, as `pad_with_zeros` names it; none (a number) for
    an unnamed value."""
    return lambda m: f"{hint}_padded" if (hint := m[operand].name_hint) else unnamed


def _a_chunks(m: Match) -> list[int]:
    return [dim("M")(m), ENCODED_CHUNKS(m), ENCODED_CHUNK(m)]


def _b_chunks(m: Match) -> list[int]:
    return [ENCODED_CHUNKS(m), ENCODED_CHUNK(m), dim("N")(m)]


def _partials(m: Match) -> list[int]:
    return [ENCODED_CHUNKS(m), dim("M")(m), dim("N")(m)]


ENCODED_HOLES = dict(
    m=dim("M"),
    n=dim("N"),
    chunk=ENCODED_CHUNK,
    chunks=_chunks,
    padding=PADDED_K - K,
    a_padded=_padded_name("a", "22"),
    b_padded=_padded_name("b", "23"),
    a_padded_type=lambda m: TensorType(f32, [dim("M")(m), PADDED_K(m)]),
    b_padded_type=lambda m: TensorType(f32, [PADDED_K(m), dim("N")(m)]),
    a_chunks_type=lambda m: TensorType(f32, _a_chunks(m)),
    b_chunks_type=lambda m: TensorType(f32, _b_chunks(m)),
    partials_type=lambda m: TensorType(f32, _partials(m)),
    a_encoded=_encoded(0, _a_chunks),
    b_encoded=_encoded(1, _b_chunks),
    partials_encoded=_encoded(2, _partials),
)
"""The templates' numbers and types, from the match."""


ENCODED_PARTIALS = """
%2 = arith.constant 0.000000e+00 : f32
%3 = iree_encoding.set_encoding %0 : $a_chunks_type -> $a_encoded
%4 = iree_encoding.set_encoding %1 : $b_chunks_type -> $b_encoded
%5 = tensor.empty() : $partials_encoded
%6 = linalg.fill ins(%2 : f32) outs(%5 : $partials_encoded) -> $partials_encoded
%7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%3, %4 : $a_encoded, $b_encoded) outs(%6 : $partials_encoded) attrs = {xsplit.split_chunks = $chunks : i64} {
^bb0(%8: f32, %9: f32, %10: f32):
  %11 = arith.mulf %8, %9 : f32
  %12 = arith.addf %10, %11 : f32
  linalg.yield %12 : f32
} -> $partials_encoded
%partials = iree_encoding.unset_encoding %7 : $partials_encoded -> $partials_type
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [0]
  (%13: f32, %14: f32) {
    %15 = arith.addf %13, %14 : f32
    linalg.yield %15 : f32
  }
"""
"""The partial products, one contraction over (M, N, chunk of K, chunk) on
encoded operands, and the merge over the chunks into the original init:
what `split_and_encode` builds for such a matmul."""

ENCODED_MATMUL = Template(
    """
%0 = tensor.expand_shape $a [[0], [1, 2]] output_shape [$m, $chunks, $chunk] : $a.type into $a_chunks_type
%1 = tensor.expand_shape $b [[0, 1], [2]] output_shape [$chunks, $chunk, $n] : $b.type into $b_chunks_type
"""
    + ENCODED_PARTIALS,
    results=["%merged"],
    **ENCODED_HOLES,
)
"""K a whole number of chunks: A and B reshaped so that the chunk is a loop."""

ENCODED_MATMUL_PADDED = Template(
    """
%$a_padded = tensor.pad $a low[0, 0] high[0, $padding] {
^bb0(%16: index, %17: index):
  %18 = arith.constant 0.000000e+00 : f32
  tensor.yield %18 : f32
} : $a.type to $a_padded_type
%0 = tensor.expand_shape %$a_padded [[0], [1, 2]] output_shape [$m, $chunks, $chunk] : $a_padded_type into $a_chunks_type
%$b_padded = tensor.pad $b low[0, 0] high[$padding, 0] {
^bb0(%19: index, %20: index):
  %21 = arith.constant 0.000000e+00 : f32
  tensor.yield %21 : f32
} : $b.type to $b_padded_type
%1 = tensor.expand_shape %$b_padded [[0, 1], [2]] output_shape [$chunks, $chunk, $n] : $b_padded_type into $b_chunks_type
"""
    + ENCODED_PARTIALS,
    results=["%merged"],
    **ENCODED_HOLES,
)
"""K zero-padded to the chunks first, as `pad_with_zeros` does."""


# The match side: the op tree `set-encoding` leaves around an f32 matmul.


def _an_input(i: int, name: str, *dims: str):  # type: ignore[no-untyped-def]
    value = input(i) if i < 2 else init()
    return value.defined_by(
        "iree_encoding.set_encoding",
        where=operand(0).has_static_shape()
        & operand(0).element_type(f32)
        & operand(0).has_shape(*dims)
        & operand(0).capture(name),
    )


an_encoded_f32_matmul: Constraint = (
    root_is("iree_encoding.unset_encoding")
    & is_graph_level
    & operand(0).has_one_use()
    & operand(0).defined_by(
        "linalg.matmul",
        where=attr("indexing_maps").equals(MATMUL_MAPS)
        & no_discardable_attributes()
        & _an_input(0, "a", "M", "K")
        & _an_input(1, "b", "K", "N")
        & _an_input(2, "c", "M", "N"),
    )
)
"""`unset_encoding(linalg.matmul(set_encoding %a, set_encoding %b,
set_encoding %c))` on static f32 tensors, at graph level: what `set-encoding`
makes of a plain matmul, not yet split."""


def make_split_encoded_matmul_patterns(  # type: ignore[no-untyped-def]
    options: list[str], options_cut_k: Constraint
):
    """split-k's template patterns for an encoded f32 matmul (K a whole
    number of chunks, or padded to one), declared before `split-k-encoded`,
    the builder they specialise."""
    from xsplit.rewrites.dsl import Pattern

    def pattern(padded: bool):  # type: ignore[no-untyped-def]
        return Pattern(
            name="split-k-encoded-matmul" + ("-padded" if padded else ""),
            doc="an f32 matmul between set_encoding and unset_encoding: "
            + ("K zero-padded to whole chunks, " if padded else "")
            + "the encoded partial products over chunks of K, then a merge (encoded_split."
            + ("ENCODED_MATMUL_PADDED" if padded else "ENCODED_MATMUL")
            + ", the IR as a template)",
            root="iree_encoding.unset_encoding",
            where=an_encoded_f32_matmul
            & options_cut_k
            & (
                described(PADDED_K != K, "K is padded to whole chunks")
                if padded
                else described(PADDED_K == K, "the chunks cover K")
            ),
            rewrite=ENCODED_MATMUL_PADDED if padded else ENCODED_MATMUL,
            benefit=3,
            options=options,
            family="split-k",
        )

    return [pattern(False), pattern(True)]
