"""split-k's chunks of a matmul whose K is dynamic, cut by `tile=T`, written
as the IR they produce: ceil(K/T) chunks of T in an `scf.forall`, the last
one shorter (`affine.min`), each a matmul of slices of A and B into its slot
of the partials, then a `linalg.reduce` merge into the original init.

K is read from A (`tensor.dim %a, 1`); B's K is read too, as the builder
reads every dynamic size of the operands it slices (`forall_split`), and
left for the canonicalizer. Other dynamic shapes and chunkings (factor=,
balanced=true) take the builder, whose index arithmetic varies with them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType

from xsplit.analysis.reduction import identity_value
from xsplit.diagnostics import remark
from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Template,
    attr,
    dim,
    init,
    input,
    no_discardable_attributes,
    option,
    root_is,
)
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.split.chunks import DYNAMIC_K_REMARK, plan_chunks
from xsplit.rewrites.split.memo import shape
from xsplit.rewrites.split.static_chunks import MATMUL_MAPS, combiner, slice_name

DYNAMIC_TILES = Template(
    """
%identity = arith.constant $identity
%0 = arith.constant 1 : index
%1 = tensor.dim $a, %0 : $a.type
%2 = arith.constant 0 : index
%3 = tensor.dim $b, %2 : $b.type
%4 = affine.apply affine_map<()[s0] -> (s0 ceildiv $tile)> ()[%1]
%partials_init = tensor.empty(%4) : $partials_type
%partials = scf.forall (%chunk) in (%4) shared_outs(%partials_out = %partials_init) -> ($partials_type) {
  %chunk_offset = affine.apply affine_map<(d0) -> (d0 * $tile)> (%chunk)
  %chunk_size = affine.min affine_map<(d0)[s0] -> ($tile, -d0 * $tile + s0)> (%chunk)[%1]
  %$a_chunk = tensor.extract_slice $a[0, %chunk_offset] [$m, %chunk_size] [1, 1] : $a.type to $a.type
  %$b_chunk = tensor.extract_slice $b[%chunk_offset, 0] [%chunk_size, $n] [1, 1] : $b.type to $b.type
  %5 = tensor.extract_slice %partials_out[0, 0, %chunk] [$m, $n, 1] [1, 1, 1] : $partials_type to $c.type
  %partial_init = linalg.fill ins(%identity : $c.element_type) outs(%5 : $c.type) -> $c.type
  %partial = linalg.matmul ins(%$a_chunk, %$b_chunk : $a.type, $b.type) outs(%partial_init : $c.type) -> $c.type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[0, 0, %chunk] [$m, $n, 1] [1, 1, 1] : $c.type into $partials_type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
%merged = linalg.reduce ins(%partials : $partials_type) outs($c : $c.type) dimensions = [2] {xsplit.split_part = "merge"}
  (%6: $c.element_type, %7: $c.element_type) {
    %8 = $combine %6, %7 : $c.element_type
    linalg.yield %8 : $c.element_type
  }
""",
    results=["%merged"],
    identity=lambda m: identity_value(combiner(m), m["c"].type.element_type),
    combine=lambda m: combiner(m).name,
    tile=lambda m: m.options["tile"],
    m=dim("M"),
    n=dim("N"),
    partials_type=lambda m: TensorType(
        m["c"].type.element_type, [dim("M")(m), dim("N")(m), DYNAMIC_INDEX]
    ),
    a_chunk=lambda m: slice_name(m, "a", "chunk"),
    b_chunk=lambda m: slice_name(m, "b", "chunk"),
)
"""ceil(K/T) chunks of at most T in an `scf.forall`, then the merge."""

a_matmul_of_dynamic_k: Constraint = (
    root_is("linalg.matmul")
    & attr("indexing_maps").equals(MATMUL_MAPS)
    & no_discardable_attributes()
    & input(0).has_shape("M", "K")
    & input(1).has_shape("K", "N")
    & init().has_shape("M", "N")
    & input(0).capture("a")
    & input(1).capture("b")
    & init().capture("c")
    & described(dim("M") >= 0, "M is static")
    & described(dim("N") >= 0, "N is static")
    & dim("K").is_dynamic()
)
"""`linalg.matmul ins(%a : Mx?, %b : ?xN) outs(%c : MxN)` with its own maps."""

tiled_by_the_options: Constraint = option("tile").is_set() & ~option("target").is_set()
"""Chunks of tile=, the options', not the cost model's."""



def planned_dynamic_shape(m: Match):  # noqa: ANN201
    """`memo.shape` with the plan of a dynamic K, which says, on every op,
    what a dynamic K costs on a GPU (`chunks.DYNAMIC_K_REMARK`)."""
    o = m.options
    m.captures["plan"] = plan_chunks(
        m.root, None, o["factor"], o["tile"], o["balanced"], o["align"], o["pad_m"],
        o["cpu_tiles"],
    )
    remark(m.root, DYNAMIC_K_REMARK)
    return shape(m)
