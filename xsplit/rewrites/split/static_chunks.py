"""split-k's static chunks of a `linalg.matmul`, written as the IR they produce.

A matmul whose K is static is cut into `full` chunks of one static size in an
`scf.forall` mapped to `#iree_linalg_ext.split_reduction_mapping`, each chunk
a matmul of slices of A and B into a slot of the partials; the shorter rest
of K, if any, is one more matmul beside the loop (the tail); one merge folds
the partials (and the tail) into the original init, so `C + A*B` stays
right. The templates below are that IR with holes; the numbers in them come
from the small named helpers after them (`chunk`, `full`, ...).

Other reductions, and matmuls these templates do not cover (extra
attributes, transposed maps, a chunk count the cost model chose), go to
`forall_split.split_with_forall`, which builds the same IR for any
reduction: its structure varies with the op's loops and operands.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, TensorType
from xdsl.ir.affine import AffineMap

from xdsl.ir import Attribute, Operation

from xsplit.analysis.reduction import Reduction, identity_value, match_reduction
from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Template,
    dim,
    init,
    input,
    no_discardable_attributes,
    option,
    root_is,
)
from xsplit.rewrites.dsl.constraints import attr
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.split.chunks import CHUNK, FULL, TAIL

CHUNK_LOOP = """
%identity = arith.constant $identity
%partials_init = tensor.empty() : $partials_type
%partials = scf.forall (%chunk) in ($full) shared_outs(%partials_out = %partials_init) -> ($partials_type) {
  %chunk_offset = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%chunk)
  %$a_chunk = tensor.extract_slice $a[0, %chunk_offset] [$m, $chunk] [1, 1] : $a.type to $a_chunk_type
  %$b_chunk = tensor.extract_slice $b[%chunk_offset, 0] [$chunk, $n] [1, 1] : $b.type to $b_chunk_type
  %0 = tensor.extract_slice %partials_out[0, 0, %chunk] [$m, $n, 1] [1, 1, 1] : $partials_type to $c.type
  %partial_init = linalg.fill ins(%identity : $c.element_type) outs(%0 : $c.type) -> $c.type
  %partial = linalg.matmul ins(%$a_chunk, %$b_chunk : $a_chunk_type, $b_chunk_type) outs(%partial_init : $c.type) -> $c.type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[0, 0, %chunk] [$m, $n, 1] [1, 1, 1] : $c.type into $partials_type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
"""
"""The loop over whole chunks, each a matmul of slices of A and B into its
slot of the partials: the part both templates below begin with."""

CHUNK_HOLES = dict(
    identity=lambda m: identity_value(combiner(m), _element(m)),
    combine=lambda m: combiner(m).name,
    full=FULL,
    chunk=CHUNK,
    m=dim("M"),
    n=dim("N"),
    partials_type=lambda m: TensorType(_element(m), [dim("M")(m), dim("N")(m), FULL(m)]),
    a_chunk_type=lambda m: _sliced(m, "a", [dim("M")(m), CHUNK(m)]),
    b_chunk_type=lambda m: _sliced(m, "b", [CHUNK(m), dim("N")(m)]),
    a_chunk=lambda m: slice_name(m, "a", "chunk"),
    b_chunk=lambda m: slice_name(m, "b", "chunk"),
)
"""The loop's holes: its numbers, types and names, from the match."""

STATIC_CHUNKS = Template(
    CHUNK_LOOP
    + """
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [2] {xsplit.split_part = "merge"}
  (%1: $c.element_type, %2: $c.element_type) {
    %3 = $combine %1, %2 : $c.element_type
    linalg.yield %3 : $c.element_type
  }
""",
    results=["%merged"],
    **CHUNK_HOLES,
)
"""The loop over whole chunks, then a `linalg.reduce` merge (K a whole
number of chunks)."""

STATIC_CHUNKS_AND_TAIL = Template(
    CHUNK_LOOP
    + """
%$a_tail = tensor.extract_slice $a[0, $tail_offset] [$m, $tail] [1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[$tail_offset, 0] [$tail, $n] [1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%1 = tensor.empty() : $c.type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins(%identity : $c.element_type) outs(%1 : $c.type) -> $c.type
%tail = linalg.matmul {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $c.type) -> $c.type
%merged = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%partials, %tail : $partials_type, $c.type) outs($c : $c.type) attrs = {xsplit.split_part = "merge"} {
^bb0(%2: $c.element_type, %3: $c.element_type, %4: $c.element_type):
  %5 = linalg.index 2 : index
  %6 = arith.constant 0 : index
  %7 = arith.cmpi eq, %5, %6 : index
  %8 = $combine %2, %3 : $c.element_type
  %9 = arith.select %7, %8, %2 : $c.element_type
  %10 = $combine %9, %4 : $c.element_type
  linalg.yield %10 : $c.element_type
} -> $c.type
""",
    results=["%merged"],
    **CHUNK_HOLES,
    tail=TAIL,
    tail_offset=FULL * CHUNK,
    a_tail_type=lambda m: _sliced(m, "a", [dim("M")(m), TAIL(m)]),
    b_tail_type=lambda m: _sliced(m, "b", [TAIL(m), dim("N")(m)]),
    a_tail=lambda m: slice_name(m, "a", "tail"),
    b_tail=lambda m: slice_name(m, "b", "tail"),
)
"""The loop over whole chunks, the tail beside it, and a merge that
combines the tail in once, at chunk 0 (`forall_split.merge_partials_and_tail`
says why not into the init)."""


BATCH_CHUNK_LOOP = """
%identity = arith.constant $identity
%partials_init = tensor.empty() : $partials_type
%partials = scf.forall (%chunk) in ($full) shared_outs(%partials_out = %partials_init) -> ($partials_type) {
  %chunk_offset = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%chunk)
  %$a_chunk = tensor.extract_slice $a[0, 0, %chunk_offset] [$batch, $m, $chunk] [1, 1, 1] : $a.type to $a_chunk_type
  %$b_chunk = tensor.extract_slice $b[0, %chunk_offset, 0] [$batch, $chunk, $n] [1, 1, 1] : $b.type to $b_chunk_type
  %0 = tensor.extract_slice %partials_out[0, 0, 0, %chunk] [$batch, $m, $n, 1] [1, 1, 1, 1] : $partials_type to $c.type
  %partial_init = linalg.fill ins(%identity : $c.element_type) outs(%0 : $c.type) -> $c.type
  %partial = linalg.batch_matmul ins(%$a_chunk, %$b_chunk : $a_chunk_type, $b_chunk_type) outs(%partial_init : $c.type) -> $c.type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[0, 0, 0, %chunk] [$batch, $m, $n, 1] [1, 1, 1, 1] : $c.type into $partials_type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
"""
"""`CHUNK_LOOP` for a `linalg.batch_matmul`: each chunk a batch_matmul of
slices of A and B (every batch, the chunk's part of K) into its slot of
the partials, which the chunk index ends."""

BATCH_HOLES = dict(
    CHUNK_HOLES,
    batch=dim("B"),
    partials_type=lambda m: TensorType(
        _element(m), [dim("B")(m), dim("M")(m), dim("N")(m), FULL(m)]
    ),
    a_chunk_type=lambda m: _sliced(m, "a", [dim("B")(m), dim("M")(m), CHUNK(m)]),
    b_chunk_type=lambda m: _sliced(m, "b", [dim("B")(m), CHUNK(m), dim("N")(m)]),
)

STATIC_BATCH_CHUNKS = Template(
    BATCH_CHUNK_LOOP
    + """
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [3] {xsplit.split_part = "merge"}
  (%1: $c.element_type, %2: $c.element_type) {
    %3 = $combine %1, %2 : $c.element_type
    linalg.yield %3 : $c.element_type
  }
""",
    results=["%merged"],
    **BATCH_HOLES,
)
"""The batch loop over whole chunks, then a `linalg.reduce` merge."""

STATIC_BATCH_CHUNKS_AND_TAIL = Template(
    BATCH_CHUNK_LOOP
    + """
%$a_tail = tensor.extract_slice $a[0, 0, $tail_offset] [$batch, $m, $tail] [1, 1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[0, $tail_offset, 0] [$batch, $tail, $n] [1, 1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%1 = tensor.empty() : $c.type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins(%identity : $c.element_type) outs(%1 : $c.type) -> $c.type
%tail = linalg.batch_matmul {xsplit.split_part = "tail"} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $c.type) -> $c.type
%merged = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%partials, %tail : $partials_type, $c.type) outs($c : $c.type) attrs = {xsplit.split_part = "merge"} {
^bb0(%2: $c.element_type, %3: $c.element_type, %4: $c.element_type):
  %5 = linalg.index 3 : index
  %6 = arith.constant 0 : index
  %7 = arith.cmpi eq, %5, %6 : index
  %8 = $combine %2, %3 : $c.element_type
  %9 = arith.select %7, %8, %2 : $c.element_type
  %10 = $combine %9, %4 : $c.element_type
  linalg.yield %10 : $c.element_type
} -> $c.type
""",
    results=["%merged"],
    **BATCH_HOLES,
    tail=TAIL,
    tail_offset=FULL * CHUNK,
    a_tail_type=lambda m: _sliced(m, "a", [dim("B")(m), dim("M")(m), TAIL(m)]),
    b_tail_type=lambda m: _sliced(m, "b", [dim("B")(m), TAIL(m), dim("N")(m)]),
    a_tail=lambda m: slice_name(m, "a", "tail"),
    b_tail=lambda m: slice_name(m, "b", "tail"),
)
"""The batch loop over whole chunks, the tail beside it, and the merge that
adds the tail in at chunk 0, as `STATIC_CHUNKS_AND_TAIL` does."""


# The helpers: each number the templates need, from the match.


def combiner(m: Match) -> type[Operation]:
    """The op that adds two partials (`arith.addf` for floats): the
    reduction's own, as `match_reduction` reads it from the body."""
    red = m.captures.get("red")
    if red is None:
        key = ("reduction", id(m.root))
        red = m.analyses.get(key)
        if red is None:
            red = m.analyses[key] = match_reduction(m.root)
    assert isinstance(red, Reduction), "a matmul is a reduction"
    return red.combiner


def _element(m: Match) -> Attribute:
    return m["c"].type.element_type


def _sliced(m: Match, operand: str, shape: list[int]) -> TensorType:
    return TensorType(m[operand].type.element_type, shape)


def slice_name(m: Match, operand: str, part: str) -> str:
    """The SSA name of a slice: `%a_chunk` for `%a`; a chunk of an unnamed
    value stays unnamed (a number), its tail is `%input_tail`, as the builder
    (`forall_split`) names them."""
    hint = m[operand].name_hint
    if hint:
        return f"{hint}_{part}"
    return "0" if part == "chunk" else f"input_{part}"


# The match side, beyond what every split-k strategy needs (`split_k.splits`).

MATMUL_MAPS = ArrayAttr(
    [
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (i, k))),
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (k, j))),
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (i, j))),
    ]
)


a_plain_static_matmul: Constraint = (
    root_is("linalg.matmul")
    & attr("indexing_maps").equals(MATMUL_MAPS)
    & no_discardable_attributes()
    & input(0).has_static_shape()
    & input(1).has_static_shape()
    & init().has_static_shape()
    & input(0).has_shape("M", "K")
    & input(1).has_shape("K", "N")
    & init().has_shape("M", "N")
    & input(0).capture("a")
    & input(1).capture("b")
    & init().capture("c")
)
"""`linalg.matmul ins(%a : MxK, %b : KxN) outs(%c : MxN)` with static
shapes and its own maps."""

BATCH_MATMUL_MAPS = ArrayAttr(
    [
        AffineMapAttr(AffineMap.from_callable(lambda b, i, j, k: (b, i, k))),
        AffineMapAttr(AffineMap.from_callable(lambda b, i, j, k: (b, k, j))),
        AffineMapAttr(AffineMap.from_callable(lambda b, i, j, k: (b, i, j))),
    ]
)

a_plain_static_batch_matmul: Constraint = (
    root_is("linalg.batch_matmul")
    & attr("indexing_maps").equals(BATCH_MATMUL_MAPS)
    & no_discardable_attributes()
    & input(0).has_static_shape()
    & input(1).has_static_shape()
    & init().has_static_shape()
    & input(0).has_shape("B", "M", "K")
    & input(1).has_shape("B", "K", "N")
    & init().has_shape("B", "M", "N")
    & input(0).capture("a")
    & input(1).capture("b")
    & init().capture("c")
)
"""`linalg.batch_matmul ins(%a : BxMxK, %b : BxKxN) outs(%c : BxMxN)` with
static shapes and its own maps."""

chunks_are_the_options = ~option("target").is_set()
"""A chunk count the cost model chose is recorded on the loop; that stays
with the builder (`split_k.record_choice`)."""

leaves_no_tail = described(TAIL == 0, "K is a whole number of chunks")
"""K % CHUNK == 0: no rest of K beside the loop."""
