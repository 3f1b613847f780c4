"""Materializing data-tiling encodings, early (at graph level) or late (each
encoded op in its own dispatch), and folding encodings that cancel.

Early (`materialize-early`): each encoded contraction becomes pack / mmt4d /
unpack at graph level with the target's tiles; IREE then forms dispatches
around them (and fuses what it can). Late (`materialize-late`): dispatches form
around the encoded ops first, one per set_encoding (the pack, with the pad
and reshapes that feed it) and one for the contraction with its
unset_encoding (the fill, the mmt4d and the unpack), as in the RFC's late
path; each encoding is then materialized inside its dispatch. IREE 3.13
compiles a CPU dispatch with a pack, or with an mmt4d and its unpack (as its
own data tiling forms it), but not one with all three ("exceeded stack
allocation limit"), hence a dispatch per pack. An encoded split merged in the
packed layout keeps its unpack in a dispatch of its own, after the merge.

On a target that does not data-tile (the GPUs here) the encodings are dropped,
as IREE 3.13 drops them: no set/unset is left to become a dispatch that only
copies (the RFC's cost (d)). A set_encoding of an unset_encoding with the
same encoding, and an unset_encoding of a set_encoding, cancel and fold away
(cost (b) for encodings that meet), as does an unpack that a pack with the
same layout undoes.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xsplit.analysis.devices import placement
from xsplit.diagnostics import remark
from xsplit.dialects.flow import ReturnOp
from xsplit.dialects.iree_encoding import EncodingAttr, SetEncodingOp, UnsetEncodingOp
from xsplit.dialects.linalg_layout import PackOp, UnpackOp, packed_shape
from xsplit.dialects.op_helpers import zero_attr
from xsplit.rewrites.common.encodings import (
    Layout,
    layout_of,
    EncodedContraction,
    drop,
    match_encoded,
    materialize,
)
from xsplit.rewrites.dispatch.form_dispatch_regions import (
    RegionFormingTemplate,
    is_graph_level,
    new_dispatch_region,
)
from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Option,
    Pattern,
    Template,
    attr,
    init,
    input,
    no_discardable_attributes,
    operand,
    operand_group_size,
    result,
    root_is,
)
from xsplit.rewrites.dsl.arrays import int_array
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.constraints import ValueRef
from xsplit.rewrites.dsl.contractions import batch_loops, contraction, init_position
from xsplit.rewrites.dsl.devices import on_device_of
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.dsl.structure import operands, the_value
from xsplit.rewrites.dsl.targets import encoding_size, target
from xsplit.rewrites.split.static_chunks import MATMUL_MAPS
from xsplit.targets.table import TARGETS

TARGET_OPTION = Option(
    "target",
    str,
    None,
    "the target whose data tiles the encodings become (dropped where it does not data-tile); "
    "default: each op's device (xsplit.analysis.devices), cpu where the module declares none",
    choices=tuple(TARGETS) + tuple(a for t in TARGETS.values() for a in t.aliases),
)


def encoded_contraction(m: Match) -> EncodedContraction:
    """The encoded contraction the rewrite reads, a helper of the rewrite (as
    DRR's `NativeCodeCall`): the match stated the op tree `match_encoded`
    reads, so it is found; once per match, for every hole that needs it."""
    ec = m.captures.get("ec")
    if ec is None:
        # A merge of an encoded split is rooted at the linalg.reduce.
        unset = m.root.operands[0].owner if isinstance(m.root, linalg.ReduceOp) else m.root
        assert isinstance(unset, Operation)
        ec = match_encoded(unset)
        assert not isinstance(ec, str), ec
        m.captures["ec"] = ec
    return ec


def _tiles(m: Match) -> tuple[int, int, int] | None:
    """The data tiles of the op's device (or of `target=`): each device its
    own layout. Every value between devices goes through a
    `flow.tensor.transfer` of plain tensors: the pack dispatches read what
    was transferred on the consumer's device and the unpack runs in the
    producer's contraction dispatch, so no device reads another's layout."""
    ec = encoded_contraction(m)
    elements = tuple(ec.elements)
    placed = placement(ec.op, m.options["target"])
    tiles = placed.target.data_tiles(
        elements,  # type: ignore[arg-type]
        ec.size(ec.dims.m) if ec.dims.m is not None else None,
        ec.size(ec.dims.n) if ec.dims.n is not None else None,
    )
    if placed.note is not None:
        remark(ec.op, placed.note)
    if placed.device is not None:
        layout = "x".join(map(str, tiles)) + " data tiles" if tiles else "encodings dropped"
        modeled = placed.target.name
        extra = f" ({modeled})" if modeled != placed.device.backend else ""
        remark(ec.op, f"{placed.prefix()}{layout}{extra}")
    return tiles


def _materialize_early(m: Match, ir: IRBuilder) -> list[SSAValue]:
    tiles = _tiles(m)
    if tiles is None:
        return [_drop(m, ir)]
    return [materialize(encoded_contraction(m), tiles, ir, merge=_merge_of(m))]


def _merge_of(m: Match) -> linalg.ReduceOp | None:
    return m.root if isinstance(m.root, linalg.ReduceOp) else None


def _drop(m: Match, ir: IRBuilder) -> SSAValue:
    """The encodings dropped; a merge root is rebuilt on the plain partials."""
    plain = drop(encoded_contraction(m), ir)
    merge = _merge_of(m)
    if merge is None:
        return plain
    rebuilt = merge.clone()
    rebuilt.operands[0] = plain
    return ir.b.insert(rebuilt).results[0]


FUSED_PRODUCERS = (tensor.PadOp, tensor.ExpandShapeOp, tensor.CollapseShapeOp)
"""What IREE fuses into a pack's dispatch: the pad and reshapes before it."""


def _only_feeds_encoding(v: SSAValue) -> bool:
    """Whether `v` is used only by the set_encoding that the materialized
    pack replaces (and which dies with the rewrite), or by one other op."""
    users = [use.operation for use in v.uses]
    return len([u for u in users if not isinstance(u, SetEncodingOp)]) <= 1 and len(users) <= 2


def _in_region(
    ir: IRBuilder, build: Callable[[IRBuilder], SSAValue], pulled: list[Operation]
) -> SSAValue:
    """`build`'s ops in a `flow.dispatch.region` of their own, with the
    single-use pads and reshapes feeding them cloned in."""
    body = Block()
    inner = IRBuilder(Builder(InsertPoint.at_end(body)))
    value = build(inner)
    # Bring in the producer chain (outside) of each op built, innermost first.
    for op in list(body.ops):
        for i, operand in enumerate(op.operands):
            chain: list[Operation] = []
            v = operand
            while isinstance(v.owner, FUSED_PRODUCERS) and _only_feeds_encoding(v):
                chain.append(v.owner)
                v = v.owner.operands[0]
            if not chain:
                continue
            mapping: dict[SSAValue, SSAValue] = {}
            for producer in reversed(chain):
                clone = producer.clone(value_mapper=mapping)
                body.insert_op_before(clone, op)
                mapping[producer.results[0]] = clone.results[0]
            op.operands[i] = mapping[operand]
            pulled.extend(chain)
    body.add_op(ReturnOp(value))
    region = ir.b.insert(new_dispatch_region([value.type], Region(body)))
    return region.results[0]


def _materialize_late(m: Match, ir: IRBuilder) -> list[SSAValue]:
    tiles = _tiles(m)
    if tiles is None:
        return [_drop(m, ir)]
    pulled: list[Operation] = []
    result = materialize(
        encoded_contraction(m),
        tiles,
        ir,
        wrap=lambda build: _in_region(ir, build, pulled),
        merge=_merge_of(m),
    )
    for op in pulled:
        if op.parent is not None and not any(r.uses for r in op.results):
            Rewriter.erase_op(op)
    return [result]


# What `match_encoded` and `merged_chunks` read, stated as the op tree: a
# contraction whose every operand is encoded, its inputs by set_encoding,
# its accumulator by set_encoding or as a filled tensor.empty, all static,
# and whose result only the unset_encoding reads.
_ENCODED_CONTRACTION = (
    contraction("loops")
    & result(0).has_one_use()
    & operands().each(the_value.is_encoded(EncodingAttr))
    & input(0).defined_by(SetEncodingOp.name)
    & input(1).defined_by(SetEncodingOp.name)
    & (
        init().defined_by(SetEncodingOp.name)
        | init().defined_by("linalg.fill", where=init().defined_by("tensor.empty"))
    )
    & input(0).has_static_shape()
    & input(1).has_static_shape()
    & init().has_static_shape()
)


def _reduces_the_batch_loop() -> Constraint:
    """The root, a linalg.reduce, reduces the output dimension of the one
    batch loop (a split's chunks) of the contraction captured as `loops`."""
    dims = int_array("dimensions")
    return (
        (batch_loops("loops") == 1)
        & (dims.length() == 1)
        & (dims.at(0) == init_position("loops", "batch"))
    )


is_encoded_contraction = described(
    is_graph_level
    & operand(0).produced_by(where=_ENCODED_CONTRACTION)
    & ~(
        result(0).capture("encoded_out")
        & result(0).used_only_by(
            "linalg.reduce",
            where=operand(0).is_captured("encoded_out") & _reduces_the_batch_loop(),
        )
    ),
    "ends an encoded contraction at graph level",
)
"""Also refused: an encoded split whose chunks a merge reduces, which
`merges_encoded_chunks` materializes with its merge."""

merges_encoded_chunks = described(
    is_graph_level
    & operand(0).defined_by(
        UnsetEncodingOp.name, where=operand(0).produced_by(where=_ENCODED_CONTRACTION)
    )
    & operand(0).has_one_use()
    & _reduces_the_batch_loop(),
    "merges the chunks of an encoded split",
)

MATERIALIZE_MERGED_EARLY = Pattern(
    name="materialize-encoded-split-early",
    doc="an encoded split and its merge as packs, batch_mmt4d, a merge of the "
    "packed partials into the packed init, and one unpack",
    root="linalg.reduce",
    where=merges_encoded_chunks,
    rewrite=_materialize_early,
    options=["target"],
)

MATERIALIZE_MERGED_LATE = Pattern(
    name="materialize-encoded-split-in-dispatches",
    doc="the same as materialize-encoded-split-early, one dispatch per step",
    root="linalg.reduce",
    where=merges_encoded_chunks,
    rewrite=_materialize_late,
    options=["target"],
)

MATERIALIZE_ENCODING_EARLY = Pattern(
    name="materialize-encoding-early",
    doc="turns an encoded contraction into graph-level pack, mmt4d and unpack "
    "with the target's tiles (drops the encodings where it does not data-tile)",
    root=UnsetEncodingOp,
    where=is_encoded_contraction,
    rewrite=_materialize_early,
    options=["target"],
)

MATERIALIZE_ENCODING_LATE = Pattern(
    name="materialize-encoding-in-dispatches",
    doc="forms a dispatch around each pack, and one around the mmt4d and unpack, of an "
    "encoded contraction (drops the encodings where the target does not data-tile)",
    root=UnsetEncodingOp,
    where=is_encoded_contraction,
    rewrite=_materialize_late,
    options=["target"],
)


runs_where_its_source_does = on_device_of("source")


def _undoes(inverse: str) -> Constraint:
    return operand(0).defined_by(inverse, capture="source", where=operand(0).capture("x"))


FOLD_ENCODING_PAIR = Pattern(
    name="fold-cancelling-encodings",
    doc="set_encoding(unset_encoding(x)) and unset_encoding(set_encoding(x)) "
    "of the same encoding are x",
    root=(SetEncodingOp, UnsetEncodingOp),
    where=is_graph_level
    & (
        (root_is(SetEncodingOp.name) & _undoes(UnsetEncodingOp.name))
        | (root_is(UnsetEncodingOp.name) & _undoes(SetEncodingOp.name))
    )
    & result(0).same_type_as("x")
    & runs_where_its_source_does,
    rewrite=Template("", results=["$x"]),
    benefit=3,
)


FOLD_UNPACK_PACK = Pattern(
    name="fold-unpack-pack",
    doc="pack(unpack(x)) with the same layout and whole tiles is x",
    root=PackOp,
    where=is_graph_level
    & operand_group_size("inner_tiles", 0)
    & attr("inner_dims_pos").capture("dims_pos")
    & attr("static_inner_tiles").capture("tiles")
    & attr("outer_dims_perm").capture("perm")
    & operand(0).defined_by(
        UnpackOp.name,
        capture="unpack",
        where=operand(0).capture("x")
        & attr("inner_dims_pos").equals_capture("dims_pos")
        & attr("static_inner_tiles").equals_capture("tiles")
        & attr("outer_dims_perm").equals_capture("perm")
        # Unpacking drops padding the pack would refill with its own value:
        # the unpacked tensor (the unpack's dest) must hold whole tiles.
        & int_array("static_inner_tiles").tiles_whole_dims(operand(1), int_array("inner_dims_pos")),
    )
    & result(0).same_type_as("x")
    & on_device_of("unpack"),
    rewrite=Template("", results=["$x"]),
    benefit=3,
)

# A plain encoded matmul with an encoded init, on a target that data-tiles,
# materialized at graph level: the IR as a template.

PACKED_MATMUL = Template(
    """
%0 = tensor.empty() : $a_packed
%1 = arith.constant $a_zero
%2 = linalg.pack $a padding_value(%1 : $a.element_type) $a_perm inner_dims_pos = [$a_dims] inner_tiles = [$a_tiles] into %0 : $a.type -> $a_packed
%3 = tensor.empty() : $b_packed
%4 = arith.constant $b_zero
%5 = linalg.pack $b padding_value(%4 : $b.element_type) $b_perm inner_dims_pos = [$b_dims] inner_tiles = [$b_tiles] into %3 : $b.type -> $b_packed
%6 = tensor.empty() : $c_packed
%7 = arith.constant $c_zero
%8 = linalg.pack $c padding_value(%7 : $c.element_type) $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %6 : $c.type -> $c_packed
%9 = linalg.mmt4d ins(%2, %5 : $a_packed, $b_packed) outs(%8 : $c_packed) -> $c_packed
%10 = tensor.empty() : $c.type
%11 = linalg.unpack %9 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %10 : $c_packed -> $c.type
""",
    **{
        f"{name}_{what}": helper
        for i, name in enumerate("abc")
        for what, helper in (
            ("packed", lambda m, i=i: _packed_type(m, i)),
            ("zero", lambda m, name=name: zero_attr(m[name].type.element_type)),
            ("perm", lambda m, i=i: perm_text(_layout(m, i))),
            ("dims", lambda m, i=i: list(_layout(m, i).inner_dims_pos)),
            ("tiles", lambda m, i=i: list(_layout(m, i).inner_tiles)),
        )
    },
)
"""Each operand packed into the target's tiles (B transposed into N-major
tiles), one mmt4d, and the result unpacked."""


def _layout(m: Match, operand: int) -> Layout:
    return layout_of(encoded_contraction(m), operand, m["tiles"])


def _packed_type(m: Match, operand: int) -> TensorType:
    return packed(m["abc"[operand]].type, _layout(m, operand))


def packed(plain: TensorType, layout: Layout) -> TensorType:
    shape = packed_shape(
        plain.get_shape(), layout.inner_dims_pos, layout.inner_tiles, layout.outer_dims_perm
    )
    return TensorType(plain.element_type, shape)


def perm_text(layout: Layout) -> str:
    perm = layout.outer_dims_perm
    return "" if perm is None else f"outer_dims_perm = [{', '.join(map(str, perm))}]"


# What the target table says of a plain matmul (M and N as its encodings
# carry them), read at the matmul: where it runs, and the remark, are its.
_M, _N = encoding_size(input(0), 0), encoding_size(input(0), 1)
target_data_tiles = operand(0).defined_by(
    "linalg.matmul", where=target().data_tiles(m=_M, n=_N, capture="tiles")
)
target_drops_encodings = operand(0).defined_by(
    "linalg.matmul", where=target().drops_encodings(m=_M, n=_N)
)


def _set_from(name: str) -> Constraint:
    return operand(0).capture(name)


def _encoded_matmul_into(init_is: Constraint) -> Constraint:
    """unset_encoding(matmul(set_encoding(a), set_encoding(b)) outs(...)),
    the init as `init_is` says."""
    return operand(0).defined_by(
        "linalg.matmul",
        where=attr("indexing_maps").equals(MATMUL_MAPS)
        & no_discardable_attributes()
        & input(0).defined_by(SetEncodingOp.name, where=_set_from("a"))
        & input(1).defined_by(SetEncodingOp.name, where=_set_from("b"))
        & init_is,
    )


def _fill_of_an_empty(value_is: Constraint | None = None) -> Constraint:
    """The init is a linalg.fill (its value captured as `fill`, and as
    `value_is` says where given) of a static tensor.empty."""
    value = input(0).capture("fill")
    if value_is is not None:
        value = value & value_is
    return init().defined_by(
        "linalg.fill",
        where=value
        & init().defined_by("tensor.empty", where=operand_group_size("dynamic_sizes", 0)),
    )


encoded_plain_matmul = _encoded_matmul_into(
    init().defined_by(SetEncodingOp.name, where=_set_from("c"))
)
"""unset_encoding(matmul(set_encoding(a), set_encoding(b)) outs(set_encoding(c)))."""

encoded_matmul_at_graph_level = is_graph_level & operand(0).defined_by(
    "linalg.matmul",
    where=result(0).has_one_use()
    & input(0).is_encoded(EncodingAttr)
    & input(1).is_encoded(EncodingAttr)
    & init().is_encoded(EncodingAttr)
    & input(0).has_static_shape()
    & input(1).has_static_shape()
    & init().has_static_shape(),
)
"""What `is_encoded_contraction` tests of an encoded plain matmul, stated:
outside any dispatch, the unset_encoding its one user, every operand
encoded, every shape static (a plain matmul has no batch loop whose chunks
a merge could hold)."""

MATERIALIZE_MATMUL_EARLY = Pattern(
    name="materialize-matmul-early",
    doc="an encoded plain matmul with an encoded init as graph-level packs, mmt4d and unpack "
    "(PACKED_MATMUL, the IR as a template)",
    root=UnsetEncodingOp,
    where=encoded_plain_matmul
    & encoded_matmul_at_graph_level
    & target_data_tiles,
    rewrite=PACKED_MATMUL,
    options=["target"],
    family="materialize-encoding-early",
)

# The same matmuls on a target that does not data-tile: the encodings
# dropped, early or late alike (no dispatch is formed for a relayout).


encoded_zero_filled_matmul = _encoded_matmul_into(_fill_of_an_empty())
"""unset_encoding(matmul(set_encoding(a), set_encoding(b)) outs(fill(x) of an encoded empty)))."""

DROP_MATMUL_ENCODINGS = Pattern(
    name="drop-matmul-encodings",
    doc="an encoded plain matmul with an encoded init, on a target that does not data-tile, "
    "as the plain matmul (the IR as a template)",
    root=UnsetEncodingOp,
    where=encoded_plain_matmul & encoded_matmul_at_graph_level & target_drops_encodings,
    rewrite=Template(
        "%0 = linalg.matmul ins($a, $b : $a.type, $b.type) outs($c : $c.type) -> $c.type"
    ),
    options=["target"],
)

DROP_ZERO_FILLED_MATMUL_ENCODINGS = Pattern(
    name="drop-filled-matmul-encodings",
    doc="an encoded plain matmul into a filled encoded tensor.empty, on a target that does "
    "not data-tile, as the plain matmul into a plain filled one (the IR as a template)",
    root=UnsetEncodingOp,
    where=encoded_zero_filled_matmul & encoded_matmul_at_graph_level & target_drops_encodings,
    rewrite=Template(
        """
%0 = tensor.empty() : $acc
%1 = linalg.fill ins($fill : $fill.type) outs(%0 : $acc) -> $acc
%2 = linalg.matmul ins($a, $b : $a.type, $b.type) outs(%1 : $acc) -> $acc
""",
        acc=lambda m: m.root.results[0].type,
    ),
    options=["target"],
)

DROP_ENCODINGS = (DROP_MATMUL_ENCODINGS, DROP_ZERO_FILLED_MATMUL_ENCODINGS)
"""Both materializations' templates for a target that drops encodings."""

# The zero-filled form (`set-encoding-zero-filled`'s): the accumulator is
# filled in the packed layout, never packed.

PACKED_FILLED_MATMUL = Template(
    """
%0 = tensor.empty() : $a_packed
%1 = arith.constant $a_zero
%2 = linalg.pack $a padding_value(%1 : $a.element_type) $a_perm inner_dims_pos = [$a_dims] inner_tiles = [$a_tiles] into %0 : $a.type -> $a_packed
%3 = tensor.empty() : $b_packed
%4 = arith.constant $b_zero
%5 = linalg.pack $b padding_value(%4 : $b.element_type) $b_perm inner_dims_pos = [$b_dims] inner_tiles = [$b_tiles] into %3 : $b.type -> $b_packed
%6 = tensor.empty() : $c_packed
%7 = linalg.fill ins($fill : $fill.type) outs(%6 : $c_packed) -> $c_packed
%8 = linalg.mmt4d ins(%2, %5 : $a_packed, $b_packed) outs(%7 : $c_packed) -> $c_packed
%9 = tensor.empty() : $acc
%10 = linalg.unpack %8 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %9 : $c_packed -> $acc
""",
    **{k: v for k, v in PACKED_MATMUL.helpers.items() if k[0] in "ab" or k in ("c_perm", "c_dims", "c_tiles")},
    c_packed=lambda m: packed(m.root.results[0].type, _layout(m, 2)),
    acc=lambda m: m.root.results[0].type,
)
"""PACKED_MATMUL with the packed accumulator filled instead of packed."""

# Late: each pack in a dispatch region of its own, and the mmt4d with its
# unpack in one (see the module's doc); a constant fill value is made again
# inside, where IREE wants it.

_PACK_IN_REGION = """
%{r} = flow.dispatch.region -> (${x}_packed) {{
  %{e} = tensor.empty() : ${x}_packed
  %{z} = arith.constant ${x}_zero
  %{p} = linalg.pack ${x} padding_value(%{z} : ${x}.element_type) ${x}_perm inner_dims_pos = [${x}_dims] inner_tiles = [${x}_tiles] into %{e} : ${x}.type -> ${x}_packed
  flow.return %{p} : ${x}_packed
}}
"""

PACKED_MATMUL_IN_DISPATCHES = RegionFormingTemplate(
    _PACK_IN_REGION.format(r=0, e=1, z=2, p=3, x="a")
    + _PACK_IN_REGION.format(r=4, e=5, z=6, p=7, x="b")
    + _PACK_IN_REGION.format(r=8, e=9, z=10, p=11, x="c")
    + """
%12 = flow.dispatch.region -> ($c.type) {
  %13 = linalg.mmt4d ins(%0, %4 : $a_packed, $b_packed) outs(%8 : $c_packed) -> $c_packed
  %14 = tensor.empty() : $c.type
  %15 = linalg.unpack %13 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %14 : $c_packed -> $c.type
  flow.return %15 : $c.type
}
""",
    **PACKED_MATMUL.helpers,
)
"""PACKED_MATMUL late: a dispatch region per pack, one for mmt4d and unpack."""

PACKED_FILLED_MATMUL_IN_DISPATCHES = RegionFormingTemplate(
    _PACK_IN_REGION.format(r=0, e=1, z=2, p=3, x="a")
    + _PACK_IN_REGION.format(r=4, e=5, z=6, p=7, x="b")
    + """
%8 = flow.dispatch.region -> ($acc) {
  %$fill_name = arith.constant $fill_value
  %9 = tensor.empty() : $c_packed
  %10 = linalg.fill ins(%$fill_name : $fill.type) outs(%9 : $c_packed) -> $c_packed
  %11 = linalg.mmt4d ins(%0, %4 : $a_packed, $b_packed) outs(%10 : $c_packed) -> $c_packed
  %12 = tensor.empty() : $acc
  %13 = linalg.unpack %11 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %12 : $c_packed -> $acc
  flow.return %13 : $acc
}
""",
    **PACKED_FILLED_MATMUL.helpers,
    fill_value=lambda m: m["fill_constant"].value,
    fill_name=lambda m: m["fill"].name_hint or "14",
)
"""PACKED_FILLED_MATMUL late, the fill's constant made again in the
contraction's dispatch region."""

encoded_filled_matmul = _encoded_matmul_into(
    _fill_of_an_empty(input(0).defined_by("arith.constant", capture="fill_constant"))
)
"""unset_encoding(matmul(set_encoding(a), set_encoding(b)) outs(fill(constant) of an encoded empty))."""


def _encodes_a_plain_source(ref: ValueRef) -> Constraint:
    """`ref` is a set_encoding of no pad or reshape: the late builder brings
    those into the pack's dispatch (`FUSED_PRODUCERS`)."""
    fused = [operand(0).defined_by(op.name) for op in FUSED_PRODUCERS]
    return ref.defined_by(SetEncodingOp.name, where=~functools.reduce(operator.or_, fused))


def _plain_sources(*refs: ValueRef) -> Constraint:
    """The matmul's encoded operands `refs` each encode a plain source."""
    each = [_encodes_a_plain_source(ref) for ref in refs]
    return operand(0).defined_by("linalg.matmul", where=functools.reduce(operator.and_, each))


MATERIALIZE_FILLED_MATMUL_EARLY = Pattern(
    name="materialize-filled-matmul-early",
    doc="an encoded plain matmul into a filled encoded tensor.empty as graph-level packs, "
    "mmt4d into the filled packed accumulator, and unpack (PACKED_FILLED_MATMUL)",
    root=UnsetEncodingOp,
    where=encoded_zero_filled_matmul
    & encoded_matmul_at_graph_level
    & target_data_tiles,
    rewrite=PACKED_FILLED_MATMUL,
    options=["target"],
    family="materialize-encoding-early",
)

MATERIALIZE_MATMUL_LATE = Pattern(
    name="materialize-matmul-in-dispatches",
    doc="an encoded plain matmul with an encoded init as a dispatch region per pack and one "
    "for the mmt4d and unpack (PACKED_MATMUL_IN_DISPATCHES)",
    root=UnsetEncodingOp,
    where=encoded_plain_matmul
    & _plain_sources(input(0), input(1), init())
    & encoded_matmul_at_graph_level
    & target_data_tiles,
    rewrite=PACKED_MATMUL_IN_DISPATCHES,
    options=["target"],
    family="materialize-encoding-in-dispatches",
)

MATERIALIZE_FILLED_MATMUL_LATE = Pattern(
    name="materialize-filled-matmul-in-dispatches",
    doc="an encoded plain matmul into a constant-filled encoded tensor.empty as a dispatch "
    "region per pack and one for the fill, mmt4d and unpack "
    "(PACKED_FILLED_MATMUL_IN_DISPATCHES)",
    root=UnsetEncodingOp,
    where=encoded_filled_matmul
    & _plain_sources(input(0), input(1))
    & encoded_matmul_at_graph_level
    & target_data_tiles,
    rewrite=PACKED_FILLED_MATMUL_IN_DISPATCHES,
    options=["target"],
    family="materialize-encoding-in-dispatches",
)
