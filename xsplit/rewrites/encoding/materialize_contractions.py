"""Encoded contractions beyond the plain matmul, materialized as the IR they
produce: the common roots of `materialize-encoding-early` and
`materialize-encoding-in-dispatches` as templates, declared after the plain
matmul's (`materialize_encodings.py`) and before the builder patterns.

A contraction with an M and an N loop and at most one batch loop (a matmul
with transposed operands, a `linalg.generic` of one, a batch matmul, split-k's
expanded partials) packs as the plain matmul does: each operand into the
target's tiles, one `mmt4d` (`batch_mmt4d` with its batch loop first in
every packed operand), the result unpacked. What differs from one such op to
another (which dimensions are tiled, the outer permutation, the packed
shapes) are numbers of the match that the layout helpers compute from its
maps, never the structure of the IR. Late, each pack is a dispatch region of
its own with the pads and reshapes that feed it copied in, as IREE's
dispatch formation pulls a pack's producers into its dispatch.

On a target that does not data-tile, any of them loses its encodings: the
matched contraction copied (`$clone`) onto the plain operands.

Left to the builders: a matvec's or vecmat's unit dimension, several batch
loops collapsed into one, a fill of no constant late, a pad or reshape used
elsewhere, dynamic shapes.
"""

from __future__ import annotations

from xsplit.dialects.iree_encoding import SetEncodingOp, UnsetEncodingOp
from xsplit.rewrites.dispatch.form_dispatch_regions import RegionFormingTemplate
from xsplit.rewrites.dsl import Constraint, Pattern, Template, init, input, operand
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.contractions import batch_loops, loop_of
from xsplit.rewrites.dsl.structure import producer_chain, the_value
from xsplit.rewrites.dsl.targets import encoding_size, target
from xsplit.rewrites.encoding.materialize_encodings import (
    FUSED_PRODUCERS,
    MATERIALIZE_ENCODING_EARLY,
    MATERIALIZE_ENCODING_LATE,
    PACKED_FILLED_MATMUL,
    PACKED_MATMUL,
    is_encoded_contraction,
)

# The match side, said at the contraction.

M_SIZE, N_SIZE = (encoding_size(input(0), loop_of("loops", role)) for role in ("m", "n"))
"""The contraction's M and N as its LHS's encoding carries them: what the
target table's tiles depend on."""

has_m_and_n = (loop_of("loops", "m") >= 0) & (loop_of("loops", "n") >= 0)
"""The contraction captured as `loops` has an M and an N loop: no operand
needs a unit dimension to be packed."""

data_tiled = target().data_tiles(m=M_SIZE, n=N_SIZE, capture="tiles")
drops_encodings = target().drops_encodings(m=M_SIZE, n=N_SIZE)


def encodes(name: str, pulled: bool) -> Constraint:
    """At a set_encoding: its source is captured as `name`; with `pulled`,
    the pads and reshapes it comes from, each with no other use, as
    `{name}_chain`: what a late template copies into the pack's dispatch
    (`$clone ${name}_chain.ops`), as the builder pulls them in."""
    source = operand(0).capture(name)
    if pulled:
        fused = [op.name for op in FUSED_PRODUCERS]
        source = source & producer_chain(
            operand(0), *fused, capture=f"{name}_chain", each=the_value.has_one_use()
        )
    return source


def filled(pulled: bool) -> Constraint:
    """At a linalg.fill of the accumulator: its value captured as `fill`;
    with `pulled`, a constant (`fill_constant`), which a late template makes
    again inside the contraction's dispatch, as the builder does."""
    value = input(0).capture("fill")
    if pulled:
        value = value & input(0).defined_by("arith.constant", capture="fill_constant")
    return value


def _encoded(batch: int, init_is: Constraint, pulled: bool) -> Constraint:
    """unset_encoding(contraction(set_encoding(a), set_encoding(b)) outs(...))
    of `batch` batch loops and an M and an N loop, at graph level, the init
    as `init_is` says, on a target that data-tiles it."""
    return is_encoded_contraction & operand(0).produced_by(
        where=(batch_loops("loops") == batch)
        & has_m_and_n
        & input(0).defined_by(SetEncodingOp.name, where=encodes("a", pulled))
        & input(1).defined_by(SetEncodingOp.name, where=encodes("b", pulled))
        & init_is
        & data_tiled
    )


def _packed_init(pulled: bool) -> Constraint:
    return init().defined_by(SetEncodingOp.name, where=encodes("c", pulled))


def _filled_init(pulled: bool) -> Constraint:
    return init().defined_by("linalg.fill", where=filled(pulled))


# The rewrite side. Early, the plain matmul's templates are every such
# contraction's: their holes are its layouts, whatever its maps.

BATCH_PACKED = Template(
    PACKED_MATMUL.text.replace("linalg.mmt4d", "linalg.batch_mmt4d"), **PACKED_MATMUL.helpers
)
"""PACKED_MATMUL with one batch loop, first in every packed operand."""

BATCH_PACKED_FILLED = Template(
    PACKED_FILLED_MATMUL.text.replace("linalg.mmt4d", "linalg.batch_mmt4d"),
    **PACKED_FILLED_MATMUL.helpers,
)
"""PACKED_FILLED_MATMUL with one batch loop."""


class RegionFormingCloningTemplate(RegionFormingTemplate, CloningTemplate):
    """A `CloningTemplate` whose dispatch regions `materialize-late` turns
    into workgroups, as `RegionFormingTemplate`'s."""


PACK_IN_REGION = """
%{r} = flow.dispatch.region -> (${x}_packed) {{
  %{e} = tensor.empty() : ${x}_packed
  %{z} = arith.constant ${x}_zero
  $clone ${x}_chain.ops
  %{p} = linalg.pack ${x} padding_value(%{z} : ${x}.element_type) ${x}_perm inner_dims_pos = [${x}_dims] inner_tiles = [${x}_tiles] into %{e} : ${x}.type -> ${x}_packed
  flow.return %{p} : ${x}_packed
}}
"""
"""A dispatch region packing `$x`, the pads and reshapes it comes from
copied in before the pack."""


def _in_dispatches(mmt4d: str) -> RegionFormingCloningTemplate:
    return RegionFormingCloningTemplate(
        PACK_IN_REGION.format(r=0, e=1, z=2, p=3, x="a")
        + PACK_IN_REGION.format(r=4, e=5, z=6, p=7, x="b")
        + PACK_IN_REGION.format(r=8, e=9, z=10, p=11, x="c")
        + CONTRACTION_IN_REGION.format(mmt4d=mmt4d),
        **PACKED_MATMUL.helpers,
    )


CONTRACTION_IN_REGION = """
%12 = flow.dispatch.region -> ($c.type) {{
  %13 = {mmt4d} ins(%0, %4 : $a_packed, $b_packed) outs(%8 : $c_packed) -> $c_packed
  %14 = tensor.empty() : $c.type
  %15 = linalg.unpack %13 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %14 : $c_packed -> $c.type
  flow.return %15 : $c.type
}}
"""
"""The packed contraction `{mmt4d}` and its unpack, in the region after the
three packs' (`%0`, `%4`, `%8`)."""


def _filled_in_dispatches(mmt4d: str) -> RegionFormingCloningTemplate:
    return RegionFormingCloningTemplate(
        PACK_IN_REGION.format(r=0, e=1, z=2, p=3, x="a")
        + PACK_IN_REGION.format(r=4, e=5, z=6, p=7, x="b")
        + FILLED_CONTRACTION_IN_REGION.format(mmt4d=mmt4d),
        **PACKED_FILLED_MATMUL.helpers,
    )


FILLED_CONTRACTION_IN_REGION = """
%8 = flow.dispatch.region -> ($acc) {{
  %fill_inside = $clone $fill
  %9 = tensor.empty() : $c_packed
  %10 = linalg.fill ins(%fill_inside : $fill.type) outs(%9 : $c_packed) -> $c_packed
  %11 = {mmt4d} ins(%0, %4 : $a_packed, $b_packed) outs(%10 : $c_packed) -> $c_packed
  %12 = tensor.empty() : $acc
  %13 = linalg.unpack %11 $c_perm inner_dims_pos = [$c_dims] inner_tiles = [$c_tiles] into %12 : $c_packed -> $acc
  flow.return %13 : $acc
}}
"""
"""The zero-filled packed init, the contraction `{mmt4d}` and its unpack,
in the region after the two packs' (`%0`, `%4`)."""


PACKED_IN_DISPATCHES = _in_dispatches("linalg.mmt4d")
"""PACKED_MATMUL late: a dispatch region per pack (with what feeds it), one
for the mmt4d and the unpack."""
BATCH_PACKED_IN_DISPATCHES = _in_dispatches("linalg.batch_mmt4d")
PACKED_FILLED_IN_DISPATCHES = _filled_in_dispatches("linalg.mmt4d")
"""PACKED_FILLED_MATMUL late, the fill's constant made again in the
contraction's dispatch region."""
BATCH_PACKED_FILLED_IN_DISPATCHES = _filled_in_dispatches("linalg.batch_mmt4d")

DROPPED = CloningTemplate(
    "%0 = $clone $product($a, $b, $c : $a.type, $b.type, $c.type) -> ($c.type)"
)
"""The matched contraction on the plain operands."""

DROPPED_FILLED = CloningTemplate(
    """
%0 = tensor.empty() : $acc
%1 = linalg.fill ins($fill : $fill.type) outs(%0 : $acc) -> $acc
%2 = $clone $product($a, $b, %1 : $a.type, $b.type, $acc) -> ($acc)
""",
    acc=lambda m: m.root.results[0].type,
)
"""The matched contraction on the plain inputs, into a plain filled empty."""


# The patterns.


def _pattern(name: str, doc: str, where: Constraint, rewrite: Template, family: Pattern) -> Pattern:
    return Pattern(
        name=name,
        doc=doc,
        root=UnsetEncodingOp,
        where=where,
        rewrite=rewrite,
        options=["target"],
        family=family.name,
    )


def _cases(pulled: bool) -> list[tuple[str, str, Constraint]]:
    """(name, what it is, match) of each form: no batch loop or one, the
    init packed or filled."""
    packed_init, filled_init = _packed_init(pulled), _filled_init(pulled)
    into_encoded, into_filled = "with an encoded init", "into a filled encoded tensor.empty"
    return [
        ("contraction", f"a contraction {into_encoded}", _encoded(0, packed_init, pulled)),
        ("filled-contraction", f"a contraction {into_filled}", _encoded(0, filled_init, pulled)),
        (
            "batch-contraction",
            f"a contraction of one batch loop {into_encoded}",
            _encoded(1, packed_init, pulled),
        ),
        (
            "filled-batch-contraction",
            f"a contraction of one batch loop {into_filled}",
            _encoded(1, filled_init, pulled),
        ),
    ]


EARLY_TEMPLATES = tuple(
    _pattern(
        f"materialize-{name}-early",
        f"{what}, M and N loops, as graph-level packs, {'batch_' if 'batch' in name else ''}mmt4d "
        f"and unpack ({template_name})",
        where,
        template,
        MATERIALIZE_ENCODING_EARLY,
    )
    for (name, what, where), (template_name, template) in zip(
        _cases(pulled=False),
        (
            ("PACKED_MATMUL", PACKED_MATMUL),
            ("PACKED_FILLED_MATMUL", PACKED_FILLED_MATMUL),
            ("BATCH_PACKED", BATCH_PACKED),
            ("BATCH_PACKED_FILLED", BATCH_PACKED_FILLED),
        ),
    )
)
"""materialize-early's encoded contractions with M and N loops, as templates."""

LATE_TEMPLATES = tuple(
    _pattern(
        f"materialize-{name}-in-dispatches",
        f"{what}, M and N loops, as a dispatch region per pack and one for the "
        f"{'batch_' if 'batch' in name else ''}mmt4d and unpack ({template_name})",
        where,
        template,
        MATERIALIZE_ENCODING_LATE,
    )
    for (name, what, where), (template_name, template) in zip(
        _cases(pulled=True),
        (
            ("PACKED_IN_DISPATCHES", PACKED_IN_DISPATCHES),
            ("PACKED_FILLED_IN_DISPATCHES", PACKED_FILLED_IN_DISPATCHES),
            ("BATCH_PACKED_IN_DISPATCHES", BATCH_PACKED_IN_DISPATCHES),
            ("BATCH_PACKED_FILLED_IN_DISPATCHES", BATCH_PACKED_FILLED_IN_DISPATCHES),
        ),
    )
)
"""materialize-late's encoded contractions with M and N loops, as templates."""


def _dropped(init_is: Constraint) -> Constraint:
    return is_encoded_contraction & operand(0).capture("product") & operand(0).produced_by(
        where=has_m_and_n
        & input(0).defined_by(SetEncodingOp.name, where=encodes("a", pulled=False))
        & input(1).defined_by(SetEncodingOp.name, where=encodes("b", pulled=False))
        & init_is
        & drops_encodings
    )


DROP_TEMPLATES = (
    Pattern(
        name="drop-contraction-encodings",
        doc="an encoded contraction with M and N loops and an encoded init, on a target that "
        "does not data-tile, as the same contraction on the plain operands (DROPPED)",
        root=UnsetEncodingOp,
        where=_dropped(_packed_init(pulled=False)),
        rewrite=DROPPED,
        options=["target"],
    ),
    Pattern(
        name="drop-filled-contraction-encodings",
        doc="an encoded contraction with M and N loops into a filled encoded tensor.empty, on "
        "a target that does not data-tile, as the same contraction into a plain filled one "
        "(DROPPED_FILLED)",
        root=UnsetEncodingOp,
        where=_dropped(_filled_init(pulled=False)),
        rewrite=DROPPED_FILLED,
        options=["target"],
    ),
)
"""Both materializations' templates for a contraction whose target drops
encodings (the plain matmul's are `DROP_ENCODINGS`)."""
