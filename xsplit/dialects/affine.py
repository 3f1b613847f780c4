"""`affine.max`, which xDSL 0.74 lacks."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import AffineMapAttr, IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class MaxOp(IRDLOperation):
    """
    The maximum of the results of an affine map applied to index operands,
    `affine.max affine_map<(d0)[s0] -> (d0, s0, 0)>(%i)[%n]`. Split-K uses it
    to clamp chunk sizes at zero.
    """

    name = "affine.max"

    map_operands = var_operand_def(IndexType())
    result = result_def(IndexType())
    map = prop_def(AffineMapAttr)

    traits = traits_def(Pure())

    def __init__(
        self,
        affine_map: AffineMapAttr,
        dims: Sequence[SSAValue | Operation] = (),
        symbols: Sequence[SSAValue | Operation] = (),
    ):
        super().__init__(
            operands=[[*dims, *symbols]],
            properties={"map": affine_map},
            result_types=[IndexType()],
        )

    def verify_(self) -> None:
        m = self.map.data
        if len(self.map_operands) != m.num_dims + m.num_symbols:
            raise VerifyException(
                f"'{self.name}' op operand count and affine map dimension and symbol count "
                "must match"
            )
        if not m.results:
            raise VerifyException(f"'{self.name}' op needs a map with results")

    @classmethod
    def parse(cls, parser: Parser) -> MaxOp:
        pos = parser.pos
        m = parser.parse_attribute()
        if not isinstance(m, AffineMapAttr):
            parser.raise_error("expected an affine map", pos, parser.pos)
        dims = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_operand(IndexType())
        )
        symbols = (
            parser.parse_optional_comma_separated_list(
                Parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
            )
            or []
        )
        op = cls(m, dims, symbols)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        m = self.map.data
        operands = list(self.map_operands)
        printer.print_string(" ")
        printer.print_attribute(self.map)
        printer.print_string("(")
        printer.print_list(operands[: m.num_dims], printer.print_ssa_value)
        printer.print_string(")")
        if m.num_symbols:
            printer.print_string("[")
            printer.print_list(operands[m.num_dims :], printer.print_ssa_value)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
