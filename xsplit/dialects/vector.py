"""`vector.from_elements`, which xDSL 0.74 lacks, as iree-opt prints it:

    %v = vector.from_elements %x0, %x1, %x2, %x3 : vector<2x2xf32>

The GEMM kernel builds its tensor-core fragments with it from scalars
(registers of the accumulator, halves read from workgroup memory).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import VectorType
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class FromElementsOp(IRDLOperation):
    """A vector of the given scalars, in row-major order of its shape."""

    name = "vector.from_elements"

    elements = var_operand_def()
    result = result_def(VectorType)

    def __init__(self, elements: Sequence[SSAValue], result_type: VectorType):
        super().__init__(operands=[list(elements)], result_types=[result_type])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, VectorType)
        n = 1
        for s in t.get_shape():
            n *= s
        if len(self.elements) != n:
            raise VerifyException(
                f"'{self.name}' op needs {n} elements for {t}, not {len(self.elements)}"
            )
        if any(e.type != t.element_type for e in self.elements):
            raise VerifyException(f"'{self.name}' op elements must be {t.element_type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.elements, printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> FromElementsOp:
        names = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, VectorType):
            parser.raise_error("vector.from_elements makes a vector")
        op = cls([parser.resolve_operand(n, t.element_type) for n in names], t)
        op.attributes |= attrs
        return op


VECTOR_EXTENSION_OPS = (FromElementsOp,)
