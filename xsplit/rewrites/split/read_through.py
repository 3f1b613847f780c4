"""split-k on a reduction that reads a transposed operand, written as the IR
it produces: the op becomes a `linalg.generic` on the transpose's source,
whose map reads it in its own layout; the split patterns then cut the source
in place (IREE fuses a transpose into a whole op, not into chunks sliced from
the copy: `READ_THROUGH_TRANSPOSES` has the numbers).

ONNX's `Gemm transB=1` and linear layers import as
`linalg.transpose ins(%w) permutation = [1, 0]` then a matmul of its result:

    %wt = linalg.transpose ins(%w : NxK) outs(%e : KxN) permutation = [1, 0]
    %r = linalg.matmul ins(%x, %wt : MxK, KxN) outs(%c : MxN)

becomes `READ_THROUGH_TRANSPOSE` with `$b` the weight `%w` and `$b_map`
`(d0, d1, d2) -> (d1, d2)`. Transposes of more dimensions, of batched or
generic contractions, reductions, arg-reductions of two inits, and ops whose
chunk count the cost model chooses take `READ_THROUGH_TRANSPOSES`: the same
generic, its maps the op's own composed with the permutations (list holes,
as many as the op has loops and operands), its body the op's copied
(`split_k.SPLIT_K_THROUGH_TRANSPOSE`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, StringAttr

from xsplit.analysis.reduction import Reduction, through_transposes
from xsplit.dialects.op_helpers import dense_i64
from xsplit.rewrites.dsl import Constraint, Match, Template, attr, init, input, root_is, where
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.numbers import described, some_operand
from xsplit.rewrites.dsl.structure import arguments, region_ops
from xsplit.rewrites.split.static_chunks import MATMUL_MAPS

READ_THROUGH_TRANSPOSE = Template(
    """
%0 = linalg.generic {indexing_maps = [$a_map, $b_map, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins($a, $b : $a.type, $b.type) outs($c : $c.type) {
^bb0(%1: $c.element_type, %2: $c.element_type, %3: $c.element_type):
  %4 = arith.mulf %1, %2 : $c.element_type
  %5 = arith.addf %3, %4 : $c.element_type
  linalg.yield %5 : $c.element_type
} -> $c.type
""",
    a_map=lambda m: _map(m, "a", "d0", "d2"),
    b_map=lambda m: _map(m, "b", "d2", "d1"),
)
"""The matmul as a `linalg.generic` reading each transposed operand's
source: its map's two results swapped."""


def _map(m: Match, operand: str, row: str, column: str) -> str:
    if f"{operand}_transpose" in m.captures:
        row, column = column, row
    return f"affine_map<(d0, d1, d2) -> ({row}, {column})>"


def _transposed(i: int, name: str) -> Constraint:
    """Input `i` is a 2-d transpose's result; its source is captured as `name`."""
    return input(i).defined_by(
        "linalg.transpose",
        capture=f"{name}_transpose",
        where=attr("permutation").equals(dense_i64([1, 0]))
        & input(0).has_static_shape()
        & input(0).capture(name),
    )


a_matmul_reading_a_transpose: Constraint = (
    root_is("linalg.matmul")
    & attr("indexing_maps").equals(MATMUL_MAPS)
    & input(0).has_static_shape()
    & input(1).has_static_shape()
    & init().has_static_shape()
    & input(0).has_shape("M", "K")
    & input(1).has_shape("K", "N")
    & init().has_shape("M", "N")
    & init().capture("c")
    & (
        (_transposed(0, "a") & (_transposed(1, "b") | input(1).capture("b")))
        | (input(0).capture("a") & _transposed(1, "b"))
    )
)
"""`linalg.matmul ins(%a, %b) outs(%c)` with static shapes and its own maps,
where A or B (or both) is `linalg.transpose ... permutation = [1, 0]`."""


# Any reduction reading transposes (and a chunk count the cost model
# chooses): the op as a generic whose maps are its own composed with the
# permutations, its body copied.

READ_THROUGH_TRANSPOSES = CloningTemplate(
    """
%0:$result_count = linalg.generic {indexing_maps = [$maps], iterator_types = [$iterators]} ins($sources : $sources.type) outs($inits : $inits.type) {
^bb0(%90: $body_arguments[0].type
$for i in 1..$body_arguments:
    , %9$i: $body_arguments[$i].type
$end
  ):
  %1:$result_count = $clone $body.ops replacing $body_arguments with %9 yielding $yielded
  linalg.yield %1#0
$for i in 1..$yielded:
    , %1#$i
$end
    : $yielded.type
} -> ($inits.type)
""",
    maps=lambda m: _composed_maps(m),
    iterators=lambda m: _iterators(m),
    result_count=lambda m: len(m["inits"]),
)
"""The op as a `linalg.generic` on the transposes' sources: the split
patterns then cut the source in place. Sliced chunk by chunk, the
transposed tensor is no longer fused away (ONNX's 8x4096x11008
`Gemm transB=1` whole took 7.1 ms; split through the transpose, 76-77 ms
at 4 to 43 chunks). `$sources` are its inputs, each transpose's result
read at its source. The block's arguments are numbered (`%90`, `%91`, ...)
and so keep the names of the op's own, as the copies of its body do."""


def _composed_maps(m: Match) -> list[AffineMapAttr]:
    """Each input's map composed with its transpose's permutation, then the
    op's output map for each init."""
    red: Reduction = m["red"]
    through: Reduction = m["through"]
    return [AffineMapAttr(a) for a in (*through.input_maps, *(red.output_map for _ in red.inits))]


def _iterators(m: Match) -> list[StringAttr]:
    """Each loop's kind, as the generic's custom syntax spells it."""
    red: Reduction = m["red"]
    return [
        StringAttr("reduction" if d in red.reduction_dims else "parallel")
        for d in range(red.num_loops)
    ]


its_body: Constraint = region_ops(0, "body", yielded="yielded") & arguments().capture(
    "body_arguments"
)
"""The op's body (its ops, its block's arguments, what it yields), as the
template copies it."""


def _capture_through_transposes(m: Match) -> bool | str:
    through = through_transposes(m["red"])
    if through is None:
        return "the transpose is its init, not an input"
    m.captures["through"] = through
    m.captures["sources"] = through.inputs
    # A linalg.reduce's are `inits`, the other ops' `outputs`.
    m.captures["inits"] = list(m["red"].inits)
    return True


reads_a_transpose = described(
    some_operand(lambda v: v.defined_by("linalg.transpose"), "is a linalg.transpose's result"),
    "an input is a linalg.transpose's result",
    "no input is a linalg.transpose's result",
)


it_reads_the_transpose = where("it reads the transpose as an input", _capture_through_transposes)
