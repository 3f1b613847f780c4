"""rocMLIR's `rock.reduce`, in its tensor form.

    %r = rock.reduce sum %in into %out {axis = 0 : index}
        : tensor<77x123x456xf32> into tensor<1x123x456xf32> -> tensor<1x123x456xf32>

reduces `%in` along `axis` and accumulates the result into `%out`, whose
`axis` dimension is 1. The accumulation is what rocMLIR lowers to atomics or
to trees in LDS; here it also means an init in `%out` is counted exactly once.
rocMLIR's `features`, `blockSize` and `gridSize` belong to its GPU lowering;
the last two pass through as discardable attributes.
"""

from __future__ import annotations

from enum import auto

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class ReduceMethod(StrEnum):
    SUM = auto()
    MAX = auto()


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """
    Reduces `input` along `axis` with `sum` or `max`, and accumulates the
    result into `init`, whose `axis` dimension is 1:
    `result = init (+ or max) reduce(input, axis)`.
    """

    name = "rock.reduce"

    input = operand_def(TensorType)
    init = operand_def(TensorType)
    result = result_def(TensorType)
    reduce_method = prop_def(StringAttr, prop_name="reduceMethod")
    axis = prop_def(IntegerAttr[IndexType])

    traits = traits_def(Pure())

    def __init__(self, method: ReduceMethod, input: SSAValue, init: SSAValue, axis: int):
        super().__init__(
            operands=[input, init],
            result_types=[init.type],
            properties={
                "reduceMethod": StringAttr(method.value),
                "axis": IntegerAttr(axis, IndexType()),
            },
        )

    @property
    def method(self) -> ReduceMethod:
        return ReduceMethod(self.reduce_method.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.method.value} ")
        printer.print_ssa_value(self.input)
        printer.print_string(" into ")
        printer.print_ssa_value(self.init)
        attrs = {"axis": self.axis, **self.attributes}
        printer.print_op_attributes(dict(sorted(attrs.items())))
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" into ")
        printer.print_attribute(self.init.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        method = parser.parse_str_enum(ReduceMethod)
        input_ = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        init = parser.parse_unresolved_operand()
        pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        axis = attrs.pop("axis", None)
        if not isinstance(axis, IntegerAttr):
            parser.raise_error("expected an 'axis' index attribute", pos, parser.pos)
        parser.parse_punctuation(":")
        input_type = parser.parse_type()
        parser.parse_keyword("into")
        init_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(
            method,
            parser.resolve_operand(input_, input_type),
            parser.resolve_operand(init, init_type),
            axis.value.data,
        )
        if result_type != init_type:
            parser.raise_error("the result type must be the init type", pos, parser.pos)
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        in_type, out_type = self.input.type, self.init.type
        assert isinstance(in_type, TensorType) and isinstance(out_type, TensorType)
        axis = self.axis.value.data
        if in_type.element_type != out_type.element_type:
            raise VerifyException(f"'{self.name}' op input and init element types differ")
        if in_type.get_num_dims() != out_type.get_num_dims():
            raise VerifyException(f"'{self.name}' op input and init must have the same rank")
        if not 0 <= axis < in_type.get_num_dims():
            raise VerifyException(
                f"'{self.name}' op axis {axis} is out of range for rank {in_type.get_num_dims()}"
            )
        for d, (i, o) in enumerate(zip(in_type.get_shape(), out_type.get_shape())):
            expected = 1 if d == axis else i
            if o != expected and min(i, o) >= 0:
                raise VerifyException(
                    f"'{self.name}' op init dimension {d} is {o}, expected {expected}"
                )


def evaluate_reduce(
    method: ReduceMethod, axis: int, input: np.ndarray, init: np.ndarray
) -> np.ndarray:
    """The meaning of `rock.reduce`, on numpy arrays."""
    if method is ReduceMethod.SUM:
        return init + input.sum(axis=axis, keepdims=True, dtype=init.dtype)
    return np.maximum(init, input.max(axis=axis, keepdims=True))


Rock = Dialect("rock", [ReduceOp], [])
