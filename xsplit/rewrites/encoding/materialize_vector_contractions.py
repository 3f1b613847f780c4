"""Encoded matvecs and vecmats, materialized as the IR they produce: the
forms of `materialize-encoding-early` and `materialize-encoding-in-dispatches`
whose contraction lacks an N loop (a matvec) or an M loop (a vecmat), as
templates before the builder patterns.

Data tiling packs every operand as a matrix: the operands that lack the
missing loop (a matvec's vector and result, a vecmat's vector and result)
get a unit dimension first (`tensor.expand_shape`), are packed with tiles of
1 along it, and the unpacked result loses it again (`tensor.collapse_shape`).
Which dimensions are tiled, the outer permutation, the reassociation and
the shapes are numbers of the match computed by small helpers from the
contraction's maps; the ops are written out. Late, each pack is a dispatch
region of its own, with the pads and reshapes that feed its operand copied
in before the unit dimension is added, as the builder pulls them in.

A batch loop, dynamic shapes, a fill of no constant late, or a producer of
a pack used elsewhere stay with the builders.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from xsplit.dialects.iree_encoding import SetEncodingOp, UnsetEncodingOp
from xsplit.rewrites.common.encodings import Layout, layout_of
from xsplit.rewrites.dsl import Constraint, Match, Pattern, Template, init, input, operand
from xsplit.rewrites.dsl.contractions import batch_loops, loop_of
from xsplit.rewrites.dsl.targets import encoding_size, target
from xsplit.rewrites.encoding.materialize_contractions import (
    PACK_IN_REGION,
    RegionFormingCloningTemplate,
    encodes,
    filled,
)
from xsplit.rewrites.encoding.materialize_encodings import (
    MATERIALIZE_ENCODING_EARLY,
    MATERIALIZE_ENCODING_LATE,
    PACKED_MATMUL,
    encoded_contraction,
    is_encoded_contraction,
    packed,
)

# The match side, said at the contraction.

_has_m, _has_n = ((loop_of("loops", role) >= 0) for role in ("m", "n"))


def _tiled(role: str) -> Constraint:
    """The target data-tiles the contraction, whose one vector loop is `role`."""
    size = encoding_size(input(0), loop_of("loops", role))
    sizes = {"m": size, "n": None} if role == "m" else {"m": None, "n": size}
    return target().data_tiles(**sizes, capture="tiles")


MATVEC_LOOPS = _has_m & ~_has_n
"""An M loop and no N loop: the RHS and the result get a unit dimension."""
VECMAT_LOOPS = _has_n & ~_has_m
"""An N loop and no M loop: the LHS and the result get a unit dimension."""


def _encoded(loops: Constraint, role: str, init_is: Constraint, pulled: bool) -> Constraint:
    return is_encoded_contraction & operand(0).produced_by(
        where=(batch_loops("loops") == 0)
        & loops
        & input(0).defined_by(SetEncodingOp.name, where=encodes("a", pulled))
        & input(1).defined_by(SetEncodingOp.name, where=encodes("b", pulled))
        & init_is
        & _tiled(role)
    )


def _packed_init(pulled: bool) -> Constraint:
    return init().defined_by(SetEncodingOp.name, where=encodes("c", pulled))


def _filled_init(pulled: bool) -> Constraint:
    return init().defined_by("linalg.fill", where=filled(pulled))


# The rewrite side: numbers of the match.


def _layout(m: Match, i: int) -> Layout:
    return layout_of(encoded_contraction(m), i, m["tiles"])


def _plain(m: Match, i: int) -> TensorType:
    """Operand `i` as the contraction's user has it: the set_encoding's
    source, or the result's type for a filled accumulator."""
    name = "abc"[i]
    t = m[name].type if name in m.captures else m.root.results[0].type
    assert isinstance(t, TensorType)
    return t


def _with_unit(m: Match, i: int) -> TensorType:
    t = _plain(m, i)
    return TensorType(t.element_type, [*t.get_shape(), 1])


def _as_packed(m: Match, i: int) -> TensorType:
    """Operand `i` as the pack reads it: with its unit dimension, if any."""
    return _with_unit(m, i) if _layout(m, i).unit_dim else _plain(m, i)


def _groups(m: Match, i: int) -> str:
    """The reassociation that adds (or drops) the unit dimension, which goes
    with the last one (a scalar's is the unit alone)."""
    rank = len(_plain(m, i).get_shape())
    groups = [[d] for d in range(rank)] or [[]]
    groups[-1].append(rank)
    return "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"


HOLES = {
    **{k: v for k, v in PACKED_MATMUL.helpers.items() if not k.endswith("_packed")},
    **{
        f"{name}_{what}": helper
        for i, name in enumerate("abc")
        for what, helper in (
            ("packed", lambda m, i=i: packed(_as_packed(m, i), _layout(m, i))),
            ("unit", lambda m, i=i: _with_unit(m, i)),
            ("unit_shape", lambda m, i=i: list(_with_unit(m, i).get_shape())),
            ("groups", lambda m, i=i: _groups(m, i)),
        )
    },
    "acc": lambda m: m.root.results[0].type,
}
"""PACKED_MATMUL's layouts, each operand's packed type from its shape with
the unit dimension where it has one, and that shape's type and
reassociation."""

# The rewrite side: the IR, early.

_PACK = """
%{e} = tensor.empty() : ${x}_packed
%{z} = arith.constant ${x}_zero
%{p} = linalg.pack ${x} padding_value(%{z} : ${x}.element_type) ${x}_perm inner_dims_pos = [${x}_dims] inner_tiles = [${x}_tiles] into %{e} : ${x}.type -> ${x}_packed
"""
_UNIT_PACK = """
%{u} = tensor.expand_shape ${x} ${x}_groups output_shape [${x}_unit_shape] : ${x}.type into ${x}_unit
%{e} = tensor.empty() : ${x}_packed
%{z} = arith.constant ${x}_zero
%{p} = linalg.pack %{u} padding_value(%{z} : ${x}.element_type) ${x}_perm inner_dims_pos = [${x}_dims] inner_tiles = [${x}_tiles] into %{e} : ${x}_unit -> ${x}_packed
"""
"""`$x` with a unit dimension added, packed."""

_UNPACK = """
%20 = linalg.mmt4d ins(%3, %7 : $a_packed, $b_packed) outs(%11 : $c_packed) -> $c_packed
%21 = tensor.empty() : $c_unit
%22 = linalg.unpack %20 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %21 : $c_packed -> $c_unit
%23 = tensor.collapse_shape %22 $c_groups : $c_unit into $c.type
"""
_FILLED_UNPACK = """
%10 = tensor.empty() : $c_packed
%11 = linalg.fill ins($fill : $fill.type) outs(%10 : $c_packed) -> $c_packed
%20 = linalg.mmt4d ins(%3, %7 : $a_packed, $b_packed) outs(%11 : $c_packed) -> $c_packed
%21 = tensor.empty() : $c_unit
%22 = linalg.unpack %20 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %21 : $c_packed -> $c_unit
%23 = tensor.collapse_shape %22 $c_groups : $c_unit into $acc
"""


def _early(a_unit: bool, b_unit: bool, init: str) -> Template:
    a = (_UNIT_PACK if a_unit else _PACK).format(u=0, e=1, z=2, p=3, x="a")
    b = (_UNIT_PACK if b_unit else _PACK).format(u=4, e=5, z=6, p=7, x="b")
    c = _UNIT_PACK.format(u=8, e=9, z=10, p=11, x="c") if init == _UNPACK else ""
    return Template(a + b + c + init, **HOLES)


MATVEC_PACKED = _early(False, True, _UNPACK)
"""A, x with a unit N and y with a unit N packed, one mmt4d, y unpacked and
its unit dropped."""
MATVEC_PACKED_FILLED = _early(False, True, _FILLED_UNPACK)
VECMAT_PACKED = _early(True, False, _UNPACK)
"""x with a unit M, B and y with a unit M packed, one mmt4d, y unpacked."""
VECMAT_PACKED_FILLED = _early(True, False, _FILLED_UNPACK)

# Late: each pack in a dispatch region of its own, the mmt4d and unpack in one.

_UNIT_PACK_IN_REGION = """
%{r} = flow.dispatch.region -> (${x}_packed) {{
  %{e} = tensor.empty() : ${x}_packed
  %{z} = arith.constant ${x}_zero
  $clone ${x}_chain.ops
  %{u} = tensor.expand_shape ${x} ${x}_groups output_shape [${x}_unit_shape] : ${x}.type into ${x}_unit
  %{p} = linalg.pack %{u} padding_value(%{z} : ${x}.element_type) ${x}_perm inner_dims_pos = [${x}_dims] inner_tiles = [${x}_tiles] into %{e} : ${x}_unit -> ${x}_packed
  flow.return %{p} : ${x}_packed
}}
"""
"""A dispatch region packing `$x` with a unit dimension, the pads and
reshapes it comes from copied in first."""

_UNPACK_IN_REGION = """
%19 = flow.dispatch.region -> ($c.type) {
  %20 = linalg.mmt4d ins(%0, %4 : $a_packed, $b_packed) outs(%8 : $c_packed) -> $c_packed
  %21 = tensor.empty() : $c_unit
  %22 = linalg.unpack %20 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %21 : $c_packed -> $c_unit
  %23 = tensor.collapse_shape %22 $c_groups : $c_unit into $c.type
  flow.return %23 : $c.type
}
"""
_FILLED_UNPACK_IN_REGION = """
%19 = flow.dispatch.region -> ($acc) {
  %fill_inside = $clone $fill
  %10 = tensor.empty() : $c_packed
  %11 = linalg.fill ins(%fill_inside : $fill.type) outs(%10 : $c_packed) -> $c_packed
  %20 = linalg.mmt4d ins(%0, %4 : $a_packed, $b_packed) outs(%11 : $c_packed) -> $c_packed
  %21 = tensor.empty() : $c_unit
  %22 = linalg.unpack %20 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %21 : $c_packed -> $c_unit
  %23 = tensor.collapse_shape %22 $c_groups : $c_unit into $acc
  flow.return %23 : $acc
}
"""


def _late(a_unit: bool, b_unit: bool, init: str) -> RegionFormingCloningTemplate:
    a_pack = _UNIT_PACK_IN_REGION if a_unit else PACK_IN_REGION
    b_pack = _UNIT_PACK_IN_REGION if b_unit else PACK_IN_REGION
    a = a_pack.format(r=0, e=1, z=2, u=3, p=30, x="a")
    b = b_pack.format(r=4, e=5, z=6, u=7, p=31, x="b")
    c = ""
    if init == _UNPACK_IN_REGION:
        c = _UNIT_PACK_IN_REGION.format(r=8, e=9, z=12, u=13, p=32, x="c")
    return RegionFormingCloningTemplate(a + b + c + init, **HOLES)


MATVEC_PACKED_IN_DISPATCHES = _late(False, True, _UNPACK_IN_REGION)
MATVEC_PACKED_FILLED_IN_DISPATCHES = _late(False, True, _FILLED_UNPACK_IN_REGION)
VECMAT_PACKED_IN_DISPATCHES = _late(True, False, _UNPACK_IN_REGION)
VECMAT_PACKED_FILLED_IN_DISPATCHES = _late(True, False, _FILLED_UNPACK_IN_REGION)


# The patterns.


def _patterns(pulled: bool) -> tuple[Pattern, ...]:
    when = "in-dispatches" if pulled else "early"
    family = MATERIALIZE_ENCODING_LATE if pulled else MATERIALIZE_ENCODING_EARLY
    how = "as a dispatch region per pack and one for the mmt4d and unpack" if pulled else (
        "as graph-level packs, mmt4d and unpack"
    )
    forms = (
        ("matvec", MATVEC_LOOPS, "m", _packed_init, "an encoded init"),
        ("filled-matvec", MATVEC_LOOPS, "m", _filled_init, "a filled encoded tensor.empty"),
        ("vecmat", VECMAT_LOOPS, "n", _packed_init, "an encoded init"),
        ("filled-vecmat", VECMAT_LOOPS, "n", _filled_init, "a filled encoded tensor.empty"),
    )
    templates = (
        (
            MATVEC_PACKED_IN_DISPATCHES,
            MATVEC_PACKED_FILLED_IN_DISPATCHES,
            VECMAT_PACKED_IN_DISPATCHES,
            VECMAT_PACKED_FILLED_IN_DISPATCHES,
        )
        if pulled
        else (MATVEC_PACKED, MATVEC_PACKED_FILLED, VECMAT_PACKED, VECMAT_PACKED_FILLED)
    )
    return tuple(
        Pattern(
            name=f"materialize-{name}-{when}",
            doc=f"an encoded {name.removeprefix('filled-')} into {what}, its vector operands "
            f"with a unit dimension, {how}",
            root=UnsetEncodingOp,
            where=_encoded(loops, role, init_is(pulled), pulled),
            rewrite=template,
            options=["target"],
            family=family.name,
        )
        for (name, loops, role, init_is, what), template in zip(forms, templates)
    )


EARLY_TEMPLATES = _patterns(pulled=False)
"""materialize-early's encoded matvecs and vecmats, as templates."""
LATE_TEMPLATES = _patterns(pulled=True)
"""materialize-late's encoded matvecs and vecmats, as templates."""
