"""The parts of IREE's `iree_linalg_ext` dialect that xsplit emits.

`#iree_linalg_ext.split_reduction_mapping<N>` marks an `scf.forall` whose
iterations are the chunks of a split reduction. IREE 3.13 distributes such a
loop over workgroups, next to the workgroups of the partial op it holds; a
`#gpu.block` mapping in the same place stays a serial loop in each workgroup.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IndexType, IntAttr, IntegerAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class SplitReductionMappingAttr(ParametrizedAttribute):
    """Maps a loop dimension to the split-reduction level of distribution."""

    name = "iree_linalg_ext.split_reduction_mapping"

    dim: IntAttr

    def __init__(self, dim: int = 0):
        super().__init__(IntAttr(dim))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (IntAttr(parser.parse_integer(allow_boolean=False)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.dim.data}>")

    def verify(self) -> None:
        if self.dim.data < 0:
            raise VerifyException(
                f"split_reduction_mapping dimension must be non-negative, got {self.dim.data}"
            )


SPLIT_REDUCTION = "iree_linalg_ext.split_reduction"
"""The discardable attribute with which IREE 3.13's dispatch creation reads
an op's split-reduction chunk sizes, one per reduction loop, outermost
first. IREE sets it itself under
`--iree-dispatch-creation-enable-split-reduction`, and keeps one already set
with or without the flag; a size that does not divide its loop leaves a
remainder chunk of dynamic size."""


def split_reduction_sizes(sizes: Sequence[int]) -> ArrayAttr[IntegerAttr]:
    """The value of `SPLIT_REDUCTION`: `[112 : index]`."""
    return ArrayAttr([IntegerAttr(size, IndexType()) for size in sizes])


IREELinalgExt = Dialect("iree_linalg_ext", [], [SplitReductionMappingAttr])
