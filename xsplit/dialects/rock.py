"""rocMLIR's `rock.reduce`, in its tensor and its memref form.

    %r = rock.reduce sum %in into %out {axis = 0 : index}
        : tensor<77x123x456xf32> into tensor<1x123x456xf32> -> tensor<1x123x456xf32>
    rock.reduce max %in into %out features = mfma|atomic_add {axis = 2 : index, blockSize = 256 : i32, gridSize = 8 : i32}
        : memref<2x12x12xf32> into memref<2x12x1xf32>

reduces `%in` along `axis` and accumulates the result into `%out`, whose
`axis` dimension is 1. The accumulation is what rocMLIR lowers to atomics or
to trees in LDS; here it also means an init in `%out` is counted exactly once.
On tensors the op returns the accumulated value; on memrefs it updates `%out`
in place and returns nothing. rocMLIR's `features` (the GPU's capabilities,
a `|`-separated set), `blockSize` and `gridSize` (the launch its lowering
assumes) are optional properties; `lower-reduce` reads the last two.
"""

from __future__ import annotations

from enum import auto
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

if TYPE_CHECKING:
    import numpy as np


class ReduceMethod(StrEnum):
    SUM = auto()
    MAX = auto()


FEATURES = (
    "none",
    "mfma",
    "dot",
    "atomic_add",
    "atomic_fmax_f32",
    "wmma",
    "atomic_add_f16",
    "atomic_add_bf16",
    "direct_to_lds_32b",
    "direct_to_lds_128b",
)
"""rocMLIR's GemmFeatures bits, as they are spelled in its assembly."""


class ReduceEffects(MemoryEffect):
    """Pure on tensors; on memrefs it reads the input and updates the output."""

    @classmethod
    def get_effects(cls, op):
        assert isinstance(op, ReduceOp)
        if op.result is not None:
            return set()
        return {
            EffectInstance(MemoryEffectKind.READ, op.input),
            EffectInstance(MemoryEffectKind.READ, op.init),
            EffectInstance(MemoryEffectKind.WRITE, op.init),
        }


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """
    Reduces `input` along `axis` with `sum` or `max`, and accumulates the
    result into `init`, whose `axis` dimension is 1:
    `result = init (+ or max) reduce(input, axis)`. On memrefs `init` is
    updated in place and there is no result.
    """

    name = "rock.reduce"

    input = operand_def(TensorType | MemRefType)
    init = operand_def(TensorType | MemRefType)
    result = opt_result_def(TensorType)
    reduce_method = prop_def(StringAttr, prop_name="reduceMethod")
    axis = prop_def(IntegerAttr[IndexType])
    features = opt_prop_def(StringAttr)
    block_size = opt_prop_def(IntegerAttr, prop_name="blockSize")
    grid_size = opt_prop_def(IntegerAttr, prop_name="gridSize")

    traits = traits_def(ReduceEffects())

    def __init__(
        self,
        method: ReduceMethod,
        input: SSAValue,
        init: SSAValue,
        axis: int,
        features: str | None = None,
        block_size: int | None = None,
        grid_size: int | None = None,
    ):
        properties: dict = {
            "reduceMethod": StringAttr(method.value),
            "axis": IntegerAttr(axis, IndexType()),
        }
        if features is not None:
            properties["features"] = StringAttr(features)
        if block_size is not None:
            properties["blockSize"] = IntegerAttr(block_size, i32)
        if grid_size is not None:
            properties["gridSize"] = IntegerAttr(grid_size, i32)
        super().__init__(
            operands=[input, init],
            result_types=[[init.type] if isinstance(init.type, TensorType) else []],
            properties=properties,
        )

    @property
    def method(self) -> ReduceMethod:
        return ReduceMethod(self.reduce_method.data)

    @property
    def on_memrefs(self) -> bool:
        return isinstance(self.init.type, MemRefType)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.method.value} ")
        printer.print_ssa_value(self.input)
        printer.print_string(" into ")
        printer.print_ssa_value(self.init)
        if self.features is not None:
            printer.print_string(f" features = {self.features.data}")
        attrs = {"axis": self.axis, **self.attributes}
        if self.block_size is not None:
            attrs["blockSize"] = self.block_size
        if self.grid_size is not None:
            attrs["gridSize"] = self.grid_size
        printer.print_op_attributes(dict(sorted(attrs.items())))
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" into ")
        printer.print_attribute(self.init.type)
        if self.result is not None:
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        method = parser.parse_str_enum(ReduceMethod)
        input_ = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        init = parser.parse_unresolved_operand()
        features = None
        if parser.parse_optional_keyword("features") is not None:
            parser.parse_punctuation("=")
            names = []
            while True:
                pos = parser.pos
                name = parser.parse_identifier()
                if name not in FEATURES:
                    parser.raise_error(
                        f"unknown feature '{name}', expected one of {', '.join(FEATURES)}",
                        pos,
                        parser.pos,
                    )
                names.append(name)
                if parser.parse_optional_punctuation("|") is None:
                    break
            features = "|".join(names)
        pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        axis = attrs.pop("axis", None)
        if not isinstance(axis, IntegerAttr):
            parser.raise_error("expected an 'axis' index attribute", pos, parser.pos)
        sizes = {}
        for key in ("blockSize", "gridSize"):
            value = attrs.pop(key, None)
            if value is not None and not isinstance(value, IntegerAttr):
                parser.raise_error(f"'{key}' must be an integer", pos, parser.pos)
            sizes[key] = value.value.data if value is not None else None
        parser.parse_punctuation(":")
        input_type = parser.parse_type()
        parser.parse_keyword("into")
        init_type = parser.parse_type()
        result_type = None
        if parser.parse_optional_punctuation("->") is not None:
            result_type = parser.parse_type()
        if isinstance(init_type, TensorType) and result_type != init_type:
            parser.raise_error("the result type must be the init type", pos, parser.pos)
        if isinstance(init_type, MemRefType) and result_type is not None:
            parser.raise_error("on memrefs rock.reduce has no result", pos, parser.pos)
        op = cls(
            method,
            parser.resolve_operand(input_, input_type),
            parser.resolve_operand(init, init_type),
            axis.value.data,
            features,
            sizes["blockSize"],
            sizes["gridSize"],
        )
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        in_type, out_type = self.input.type, self.init.type
        assert isinstance(in_type, TensorType | MemRefType)
        assert isinstance(out_type, TensorType | MemRefType)
        if type(in_type) is not type(out_type):
            raise VerifyException(
                f"'{self.name}' op input and init must both be tensors or both be memrefs"
            )
        if isinstance(out_type, TensorType) != (self.result is not None):
            raise VerifyException(
                f"'{self.name}' op has a result on tensors and none on memrefs"
            )
        if self.result is not None and self.result.type != out_type:
            raise VerifyException(f"'{self.name}' op result type must be the init type")
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
        for prop in (self.block_size, self.grid_size):
            if prop is not None and prop.value.data < 1:
                raise VerifyException(f"'{self.name}' op blockSize and gridSize must be positive")


def evaluate_reduce(
    method: ReduceMethod, axis: int, input: np.ndarray, init: np.ndarray
) -> np.ndarray:
    """The meaning of `rock.reduce`, on numpy arrays."""
    import numpy as np  # here: the dialect is loaded by every xsplit-opt run, which needs no numpy

    if method is ReduceMethod.SUM:
        return init + input.sum(axis=axis, keepdims=True, dtype=init.dtype)
    return np.maximum(init, input.max(axis=axis, keepdims=True))


Rock = Dialect("rock", [ReduceOp], [])
