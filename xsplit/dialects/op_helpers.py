"""Helpers shared by xsplit's op definitions: attribute builders, operand
segment sizes, the traits of parallel-combining ops, and a fast walk of the
ops nested in one. (`util.py` beside it is IREE's util dialect.)"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException


def dense_i64(values: Sequence[int]) -> DenseArrayBase:
    """An `array<i64: ...>`; attributes are immutable, so equal ones are shared."""
    return _dense_i64(tuple(values))


@functools.lru_cache(maxsize=4096)
def _dense_i64(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def zero_attr(element: Attribute) -> FloatAttr | IntegerAttr:
    """The zero of a float, integer or index element type."""
    if isinstance(element, AnyFloat):
        return FloatAttr(0.0, element)
    if isinstance(element, IntegerType | IndexType):
        return IntegerAttr(0, element)
    raise TypeError(f"{element} has no zero")


def split_mixed(mixed: Sequence[int | SSAValue]) -> tuple[DenseArrayBase, list[SSAValue]]:
    """Offsets, sizes or bounds given as constants or values, split the MLIR way:
    a static array with DYNAMIC_INDEX where a value goes, and the values."""
    static = [m if isinstance(m, int) else DYNAMIC_INDEX for m in mixed]
    return dense_i64(static), [m for m in mixed if not isinstance(m, int)]


@functools.lru_cache(maxsize=1024)
def segment_sizes(sizes: tuple[int, ...]) -> DenseArrayBase:
    """An `operandSegmentSizes` value (shared, as attributes are immutable)."""
    return DenseArrayBase.from_list(i32, sizes)


def init_segmented(
    op: Operation,
    operand_groups: Sequence[Sequence[SSAValue]],
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
) -> None:
    """Initialises an op whose variadic operand groups are sized by an
    `operandSegmentSizes` property, without xDSL's generic builder.

    xsplit builds these ops by the thousand; the generic builder re-derives
    the segment sizes and checks each argument on every call, which the
    verifier does anyway once the IR is built."""
    Operation.__init__(
        op,
        operands=[v for group in operand_groups for v in group],
        result_types=result_types,
        properties={
            **(properties or {}),
            "operandSegmentSizes": segment_sizes(tuple(len(g) for g in operand_groups)),
        },
        regions=regions,
    )


class ParallelCombining(OpTrait):
    """The op commits the parallel updates of its enclosing parallel loop, as
    MLIR's `ParallelCombiningOpInterface` (`scf.forall.in_parallel`)."""


class ParallelCombiningUpdate(OpTrait):
    """The op is one parallel update (`tensor.parallel_insert_slice`): it must
    sit directly in an op with the `ParallelCombining` trait. The two dialects
    meet in these traits rather than in each other's ops."""

    def verify(self, op: Operation) -> None:
        parent = op.parent_op()
        # A detached op is checked when it is inserted, as HasParent does.
        if parent is None:
            return
        if not parent.has_trait(ParallelCombining):
            raise VerifyException(f"'{op.name}' expects parent op 'scf.forall.in_parallel'")
        # The destination (the second operand) is one of the loop's shared
        # outputs: a tensor argument of the block that holds the terminator.
        dest = op.operands[1]
        if not isinstance(dest, BlockArgument) or dest.block is not parent.parent_block():
            raise VerifyException(f"'{op.name}' op may only insert into an output block argument")


def nested_ops(op: Operation) -> list[Operation]:
    """`op` and every op nested in it, in pre-order.

    It follows the blocks' and ops' links directly: the pattern engine and
    the verifier run it on every match, rewrite and module, and xDSL's
    generator-based `walk` costs several times more."""
    out: list[Operation] = []

    def visit(current: Operation) -> None:
        out.append(current)
        for region in current.regions:
            block = region.first_block
            while block is not None:
                inner = block.first_op
                while inner is not None:
                    visit(inner)
                    inner = inner.next_op
                block = block.next_block

    visit(op)
    return out
