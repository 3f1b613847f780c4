"""MLIR's verification of `tensor.collapse_shape`, the element type check of
both tensor reshapes, and MLIR's printed form of the tensor and memref
reshapes.

xDSL 0.74 checks an expand_shape's shapes against its reassociation but not
a collapse_shape's, and neither's element type, so a collapse into the wrong
size parses and passes rewrite it. `RESHAPE_VERIFIERS` gives xDSL's
ops MLIR's `verifyTensorReshapeOp`, with its messages.

xDSL prints a reassociation as an array attribute, `[[0 : i64, 1 : i64]]`,
where MLIR prints `[[0, 1]]`. Both read as the same attribute; the printers
`RESHAPE_PRINTERS` print MLIR's form.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntegerAttr, TensorType
from xdsl.dialects.utils import print_dynamic_index_list
from xdsl.dialects.utils.reshape_ops_utils import verify_reshape_like_types
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


def _verify_reshape(
    op: Operation,
    expanded: TensorType[Attribute],
    collapsed: TensorType[Attribute],
    reassociation: ArrayAttr[ArrayAttr[IntegerAttr]],
) -> None:
    if not collapsed.get_shape() and not reassociation.data:
        # A reshape to or from rank 0 has no groups to compare: MLIR checks
        # only that a static shape holds one element (a dynamic one may).
        _verify_element_type(op, expanded, collapsed)
        shape = expanded.get_shape()
        if all(d != DYNAMIC_INDEX for d in shape) and prod(shape) != 1:
            raise VerifyException(
                f"'{op.name}' op number of elements must be preserved: {prod(shape)} != 1"
            )
        return
    try:
        verify_reshape_like_types(
            collapsed_type=collapsed, expanded_type=expanded, reassociation=reassociation
        )
    except VerifyException as e:
        raise VerifyException(f"'{op.name}' op {e}") from None
    # The shapes agree group by group; what is left of MLIR's comparison
    # with the inferred collapsed type is the element type.
    _verify_element_type(op, expanded, collapsed)


def _verify_element_type(
    op: Operation, expanded: TensorType[Attribute], collapsed: TensorType[Attribute]
) -> None:
    if collapsed.element_type != expanded.element_type:
        expected = TensorType(expanded.element_type, collapsed.get_shape(), collapsed.encoding)
        raise VerifyException(
            f"'{op.name}' op expected collapsed type to be '{expected}', but got '{collapsed}'"
        )


def _verify_groups(op: Operation, reassociation: ArrayAttr[ArrayAttr[IntegerAttr]]) -> None:
    """MLIR's `isReassociationValid`: the groups split 0, 1, 2, ... in order."""
    next_dim = 0
    for i, group in enumerate(reassociation.data):
        dims = [d.value.data for d in group.data]
        if not dims:
            raise VerifyException(f"'{op.name}' op reassociation indices must not be empty")
        if dims != list(range(next_dim, next_dim + len(dims))):
            raise VerifyException(
                f"'{op.name}' op expected reassociation map #{i} to be valid and contiguous."
            )
        next_dim += len(dims)


def _verify_collapse_shape(op: tensor.CollapseShapeOp) -> None:
    # Replacing verify_ replaces xDSL's, which checks the op's definition
    # first; MLIR checks the groups before the types.
    _verify_groups(op, op.reassociation)
    tensor.CollapseShapeOp.get_irdl_definition().verify(op)
    src, result = op.src.type, op.result.type
    assert isinstance(src, TensorType) and isinstance(result, TensorType)
    _verify_reshape(op, src, result, op.reassociation)


def _verify_expand_shape(op: tensor.ExpandShapeOp) -> None:
    _verify_groups(op, op.reassociation)
    tensor.ExpandShapeOp.get_irdl_definition().verify(op)
    src, result = op.src.type, op.result.type
    assert isinstance(src, TensorType) and isinstance(result, TensorType)
    # xDSL's own check, less its reassociation check, which _verify_reshape
    # makes as MLIR does, a rank-0 source included.
    if len(op.static_output_shape) != len(result.get_shape()):
        raise VerifyException(
            "expected number of static shape dims to be equal to the output rank "
            f"({len(result.get_shape())}) but found {len(op.static_output_shape)} inputs instead"
        )
    _verify_reshape(op, result, src, op.reassociation)


def _print_reassociation(printer: Printer, reassociation: ArrayAttr[ArrayAttr[IntegerAttr]]):
    """`[[0, 1], [2]]`: MLIR's `ReassociationIndices` print as plain integers."""
    printer.print_string("[")
    printer.print_list(
        reassociation.data,
        lambda group: printer.print_string(
            "[" + ", ".join(str(i.value.data) for i in group.data) + "]"
        ),
    )
    printer.print_string("]")


def _print_collapse_shape(op: tensor.CollapseShapeOp | memref.CollapseShapeOp, printer: Printer):
    printer.print_string(" ")
    printer.print_ssa_value(op.src)
    printer.print_string(" ")
    _print_reassociation(printer, op.reassociation)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.src.type)
    printer.print_string(" into ")
    printer.print_attribute(op.result.type)


def _print_expand_shape(op: tensor.ExpandShapeOp | memref.ExpandShapeOp, printer: Printer):
    printer.print_string(" ")
    printer.print_ssa_value(op.src)
    printer.print_string(" ")
    _print_reassociation(printer, op.reassociation)
    printer.print_string(" output_shape ")
    dynamic = (
        op.dynamic_output_shape if isinstance(op, tensor.ExpandShapeOp) else op.output_shape
    )
    print_dynamic_index_list(
        printer, DYNAMIC_INDEX, dynamic, op.static_output_shape.get_values()
    )
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.src.type)
    printer.print_string(" into ")
    printer.print_attribute(op.result.type)


RESHAPE_VERIFIERS: dict[type[Operation], Callable[[Any], None]] = {
    tensor.CollapseShapeOp: _verify_collapse_shape,
    tensor.ExpandShapeOp: _verify_expand_shape,
}
"""MLIR's checks for xDSL's own tensor reshapes, which `xsplit.xdsl_compat`
gives them, so the reshapes passes build are checked as well as the ones
xsplit reads."""

RESHAPE_PRINTERS: dict[type[Operation], Callable[[Any, Printer], None]] = {
    tensor.CollapseShapeOp: _print_collapse_shape,
    memref.CollapseShapeOp: _print_collapse_shape,
    tensor.ExpandShapeOp: _print_expand_shape,
    memref.ExpandShapeOp: _print_expand_shape,
}
"""MLIR's printed form of the tensor and memref reshapes, which
`xsplit.xdsl_compat` gives xDSL's classes. xDSL's parsers already read both
forms of a reassociation."""
