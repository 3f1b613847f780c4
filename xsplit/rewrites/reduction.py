"""What makes a linalg op splittable along its reduction, found once and shared
by every split strategy.

A reduction splits when its accumulator is combined with exactly one
associative, commutative op (add, max or min) and is not used otherwise: the
partial results over K-chunks then combine with that same op. This covers the
named contractions, `linalg.reduce`, and any `linalg.generic` of that shape,
contractions with transposed operands included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from xsplit.dialects.linalg import ContractionOp

COMBINER_KINDS: dict[type[Operation], str] = {
    arith.AddfOp: "add",
    arith.AddiOp: "add",
    arith.MaximumfOp: "max",
    arith.MaxnumfOp: "max",
    arith.MaxSIOp: "max",
    arith.MaxUIOp: "max",
    arith.MinimumfOp: "min",
    arith.MinnumfOp: "min",
    arith.MinSIOp: "min",
    arith.MinUIOp: "min",
}
"""Ops that combine partial results, and the kind of reduction each makes."""


@dataclass
class Reduction:
    """A linalg op seen as `init = combine(init, f(inputs))` over its loops."""

    op: Operation
    inputs: list[SSAValue]
    init: SSAValue
    input_maps: list[AffineMap]
    output_map: AffineMap
    reduction_dim: int
    combiner: type[Operation]

    @property
    def num_loops(self) -> int:
        return self.output_map.num_dims

    @property
    def kind(self) -> str:
        return COMBINER_KINDS[self.combiner]

    @property
    def acc_type(self) -> TensorType:
        t = self.init.type
        assert isinstance(t, TensorType)
        return t

    def k_operand(self) -> tuple[int, int]:
        """An (input, dimension) pair that spans the reduction loop."""
        for i, m in enumerate(self.input_maps):
            for j, expr in enumerate(m.results):
                if isinstance(expr, AffineDimExpr) and expr.position == (self.reduction_dim):
                    return i, j
        raise AssertionError("a matched reduction reads its reduction loop")

    def static_k(self) -> int | None:
        i, j = self.k_operand()
        t = self.inputs[i].type
        assert isinstance(t, TensorType)
        k = t.get_shape()[j]
        return None if k == DYNAMIC_INDEX else k

    def body(self) -> Region:
        """The scalar body in generic form: (inputs..., acc) -> yield."""
        return self.op.regions[0].clone()


def _is_projected_permutation(m: AffineMap) -> bool:
    seen: set[int] = set()
    for expr in m.results:
        if not isinstance(expr, AffineDimExpr) or expr.position in seen:
            return False
        seen.add(expr.position)
    return m.num_symbols == 0


def _find_combiner(body: Region) -> type[Operation] | str:
    block = body.block
    acc = block.args[-1]
    yielded = block.last_op
    if not isinstance(yielded, linalg.YieldOp) or len(yielded.operands) != 1:
        return "its body does not yield exactly one value"
    combine = yielded.operands[0].owner
    if not isinstance(combine, Operation) or type(combine) not in COMBINER_KINDS:
        return "its body does not end in an add, max or min of the accumulator"
    if acc not in combine.operands or acc.uses.get_length() != 1:
        return "its accumulator is used other than in the final add, max or min"
    if combine.operands[0] is combine.operands[1]:
        return "its body combines the accumulator with itself"
    return type(combine)


def match_reduction(op: Operation) -> Reduction | str:
    """The reduction `op` computes, or why it is not a splittable one."""
    if isinstance(op, linalg.ReduceOp):
        dims = op.dimensions.get_values()
        in_type = op.input.type
        if not isinstance(in_type, TensorType) or not isinstance(op.init.type, TensorType):
            return "it works on memrefs, not tensors"
        if len(dims) != 1:
            return f"it reduces {len(dims)} dimensions, not one"
        rank = in_type.get_num_dims()
        identity = AffineMap.identity(rank)
        kept = tuple(e for i, e in enumerate(identity.results) if i != dims[0])
        inputs, init = [op.input], op.init
        input_maps = [identity]
        output_map = AffineMap(rank, 0, kept)
        reduction_dim = dims[0]
    elif isinstance(op, linalg.GenericOp | ContractionOp):
        if len(op.outputs) != 1 or len(op.results) != 1:
            return "it does not have exactly one tensor output"
        iterators = [str(t.data) for t in op.get_iterator_types().data]
        reductions = [i for i, t in enumerate(iterators) if t == "reduction"]
        if len(reductions) != 1:
            return f"it has {len(reductions)} reduction loops, not one"
        maps = [m.data for m in op.get_indexing_maps().data]
        if not all(_is_projected_permutation(m) for m in maps):
            return "its indexing maps are not projected permutations"
        inputs, init = list(op.inputs), op.outputs[0]
        input_maps, output_map = maps[:-1], maps[-1]
        reduction_dim = reductions[0]
        if not all(isinstance(v.type, TensorType) for v in (*inputs, init)):
            return "its operands are not all tensors"
    else:
        return f"'{op.name}' is not a linalg reduction"

    combiner = _find_combiner(op.regions[0])
    if isinstance(combiner, str):
        return combiner
    reduction = Reduction(op, inputs, init, input_maps, output_map, reduction_dim, combiner)
    if any(
        isinstance(e, AffineDimExpr) and e.position == reduction_dim for e in output_map.results
    ):
        return "its output is indexed by the reduction loop"
    return reduction


def identity_value(combiner: type[Operation], element_type: Attribute) -> Attribute:
    """The value that leaves any partial result unchanged under `combiner`."""
    kind = COMBINER_KINDS[combiner]
    if isinstance(element_type, AnyFloat):
        value = {"add": 0.0, "max": -math.inf, "min": math.inf}[kind]
        return FloatAttr(value, element_type)
    assert isinstance(element_type, IntegerType)
    width = element_type.width.data
    if kind == "add" or combiner is arith.MaxUIOp:
        value = 0
    elif combiner is arith.MinUIOp:
        value = -1  # all ones, the largest unsigned value
    elif kind == "max":
        value = -(2 ** (width - 1))
    else:
        value = 2 ** (width - 1) - 1
    return IntegerAttr(value, element_type)
