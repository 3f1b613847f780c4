"""split-k on a vector against a matrix, written as the IR it produces: where
the chunks get IREE CPU tiles (a matmul's), a static `linalg.vecmat` or
`linalg.matvec` is first rewritten as the one-row matmul it is, the vector
and the init given a unit row and the result collapsed back; the aligned
split then cuts that matmul (`LIFTED_TO_ONE_ROW` has the numbers, and
writes the same IR for the generic forms, its body copied).

    %r = linalg.vecmat ins(%x : K, %w : KxN) outs(%y : N)

becomes `VECMAT_AS_ONE_ROW`: `%x_row : 1xK`, `%y_row : 1xN`, a generic over
(M = 1, N, K), and `tensor.collapse_shape` back to N.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, TensorType
from xdsl.ir.affine import AffineDimExpr, AffineMap

from xsplit.analysis.reduction import Reduction, VectorForm, vector_form

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
    where,
)
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.structure import region_ops
from xsplit.rewrites.split.expand_split import one_float_type

_ROWS = """
%$vector_row = tensor.expand_shape $x [[0, 1]] output_shape [1, $k] : $x.type into $x_row_type
%$init_row = tensor.expand_shape $c [[0, 1]] output_shape [1, $n] : $c.type into $c_row_type
"""

_COLLAPSE = """
%6 = tensor.collapse_shape %0 [[0, 1]] : $c_row_type into $c.type
"""

_HOLES = dict(
    k=dim("K"),
    n=dim("N"),
    x_row_type=lambda m: _row(m, "x"),
    c_row_type=lambda m: _row(m, "c"),
    vector_row=lambda m: _row_name(m, "x"),
    init_row=lambda m: _row_name(m, "c"),
)

VECMAT_AS_ONE_ROW = Template(
    _ROWS
    + """
%0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%$vector_row, $w : $x_row_type, $w.type) outs(%$init_row : $c_row_type) {
^bb0(%1: $c.element_type, %2: $c.element_type, %3: $c.element_type):
  %4 = arith.mulf %1, %2 : $c.element_type
  %5 = arith.addf %3, %4 : $c.element_type
  linalg.yield %5 : $c.element_type
} -> $c_row_type
"""
    + _COLLAPSE,
    **_HOLES,
)
"""`x . W` as the 1 x N matmul of the row `x` and W (K x N)."""

MATVEC_AS_ONE_ROW = Template(
    _ROWS
    + """
%0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%$vector_row, $w : $x_row_type, $w.type) outs(%$init_row : $c_row_type) {
^bb0(%1: $c.element_type, %2: $c.element_type, %3: $c.element_type):
  %4 = arith.mulf %2, %1 : $c.element_type
  %5 = arith.addf %3, %4 : $c.element_type
  linalg.yield %5 : $c.element_type
} -> $c_row_type
"""
    + _COLLAPSE,
    **_HOLES,
)
"""`W . x` as the 1 x N matmul of the row `x` and W read transposed (N x K):
the vector becomes the first input, and the product keeps matvec's order."""


def _row(m: Match, operand: str) -> TensorType:
    t = m[operand].type
    return TensorType(t.element_type, [1, *t.get_shape()])


def _row_name(m: Match, operand: str) -> str:
    return f"{m[operand].name_hint or 'vector'}_row"


def _static_vector_contraction(name: str, vector: int, matrix_shape: tuple[str, str]) -> Constraint:
    matrix = 1 - vector
    return (
        root_is(name)
        & no_discardable_attributes()
        & input(0).has_static_shape()
        & input(1).has_static_shape()
        & init().has_static_shape()
        & input(vector).has_shape("K")
        & input(matrix).has_shape(*matrix_shape)
        & init().has_shape("N")
        & input(vector).capture("x")
        & input(matrix).capture("w")
        & init().capture("c")
    )


a_static_vecmat: Constraint = _static_vector_contraction("linalg.vecmat", 0, ("K", "N"))
"""`linalg.vecmat ins(%x : K, %w : KxN) outs(%c : N)` with static shapes."""

a_static_matvec: Constraint = _static_vector_contraction("linalg.matvec", 1, ("N", "K"))
"""`linalg.matvec ins(%w : NxK, %x : K) outs(%c : N)` with static shapes."""

lifts_for_cpu_tiles: Constraint = (
    (option("strategy") == "forall") & option("cpu_tiles").is_truthy() & one_float_type
)
"""The chunks get IREE CPU tiles, which are a matmul's, and the body is a
mulf and an addf of one float type."""


# Any vector contraction (a generic's too): the same generic, the matrix
# read along (N, K) or (K, N) and the op's body copied with its arguments
# put in the order (vector, matrix, init). The aligned split these chunks
# get takes static shapes only, so the rows are static too.

LIFTED_TO_ONE_ROW = CloningTemplate(
    _ROWS
    + """
%0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, $matrix_map, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%$vector_row, $w : $x_row_type, $w.type) outs(%$init_row : $c_row_type) {
^bb0(%90: $arguments_in_order[0].type, %91: $arguments_in_order[1].type, %92: $arguments_in_order[2].type):
  %1 = $clone $body.ops replacing $arguments_in_order with %9 yielding $yielded
  linalg.yield %1 : $c.element_type
} -> $c_row_type
"""
    + _COLLAPSE,
    **dict(
        _HOLES,
        k=lambda m: m["x"].type.get_shape()[0],
        n=lambda m: m["c"].type.get_shape()[0],
        matrix_map=lambda m: _matrix_map(m["vector_form"]),
    ),
)
"""The vector contraction as a `linalg.generic` over (M = 1, N, K): the
vector and the init gain a unit leading dimension, the result loses it.
IREE's CPU tiles that the aligned split fixes are a matmul's; on the
vector form's chunks IREE picks its own, and a 14336-long vecmat into
4096 split in 64 took 9.6 ms against 6.0 ms for the same chunks of the
1 x 14336 matmul (Zen 5, 2 threads). The block's arguments are numbered
and so keep the names of the op's own, as the copies of its body do."""


def _matrix_map(form: VectorForm) -> AffineMapAttr:
    """The matrix read along (N, K) where it is N x K, else (K, N)."""
    n_loop, k_loop = AffineDimExpr(1), AffineDimExpr(2)
    reads = (n_loop, k_loop) if form.transposed else (k_loop, n_loop)
    return AffineMapAttr(AffineMap(3, 0, reads))


def _capture_vector_form(m: Match) -> bool | str:
    red: Reduction = m["red"]
    form = vector_form(red)
    if form is None:
        return "it is not a vector-matrix contraction without an M loop"
    m.captures["vector_form"] = form
    m.captures["x"] = red.inputs[form.vector]
    m.captures["w"] = red.inputs[form.matrix]
    m.captures["c"] = red.init
    arguments = red.op.regions[0].block.args
    m.captures["arguments_in_order"] = [arguments[form.vector], arguments[form.matrix], arguments[2]]
    return True


its_body: Constraint = region_ops(0, "body", yielded="yielded")
"""The op's body, its ops and what it yields, as the template copies them."""


is_a_vector_contraction = where(
    "it is a vector-matrix contraction", _capture_vector_form, pure=True
)
