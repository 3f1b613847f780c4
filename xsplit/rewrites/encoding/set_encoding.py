"""`set-encoding`: puts data-tiling encodings on the operands and result of
each matmul-like op, as IREE's SetEncoding pass does at graph level.

Every contraction `split-k` handles that data tiling handles is encoded:
`linalg.matmul`, `batch_matmul`, `matvec`, `vecmat` and `linalg.generic`
contractions (transposed operands, several batch loops, mixed precision), with
static shapes. Its inputs go through `iree_encoding.set_encoding`; a
zero-filled accumulator becomes a fill of an encoded `tensor.empty` (never
packed), any other accumulator is set_encoding'd; the result leaves through
`iree_encoding.unset_encoding`. Each encoding names the operand, the element
types, the op's indexing maps and its loop sizes.

A split-k loop (`scf.forall` with `#iree_linalg_ext.split_reduction_mapping`
and its `linalg.reduce` merge, from `split-k` run first) is rewritten into
the encoded split (`encoded_split.py`): IREE cannot data-tile the partial
product inside the loop, but it can the same partials as one batch
contraction.

`target=NAME` encodes only the ops for which the target model chooses to
(encode, or split and encode), and none on a target that drops encodings;
`target=device` models each op on its own device (`xsplit.analysis.devices`).
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

import xsplit.attr_names as attr_names
from xsplit.analysis.contraction import op_contraction_dims
from xsplit.analysis.cost_model import choose_tiling, problem_of
from xsplit.analysis.devices import DEVICE, modeled
from xsplit.analysis.reduction import match_reduction
from xsplit.diagnostics import remark
from xsplit.dialects.iree_encoding import encoding_of
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.scf import ForallOp
from xsplit.rewrites.common.encodings import encodings_for, loop_sizes
from xsplit.rewrites.dispatch.form_dispatch_regions import in_dispatch
from xsplit.rewrites.dsl import (
    Match,
    Option,
    Pass,
    Pattern,
    Template,
    attr,
    init,
    input,
    no_discardable_attributes,
    operand,
    result,
    root_is,
    where,
)
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.structure import operands
from xsplit.rewrites.dsl.builders import IRBuilder, values_defined_above
from xsplit.rewrites.split.encoded_split import split_and_encode
from xsplit.rewrites.split.static_chunks import MATMUL_MAPS
from xsplit.targets.table import TARGETS

CONTRACTION_ROOTS = (
    "linalg.matmul",
    "linalg.batch_matmul",
    "linalg.matvec",
    "linalg.vecmat",
    "linalg.generic",
)

TARGET_CHOICES = (
    tuple(TARGETS) + tuple(a for t in TARGETS.values() for a in t.aliases) + (DEVICE,)
)


def _in_loop(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ForallOp):
            return True
        parent = parent.parent_op()
    return False


def _data_tilable(m: Match) -> bool | str:
    op = m.root
    if in_dispatch(op) or _in_loop(op):
        return "it is inside a dispatch or a loop"
    if any(encoding_of(v.type) is not None for v in (*op.operands, *op.results)):
        return "it is already encoded"
    part = op.attributes.get(attr_names.SPLIT_PART)
    if isinstance(part, StringAttr) and part.data == "tail":
        return "it is a split's tail (encoded with its loop by set-encoding-on-split-loop)"
    dims = op_contraction_dims(op)
    if isinstance(dims, str):
        return dims
    sizes = loop_sizes(op)
    if isinstance(sizes, str):
        return sizes
    return True


def _model_encodes(m: Match) -> bool | str:
    placed = modeled(m.root, m.options["target"])
    if placed is None:
        return True
    chosen, on = placed.target, placed.prefix()
    if not chosen.data_tiling:
        message = f"not encoded: {chosen.name} drops data-tiling encodings"
        remark(m.root, on + message)
        return message
    red = match_reduction(m.root)
    problem = problem_of(red) if not isinstance(red, str) else red
    if isinstance(problem, str):
        return problem
    decision = choose_tiling(problem, chosen)
    if not decision.encode:
        remark(m.root, f"{on}not encoded: {decision.reason}")
        return decision.reason
    if on:
        remark(m.root, f"{on}encoded: {decision.reason}")
    return True


is_data_tilable = where("is a data-tilable contraction at graph level", _data_tilable)
model_encodes = where("the target model encodes it", _model_encodes)

def _encoded(m: Match, index: int) -> TensorType:
    """The type operand `index` of the matmul has once encoded."""
    sizes = loop_sizes(m.root)
    assert not isinstance(sizes, str)
    t = m.root.operands[index].type
    assert isinstance(t, TensorType)
    return TensorType(t.element_type, t.get_shape(), encodings_for(m.root, sizes)[index])


def _result_name(m: Match) -> str:
    """The unset result keeps the matmul's result's name (a number: none)."""
    return m.root.results[0].name_hint or "0"


ENCODED_MATMUL = Template(
    """
%0 = iree_encoding.set_encoding $a : $a.type -> $a_encoded
%1 = iree_encoding.set_encoding $b : $b.type -> $b_encoded
%2 = iree_encoding.set_encoding $c : $c.type -> $c_encoded
%3 = linalg.matmul ins(%0, %1 : $a_encoded, $b_encoded) outs(%2 : $c_encoded) -> $c_encoded
%$result = iree_encoding.unset_encoding %3 : $c_encoded -> $c.type
""",
    a_encoded=lambda m: _encoded(m, 0),
    b_encoded=lambda m: _encoded(m, 1),
    c_encoded=lambda m: _encoded(m, 2),
    result=_result_name,
)
"""A matmul between set_encoding and unset_encoding ops: each encoding names
the operand, the element types, the maps and the loop sizes."""

zero_filled_init = init().has_one_use() & init().defined_by(
    "linalg.fill", where=init().defined_by("tensor.empty")
)
"""An accumulator that is a fill of an empty tensor, used only here: it is
encoded as an encoded empty filled (`common.encodings.encode`), never packed."""

ENCODE_MATMUL = Pattern(
    name="set-encoding-matmul",
    doc="puts set_encoding on a plain linalg.matmul's operands and init and unset_encoding "
    "on its result (ENCODED_MATMUL, the IR as a template)",
    root="linalg.matmul",
    where=root_is("linalg.matmul")
    & attr("indexing_maps").equals(MATMUL_MAPS)
    & no_discardable_attributes()
    & input(0).capture("a")
    & input(1).capture("b")
    & init().capture("c")
    & ~zero_filled_init
    & is_data_tilable
    & model_encodes,
    rewrite=ENCODED_MATMUL,
    options=["target"],
    family="set-encoding",
)

ENCODED_CONTRACTION = CloningTemplate(
    """
%0 = iree_encoding.set_encoding $lhs : $lhs.type -> $lhs_encoded
%1 = iree_encoding.set_encoding $rhs : $rhs.type -> $rhs_encoded
%2 = iree_encoding.set_encoding $acc : $acc.type -> $acc_encoded
%3 = $clone $product(%0, %1, %2 : $lhs_encoded, $rhs_encoded, $acc_encoded) -> ($acc_encoded)
%$result = iree_encoding.unset_encoding %3 : $acc_encoded -> $acc.type
""",
    lhs_encoded=lambda m: _encoded(m, 0),
    rhs_encoded=lambda m: _encoded(m, 1),
    acc_encoded=lambda m: _encoded(m, 2),
    result=_result_name,
)
"""Any contraction (its maps and body copied as they are) on set_encoding'd
operands and accumulator, its result unset."""

ZERO_FILLED_CONTRACTION = CloningTemplate(
    """
%0 = iree_encoding.set_encoding $lhs : $lhs.type -> $lhs_encoded
%1 = iree_encoding.set_encoding $rhs : $rhs.type -> $rhs_encoded
%2 = tensor.empty() : $acc_encoded
%3 = linalg.fill ins($fill_value : $fill_value.type) outs(%2 : $acc_encoded) -> $acc_encoded
%4 = $clone $product(%0, %1, %3 : $lhs_encoded, $rhs_encoded, $acc_encoded) -> ($acc_encoded)
%$result = iree_encoding.unset_encoding %4 : $acc_encoded -> $acc.type
""",
    lhs_encoded=lambda m: _encoded(m, 0),
    rhs_encoded=lambda m: _encoded(m, 1),
    acc_encoded=lambda m: _encoded(m, 2),
    result=_result_name,
)
"""The same, with an accumulator that is a fill of an empty tensor filled
again as an encoded empty tensor, as IREE makes it: never packed."""

contraction_operands = (
    operands().count(3)
    & operand(0).capture("lhs")
    & operand(1).capture("rhs")
    & operand(2).capture("acc")
    & result(0).capture("product")
)

zero_filled_acc = operand(2).has_one_use() & operand(2).defined_by(
    "linalg.fill", where=input(0).capture("fill_value") & init().defined_by("tensor.empty")
)

ENCODE_CONTRACTION = Pattern(
    name="set-encoding",
    doc="puts set_encoding on a contraction's operands and accumulator and unset_encoding "
    "on its result (ENCODED_CONTRACTION, the IR as a template)",
    root=CONTRACTION_ROOTS,
    where=is_data_tilable & model_encodes & contraction_operands & ~zero_filled_acc,
    rewrite=ENCODED_CONTRACTION,
    options=["target"],
)

ENCODE_ZERO_FILLED_CONTRACTION = Pattern(
    name="set-encoding-zero-filled",
    doc="puts set_encoding on a contraction's operands, fills an encoded empty tensor as "
    "its accumulator and unset_encoding on its result (ZERO_FILLED_CONTRACTION)",
    root=CONTRACTION_ROOTS,
    where=is_data_tilable & model_encodes & contraction_operands & zero_filled_acc,
    rewrite=ZERO_FILLED_CONTRACTION,
    options=["target"],
    family=ENCODE_CONTRACTION.name,
)


# A split-k loop and its merge become the encoded split.


def _tail_of(merge: Operation) -> Operation | None | str:
    """The tail op a static split's merge (`linalg.generic` marked
    `xsplit.split_part = "merge"`, the partials then the tail) adds in, None
    for a `linalg.reduce` merge, or why the op is neither."""
    if isinstance(merge, linalg.ReduceOp):
        return None
    part = merge.attributes.get(attr_names.SPLIT_PART)
    if not isinstance(part, StringAttr) or part.data != "merge" or len(merge.operands) != 3:
        return "it is not a split-k merge"
    tail = merge.operands[1].owner
    tail_part = tail.attributes.get(attr_names.SPLIT_PART) if isinstance(tail, Operation) else None
    if not isinstance(tail_part, StringAttr) or tail_part.data != "tail":
        return "its second input is not a split's tail"
    if tail.results[0].uses.get_length() != 1:  # type: ignore[union-attr]
        return "the tail has other users"
    return tail  # type: ignore[return-value]


def _capture_split_loop(m: Match) -> bool | str:
    """The merge of a graph-level split loop whose body is one partial
    contraction of slices of the original operands (and, for a static K,
    of its tail beside the loop)."""
    merge = m.root
    tail = _tail_of(merge)
    if isinstance(tail, str):
        return tail
    forall = merge.operands[0].owner
    if not isinstance(forall, ForallOp) or in_dispatch(forall):
        return "its input is not a graph-level scf.forall"
    mapping = forall.mapping
    if mapping is None or not any(isinstance(a, SplitReductionMappingAttr) for a in mapping.data):
        return "its input loop is not a split reduction"
    if forall.results[0].uses.get_length() != 1 or len(forall.results) != 1:
        return "the loop's partials have other users"
    if isinstance(merge, linalg.ReduceOp):
        dims = list(merge.dimensions.get_values())
        rank = len(merge.init.type.get_shape())  # type: ignore[attr-defined]
        if dims != [rank]:
            return "the merge does not reduce the chunk dimension"
    partials = [
        op
        for op in forall.body.block.ops
        if not isinstance(op, tensor.ExtractSliceOp | linalg.FillOp)
        and not isinstance(op_contraction_dims(op), str)
    ]
    if len(partials) != 1:
        return "the loop body is not one partial contraction"
    partial = partials[0]
    sources: list[SSAValue] = []
    for v in partial.operands[:2]:
        owner = v.owner
        if isinstance(owner, tensor.ExtractSliceOp):
            v = owner.source
        if isinstance(v.owner, Operation) and forall.is_ancestor(v.owner):
            return "a partial operand is computed inside the loop"
        sources.append(v)
    bounds = forall.staticUpperBound.get_values()
    count = bounds[0] if len(bounds) == 1 else -1
    if count < 1:
        return "the chunk count is dynamic"
    m.captures.update(
        partial=partial, sources=sources, count=count + (tail is not None), tail=tail
    )
    return True


def _encode_split_loop(m: Match, ir: IRBuilder) -> None:
    merge = m.root
    init = merge.init if isinstance(merge, linalg.ReduceOp) else merge.operands[2]
    merged = split_and_encode(m["partial"], m["sources"], init, m["count"], ir)
    # The loop is not side-effect free to the engine, so the rewrite removes
    # it (and what only it used) itself.
    forall = merge.operands[0].owner
    assert isinstance(forall, ForallOp)
    merge.results[0].replace_all_uses_with(merged)
    Rewriter.erase_op(merge)
    producers = [v.owner for v in values_defined_above(forall) if isinstance(v.owner, Operation)]
    Rewriter.erase_op(forall)
    tail = m["tail"]
    if tail is not None:
        producers += [v.owner for v in tail.operands if isinstance(v.owner, Operation)]
        Rewriter.erase_op(tail)
    for op in producers:
        if op.parent is not None and not any(r.uses for r in op.results):
            Rewriter.erase_op(op)


ENCODE_SPLIT_LOOP = Pattern(
    name="set-encoding-on-split-loop",
    doc="turns a split-k loop and its merge into partial products as one encoded contraction",
    root=("linalg.reduce", "linalg.generic"),
    where=where("merges a split-k loop of one contraction", _capture_split_loop),
    rewrite=_encode_split_loop,
    benefit=2,
)

OPTIONS = (
    Option(
        "target",
        str,
        None,
        "encode only what the target model chooses to encode on this target",
        choices=TARGET_CHOICES,
    ),
)

SET_ENCODING = Pass(
    "set-encoding",
    "Puts data-tiling encodings on matmul-like ops, as IREE's SetEncoding does.",
    [ENCODE_SPLIT_LOOP, ENCODE_MATMUL, ENCODE_CONTRACTION, ENCODE_ZERO_FILLED_CONTRACTION],
    OPTIONS,
)
