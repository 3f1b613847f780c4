"""IREE's `iree_tensor_ext` dialect: the tensor placeholders of a dispatch.

Inside a `flow.dispatch.workgroups` body, each tensor operand and result is a
`!iree_tensor_ext.dispatch.tensor<access:tensor<...>>` block argument. Work is
read from and written to them with `dispatch.tensor.load` and
`dispatch.tensor.store`, which take slices like `tensor.extract_slice` and
`tensor.insert_slice` do.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    TensorType,
    i64,
)
from xdsl.dialects.utils import DynamicIndexList, EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from xsplit.dialects.op_helpers import dense_i64, init_segmented
from xsplit.dialects.slices import verify_slice_lists, verify_slice_shape


class TensorAccess(StrEnum):
    READONLY = auto()
    WRITEONLY = auto()
    READWRITE = auto()


@irdl_attr_definition
class TensorAccessAttr(EnumAttribute[TensorAccess]):
    """How a dispatch may use one of its tensor placeholders."""

    name = "iree_tensor_ext.access"


@irdl_attr_definition
class DispatchTensorType(ParametrizedAttribute, TypeAttribute):
    """
    A placeholder for a tensor that a dispatch reads, writes, or both:
    `!iree_tensor_ext.dispatch.tensor<readonly:tensor<4x?xf32>>`.
    Its dynamic dimensions are carried beside it as index values.
    """

    name = "iree_tensor_ext.dispatch.tensor"

    access: TensorAccessAttr
    bound_type: TensorType

    def __init__(self, access: TensorAccess, bound_type: TensorType):
        super().__init__(TensorAccessAttr(access), bound_type)

    @staticmethod
    @functools.cache
    def get(access: TensorAccess, bound_type: TensorType) -> DispatchTensorType:
        """The placeholder type, built and verified once per access and tensor
        type: dispatch formation asks for the same few thousands of times."""
        return DispatchTensorType(access, bound_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            access = parser.parse_str_enum(TensorAccess)
            parser.parse_punctuation(":")
            pos = parser.pos
            bound = parser.parse_type()
            if not isinstance(bound, TensorType):
                parser.raise_error("expected a ranked tensor type", pos, parser.pos)
        return (TensorAccessAttr(access), bound)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.access.data.value}:")
            printer.print_attribute(self.bound_type)

    @property
    def num_dynamic_dims(self) -> int:
        return sum(1 for d in self.bound_type.get_shape() if d == DYNAMIC_INDEX)

    def can_read(self) -> bool:
        return self.access.data != TensorAccess.WRITEONLY

    def can_write(self) -> bool:
        return self.access.data != TensorAccess.READONLY


def _verify_slice(
    op: DispatchTensorLoadOp | DispatchTensorStoreOp,
    placeholder: DispatchTensorType,
    placeholder_dims: Sequence[SSAValue],
    slice_type: Attribute,
) -> None:
    if len(placeholder_dims) != placeholder.num_dynamic_dims:
        # IREE's `verifyOpDynamicDims` message.
        raise VerifyException(
            f"'{op.name}' op value set has {placeholder.num_dynamic_dims} dynamic "
            f"dimensions but only {len(placeholder_dims)} dimension values are attached"
        )
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    verify_slice_lists(
        op,
        placeholder.bound_type.get_num_dims(),
        (offsets, op.offsets),
        (sizes, op.sizes),
        (strides, op.strides),
    )
    if not isinstance(slice_type, TensorType):
        raise VerifyException(f"'{op.name}' op expects a ranked tensor slice")
    if isinstance(op, DispatchTensorStoreOp):
        # IREE checks a stored value's shape as tensor.insert_slice does, but
        # neither its element type nor the slice's bounds.
        verify_slice_shape(op, TensorType(slice_type.element_type, sizes), slice_type)
    # The slice may drop unit dimensions, as tensor.extract_slice may.
    kept = [s for s in sizes if s != 1]
    sliced = [s for s in slice_type.get_shape() if s != 1]
    if len(sliced) > len(kept) or slice_type.element_type != (placeholder.bound_type.element_type):
        raise VerifyException(
            f"'{op.name}' op slice type {slice_type} does not fit the sizes "
            f"{list(sizes)} of {placeholder}"
        )


@irdl_op_definition
class DispatchTensorLoadOp(IRDLOperation):
    """
    Reads a slice of a dispatch input placeholder into a tensor value. Every
    workgroup may load any part of an input, including overlapping parts.
    """

    name = "iree_tensor_ext.dispatch.tensor.load"

    source = operand_def(DispatchTensorType)
    source_dims = var_operand_def(IndexType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())
    custom_directives = (DynamicIndexList,)

    assembly_format = (
        "$source `,` `offsets` `=` custom<DynamicIndexList>($offsets, $static_offsets)"
        " `,` `sizes` `=` custom<DynamicIndexList>($sizes, $static_sizes)"
        " `,` `strides` `=` custom<DynamicIndexList>($strides, $static_strides)"
        " attr-dict `:` type($source) (`{` $source_dims^ `}`)? `->` type($result)"
    )

    def __init__(
        self,
        source: SSAValue,
        source_dims: Sequence[SSAValue],
        result_type: TensorType,
        static_offsets: Sequence[int],
        static_sizes: Sequence[int],
        static_strides: Sequence[int],
        offsets: Sequence[SSAValue] = (),
        sizes: Sequence[SSAValue] = (),
        strides: Sequence[SSAValue] = (),
    ):
        init_segmented(
            self,
            [[source], source_dims, offsets, sizes, strides],
            [result_type],
            {
                "static_offsets": dense_i64(static_offsets),
                "static_sizes": dense_i64(static_sizes),
                "static_strides": dense_i64(static_strides),
            },
        )

    def verify_(self) -> None:
        placeholder = self.source.type
        assert isinstance(placeholder, DispatchTensorType)
        if not placeholder.can_read():
            raise VerifyException(f"'{self.name}' op cannot load from {placeholder}")
        _verify_slice(self, placeholder, self.source_dims, self.result.type)


@irdl_op_definition
class DispatchTensorStoreOp(IRDLOperation):
    """
    Writes a tensor value into a slice of a dispatch output placeholder.
    Workgroups must store to disjoint parts of an output.
    """

    name = "iree_tensor_ext.dispatch.tensor.store"

    value = operand_def(TensorType)
    target = operand_def(DispatchTensorType)
    target_dims = var_operand_def(IndexType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList,)

    assembly_format = (
        "$value `,` $target"
        " `,` `offsets` `=` custom<DynamicIndexList>($offsets, $static_offsets)"
        " `,` `sizes` `=` custom<DynamicIndexList>($sizes, $static_sizes)"
        " `,` `strides` `=` custom<DynamicIndexList>($strides, $static_strides)"
        " attr-dict `:` type($value) `->` type($target) (`{` $target_dims^ `}`)?"
    )

    def __init__(
        self,
        value: SSAValue,
        target: SSAValue,
        target_dims: Sequence[SSAValue],
        static_offsets: Sequence[int],
        static_sizes: Sequence[int],
        static_strides: Sequence[int],
        offsets: Sequence[SSAValue] = (),
        sizes: Sequence[SSAValue] = (),
        strides: Sequence[SSAValue] = (),
    ):
        init_segmented(
            self,
            [[value], [target], target_dims, offsets, sizes, strides],
            properties={
                "static_offsets": dense_i64(static_offsets),
                "static_sizes": dense_i64(static_sizes),
                "static_strides": dense_i64(static_strides),
            },
        )

    def verify_(self) -> None:
        placeholder = self.target.type
        assert isinstance(placeholder, DispatchTensorType)
        if not placeholder.can_write():
            raise VerifyException(f"'{self.name}' op cannot store to {placeholder}")
        _verify_slice(self, placeholder, self.target_dims, self.value.type)


IREETensorExt = Dialect(
    "iree_tensor_ext",
    [DispatchTensorLoadOp, DispatchTensorStoreOp],
    [DispatchTensorType, TensorAccessAttr],
)
