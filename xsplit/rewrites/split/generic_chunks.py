"""split-k's static chunks of a `linalg.generic` contraction, written as the
IR they produce.

A generic that multiplies and accumulates two rank-2 operands into a rank-2
init (`C += A.B`, `A^T.B`, `A.B^T`, `A^T.B^T`, its maps saying which) is
split as `static_chunks.py` splits a `linalg.matmul`: `full` chunks of one
static size in an `scf.forall` mapped to
`#iree_linalg_ext.split_reduction_mapping`, the rest of K as a tail beside
it, one merge into the original init. The partial and the tail are the
user's generic itself, its maps and body as they were, on slices of its
inputs (`$clone $product(...)`), so only where each input holds K differs
from one form to the next:

    %r = linalg.generic {maps (d2, d0), (d2, d1), (d0, d1)} ins(%a : KxM, %b : KxN)

becomes chunk s of `%a[s*chunk ..., :]` against chunk s of `%b[s*chunk ..., :]`.
Other generics (other ranks, a body that extends its inputs, dynamic
shapes, a chunk count the cost model chose) stay with
`forall_split.split_with_forall`, which builds the same IR.
"""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, TensorType
from xdsl.ir.affine import AffineMap

from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Pattern,
    dim,
    init,
    input,
    no_discardable_attributes,
    number,
    option,
    result,
    root_is,
)
from xsplit.rewrites.dsl.arrays import body_ops
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.constraints import attr
from xsplit.rewrites.dsl.contractions import contraction
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.split.chunks import CHUNK, FULL, TAIL, K
from xsplit.rewrites.split.memo import planned_shape
from xsplit.rewrites.split.static_chunks import CHUNK_HOLES, leaves_no_tail, slice_name
from xsplit.rewrites.split.vector_chunks import CHUNK_LOOP, CHUNK_MERGE, CHUNK_TAIL_AND_MERGE

_CLONED_PRODUCTS = dict(
    partial="$clone $product(%$a_chunk, %$b_chunk, %partial_init : $a_chunk_type, "
    "$b_chunk_type, $c.type) -> ($c.type) renamed",
    tail="$clone $product(%$a_tail, %$b_tail, %tail_init : $a_tail_type, $b_tail_type, "
    '$c.type) -> ($c.type) with {xsplit.split_part = "tail"} renamed',
    slot="[0, 0, %chunk] [$m, $n, 1] [1, 1, 1]",
    last=2,
    merge_maps="affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
    merge_iterators='"parallel", "parallel", "reduction"',
)
"""vector_chunks' chunk loop and merges around a copy of the user's generic
(its maps and body as they were) on the chunk's and the tail's slices, the
partials M x N x chunks."""


def _slices(dims: str) -> dict[str, str]:
    """How an input whose dimensions `dims` names (`"KM"` for A^T) is sliced:
    its chunk at `%chunk_offset` and its tail at `$tail_offset` along K, all
    of its other dimension."""
    other = "$m" if "M" in dims else "$n"
    if dims[0] == "K":
        return {
            "chunk": f"[%chunk_offset, 0] [$chunk, {other}] [1, 1]",
            "tail": f"[$tail_offset, 0] [$tail, {other}] [1, 1]",
        }
    return {
        "chunk": f"[0, %chunk_offset] [{other}, $chunk] [1, 1]",
        "tail": f"[0, $tail_offset] [{other}, $tail] [1, 1]",
    }


def _sliced(operand: str, dims: str):  # type: ignore[no-untyped-def]
    """The type of a slice of `operand` (dimensions `dims`) `size` long in K."""

    def shape(m: Match, size: int) -> TensorType:
        sizes = [size if d == "K" else dim(d)(m) for d in dims]
        return TensorType(m[operand].type.element_type, sizes)

    return shape


def _templates(a_dims: str, b_dims: str) -> tuple[CloningTemplate, CloningTemplate]:
    """The form's split without a tail, and with one."""
    a, b = _slices(a_dims), _slices(b_dims)
    form = dict(
        _CLONED_PRODUCTS, a_chunk=a["chunk"], b_chunk=b["chunk"], a_tail=a["tail"], b_tail=b["tail"]
    )
    a_type, b_type = _sliced("a", a_dims), _sliced("b", b_dims)
    holes = dict(
        CHUNK_HOLES,
        a_chunk_type=lambda m: a_type(m, CHUNK(m)),
        b_chunk_type=lambda m: b_type(m, CHUNK(m)),
        tail=TAIL,
        tail_offset=FULL * CHUNK,
        a_tail_type=lambda m: a_type(m, TAIL(m)),
        b_tail_type=lambda m: b_type(m, TAIL(m)),
        a_tail=lambda m: slice_name(m, "a", "tail"),
        b_tail=lambda m: slice_name(m, "b", "tail"),
    )
    whole = CloningTemplate(
        (CHUNK_LOOP + CHUNK_MERGE).format(**form), results=["%merged"], **holes
    )
    tailed = CloningTemplate(
        (CHUNK_LOOP + CHUNK_TAIL_AND_MERGE).format(**form), results=["%merged"], **holes
    )
    return whole, tailed


_LOOPS = {"M": 0, "N": 1, "K": 2}
"""The generic's loops: d0 is M, d1 is N, d2 (the one reduction) is K."""


def _maps(a_dims: str, b_dims: str) -> ArrayAttr[AffineMapAttr]:
    def map_of(dims: str) -> AffineMapAttr:
        return AffineMapAttr(
            AffineMap.from_callable(lambda m, n, k: tuple((m, n, k)[_LOOPS[x]] for x in dims))
        )

    return ArrayAttr([map_of(a_dims), map_of(b_dims), map_of("MN")])


FORMS = {
    "a-b": ("MK", "KN"),
    "at-b": ("KM", "KN"),
    "a-bt": ("MK", "NK"),
    "at-bt": ("KM", "NK"),
}
"""Each form by name: the dimensions of A and of B, in order."""


@functools.cache
def a_static_generic_contraction(a_dims: str, b_dims: str) -> Constraint:
    """A `linalg.generic` whose maps read A as `a_dims` and B as `b_dims`
    (into C as M x N), whose body is one mulf and one addf, a contraction,
    on static shapes and with no attribute of its own. One object per form:
    the engine decides its tests once per op for every pattern that has them."""
    return (
        root_is("linalg.generic")
        & attr("indexing_maps").equals(_maps(a_dims, b_dims))
        & no_discardable_attributes()
        & body_ops("body", "arith.mulf", "arith.addf", "linalg.yield")
        & contraction("loops")
        & input(0).has_static_shape()
        & input(1).has_static_shape()
        & init().has_static_shape()
        & input(0).has_shape(*a_dims)
        & input(1).has_shape(*b_dims)
        & init().has_shape("M", "N")
        & input(0).capture("a")
        & input(1).capture("b")
        & init().capture("c")
        & result(0).capture("product")
    )


def chunk_patterns(options: list[str], splits_by_options: Constraint) -> list[Pattern]:
    """split-k's patterns for these forms, with or without a tail, declared
    as `split-k-static-chunks` is: what every structural split-k pattern
    needs (`split_k.splits_by_options`), the form's op tree, and whether the
    chunks leave a rest of K."""
    patterns = []
    for name, (a_dims, b_dims) in FORMS.items():
        whole, tailed = _templates(a_dims, b_dims)
        form = a_static_generic_contraction(a_dims, b_dims)
        for tail, rewrite in ((False, whole), (True, tailed)):
            merge = (
                "the rest of K beside it, then one merge" if tail else "then a linalg.reduce merge"
            )
            patterns.append(
                Pattern(
                    name=f"split-k-static-generic-{name}-chunks" + ("-and-tail" if tail else ""),
                    doc=f"a static linalg.generic contraction of {a_dims} by {b_dims}: whole "
                    f"chunks of K in an scf.forall, each a copy of the generic, {merge} "
                    "(generic_chunks.py, the IR as a template)",
                    root="linalg.generic",
                    where=form & splits_by_options & (~leaves_no_tail if tail else leaves_no_tail),
                    rewrite=rewrite,
                    options=options,
                    family="split-k",
                    memo=planned_shape,
                )
            )
    return patterns


def expand_patterns(options: list[str], splits_by_options: Constraint) -> list[Pattern]:
    """split-k's `strategy=expand` for these forms
    (`expand_split.expanded_generic`), declared as `split-k-expand-matmul`
    is: the options ask for expand and cut K, and the chunk count divides K."""
    from xsplit.rewrites.split.chunks import COUNT
    from xsplit.rewrites.split.expand_split import expanded_generic

    # The option first: on other strategies the patterns fail before the
    # op tree is read.
    expand = option("strategy") == "expand"
    divides = splits_by_options & described(K % COUNT == 0, "the chunk count divides K")

    return [
        Pattern(
            name=f"split-k-expand-generic-{name}",
            doc=f"a static linalg.generic contraction of {a_dims} by {b_dims}: K = S x K/S "
            "through tensor.expand_shape, a copy of the generic with a parallel chunk loop, "
            "then a merge (expand_split.expanded_generic, the IR as a template)",
            root="linalg.generic",
            where=expand & a_static_generic_contraction(a_dims, b_dims) & divides,
            rewrite=expanded_generic(a_dims, b_dims),
            benefit=2,
            options=options,
            family="split-k",
            memo=planned_shape,
        )
        for name, (a_dims, b_dims) in FORMS.items()
    ]


# `align=`: chunks of one static size, a multiple of align= (aligned_split.py),
# the chunk index first in the partials; a rest of K that is itself aligned
# is one more copy of the generic beside the loop, unpadded.

_ALIGNED_LOOP = """
%zero = arith.constant $zero
%partials_init = tensor.empty() : $partials_type
%partials = scf.forall (%chunk) in ($full) shared_outs(%partials_out = %partials_init) -> ($partials_type) {{
  %chunk_offset = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%chunk)
  %$a_chunk = tensor.extract_slice $a {a_chunk} : $a.type to $a_chunk_type
  %$b_chunk = tensor.extract_slice $b {b_chunk} : $b.type to $b_chunk_type
  %0 = tensor.extract_slice %partials_out[%chunk, 0, 0] [1, $m, $n] [1, 1, 1] : $partials_type to $c.type
  %partial_init = linalg.fill ins(%zero : $c.element_type) outs(%0 : $c.type) -> $c.type
  %partial = $clone $product(%$a_chunk, %$b_chunk, %partial_init : $a_chunk_type, $b_chunk_type, $c.type) -> ($c.type) renamed
  scf.forall.in_parallel {{
    tensor.parallel_insert_slice %partial into %partials_out[%chunk, 0, 0] [1, $m, $n] [1, 1, 1] : $c.type into $partials_type
  }}
}} {{mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}}
"""
"""`aligned_split.ALIGNED_LOOP` for a generic: each chunk a copy of it."""

_ALIGNED_MERGE = """%merged = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%partials : $partials_type) outs($c : $c.type) attrs = {{xsplit.split_part = "merge"}} {{
^bb0(%6: $c.element_type, %7: $c.element_type):
  %8 = arith.addf %6, %7 : $c.element_type
  linalg.yield %8 : $c.element_type
}} -> $c.type
"""
"""The chunks added into C."""

_ALIGNED_TAIL_AND_MERGE = """
%$a_tail = tensor.extract_slice $a {a_tail} {{xsplit.split_part = "tail"}} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b {b_tail} {{xsplit.split_part = "tail"}} : $b.type to $b_tail_type
%6 = tensor.empty() : $c.type
%tail_init = linalg.fill {{xsplit.split_part = "tail"}} ins(%zero : $c.element_type) outs(%6 : $c.type) -> $c.type
%tail = $clone $product(%$a_tail, %$b_tail, %tail_init : $a_tail_type, $b_tail_type, $c.type) -> ($c.type) with {{xsplit.split_part = "tail"}} renamed
%merged = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%partials, %tail : $partials_type, $c.type) outs($c : $c.type) attrs = {{xsplit.split_part = "merge"}} {{
^bb0(%12: $c.element_type, %13: $c.element_type, %14: $c.element_type):
  %15 = linalg.index 2 : index
  %16 = arith.constant 0 : index
  %17 = arith.cmpi eq, %15, %16 : index
  %18 = arith.addf %12, %13 : $c.element_type
  %19 = arith.select %17, %18, %12 : $c.element_type
  %20 = arith.addf %19, %14 : $c.element_type
  linalg.yield %20 : $c.element_type
}} -> $c.type
"""
"""The aligned rest of K as a copy of the generic, added in once, at chunk 0."""


def _aligned_templates(a_dims: str, b_dims: str) -> tuple[CloningTemplate, CloningTemplate]:
    """The form's aligned split without a rest of K, and with an aligned one."""
    from xsplit.dialects.op_helpers import zero_attr
    from xsplit.rewrites.split.aligned_split import ALIGNED_CHUNK, ALIGNED_TAIL

    a, b = _slices(a_dims), _slices(b_dims)
    form = dict(
        _CLONED_PRODUCTS, a_chunk=a["chunk"], b_chunk=b["chunk"], a_tail=a["tail"], b_tail=b["tail"]
    )
    a_type, b_type = _sliced("a", a_dims), _sliced("b", b_dims)
    full = K // ALIGNED_CHUNK
    holes = dict(
        zero=lambda m: zero_attr(m["c"].type.element_type),
        full=full,
        chunk=ALIGNED_CHUNK,
        m=dim("M"),
        n=dim("N"),
        partials_type=lambda m: TensorType(
            m["c"].type.element_type, [full(m), dim("M")(m), dim("N")(m)]
        ),
        a_chunk_type=lambda m: a_type(m, ALIGNED_CHUNK(m)),
        b_chunk_type=lambda m: b_type(m, ALIGNED_CHUNK(m)),
        a_chunk=lambda m: slice_name(m, "a", "chunk"),
        b_chunk=lambda m: slice_name(m, "b", "chunk"),
        tail=ALIGNED_TAIL,
        tail_offset=K - ALIGNED_TAIL,
        a_tail_type=lambda m: a_type(m, ALIGNED_TAIL(m)),
        b_tail_type=lambda m: b_type(m, ALIGNED_TAIL(m)),
        a_tail=lambda m: slice_name(m, "a", "tail"),
        b_tail=lambda m: slice_name(m, "b", "tail"),
    )
    whole = CloningTemplate(
        (_ALIGNED_LOOP + _ALIGNED_MERGE).format(**form), results=["%merged"], **holes
    )
    tailed = CloningTemplate(
        (_ALIGNED_LOOP + _ALIGNED_TAIL_AND_MERGE).format(**form), results=["%merged"], **holes
    )
    return whole, tailed


def aligned_patterns(options: list[str], splits_by_options: Constraint) -> list[Pattern]:
    """split-k's `align=` for these forms, declared as
    `split-k-aligned-matmul` and `-and-tail` are: M needs no padding, no
    CPU tiles, and the aligned chunks cover K or leave an aligned rest."""
    from xsplit.rewrites.split.aligned_split import (
        ALIGNED_CHUNK,
        ALIGNED_TAIL,
        m_needs_no_padding,
        options_align_k,
    )

    aligned = (
        (option("strategy") == "forall")
        & splits_by_options
        & options_align_k
        & m_needs_no_padding
        & ~option("cpu_tiles").is_truthy()
    )
    covers = described(K % ALIGNED_CHUNK == 0, "the aligned chunks cover K")
    rest_aligned = described(ALIGNED_TAIL > 0, "a rest of K is left") & described(
        ALIGNED_TAIL % number(option("align")) == 0, "the rest of K is aligned"
    )
    patterns = []
    for name, (a_dims, b_dims) in FORMS.items():
        whole, tailed = _aligned_templates(a_dims, b_dims)
        form = a_static_generic_contraction(a_dims, b_dims)
        for tail, rewrite in ((False, whole), (True, tailed)):
            patterns.append(
                Pattern(
                    name=f"split-k-aligned-generic-{name}" + ("-and-tail" if tail else ""),
                    doc=f"a static linalg.generic contraction of {a_dims} by {b_dims} whose "
                    "aligned chunks cover K"
                    + (" or leave an aligned rest" if tail else "")
                    + ", M unpadded and no tiles: copies of the generic in an scf.forall"
                    + (", the rest beside it" if tail else "")
                    + ", one merge (generic_chunks.py, the IR as a template)",
                    root="linalg.generic",
                    where=option("align").is_set()
                    & form
                    & aligned
                    & (rest_aligned if tail else covers),
                    rewrite=rewrite,
                    benefit=2,
                    options=options,
                    family="split-k",
                    memo=planned_shape,
                )
            )
    return patterns
