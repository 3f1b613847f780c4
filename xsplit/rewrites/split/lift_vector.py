"""split-k on a vector against a matrix, written as the IR it produces: where
the chunks get IREE CPU tiles (a matmul's), a static `linalg.vecmat` or
`linalg.matvec` is first rewritten as the one-row matmul it is, the vector
and the init given a unit row and the result collapsed back; the aligned
split then cuts that matmul (`split_k._lift_to_one_row` has the numbers,
and builds the same IR for the generic forms and dynamic shapes).

    %r = linalg.vecmat ins(%x : K, %w : KxN) outs(%y : N)

becomes `VECMAT_AS_ONE_ROW`: `%x_row : 1xK`, `%y_row : 1xN`, a generic over
(M = 1, N, K), and `tensor.collapse_shape` back to N.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

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
