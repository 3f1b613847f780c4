"""An encoded split and its merge, materialized as the IR it produces: the
common root of `materialize-encoded-split-early` and
`materialize-encoded-split-in-dispatches` as templates.

`set-encoding` and `split-k` compose, in either order, into one encoded
contraction whose one batch loop is the split's chunks, from partials filled
at graph level, and a `linalg.reduce` that merges the chunks into the
user's init:

    %p = unset_encoding(contraction(set_encoding(%a), set_encoding(%b)) outs(fill(empty)))
    %merged = linalg.reduce ins(%p) outs(%c) dimensions = [chunk]

Packed for the target's tiles, the partial products are one `batch_mmt4d`;
the chunks are merged in the packed layout, into `%c` packed, and only the
merged result is unpacked: the partials are never unpacked. Late, each pack
is a dispatch of its own with the pads and reshapes that feed it (as IREE's
dispatch formation pulls a pack's producers in), the fill and the
`batch_mmt4d` one, the unpack one; the merge stays at graph level, where
IREE forms its dispatch, as split-k's merge does.

The layouts (outer permutation, tiled dimensions, tiles) are numbers of the
match computed by the helpers `materialize_encodings` names for its packed
matmuls, whatever the contraction's maps (chunks first or last); the merge's
combiner is the matched one, copied (`$clone`). A contraction without an M or
an N loop (a matvec's unit dimension), an init packed rather than filled, a
fill of no constant, a producer of a pack used elsewhere, or a merge that
carries attributes of its own (strategy=expand's is marked as the split's
merge, a mark the builder's fresh merge drops) stay with the builder
patterns these come before.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from xsplit.dialects.iree_encoding import SetEncodingOp, UnsetEncodingOp
from xsplit.dialects.op_helpers import zero_attr
from xsplit.rewrites.common.encodings import Layout, layout_of, without_batch
from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Pattern,
    init,
    input,
    no_discardable_attributes,
    operand,
    result,
)
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.encoding.materialize_contractions import (
    RegionFormingCloningTemplate,
    data_tiled,
    drops_encodings,
    encodes,
    filled,
    has_m_and_n,
)
from xsplit.rewrites.encoding.materialize_encodings import (
    MATERIALIZE_MERGED_EARLY,
    MATERIALIZE_MERGED_LATE,
    PACKED_MATMUL,
    encoded_contraction,
    merges_encoded_chunks,
    packed,
    perm_text,
)

# The match side: the merge, the encoded contraction under it, its operands.


def _at_the_contraction(c: Constraint) -> Constraint:
    """`c` holds at the contraction whose unset_encoding the merge reduces
    (the partials, captured as `partials`; the contraction's result as
    `product`)."""
    return operand(0).capture("partials") & operand(0).defined_by(
        UnsetEncodingOp.name,
        where=operand(0).capture("product") & operand(0).produced_by(where=c),
    )


def _split(pulled: bool) -> Constraint:
    # The builder makes the packed merge afresh: a merge marked by its split
    # (`xsplit.split_part`, strategy=expand's) would keep the mark in a copy.
    return (
        merges_encoded_chunks
        & no_discardable_attributes()
        & init().capture("init")
        & result(0).capture("merged")
        & _at_the_contraction(
            input(0).defined_by(SetEncodingOp.name, where=encodes("a", pulled))
            & input(1).defined_by(SetEncodingOp.name, where=encodes("b", pulled))
            & init().defined_by("linalg.fill", where=filled(pulled))
            & has_m_and_n
            & data_tiled
        )
    )


encoded_split = _split(pulled=False)
encoded_split_with_producers = _split(pulled=True)
encoded_split_dropped = (
    merges_encoded_chunks
    & init().capture("init")
    & result(0).capture("merged")
    & _at_the_contraction(
        input(0).defined_by(SetEncodingOp.name, where=encodes("a", pulled=False))
        & input(1).defined_by(SetEncodingOp.name, where=encodes("b", pulled=False))
        & init().defined_by("linalg.fill", where=filled(pulled=False))
        & has_m_and_n
        & drops_encodings
    )
)
"""The same on a target that does not data-tile."""


# The rewrite side: numbers of the match.


def _partials_layout(m: Match) -> Layout:
    return layout_of(encoded_contraction(m), 2, m["tiles"])


def _merged_layout(m: Match) -> Layout:
    return without_batch(_partials_layout(m))


def _partials_packed(m: Match) -> TensorType:
    return packed(m["partials"].type, _partials_layout(m))


HOLES = dict(
    **{k: v for k, v in PACKED_MATMUL.helpers.items() if k[0] in "ab"},
    partials_packed=_partials_packed,
    init_packed=lambda m: packed(m["init"].type, _merged_layout(m)),
    init_zero=lambda m: zero_attr(m["init"].type.element_type),
    init_perm=lambda m: perm_text(_merged_layout(m)),
    init_dims=lambda m: list(_merged_layout(m).inner_dims_pos),
    init_tiles=lambda m: list(_merged_layout(m).inner_tiles),
)
"""Each input's packed type and layout (`PACKED_MATMUL`'s helpers), the
partials' packed type (the chunks first), and the merged init's packed type
and layout: the partials' without the chunks."""

# The rewrite side: the IR.

PACKED_SPLIT = CloningTemplate(
    """
%0 = tensor.empty() : $a_packed
%1 = arith.constant $a_zero
%2 = linalg.pack $a padding_value(%1 : $a.element_type) $a_perm inner_dims_pos = [$a_dims] inner_tiles = [$a_tiles] into %0 : $a.type -> $a_packed
%3 = tensor.empty() : $b_packed
%4 = arith.constant $b_zero
%5 = linalg.pack $b padding_value(%4 : $b.element_type) $b_perm inner_dims_pos = [$b_dims] inner_tiles = [$b_tiles] into %3 : $b.type -> $b_packed
%6 = tensor.empty() : $partials_packed
%7 = linalg.fill ins($fill : $fill.type) outs(%6 : $partials_packed) -> $partials_packed
%8 = linalg.batch_mmt4d ins(%2, %5 : $a_packed, $b_packed) outs(%7 : $partials_packed) -> $partials_packed
%9 = tensor.empty() : $init_packed
%10 = arith.constant $init_zero
%11 = linalg.pack $init padding_value(%10 : $init.element_type) $init_perm inner_dims_pos = [$init_dims] inner_tiles = [$init_tiles] into %9 : $init.type -> $init_packed
%12 = $clone $merged(%8, %11 : $partials_packed, $init_packed) -> ($init_packed) with {dimensions = array<i64: 0>}
%13 = tensor.empty() : $init.type
%14 = linalg.unpack %12 $init_perm inner_dims_pos = [$init_dims] inner_tiles = [$init_tiles] into %13 : $init_packed -> $init.type
""",
    **HOLES,
)
"""Each input packed (the chunks first), the partials filled in the packed
layout and computed by one batch_mmt4d, the init packed, the matched merge
over the packed chunks into it, and the merged result unpacked."""


PACKED_SPLIT_IN_DISPATCHES = RegionFormingCloningTemplate(
    """
%0 = flow.dispatch.region -> ($a_packed) {
  %1 = tensor.empty() : $a_packed
  %2 = arith.constant $a_zero
  $clone $a_chain.ops
  %3 = linalg.pack $a padding_value(%2 : $a.element_type) $a_perm inner_dims_pos = [$a_dims] inner_tiles = [$a_tiles] into %1 : $a.type -> $a_packed
  flow.return %3 : $a_packed
}
%4 = flow.dispatch.region -> ($b_packed) {
  %5 = tensor.empty() : $b_packed
  %6 = arith.constant $b_zero
  $clone $b_chain.ops
  %7 = linalg.pack $b padding_value(%6 : $b.element_type) $b_perm inner_dims_pos = [$b_dims] inner_tiles = [$b_tiles] into %5 : $b.type -> $b_packed
  flow.return %7 : $b_packed
}
%8 = flow.dispatch.region -> ($partials_packed) {
  %fill_inside = $clone $fill
  %9 = tensor.empty() : $partials_packed
  %10 = linalg.fill ins(%fill_inside : $fill.type) outs(%9 : $partials_packed) -> $partials_packed
  %11 = linalg.batch_mmt4d ins(%0, %4 : $a_packed, $b_packed) outs(%10 : $partials_packed) -> $partials_packed
  flow.return %11 : $partials_packed
}
%12 = flow.dispatch.region -> ($init_packed) {
  %13 = tensor.empty() : $init_packed
  %14 = arith.constant $init_zero
  %15 = linalg.pack $init padding_value(%14 : $init.element_type) $init_perm inner_dims_pos = [$init_dims] inner_tiles = [$init_tiles] into %13 : $init.type -> $init_packed
  flow.return %15 : $init_packed
}
%16 = $clone $merged(%8, %12 : $partials_packed, $init_packed) -> ($init_packed) with {dimensions = array<i64: 0>}
%17 = flow.dispatch.region -> ($init.type) {
  %18 = tensor.empty() : $init.type
  %19 = linalg.unpack %16 $init_perm inner_dims_pos = [$init_dims] inner_tiles = [$init_tiles] into %18 : $init_packed -> $init.type
  flow.return %19 : $init.type
}
""",
    **HOLES,
)
"""PACKED_SPLIT late: a dispatch region per pack (with the pads and
reshapes that feed it copied in), one for the fill (its constant made again
inside) and the batch_mmt4d, and one for the unpack; the merge between them
at graph level."""

SPLIT_DROPPED = CloningTemplate(
    """
%0 = tensor.empty() : $partials.type
%1 = linalg.fill ins($fill : $fill.type) outs(%0 : $partials.type) -> $partials.type
%2 = $clone $product($a, $b, %1 : $a.type, $b.type, $partials.type) -> ($partials.type)
%merged = $clone $merged(%2, $init : $partials.type, $init.type)
"""
)
"""The matched contraction on the plain inputs into plain filled partials,
and the matched merge of them: the encodings dropped."""

MATERIALIZE_PACKED_SPLIT_EARLY = Pattern(
    name="materialize-packed-split-early",
    doc="an encoded split of a contraction with M and N loops and its merge as graph-level "
    "packs, batch_mmt4d, a merge of the packed partials into the packed init, and one "
    "unpack (PACKED_SPLIT)",
    root="linalg.reduce",
    where=encoded_split,
    rewrite=PACKED_SPLIT,
    options=["target"],
    family=MATERIALIZE_MERGED_EARLY.name,
)

MATERIALIZE_PACKED_SPLIT_LATE = Pattern(
    name="materialize-packed-split-in-dispatches",
    doc="the same as materialize-packed-split-early, a dispatch region per pack, one for the "
    "batch_mmt4d and one for the unpack (PACKED_SPLIT_IN_DISPATCHES)",
    root="linalg.reduce",
    where=encoded_split_with_producers,
    rewrite=PACKED_SPLIT_IN_DISPATCHES,
    options=["target"],
    family=MATERIALIZE_MERGED_LATE.name,
)

DROP_SPLIT_ENCODINGS = Pattern(
    name="drop-split-encodings",
    doc="an encoded split of a contraction with M and N loops and its merge, on a target that "
    "does not data-tile, as the same split and merge on plain tensors (SPLIT_DROPPED)",
    root="linalg.reduce",
    where=encoded_split_dropped,
    rewrite=SPLIT_DROPPED,
    options=["target"],
)
