"""split-k's static chunks of a vector contraction (`linalg.matvec`,
`linalg.vecmat`, `linalg.dot` and the batched matvec and vecmat), written
as the IR they produce.

The same split as a matmul's (`static_chunks.py`): `full` chunks of one
static size in an `scf.forall` mapped to
`#iree_linalg_ext.split_reduction_mapping`, the rest of K as a tail beside
it, one merge into the original init. Only the slices differ, since K is
the vector's one dimension and a row or a column of the matrix:

    %r = linalg.matvec ins(%w : NxK, %x : K) outs(%c : N)

becomes chunk s of `%w[:, s*chunk ...]` against chunk s of `%x`, into
column s of the N x full partials. A `linalg.dot`'s init holds one element,
so its partials are a vector of `full` and its merge reduces dimension 0.
Generic forms, dynamic shapes and a chunk count the cost model chose stay
with `forall_split.split_with_forall`, which builds the same IR.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Pattern,
    Template,
    dim,
    init,
    input,
    no_discardable_attributes,
    root_is,
)
from xsplit.rewrites.split.chunks import CHUNK, FULL, TAIL
from xsplit.rewrites.split.memo import planned_shape
from xsplit.rewrites.split.static_chunks import CHUNK_HOLES, leaves_no_tail, slice_name

CHUNK_LOOP = """
%identity = arith.constant $identity
%partials_init = tensor.empty() : $partials_type
%partials = scf.forall (%chunk) in ($full) shared_outs(%partials_out = %partials_init) -> ($partials_type) {{
  %chunk_offset = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%chunk)
  %$a_chunk = tensor.extract_slice $a {a_chunk} : $a.type to $a_chunk_type
  %$b_chunk = tensor.extract_slice $b {b_chunk} : $b.type to $b_chunk_type
  %0 = tensor.extract_slice %partials_out{slot} : $partials_type to $c.type
  %partial_init = linalg.fill ins(%identity : $c.element_type) outs(%0 : $c.type) -> $c.type
  %partial = {partial}
  scf.forall.in_parallel {{
    tensor.parallel_insert_slice %partial into %partials_out{slot} : $c.type into $partials_type
  }}
}} {{mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}}
"""
"""The loop over whole chunks, each `{partial}` (the product, see
`named_op_products`) on chunk s of both inputs into slot s of the partials;
`{a_chunk}`, `{b_chunk}` and `{slot}` are the offsets,
sizes and strides each form slices with (after a space: `$b[$i]` and
`$b[2]` are an element of a captured list)."""

CHUNK_MERGE = """
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [{last}] {{xsplit.split_part = "merge"}}
  (%1: $c.element_type, %2: $c.element_type) {{
    %3 = $combine %1, %2 : $c.element_type
    linalg.yield %3 : $c.element_type
  }}
"""
"""The partials folded into the init over their last dimension, the chunks."""

CHUNK_TAIL_AND_MERGE = """
%$a_tail = tensor.extract_slice $a {a_tail} {{xsplit.split_part = "tail"}} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b {b_tail} {{xsplit.split_part = "tail"}} : $b.type to $b_tail_type
%1 = tensor.empty() : $c.type
%tail_init = linalg.fill {{xsplit.split_part = "tail"}} ins(%identity : $c.element_type) outs(%1 : $c.type) -> $c.type
%tail = {tail}
%merged = linalg.generic {{indexing_maps = [{merge_maps}], iterator_types = [{merge_iterators}]}} ins(%partials, %tail : $partials_type, $c.type) outs($c : $c.type) attrs = {{xsplit.split_part = "merge"}} {{
^bb0(%2: $c.element_type, %3: $c.element_type, %4: $c.element_type):
  %5 = linalg.index {last} : index
  %6 = arith.constant 0 : index
  %7 = arith.cmpi eq, %5, %6 : index
  %8 = $combine %2, %3 : $c.element_type
  %9 = arith.select %7, %8, %2 : $c.element_type
  %10 = $combine %9, %4 : $c.element_type
  linalg.yield %10 : $c.element_type
}} -> $c.type
"""
"""The tail, the same product (`{tail}`) on the rest of K, and a merge that
combines it in once, at chunk 0, as `static_chunks.STATIC_CHUNKS_AND_TAIL`
does: `{last}` is the partials' chunk dimension, `{merge_maps}` and
`{merge_iterators}` the merge's maps and iterators over it."""


def named_op_products(op: str) -> dict[str, str]:
    """The chunk's and the tail's product as the named op `op` on their
    slices, for CHUNK_LOOP's `{partial}` and CHUNK_TAIL_AND_MERGE's `{tail}`."""
    return dict(
        partial=f"{op} ins(%$a_chunk, %$b_chunk : $a_chunk_type, $b_chunk_type) "
        "outs(%partial_init : $c.type) -> $c.type",
        tail=f'{op} {{xsplit.split_part = "tail"}} ins(%$a_tail, %$b_tail : $a_tail_type, '
        "$b_tail_type) outs(%tail_init : $c.type) -> $c.type",
    )

_ROWS_MERGE = dict(
    merge_maps="affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, "
    "affine_map<(d0, d1) -> (d0)>",
    merge_iterators='"parallel", "reduction"',
    last=1,
    slot="[0, %chunk] [$n, 1] [1, 1]",
)
"""An N-vector init: the partials are N x full, the chunks their columns."""

MATVEC = dict(
    _ROWS_MERGE,
    op="linalg.matvec",
    a_chunk="[0, %chunk_offset] [$n, $chunk] [1, 1]",
    b_chunk="[%chunk_offset] [$chunk] [1]",
    a_tail="[0, $tail_offset] [$n, $tail] [1, 1]",
    b_tail="[$tail_offset] [$tail] [1]",
)
"""`linalg.matvec ins(%a : NxK, %b : K)`: columns of the matrix."""

VECMAT = dict(
    _ROWS_MERGE,
    op="linalg.vecmat",
    a_chunk="[%chunk_offset] [$chunk] [1]",
    b_chunk="[%chunk_offset, 0] [$chunk, $n] [1, 1]",
    a_tail="[$tail_offset] [$tail] [1]",
    b_tail="[$tail_offset, 0] [$tail, $n] [1, 1]",
)
"""`linalg.vecmat ins(%a : K, %b : KxN)`: rows of the matrix."""

DOT = dict(
    op="linalg.dot",
    a_chunk="[%chunk_offset] [$chunk] [1]",
    b_chunk="[%chunk_offset] [$chunk] [1]",
    a_tail="[$tail_offset] [$tail] [1]",
    b_tail="[$tail_offset] [$tail] [1]",
    slot="[%chunk] [1] [1]",
    merge_maps="affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>",
    merge_iterators='"reduction"',
    last=0,
)
"""`linalg.dot ins(%a : K, %b : K) outs(%c : 0-d)`: one element per chunk."""

_BATCH_ROWS_MERGE = dict(
    merge_maps="affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
    merge_iterators='"parallel", "parallel", "reduction"',
    last=2,
    slot="[0, 0, %chunk] [$batch, $n, 1] [1, 1, 1]",
)
"""A B x N init: the partials are B x N x full."""

BATCH_MATVEC = dict(
    _BATCH_ROWS_MERGE,
    op="linalg.batch_matvec",
    a_chunk="[0, 0, %chunk_offset] [$batch, $n, $chunk] [1, 1, 1]",
    b_chunk="[0, %chunk_offset] [$batch, $chunk] [1, 1]",
    a_tail="[0, 0, $tail_offset] [$batch, $n, $tail] [1, 1, 1]",
    b_tail="[0, $tail_offset] [$batch, $tail] [1, 1]",
)
"""`linalg.batch_matvec ins(%a : BxNxK, %b : BxK)`: each batch's matvec."""

BATCH_VECMAT = dict(
    _BATCH_ROWS_MERGE,
    op="linalg.batch_vecmat",
    a_chunk="[0, %chunk_offset] [$batch, $chunk] [1, 1]",
    b_chunk="[0, %chunk_offset, 0] [$batch, $chunk, $n] [1, 1, 1]",
    a_tail="[0, $tail_offset] [$batch, $tail] [1, 1]",
    b_tail="[0, $tail_offset, 0] [$batch, $tail, $n] [1, 1, 1]",
)
"""`linalg.batch_vecmat ins(%a : BxK, %b : BxKxN)`: each batch's vecmat."""


# The helpers: each type the templates name, from the match.


def _sliced(operand: str, dims: str):  # type: ignore[no-untyped-def]
    """The type of a slice of `operand`, whose dimensions `dims` names
    (`"NK"` for matvec's matrix), where K is `size` long."""

    def shape(m: Match, size: int) -> TensorType:
        sizes = [size if d == "K" else dim(d)(m) for d in dims]
        return TensorType(m[operand].type.element_type, sizes)

    return shape


def _holes(a_dims: str, b_dims: str, c_dims: str) -> dict:  # type: ignore[type-arg]
    a, b = _sliced("a", a_dims), _sliced("b", b_dims)
    named = {"n": dim("N"), "batch": dim("B")}
    return dict(
        {k: v for k, v in CHUNK_HOLES.items() if k not in ("m", "n")},
        **{hole: n for hole, n in named.items() if str(n) in c_dims},
        partials_type=lambda m: TensorType(
            m["c"].type.element_type, [*(dim(d)(m) for d in c_dims), FULL(m)]
        ),
        a_chunk_type=lambda m: a(m, CHUNK(m)),
        b_chunk_type=lambda m: b(m, CHUNK(m)),
        tail=TAIL,
        tail_offset=FULL * CHUNK,
        a_tail_type=lambda m: a(m, TAIL(m)),
        b_tail_type=lambda m: b(m, TAIL(m)),
        a_tail=lambda m: slice_name(m, "a", "tail"),
        b_tail=lambda m: slice_name(m, "b", "tail"),
    )


def _templates(form: dict, holes: dict) -> tuple[Template, Template]:  # type: ignore[type-arg]
    """The form's split without a tail, and with one."""
    text = {**form, **named_op_products(form["op"])}
    whole = Template((CHUNK_LOOP + CHUNK_MERGE).format(**text), results=["%merged"], **holes)
    tailed = Template(
        (CHUNK_LOOP + CHUNK_TAIL_AND_MERGE).format(**text), results=["%merged"], **holes
    )
    return whole, tailed


STATIC_MATVEC_CHUNKS, STATIC_MATVEC_CHUNKS_AND_TAIL = _templates(MATVEC, _holes("NK", "K", "N"))
STATIC_VECMAT_CHUNKS, STATIC_VECMAT_CHUNKS_AND_TAIL = _templates(VECMAT, _holes("K", "KN", "N"))
STATIC_DOT_CHUNKS, STATIC_DOT_CHUNKS_AND_TAIL = _templates(DOT, _holes("K", "K", ""))
STATIC_BATCH_MATVEC_CHUNKS, STATIC_BATCH_MATVEC_CHUNKS_AND_TAIL = _templates(
    BATCH_MATVEC, _holes("BNK", "BK", "BN")
)
STATIC_BATCH_VECMAT_CHUNKS, STATIC_BATCH_VECMAT_CHUNKS_AND_TAIL = _templates(
    BATCH_VECMAT, _holes("BK", "BKN", "BN")
)


# The match side: the op tree of each form, its dimensions named.


def _static(name: str, a: tuple[str, ...], b: tuple[str, ...], c: tuple[str, ...]) -> Constraint:
    return (
        root_is(name)
        & no_discardable_attributes()
        & input(0).has_static_shape()
        & input(1).has_static_shape()
        & init().has_static_shape()
        & input(0).has_shape(*a)
        & input(1).has_shape(*b)
        & init().has_shape(*c)
        & input(0).capture("a")
        & input(1).capture("b")
        & init().capture("c")
    )


a_plain_static_matvec: Constraint = _static("linalg.matvec", ("N", "K"), ("K",), ("N",))
"""`linalg.matvec ins(%a : NxK, %b : K) outs(%c : N)` with static shapes."""

a_plain_static_vecmat: Constraint = _static("linalg.vecmat", ("K",), ("K", "N"), ("N",))
"""`linalg.vecmat ins(%a : K, %b : KxN) outs(%c : N)` with static shapes."""

a_plain_static_dot: Constraint = _static("linalg.dot", ("K",), ("K",), ())
"""`linalg.dot ins(%a : K, %b : K) outs(%c : 0-d)` with static shapes."""

a_plain_static_batch_matvec: Constraint = _static(
    "linalg.batch_matvec", ("B", "N", "K"), ("B", "K"), ("B", "N")
)
"""`linalg.batch_matvec ins(%a : BxNxK, %b : BxK) outs(%c : BxN)`, static."""

a_plain_static_batch_vecmat: Constraint = _static(
    "linalg.batch_vecmat", ("B", "K"), ("B", "K", "N"), ("B", "N")
)
"""`linalg.batch_vecmat ins(%a : BxK, %b : BxKxN) outs(%c : BxN)`, static."""


def vector_chunk_patterns(options: list[str], splits_by_options: Constraint) -> list[Pattern]:
    """split-k's patterns for these forms, with or without a tail, declared
    as `split-k-static-chunks` is: what every structural split-k pattern
    needs (`split_k.splits_by_options`), the form's op tree, and whether the
    chunks leave a rest of K."""
    forms = [
        (
            "linalg.matvec",
            a_plain_static_matvec,
            STATIC_MATVEC_CHUNKS,
            STATIC_MATVEC_CHUNKS_AND_TAIL,
        ),
        (
            "linalg.vecmat",
            a_plain_static_vecmat,
            STATIC_VECMAT_CHUNKS,
            STATIC_VECMAT_CHUNKS_AND_TAIL,
        ),
        ("linalg.dot", a_plain_static_dot, STATIC_DOT_CHUNKS, STATIC_DOT_CHUNKS_AND_TAIL),
        (
            "linalg.batch_matvec",
            a_plain_static_batch_matvec,
            STATIC_BATCH_MATVEC_CHUNKS,
            STATIC_BATCH_MATVEC_CHUNKS_AND_TAIL,
        ),
        (
            "linalg.batch_vecmat",
            a_plain_static_batch_vecmat,
            STATIC_BATCH_VECMAT_CHUNKS,
            STATIC_BATCH_VECMAT_CHUNKS_AND_TAIL,
        ),
    ]
    patterns = []
    for root, form, whole, tailed in forms:
        name = root.removeprefix("linalg.").replace("_", "-")
        template = f"STATIC_{name.upper().replace('-', '_')}_CHUNKS"
        for tail, rewrite in ((False, whole), (True, tailed)):
            merge = (
                "the rest of K beside it, then one merge" if tail else "then a linalg.reduce merge"
            )
            patterns.append(
                Pattern(
                    name=f"split-k-static-{name}-chunks" + ("-and-tail" if tail else ""),
                    doc=f"a static {root}: whole chunks of K in an scf.forall, {merge} "
                    f"(vector_chunks.{template}{'_AND_TAIL' if tail else ''}, the IR as a "
                    "template)",
                    root=root,
                    where=form
                    & splits_by_options
                    & (~leaves_no_tail if tail else leaves_no_tail),
                    rewrite=rewrite,
                    options=options,
                    family="split-k",
                    memo=planned_shape,
                )
            )
    return patterns
