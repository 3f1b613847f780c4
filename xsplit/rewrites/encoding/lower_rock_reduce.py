"""`lower-rock-reduce`, a pattern of `materialize-late`: the `rock.reduce`
that merges a grouped split (`split-k{strategy=grouped}`) becomes a
`linalg.reduce`, which IREE compiles.

rock's reduce keeps the reduced axis as a dimension of 1 in its init and
result; linalg's drops it. So the init is collapsed, reduced into, and the
result expanded back: the IR as a template (`ROCK_REDUCE_AS_LINALG`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, IndexType, IntegerAttr, TensorType, StringAttr

from xsplit.dialects.rock import ReduceOp as RockReduceOp
from xsplit.rewrites.dsl import Match, Pattern, Template, attr, operand, result

ROCK_REDUCE_AS_LINALG = Template(
    """
%0 = tensor.collapse_shape $init $groups : $init.type into $collapsed
%1 = linalg.reduce ins($input : $input.type) outs(%0 : $collapsed) dimensions = [0] {xsplit.split_part = "merge"}
  (%2: $init.element_type, %3: $init.element_type) {
    %4 = $combine %2, %3 : $init.element_type
    linalg.yield %4 : $init.element_type
  }
$for i in $dynamic:
%10$i = arith.constant $dynamic[$i] : index
%20$i = tensor.dim %1, %10$i : $collapsed
$end
%5 = tensor.expand_shape %1 $groups output_shape [1, $sizes] : $collapsed into $init.type
""",
    groups=lambda m: _groups(_shape(m)),
    collapsed=lambda m: TensorType(m["init"].type.element_type, _shape(m)[1:]),
    combine=lambda m: _combiner(m),
    dynamic=lambda m: [d for d, size in enumerate(_shape(m)[1:]) if size == DYNAMIC_INDEX],
    sizes=lambda m: _sizes(_shape(m)[1:]),
)
"""The init without its unit axis, the reduction into it marked as the
split's merge, and its result given the unit axis again; each dynamic size
is read off the reduced tensor (`%20$i`: the numbers keep the values unnamed,
as every other value here)."""


def _shape(m: Match) -> list[int]:
    return list(m["init"].type.get_shape())


def _groups(shape: list[int]) -> str:
    """The reassociation that folds the leading unit dimension into the next."""
    rest = "".join(f", [{d}]" for d in range(2, len(shape)))
    return f"[[0, 1]{rest}]"


def _sizes(shape: list[int]) -> list[int | str]:
    """The expanded tensor's sizes after the unit one: a dynamic one is the
    `tensor.dim` the template reads for it."""
    dynamic = iter(range(len(shape)))
    return [f"%20{next(dynamic)}" if size == DYNAMIC_INDEX else size for size in shape]


def _combiner(m: Match) -> str:
    method = m["method"]
    assert isinstance(method, StringAttr)
    floating = isinstance(m["init"].type.element_type, AnyFloat)
    if method.data == "sum":
        return "arith.addf" if floating else "arith.addi"
    return "arith.maximumf" if floating else "arith.maxsi"


LOWER_ROCK_REDUCE = Pattern(
    name="lower-rock-reduce",
    doc="turns a rock.reduce over axis 0 into linalg.reduce, which IREE compiles "
    "(ROCK_REDUCE_AS_LINALG, the IR as a template)",
    root=RockReduceOp,
    where=attr("axis").equals(IntegerAttr(0, IndexType()))
    & attr("reduceMethod").capture("method")
    & operand(0).capture("input")
    & operand(1).is_tensor()
    & operand(1).capture("init")
    & result(0).is_tensor(),
    rewrite=ROCK_REDUCE_AS_LINALG,
)
