"""A grouped GEMM that split-k's `strategy=grouped` writes, materialized as
the IR it produces: the common roots of `materialize-early` and
`materialize-late` as templates.

The grouped op (`linalg_ext.split_grouped_gemm`) of a static matmul, batch
matmul, matvec or vecmat (float or integer) whose groups are one size (`0, s, 2s, ..., K`), or one size
and a shorter last one (`0, s, ..., full*s, K`), from partials filled with
the combiner's identity, becomes an `scf.forall` over the groups that IREE
distributes: group g fills its slot of the partials and runs the named op on
its chunk of K. A shorter last group runs beside the loop and is written
into its slot, so that no group has a dynamic size. `materialize-late` puts
the loop in a `flow.dispatch.region` of its own, which it then turns into
workgroups; the last group stays outside, for IREE to put in a dispatch.

Any other grouped op (dynamic shapes, arbitrary group boundaries, an init
that is not a fill, a body other than a multiply-add, other maps) is the builder's
(`split.grouped.materialize_grouped_gemm`), declared after these.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, TensorType
from xdsl.ir.affine import AffineMap

from xsplit.dialects.xsplit_linalg_ext import SplitGroupedGemmOp
from xsplit.rewrites.dispatch.form_dispatch_regions import RegionFormingTemplate, is_graph_level
from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Pattern,
    Template,
    attr,
    dim,
    input,
    operand,
    operand_group_size,
)
from xsplit.rewrites.dsl.arrays import body_ops, int_array
from xsplit.rewrites.split.static_chunks import MATMUL_MAPS, slice_name

BATCH_MATMUL_MAPS = ArrayAttr(
    [
        AffineMapAttr(AffineMap.from_callable(lambda b, i, j, k: (b, i, k))),
        AffineMapAttr(AffineMap.from_callable(lambda b, i, j, k: (b, k, j))),
        AffineMapAttr(AffineMap.from_callable(lambda b, i, j, k: (b, i, j))),
    ]
)

MATVEC_MAPS = ArrayAttr(
    [
        AffineMapAttr(AffineMap.from_callable(lambda i, k: (i, k))),
        AffineMapAttr(AffineMap.from_callable(lambda i, k: (k,))),
        AffineMapAttr(AffineMap.from_callable(lambda i, k: (i,))),
    ]
)
VECMAT_MAPS = ArrayAttr(
    [
        AffineMapAttr(AffineMap.from_callable(lambda j, k: (k,))),
        AffineMapAttr(AffineMap.from_callable(lambda j, k: (k, j))),
        AffineMapAttr(AffineMap.from_callable(lambda j, k: (j,))),
    ]
)

OFFSETS = int_array("group_offsets")
K = dim("K")
CHUNK = OFFSETS.at(1)
"""Every group's size but a shorter last one's."""
GROUPS = OFFSETS.length() - 1
FULL = OFFSETS.length() - 2
"""The groups of `CHUNK` when the last one is shorter."""
TAIL_AT = OFFSETS.at(-2)


# The match side: an op tree of the grouped op, its operands' shapes, its
# partials' fill and its body.

PARTIALS = operand(2)
"""The grouped op's init (its one operand after its two inputs): the
partials, one slot per group."""


def _grouped(maps: ArrayAttr, a: tuple[str, ...], b: tuple[str, ...], p: tuple[str, ...]) -> Constraint:
    """A grouped op with `maps`, static operands of shapes `a`, `b` and
    partials `p` of one element type, partials filled with `$identity`, and
    a float or integer multiply-add body: the named op each group runs."""
    return (
        operand_group_size("inputs", 2)
        & attr("indexing_maps").equals(maps)
        & input(0).has_static_shape()
        & input(1).has_static_shape()
        & PARTIALS.has_static_shape()
        & input(0).has_shape(*a)
        & input(1).has_shape(*b)
        & PARTIALS.has_shape(*p)
        & input(0).capture("a")
        & input(1).capture("b")
        & PARTIALS.capture("p")
        & input(0).same_element_type_as("p")
        & input(1).same_element_type_as("p")
        & PARTIALS.defined_by("linalg.fill", where=input(0).capture("identity"))
        & (
            body_ops("body", "arith.mulf", "arith.addf", "linalg.yield")
            | body_ops("body", "arith.muli", "arith.addi", "linalg.yield")
        )
    )


grouped_matmul = _grouped(MATMUL_MAPS, ("M", "K"), ("K", "N"), ("G", "M", "N"))
grouped_batch_matmul = _grouped(
    BATCH_MATMUL_MAPS, ("B", "M", "K"), ("B", "K", "N"), ("G", "B", "M", "N")
)
grouped_matvec = _grouped(MATVEC_MAPS, ("M", "K"), ("K",), ("G", "M"))
grouped_vecmat = _grouped(VECMAT_MAPS, ("K",), ("K", "N"), ("G", "N"))
groups_of_one_size = OFFSETS.steps_evenly(CHUNK, K) & (GROUPS == dim("G"))
groups_and_a_shorter_last = OFFSETS.steps_evenly_then(CHUNK, K) & (GROUPS == dim("G"))


# The rewrite side: the loop over the groups, and the shorter last group.


def _typed(m: Match, shape: list) -> TensorType:
    return TensorType(m["p"].type.element_type, [n(m) if callable(n) else n for n in shape])


GROUP_LOOP = """
%partials_init = tensor.empty() : $p.type
%partials = scf.forall (%group) in ($loops) shared_outs(%partials_out = %partials_init) -> ($p.type) {
  %0 = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%group)
  %1 = tensor.extract_slice %partials_out[%group, 0, 0] [1, $m, $n] [1, 1, 1] : $p.type to $slot_type
  %2 = tensor.extract_slice $a[0, %0] [$m, $chunk] [1, 1] : $a.type to $a_chunk_type
  %3 = tensor.extract_slice $b[%0, 0] [$chunk, $n] [1, 1] : $b.type to $b_chunk_type
  %group_init = linalg.fill ins($identity : $p.element_type) outs(%1 : $slot_type) -> $slot_type
  %partial = linalg.matmul ins(%2, %3 : $a_chunk_type, $b_chunk_type) outs(%group_init : $slot_type) -> $slot_type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[%group, 0, 0] [1, $m, $n] [1, 1, 1] : $slot_type into $p.type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
"""
"""Group g's partial, from its slot filled with the identity, into its slot."""

LAST_GROUP = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a[0, $tail_at] [$m, $tail] [1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[$tail_at, 0] [$tail, $n] [1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.matmul {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %partials[$loops, 0, 0] [1, $m, $n] [1, 1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""
"""The shorter last group beside the loop, written into the last slot of
what the loop made."""


LAST_GROUP_AFTER_REGION = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a[0, $tail_at] [$m, $tail] [1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[$tail_at, 0] [$tail, $n] [1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.matmul {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %9[$loops, 0, 0] [1, $m, $n] [1, 1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""
"""LAST_GROUP beside the region, written into the last slot of what it returns."""


BATCH_GROUP_LOOP = """
%partials_init = tensor.empty() : $p.type
%partials = scf.forall (%group) in ($loops) shared_outs(%partials_out = %partials_init) -> ($p.type) {
  %0 = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%group)
  %1 = tensor.extract_slice %partials_out[%group, 0, 0, 0] [1, $batch, $m, $n] [1, 1, 1, 1] : $p.type to $slot_type
  %2 = tensor.extract_slice $a[0, 0, %0] [$batch, $m, $chunk] [1, 1, 1] : $a.type to $a_chunk_type
  %3 = tensor.extract_slice $b[0, %0, 0] [$batch, $chunk, $n] [1, 1, 1] : $b.type to $b_chunk_type
  %group_init = linalg.fill ins($identity : $p.element_type) outs(%1 : $slot_type) -> $slot_type
  %partial = linalg.batch_matmul ins(%2, %3 : $a_chunk_type, $b_chunk_type) outs(%group_init : $slot_type) -> $slot_type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[%group, 0, 0, 0] [1, $batch, $m, $n] [1, 1, 1, 1] : $slot_type into $p.type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
"""

BATCH_LAST_GROUP = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a[0, 0, $tail_at] [$batch, $m, $tail] [1, 1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[0, $tail_at, 0] [$batch, $tail, $n] [1, 1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.batch_matmul {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %partials[$loops, 0, 0, 0] [1, $batch, $m, $n] [1, 1, 1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""


BATCH_LAST_GROUP_AFTER_REGION = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a[0, 0, $tail_at] [$batch, $m, $tail] [1, 1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[0, $tail_at, 0] [$batch, $tail, $n] [1, 1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.batch_matmul {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %9[$loops, 0, 0, 0] [1, $batch, $m, $n] [1, 1, 1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""
"""BATCH_LAST_GROUP beside the region, written into the last slot of what it returns."""


MATVEC_GROUP_LOOP = """
%partials_init = tensor.empty() : $p.type
%partials = scf.forall (%group) in ($loops) shared_outs(%partials_out = %partials_init) -> ($p.type) {
  %0 = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%group)
  %1 = tensor.extract_slice %partials_out[%group, 0] [1, $m] [1, 1] : $p.type to $slot_type
  %2 = tensor.extract_slice $a[0, %0] [$m, $chunk] [1, 1] : $a.type to $a_chunk_type
  %3 = tensor.extract_slice $b[%0] [$chunk] [1] : $b.type to $b_chunk_type
  %group_init = linalg.fill ins($identity : $p.element_type) outs(%1 : $slot_type) -> $slot_type
  %partial = linalg.matvec ins(%2, %3 : $a_chunk_type, $b_chunk_type) outs(%group_init : $slot_type) -> $slot_type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[%group, 0] [1, $m] [1, 1] : $slot_type into $p.type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
"""
"""GROUP_LOOP for a grouped matvec: each group's chunk of A's columns and of x."""

# `$x[$i]` is a template's index into a list: a one-dimensional slice at a
# computed offset is written `$x [$offset]`, as MLIR reads it too.

MATVEC_LAST_GROUP = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a[0, $tail_at] [$m, $tail] [1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b [$tail_at] [$tail] [1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.matvec {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %partials[$loops, 0] [1, $m] [1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""


MATVEC_LAST_GROUP_AFTER_REGION = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a[0, $tail_at] [$m, $tail] [1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b [$tail_at] [$tail] [1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.matvec {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %9[$loops, 0] [1, $m] [1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""
"""MATVEC_LAST_GROUP beside the region, written into the last slot of what it returns."""


VECMAT_GROUP_LOOP = """
%partials_init = tensor.empty() : $p.type
%partials = scf.forall (%group) in ($loops) shared_outs(%partials_out = %partials_init) -> ($p.type) {
  %0 = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%group)
  %1 = tensor.extract_slice %partials_out[%group, 0] [1, $n] [1, 1] : $p.type to $slot_type
  %2 = tensor.extract_slice $a[%0] [$chunk] [1] : $a.type to $a_chunk_type
  %3 = tensor.extract_slice $b[%0, 0] [$chunk, $n] [1, 1] : $b.type to $b_chunk_type
  %group_init = linalg.fill ins($identity : $p.element_type) outs(%1 : $slot_type) -> $slot_type
  %partial = linalg.vecmat ins(%2, %3 : $a_chunk_type, $b_chunk_type) outs(%group_init : $slot_type) -> $slot_type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[%group, 0] [1, $n] [1, 1] : $slot_type into $p.type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
"""
"""GROUP_LOOP for a grouped vecmat: each group's chunk of x and of B's rows."""

VECMAT_LAST_GROUP = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a [$tail_at] [$tail] [1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[$tail_at, 0] [$tail, $n] [1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.vecmat {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %partials[$loops, 0] [1, $n] [1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""


VECMAT_LAST_GROUP_AFTER_REGION = """
%4 = tensor.empty() : $slot_type
%$a_tail = tensor.extract_slice $a [$tail_at] [$tail] [1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[$tail_at, 0] [$tail, $n] [1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins($identity : $p.element_type) outs(%4 : $slot_type) -> $slot_type
%tail = linalg.vecmat {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $slot_type) -> $slot_type
%partials_with_tail = tensor.insert_slice %tail into %9[$loops, 0] [1, $n] [1, 1] {xsplit.split_part = "tail"} : $slot_type into $p.type
"""
"""VECMAT_LAST_GROUP beside the region, written into the last slot of what it returns."""


_M, _N, _B = dim("M"), dim("N"), dim("B")
MATMUL_HOLES = dict(
    chunk=CHUNK,
    m=_M,
    n=_N,
    slot_type=lambda m: _typed(m, [_M, _N]),
    a_chunk_type=lambda m: _typed(m, [_M, CHUNK]),
    b_chunk_type=lambda m: _typed(m, [CHUNK, _N]),
)
BATCH_HOLES = dict(
    chunk=CHUNK,
    batch=_B,
    m=_M,
    n=_N,
    slot_type=lambda m: _typed(m, [_B, _M, _N]),
    a_chunk_type=lambda m: _typed(m, [_B, _M, CHUNK]),
    b_chunk_type=lambda m: _typed(m, [_B, CHUNK, _N]),
)
MATVEC_HOLES = dict(
    chunk=CHUNK,
    m=_M,
    slot_type=lambda m: _typed(m, [_M]),
    a_chunk_type=lambda m: _typed(m, [_M, CHUNK]),
    b_chunk_type=lambda m: _typed(m, [CHUNK]),
)
VECMAT_HOLES = dict(
    chunk=CHUNK,
    n=_N,
    slot_type=lambda m: _typed(m, [_N]),
    a_chunk_type=lambda m: _typed(m, [CHUNK]),
    b_chunk_type=lambda m: _typed(m, [CHUNK, _N]),
)
TAIL_HOLES = dict(
    tail_at=TAIL_AT,
    tail=K - TAIL_AT,
    a_tail=lambda m: slice_name(m, "a", "tail"),
    b_tail=lambda m: slice_name(m, "b", "tail"),
)
MATMUL_TAIL_TYPES = dict(
    a_tail_type=lambda m: _typed(m, [_M, K - TAIL_AT]),
    b_tail_type=lambda m: _typed(m, [K - TAIL_AT, _N]),
)
MATVEC_TAIL_TYPES = dict(
    a_tail_type=lambda m: _typed(m, [_M, K - TAIL_AT]),
    b_tail_type=lambda m: _typed(m, [K - TAIL_AT]),
)
VECMAT_TAIL_TYPES = dict(
    a_tail_type=lambda m: _typed(m, [K - TAIL_AT]),
    b_tail_type=lambda m: _typed(m, [K - TAIL_AT, _N]),
)
BATCH_TAIL_TYPES = dict(
    a_tail_type=lambda m: _typed(m, [_B, _M, K - TAIL_AT]),
    b_tail_type=lambda m: _typed(m, [_B, K - TAIL_AT, _N]),
)


IN_REGION_OPEN = """
%9 = flow.dispatch.region -> ($p.type) {"""
IN_REGION_CLOSE = """  flow.return %partials : $p.type
}
"""
"""A group loop between these is in a `flow.dispatch.region` of its own,
returning its partials as `%9` (which the `*_AFTER_REGION` last groups read)."""


def _templates(
    loop: str, last: str, after_region: str, holes: dict, tail_types: dict
) -> tuple[Template, Template, Template, Template]:
    """The loop, the loop and the last group, and both with the loop in a
    dispatch region."""
    tail = {**holes, **TAIL_HOLES, **tail_types}
    in_region = IN_REGION_OPEN + loop + IN_REGION_CLOSE
    return (
        Template(loop, loops=GROUPS, **holes),
        Template(loop + last, loops=FULL, **tail),
        RegionFormingTemplate(in_region, loops=GROUPS, **holes),
        RegionFormingTemplate(in_region + after_region, loops=FULL, **tail),
    )


GROUPS_LOOP, GROUPS_AND_TAIL, GROUPS_IN_REGION, GROUPS_AND_TAIL_IN_REGION = _templates(
    GROUP_LOOP,
    LAST_GROUP,
    LAST_GROUP_AFTER_REGION,
    MATMUL_HOLES,
    MATMUL_TAIL_TYPES,
)
BATCH_GROUPS_LOOP, BATCH_GROUPS_AND_TAIL, BATCH_GROUPS_IN_REGION, BATCH_GROUPS_AND_TAIL_IN_REGION = (
    _templates(
        BATCH_GROUP_LOOP,
        BATCH_LAST_GROUP,
        BATCH_LAST_GROUP_AFTER_REGION,
        BATCH_HOLES,
        BATCH_TAIL_TYPES,
    )
)
MATVEC_GROUPS_LOOP, MATVEC_GROUPS_AND_TAIL, MATVEC_GROUPS_IN_REGION, MATVEC_GROUPS_AND_TAIL_IN_REGION = (
    _templates(
        MATVEC_GROUP_LOOP,
        MATVEC_LAST_GROUP,
        MATVEC_LAST_GROUP_AFTER_REGION,
        MATVEC_HOLES,
        MATVEC_TAIL_TYPES,
    )
)
VECMAT_GROUPS_LOOP, VECMAT_GROUPS_AND_TAIL, VECMAT_GROUPS_IN_REGION, VECMAT_GROUPS_AND_TAIL_IN_REGION = (
    _templates(
        VECMAT_GROUP_LOOP,
        VECMAT_LAST_GROUP,
        VECMAT_LAST_GROUP_AFTER_REGION,
        VECMAT_HOLES,
        VECMAT_TAIL_TYPES,
    )
)


# The patterns, each declared before the builder pattern it specializes
# (`split.grouped`), in that pattern's family.

EARLY = "materialize-grouped-gemm-early"
IN_REGION = "materialize-grouped-gemm-in-dispatch-region"
IN_DISPATCH = "materialize-grouped-gemm-in-dispatch"


def _pattern(name: str, doc: str, where: Constraint, rewrite: Template, family: str) -> Pattern:
    return Pattern(
        name=name, doc=doc, root=SplitGroupedGemmOp, where=where, rewrite=rewrite, family=family
    )


EARLY_TEMPLATES = (
    _pattern(
        "materialize-grouped-matmul-early",
        "a graph-level grouped matmul of equal groups as the scf.forall over them (GROUPS_LOOP)",
        is_graph_level & grouped_matmul & groups_of_one_size,
        GROUPS_LOOP,
        EARLY,
    ),
    _pattern(
        "materialize-grouped-matmul-and-tail-early",
        "a graph-level grouped matmul of equal groups and a shorter last one as the scf.forall "
        "over the equal ones and the last beside it (GROUPS_AND_TAIL)",
        is_graph_level & grouped_matmul & groups_and_a_shorter_last,
        GROUPS_AND_TAIL,
        EARLY,
    ),
    _pattern(
        "materialize-grouped-batch-matmul-early",
        "GROUPS_LOOP for a grouped batch matmul (BATCH_GROUPS_LOOP)",
        is_graph_level & grouped_batch_matmul & groups_of_one_size,
        BATCH_GROUPS_LOOP,
        EARLY,
    ),
    _pattern(
        "materialize-grouped-batch-matmul-and-tail-early",
        "GROUPS_AND_TAIL for a grouped batch matmul (BATCH_GROUPS_AND_TAIL)",
        is_graph_level & grouped_batch_matmul & groups_and_a_shorter_last,
        BATCH_GROUPS_AND_TAIL,
        EARLY,
    ),
    _pattern(
        "materialize-grouped-matvec-early",
        "GROUPS_LOOP for a grouped matvec (MATVEC_GROUPS_LOOP)",
        is_graph_level & grouped_matvec & groups_of_one_size,
        MATVEC_GROUPS_LOOP,
        EARLY,
    ),
    _pattern(
        "materialize-grouped-matvec-and-tail-early",
        "GROUPS_AND_TAIL for a grouped matvec (MATVEC_GROUPS_AND_TAIL)",
        is_graph_level & grouped_matvec & groups_and_a_shorter_last,
        MATVEC_GROUPS_AND_TAIL,
        EARLY,
    ),
    _pattern(
        "materialize-grouped-vecmat-early",
        "GROUPS_LOOP for a grouped vecmat (VECMAT_GROUPS_LOOP)",
        is_graph_level & grouped_vecmat & groups_of_one_size,
        VECMAT_GROUPS_LOOP,
        EARLY,
    ),
    _pattern(
        "materialize-grouped-vecmat-and-tail-early",
        "GROUPS_AND_TAIL for a grouped vecmat (VECMAT_GROUPS_AND_TAIL)",
        is_graph_level & grouped_vecmat & groups_and_a_shorter_last,
        VECMAT_GROUPS_AND_TAIL,
        EARLY,
    ),
)
"""materialize-early's grouped GEMMs as templates."""

IN_REGION_TEMPLATES = (
    _pattern(
        "materialize-grouped-matmul-in-dispatch-region",
        "a graph-level grouped matmul of equal groups as the scf.forall over them in a "
        "flow.dispatch.region (GROUPS_IN_REGION)",
        is_graph_level & grouped_matmul & groups_of_one_size,
        GROUPS_IN_REGION,
        IN_REGION,
    ),
    _pattern(
        "materialize-grouped-matmul-and-tail-in-dispatch-region",
        "GROUPS_AND_TAIL with the loop in a flow.dispatch.region (GROUPS_AND_TAIL_IN_REGION)",
        is_graph_level & grouped_matmul & groups_and_a_shorter_last,
        GROUPS_AND_TAIL_IN_REGION,
        IN_REGION,
    ),
    _pattern(
        "materialize-grouped-batch-matmul-in-dispatch-region",
        "GROUPS_IN_REGION for a grouped batch matmul (BATCH_GROUPS_IN_REGION)",
        is_graph_level & grouped_batch_matmul & groups_of_one_size,
        BATCH_GROUPS_IN_REGION,
        IN_REGION,
    ),
    _pattern(
        "materialize-grouped-batch-matmul-and-tail-in-dispatch-region",
        "GROUPS_AND_TAIL_IN_REGION for a grouped batch matmul (BATCH_GROUPS_AND_TAIL_IN_REGION)",
        is_graph_level & grouped_batch_matmul & groups_and_a_shorter_last,
        BATCH_GROUPS_AND_TAIL_IN_REGION,
        IN_REGION,
    ),
    _pattern(
        "materialize-grouped-matvec-in-dispatch-region",
        "GROUPS_IN_REGION for a grouped matvec (MATVEC_GROUPS_IN_REGION)",
        is_graph_level & grouped_matvec & groups_of_one_size,
        MATVEC_GROUPS_IN_REGION,
        IN_REGION,
    ),
    _pattern(
        "materialize-grouped-matvec-and-tail-in-dispatch-region",
        "GROUPS_AND_TAIL_IN_REGION for a grouped matvec (MATVEC_GROUPS_AND_TAIL_IN_REGION)",
        is_graph_level & grouped_matvec & groups_and_a_shorter_last,
        MATVEC_GROUPS_AND_TAIL_IN_REGION,
        IN_REGION,
    ),
    _pattern(
        "materialize-grouped-vecmat-in-dispatch-region",
        "GROUPS_IN_REGION for a grouped vecmat (VECMAT_GROUPS_IN_REGION)",
        is_graph_level & grouped_vecmat & groups_of_one_size,
        VECMAT_GROUPS_IN_REGION,
        IN_REGION,
    ),
    _pattern(
        "materialize-grouped-vecmat-and-tail-in-dispatch-region",
        "GROUPS_AND_TAIL_IN_REGION for a grouped vecmat (VECMAT_GROUPS_AND_TAIL_IN_REGION)",
        is_graph_level & grouped_vecmat & groups_and_a_shorter_last,
        VECMAT_GROUPS_AND_TAIL_IN_REGION,
        IN_REGION,
    ),
)
"""materialize-late's graph-level grouped GEMMs as templates."""

IN_DISPATCH_TEMPLATES = (
    _pattern(
        "materialize-grouped-matmul-in-dispatch",
        "a grouped matmul of equal groups inside a dispatch as the scf.forall over them "
        "(GROUPS_LOOP)",
        ~is_graph_level & grouped_matmul & groups_of_one_size,
        GROUPS_LOOP,
        IN_DISPATCH,
    ),
    _pattern(
        "materialize-grouped-batch-matmul-in-dispatch",
        "GROUPS_LOOP inside a dispatch for a grouped batch matmul (BATCH_GROUPS_LOOP)",
        ~is_graph_level & grouped_batch_matmul & groups_of_one_size,
        BATCH_GROUPS_LOOP,
        IN_DISPATCH,
    ),
    _pattern(
        "materialize-grouped-matvec-in-dispatch",
        "GROUPS_LOOP inside a dispatch for a grouped matvec (MATVEC_GROUPS_LOOP)",
        ~is_graph_level & grouped_matvec & groups_of_one_size,
        MATVEC_GROUPS_LOOP,
        IN_DISPATCH,
    ),
    _pattern(
        "materialize-grouped-vecmat-in-dispatch",
        "GROUPS_LOOP inside a dispatch for a grouped vecmat (VECMAT_GROUPS_LOOP)",
        ~is_graph_level & grouped_vecmat & groups_of_one_size,
        VECMAT_GROUPS_LOOP,
        IN_DISPATCH,
    ),
)
"""Grouped GEMMs inside a dispatch as templates: a shorter last group is
the builder's there (its bounds computed in the loop)."""
