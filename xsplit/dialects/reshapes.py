"""MLIR's verification of `tensor.collapse_shape`, and the element type check
of both tensor reshapes.

xDSL 0.74 checks an expand_shape's shapes against its reassociation but not
a collapse_shape's, and neither's element type, so a collapse into the wrong
size parses and passes rewrite it. `install_reshape_verifiers` gives xDSL's
ops MLIR's `verifyTensorReshapeOp`, with its messages.
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, TensorType
from xdsl.dialects.utils.reshape_ops_utils import verify_reshape_like_types
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException


def _verify_reshape(
    op: Operation,
    expanded: TensorType[Attribute],
    collapsed: TensorType[Attribute],
    reassociation: ArrayAttr[ArrayAttr[IntegerAttr]],
) -> None:
    try:
        verify_reshape_like_types(
            collapsed_type=collapsed, expanded_type=expanded, reassociation=reassociation
        )
    except VerifyException as e:
        raise VerifyException(f"'{op.name}' op {e}") from None
    # The shapes agree group by group; what is left of MLIR's comparison
    # with the inferred collapsed type is the element type.
    if collapsed.element_type != expanded.element_type:
        expected = TensorType(expanded.element_type, collapsed.get_shape(), collapsed.encoding)
        raise VerifyException(
            f"'{op.name}' op expected collapsed type to be '{expected}', but got '{collapsed}'"
        )


def _verify_collapse_shape(op: tensor.CollapseShapeOp) -> None:
    src, result = op.src.type, op.result.type
    assert isinstance(src, TensorType) and isinstance(result, TensorType)
    _verify_reshape(op, src, result, op.reassociation)


_xdsl_verify_expand_shape = tensor.ExpandShapeOp.verify_


def _verify_expand_shape(op: tensor.ExpandShapeOp) -> None:
    _xdsl_verify_expand_shape(op)
    src, result = op.src.type, op.result.type
    assert isinstance(src, TensorType) and isinstance(result, TensorType)
    _verify_reshape(op, result, src, op.reassociation)


def install_reshape_verifiers() -> None:
    """Gives xDSL's own tensor reshapes MLIR's checks, in place, so the
    reshapes passes build are checked as well as the ones xsplit reads."""
    tensor.CollapseShapeOp.verify_ = _verify_collapse_shape  # type: ignore[method-assign]
    tensor.ExpandShapeOp.verify_ = _verify_expand_shape  # type: ignore[method-assign]
