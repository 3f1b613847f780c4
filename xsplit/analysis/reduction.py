"""What makes a linalg op splittable along its reduction, found once and shared
by every split strategy.

A reduction splits when its accumulator is combined with exactly one
associative, commutative op (add, max or min) and is not used otherwise: the
partial results over K-chunks then combine with that same op. This covers the
named contractions and convolutions, `linalg.reduce`, and any `linalg.generic`
of that shape, contractions with transposed operands included.

An op with several reduction loops (a conv's window and channels, mmt4d's k
and k0, batch_reduce_matmul's batch and k) is cut along one of them
(`choose_split_loop`); each chunk still reduces the others whole. A two-result
`linalg.generic` that keeps a value and the index where it was found (argmax,
argmin) splits too (`ArgSelect`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
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
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from xsplit.dialects.linalg import StructuredNamedOp, linear_form
from xsplit.dialects.op_helpers import zero_attr

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

FLOAT_PREDICATES = {"ogt": 2, "oge": 3, "olt": 4, "ole": 5, "ugt": 10, "uge": 11, "ult": 12, "ule": 13}
INT_PREDICATES = {"sgt": 4, "sge": 5, "slt": 2, "sle": 3, "ugt": 8, "uge": 9, "ult": 6, "ule": 7}
_SWAPPED = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}


@dataclass(frozen=True)
class ArgSelect:
    """An arg-reduction with two results: the best value and where it is.

    The body keeps a candidate `x` when `compare(x, acc_value)` holds, so a
    strict comparison (`ogt`) keeps the first index among equal values and a
    non-strict one (`oge`) the last.
    """

    compare: type[arith.CmpfOp] | type[arith.CmpiOp]
    predicate: str
    """As in `compare(candidate, current)`, e.g. `ogt` or `sgt`."""
    value_combiner: type[Operation] | None
    """The max/min op that makes the value result, or None where the value is
    `select(compare, x, acc)`."""
    index_type: Attribute

    @property
    def strict(self) -> bool:
        return self.predicate[1:] in ("gt", "lt")

    @property
    def keeps(self) -> str:
        return "first" if self.strict else "last"

    def strict_predicate(self) -> str:
        return self.predicate[:2] + "t"

    def equal_predicate(self) -> str:
        return "oeq" if self.compare is arith.CmpfOp else "eq"


@dataclass
class Reduction:
    """A linalg op seen as `init = combine(init, f(inputs))` over its loops."""

    op: Operation
    inputs: list[SSAValue]
    init: SSAValue
    input_maps: list[AffineMap]
    output_map: AffineMap
    reduction_dim: int
    """The reduction loop that is cut into chunks."""
    combiner: type[Operation]
    reduction_dims: tuple[int, ...] = ()
    """Every reduction loop; all but `reduction_dim` stay whole in a chunk."""
    inits: tuple[SSAValue, ...] = ()
    """Every init; two for an arg-reduction (value, index)."""
    arg: ArgSelect | None = None

    def __post_init__(self) -> None:
        if not self.reduction_dims:
            self.reduction_dims = (self.reduction_dim,)
        if not self.inits:
            self.inits = (self.init,)

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

    @property
    def simple(self) -> bool:
        """One reduction loop, one result, operands indexed by plain loops:
        the shape every strategy can express."""
        return (
            self.arg is None
            and len(self.reduction_dims) == 1
            and all(_is_projected_permutation(m) for m in (*self.input_maps, self.output_map))
        )

    def split_only_plainly(self) -> bool:
        """Whether the split loop indexes the inputs only as a plain dimension,
        never inside a window expression like `oh + kh`."""
        return not any(
            not isinstance(e, AffineDimExpr) and self.reduction_dim in _dims_of(e)
            for m in self.input_maps
            for e in m.results
        )

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


def _is_projected_permutation(m: AffineMap, kept_units: bool = False) -> bool:
    """Whether each result is a distinct loop; with `kept_units`, a result may
    also be the constant 0 of a kept unit dimension, as IREE imports ONNX's
    keepdims reductions (`(d0, d1) -> (d0, 0)`)."""
    seen: set[int] = set()
    for expr in m.results:
        if kept_units and isinstance(expr, AffineConstantExpr) and expr.value == 0:
            continue
        if not isinstance(expr, AffineDimExpr) or expr.position in seen:
            return False
        seen.add(expr.position)
    return m.num_symbols == 0


def _dims_of(expr: AffineExpr) -> set[int]:
    linear = linear_form(expr)
    return set(linear[0]) if linear is not None else set()


def _is_window(expr: AffineExpr) -> bool:
    """A sum of loops times non-negative constants, as a conv's input is indexed."""
    linear = linear_form(expr)
    return linear is not None and all(c >= 0 for c in linear[0].values()) and linear[1] >= 0


def loop_extents(operands: list[SSAValue], maps: list[AffineMap]) -> dict[int, int]:
    """Each loop's static extent, from an operand it indexes plainly; -1 for a
    dynamic one."""
    extents: dict[int, int] = {}
    for value, m in zip(operands, maps):
        t = value.type
        if not isinstance(t, TensorType):
            continue
        for expr, size in zip(m.results, t.get_shape()):
            if isinstance(expr, AffineDimExpr):
                extents.setdefault(expr.position, size)
    return extents


LOOP_NAMES: dict[str, str] = {
    "linalg.conv_2d_nhwc_hwcf": "n oh ow f kh kw c",
    "linalg.conv_2d_nchw_fchw": "n f oh ow c kh kw",
    "linalg.depthwise_conv_2d_nhwc_hwc": "n oh ow c kh kw",
    "linalg.mmt4d": "m n k m0 n0 k0",
    "linalg.batch_mmt4d": "b m n k m0 n0 k0",
    "linalg.batch_reduce_matmul": "b m n k",
}
"""Loop names of the named ops with several reduction loops, for remarks."""


def loop_name(op: Operation, dim: int) -> str:
    names = LOOP_NAMES.get(op.name)
    return f"d{dim} ({names.split()[dim]})" if names else f"d{dim}"


def choose_split_loop(reductions: list[int], extents: dict[int, int], maps: list[AffineMap]) -> int:
    """
    The reduction loop to cut: the longest, the one whose length starves the
    machine (IREE's split-reduction sizing, too, cuts only long reduction
    loops). In a forward conv that is the input channels (hundreds) rather than a 3x3
    window; in mmt4d the K tiles rather than the k0 inside one; in
    batch_reduce_matmul whichever of batch and k is longer. A dynamic extent
    counts as longest. Among equals, a loop that indexes the inputs only
    plainly (a chunk needs no halo) wins over one inside a window, then the
    outermost (a depthwise conv's filter rows before its columns, mmt4d's k
    before k0).
    """

    def in_window(d: int) -> bool:
        return any(
            not isinstance(e, AffineDimExpr) and d in _dims_of(e) for m in maps for e in m.results
        )

    def key(d: int) -> tuple[float, bool, int]:
        size = extents.get(d, -1)
        return (math.inf if size < 0 else size, not in_window(d), -d)

    return max(reductions, key=key)


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


def _is_loop_index(value: SSAValue, loop: int) -> bool:
    """Whether `value` is `linalg.index loop`, through index casts."""
    while isinstance(value.owner, arith.IndexCastOp):
        value = value.owner.input
    owner = value.owner
    return isinstance(owner, linalg.IndexOp) and owner.dim.value.data == loop


def find_arg_select(body: Region, num_inputs: int, loop: int) -> ArgSelect | str:
    """The arg-reduction a two-result body computes, or why it is not one.

    Recognised: `i = select(cmp(x, v), index, i_acc)` with `index` the
    reduction loop's `linalg.index` (cast or not), and `v = max/min(x, v_acc)`
    or `v = select(cmp(x, v), x, v_acc)` with the same comparison. This is the
    argmax IREE's own split-reduction tests use."""
    block = body.block
    if len(block.args) != num_inputs + 2:
        return "its body does not take two accumulators"
    acc_v, acc_i = block.args[num_inputs], block.args[num_inputs + 1]
    yielded = block.last_op
    if not isinstance(yielded, linalg.YieldOp) or len(yielded.operands) != 2:
        return "its body does not yield a value and an index"
    out_v, out_i = yielded.operands
    pick = out_i.owner
    if not isinstance(pick, arith.SelectOp) or pick.rhs is not acc_i:
        return "its index is not select(compare, index, index accumulator)"
    if not _is_loop_index(pick.lhs, loop):
        return "the index it keeps is not the reduction loop's linalg.index"
    cmp = pick.cond.owner
    if not isinstance(cmp, arith.CmpfOp | arith.CmpiOp):
        return "its index is not chosen by an arith.cmpf or arith.cmpi"
    table = FLOAT_PREDICATES if isinstance(cmp, arith.CmpfOp) else INT_PREDICATES
    names = {v: k for k, v in table.items()}
    predicate = names.get(cmp.predicate.value.data)
    if predicate is None:
        return "its comparison is not an ordering (gt, ge, lt or le)"
    candidate, current = cmp.lhs, cmp.rhs
    if candidate is acc_v:
        candidate, current = current, candidate
        predicate = predicate[0] + _SWAPPED[predicate[1:]]
    if current is not acc_v or candidate is acc_v:
        return "its comparison is not between a candidate and the value accumulator"
    value_op = out_v.owner
    combiner: type[Operation] | None
    if isinstance(value_op, arith.SelectOp):
        if (
            value_op.cond is not cmp.result
            or value_op.lhs is not candidate
            or value_op.rhs is not acc_v
        ):
            return "its value is not select(compare, candidate, value accumulator)"
        combiner = None
    elif isinstance(value_op, Operation) and type(value_op) in COMBINER_KINDS:
        wanted = "max" if predicate[1:] in ("gt", "ge") else "min"
        if COMBINER_KINDS[type(value_op)] != wanted or set(value_op.operands) != {
            candidate,
            acc_v,
        }:
            return f"its value is not the {wanted} of the candidate and the accumulator"
        combiner = type(value_op)
    else:
        return "its value is neither a max/min nor a select of the candidate"
    for arg, allowed in ((acc_v, {cmp, value_op}), (acc_i, {pick})):
        if any(use.operation not in allowed for use in arg.uses):
            return "an accumulator is used other than to pick the result"
    return ArgSelect(type(cmp), predicate, combiner, acc_i.type)


def _ordering_combiner(arg: ArgSelect) -> type[Operation]:
    """The max or min that the comparison of a select-form arg-reduction
    orders by, for the value's identity and merge."""
    biggest = arg.predicate[1:] in ("gt", "ge")
    if arg.compare is arith.CmpfOp:
        return arith.MaximumfOp if biggest else arith.MinimumfOp
    if arg.predicate[0] == "u":
        return arith.MaxUIOp if biggest else arith.MinUIOp
    return arith.MaxSIOp if biggest else arith.MinSIOp


def source_map(transposed_map: AffineMap, permutation: Sequence[int]) -> AffineMap:
    """The map that reads a `linalg.transpose`'s source where `transposed_map`
    reads its result: result[i] is source[j] with j[permutation[d]] = i[d]."""
    results: list[AffineExpr] = list(transposed_map.results)
    for d, p in enumerate(permutation):
        results[p] = transposed_map.results[d]
    return AffineMap(transposed_map.num_dims, transposed_map.num_symbols, tuple(results))


def through_transposes(red: Reduction) -> Reduction | None:
    """`red` reading the sources of its inputs that are `linalg.transpose`
    results, each through its map composed with the permutation; None when
    no input is one.

    IREE fuses a transpose into the contraction that reads it, so the whole
    op runs on the source in the source's layout; this is the op the cost
    model prices, and the one a split must cut. (ONNX `Gemm transB=1` and
    linear layers import as a transpose of the weight then a matmul.)"""
    inputs, maps, changed = [], [], False
    for value, input_map in zip(red.inputs, red.input_maps):
        producer = value.owner
        if isinstance(producer, linalg.TransposeOp) and isinstance(
            producer.inputs[0].type, TensorType
        ):
            inputs.append(producer.inputs[0])
            maps.append(source_map(input_map, producer.permutation.get_values()))
            changed = True
        else:
            inputs.append(value)
            maps.append(input_map)
    if not changed:
        return None
    return dataclasses.replace(red, inputs=inputs, input_maps=maps)


@dataclass(frozen=True)
class VectorForm:
    """A contraction of a K-vector with a matrix into an N-vector: the M = 1
    matmul (a `linalg.vecmat`, or a `linalg.matvec` against a transposed
    matrix) written without its unit M loop."""

    vector: int
    """The input read along K alone."""
    matrix: int
    """The input read along K and N."""
    transposed: bool
    """Whether the matrix is N x K (`linalg.matvec`) rather than K x N."""


def vector_form(red: Reduction) -> VectorForm | None:
    """How `red` is the M = 1 matmul without its M loop, or None where it is
    not: two inputs, two loops (N and the K it reduces), the output indexed
    by N alone, one input by K alone and the other by both."""
    if not red.simple or len(red.inputs) != 2 or red.num_loops != 2:
        return None
    k = red.reduction_dim
    out = red.output_map.results
    if len(out) != 1 or not isinstance(out[0], AffineDimExpr) or out[0].position == k:
        return None
    n = out[0].position
    reads = [tuple(e.position for e in m.results if isinstance(e, AffineDimExpr)) for m in red.input_maps]
    if any(len(r) != len(m.results) for r, m in zip(reads, red.input_maps)):
        return None
    for vector, matrix in ((0, 1), (1, 0)):
        if reads[vector] == (k,) and reads[matrix] in ((k, n), (n, k)):
            return VectorForm(vector, matrix, reads[matrix] == (n, k))
    return None


def match_reduction(op: Operation) -> Reduction | str:
    """The reduction `op` computes, or why it is not a splittable one."""
    if any(isinstance(v.type, TensorType) and 0 in v.type.get_shape() for v in op.operands):
        # The cost models and chunk plans divide by the sizes.
        return "it is empty (a size is 0): there is nothing to split"
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
        combiner = _find_combiner(op.region)
        if isinstance(combiner, str):
            return combiner
        output_map = AffineMap(rank, 0, kept)
        return Reduction(op, [op.input], op.init, [identity], output_map, dims[0], combiner)
    if not isinstance(op, linalg.GenericOp | StructuredNamedOp):
        return f"'{op.name}' is not a linalg reduction"
    if len(op.outputs) != len(op.results) or len(op.results) not in (1, 2):
        return "it does not have one tensor result (or two, for an arg-reduction)"
    iterators = [str(t.data) for t in op.get_iterator_types().data]
    if any(t not in ("parallel", "reduction") for t in iterators):
        return "it has a loop that is neither parallel nor reduction"
    reductions = [i for i, t in enumerate(iterators) if t == "reduction"]
    if not reductions:
        return "it has no reduction loop"
    maps = [m.data for m in op.get_indexing_maps().data]
    inputs, outputs = list(op.inputs), list(op.outputs)
    input_maps, output_maps = maps[: len(inputs)], maps[len(inputs) :]
    if not all(isinstance(v.type, TensorType) for v in (*inputs, *outputs)):
        return "its operands are not all tensors"
    if not all(_is_projected_permutation(m, kept_units=True) for m in output_maps):
        return "its output maps are not projected permutations"
    if any(m != output_maps[0] for m in output_maps):
        return "its outputs are indexed differently"
    if any(
        isinstance(e, AffineDimExpr) and e.position in reductions
        for e in output_maps[0].results
    ):
        return "its output is indexed by the reduction loop"
    if any(m.num_symbols for m in input_maps) or not all(
        _is_window(e) for m in input_maps for e in m.results
    ):
        return "an input map is not a sum of loops (a projection or a conv window)"
    plain = {e.position for m in input_maps for e in m.results if isinstance(e, AffineDimExpr)}
    candidates = [d for d in reductions if d in plain]
    if not candidates:
        return "no input spans a reduction loop as a plain dimension"
    split = choose_split_loop(candidates, loop_extents([*inputs, *outputs], maps), input_maps)
    arg: ArgSelect | None = None
    if len(outputs) == 2:
        if len(reductions) != 1:
            return "an arg-reduction over several loops is not split"
        found = find_arg_select(op.regions[0], len(inputs), split)
        if isinstance(found, str):
            return found
        if not isinstance(found.index_type, IntegerType):
            # The partial indices would cross a dispatch boundary, and IREE
            # rejects index-typed dispatch operands.
            return "its index result is not an integer type (IREE keeps index off dispatch operands)"
        arg = found
        combiner = found.value_combiner or _ordering_combiner(found)
    else:
        found_combiner = _find_combiner(op.regions[0])
        if isinstance(found_combiner, str):
            return found_combiner
        combiner = found_combiner
    return Reduction(
        op,
        inputs,
        outputs[0],
        input_maps,
        output_maps[0],
        split,
        combiner,
        tuple(reductions),
        tuple(outputs),
        arg,
    )


def identity_value(combiner: type[Operation], element_type: Attribute) -> Attribute:
    """The value that leaves any partial result unchanged under `combiner`."""
    kind = COMBINER_KINDS[combiner]
    if kind == "add":
        return zero_attr(element_type)
    if isinstance(element_type, AnyFloat):
        return FloatAttr(-math.inf if kind == "max" else math.inf, element_type)
    assert isinstance(element_type, IntegerType)
    width = element_type.width.data
    if combiner is arith.MaxUIOp:
        value = 0
    elif combiner is arith.MinUIOp:
        value = -1  # all ones, the largest unsigned value
    elif kind == "max":
        value = -(2 ** (width - 1))
    else:
        value = 2 ** (width - 1) - 1
    return IntegerAttr(value, element_type)
