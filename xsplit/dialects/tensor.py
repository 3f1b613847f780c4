"""`tensor.parallel_insert_slice`, which xDSL 0.74 lacks."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType, i64
from xdsl.dialects.utils import DynamicIndexList
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    traits_def,
    var_operand_def,
)

from xsplit.dialects.op_helpers import ParallelCombiningUpdate, init_segmented, split_mixed
from xsplit.dialects.slices import verify_insert_slice, verify_slice_lists


@irdl_op_definition
class ParallelInsertSliceOp(IRDLOperation):
    """
    Inserts `source` into a slice of a shared output of the enclosing
    `scf.forall`, as `tensor.insert_slice` would, but as one of the parallel
    updates that the loop's `scf.forall.in_parallel` terminator commits. It
    returns nothing: the loop's result carries the updated tensor.
    """

    name = "tensor.parallel_insert_slice"

    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList,)
    traits = traits_def(ParallelCombiningUpdate())

    assembly_format = (
        "$source `into` $dest ``"
        "custom<DynamicIndexList>($offsets, $static_offsets)"
        "custom<DynamicIndexList>($sizes, $static_sizes)"
        "custom<DynamicIndexList>($strides, $static_strides)"
        "attr-dict `:` type($source) `into` type($dest)"
    )

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        offsets: Sequence[int | SSAValue],
        sizes: Sequence[int | SSAValue],
        strides: Sequence[int | SSAValue] | None = None,
    ):
        static_offsets, dyn_offsets = split_mixed(offsets)
        static_sizes, dyn_sizes = split_mixed(sizes)
        static_strides, dyn_strides = split_mixed(strides or [1] * len(sizes))
        init_segmented(
            self,
            [[source], [dest], dyn_offsets, dyn_sizes, dyn_strides],
            properties={
                "static_offsets": static_offsets,
                "static_sizes": static_sizes,
                "static_strides": static_strides,
            },
        )

    def verify_(self) -> None:
        dest = self.dest.type
        assert isinstance(dest, TensorType)
        offsets = self.static_offsets.get_values()
        sizes = self.static_sizes.get_values()
        strides = self.static_strides.get_values()
        verify_slice_lists(
            self,
            dest.get_num_dims(),
            (offsets, self.offsets),
            (sizes, self.sizes),
            (strides, self.strides),
        )
        verify_insert_slice(self, self.source.type, dest, offsets, sizes, strides)
