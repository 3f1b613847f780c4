"""The parts of IREE's `iree_encoding` dialect that data tiling uses, as
iree-opt 3.13 prints them.

An encoding is a tensor type's third parameter: `tensor<128x256xf32, #enc>`
is the same values as `tensor<128x256xf32>`, in a layout that is not decided
yet. `iree_encoding.set_encoding` and `unset_encoding` move a tensor into and
out of that layout. `#iree_encoding.encoding<...>` says what the layout is for
(which operand of which contraction, its element types, the contraction's
indexing maps and loop sizes), so that a target can later pick the physical
layout (`linalg.pack` tiles for an `mmt4d`) that suits the op.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.op_helpers import init_segmented

OP_TYPES = ("matmul",)
"""The contraction kinds an encoding can be for (IREE 3.13's EncodingOpType)."""


@irdl_attr_definition
class EncodingAttr(ParametrizedAttribute):
    """
    `#iree_encoding.encoding<operand_index = I, op_type = matmul,
    element_types = [lhs, rhs, acc], user_indexing_maps = [...],
    iteration_sizes = [...]>`: the tensor is operand I of a matmul-like op
    with those element types, indexing maps and loop sizes (`?` where a loop's
    size is dynamic). The last two are optional; parameters are parsed in any
    order and printed in this one, as IREE does. A map list entry may itself be
    a list (a map composed with a broadcast), as IREE allows.
    """

    name = "iree_encoding.encoding"

    operand_index: IntegerAttr
    op_type: StringAttr
    element_types: ArrayAttr[Attribute]
    user_indexing_maps: ArrayAttr[Attribute] | NoneAttr
    iteration_sizes: ArrayAttr[IntegerAttr] | NoneAttr
    """The loop sizes; DYNAMIC_INDEX (printed `?`) where one is dynamic."""

    def __init__(
        self,
        operand_index: int | IntegerAttr,
        element_types: Sequence[Attribute],
        user_indexing_maps: Sequence[Attribute] | None = None,
        iteration_sizes: Sequence[int] | None = None,
        op_type: str = "matmul",
    ):
        if isinstance(operand_index, int):
            operand_index = IntegerAttr(operand_index, IndexType())
        super().__init__(
            operand_index,
            StringAttr(op_type),
            ArrayAttr(element_types),
            ArrayAttr(user_indexing_maps) if user_indexing_maps is not None else NoneAttr(),
            ArrayAttr(IntegerAttr(s, i64) for s in iteration_sizes)
            if iteration_sizes is not None
            else NoneAttr(),
        )

    @property
    def index(self) -> int:
        return self.operand_index.value.data

    @property
    def op_type_name(self) -> str:
        return self.op_type.data

    @property
    def maps(self) -> list[AffineMapAttr] | None:
        """The user's indexing maps, each taken as the first of its list where
        it is composed with a broadcast; None when the encoding has none."""
        if isinstance(self.user_indexing_maps, NoneAttr):
            return None
        maps: list[AffineMapAttr] = []
        listed = self.user_indexing_maps
        for entry in listed.data if isinstance(listed, ArrayAttr) else ():
            if isinstance(entry, ArrayAttr):
                entry = entry.data[0]
            assert isinstance(entry, AffineMapAttr)
            maps.append(entry)
        return maps

    @property
    def sizes(self) -> list[int] | None:
        if isinstance(self.iteration_sizes, NoneAttr):
            return None
        return [s.value.data for s in self.iteration_sizes.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values: dict[str, Attribute] = {}
        with parser.in_angle_brackets():
            while True:
                key = parser.parse_identifier("an encoding parameter name")
                parser.parse_punctuation("=")
                if key == "operand_index":
                    value = parser.parse_integer(allow_boolean=False)
                    index_type: Attribute = i64
                    if parser.parse_optional_punctuation(":") is not None:
                        index_type = parser.parse_type()
                    if not isinstance(index_type, IndexType | IntegerType):
                        parser.raise_error("operand_index must be an integer or index")
                    values[key] = IntegerAttr(value, index_type)
                elif key == "op_type":
                    op_type = parser.parse_identifier("an op type")
                    if op_type not in OP_TYPES:
                        parser.raise_error(f"unknown op_type '{op_type}'")
                    values[key] = StringAttr(op_type)
                elif key == "element_types":
                    values[key] = ArrayAttr(
                        parser.parse_comma_separated_list(
                            parser.Delimiter.SQUARE, parser.parse_type
                        )
                    )
                elif key == "user_indexing_maps":
                    values[key] = parser.parse_attribute()
                    if not isinstance(values[key], ArrayAttr):
                        parser.raise_error("user_indexing_maps must be a list of affine maps")
                elif key == "iteration_sizes":

                    def size() -> IntegerAttr:
                        if parser.parse_optional_punctuation("?") is not None:
                            return IntegerAttr(DYNAMIC_INDEX, i64)
                        return IntegerAttr(parser.parse_integer(allow_boolean=False), i64)

                    values[key] = ArrayAttr(
                        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, size)
                    )
                else:
                    parser.raise_error(f"unknown iree_encoding.encoding parameter '{key}'")
                if parser.parse_optional_punctuation(",") is None:
                    break
        for required in ("operand_index", "op_type", "element_types"):
            if required not in values:
                parser.raise_error(f"iree_encoding.encoding needs {required}")
        return (
            values["operand_index"],
            values["op_type"],
            values["element_types"],
            values.get("user_indexing_maps", NoneAttr()),
            values.get("iteration_sizes", NoneAttr()),
        )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<operand_index = {self.index} : ")
        printer.print_attribute(self.operand_index.type)
        printer.print_string(f", op_type = {self.op_type_name}")
        printer.print_string(", element_types = [")
        printer.print_list(self.element_types.data, printer.print_attribute)
        printer.print_string("]")
        if not isinstance(self.user_indexing_maps, NoneAttr):
            printer.print_string(", user_indexing_maps = ")
            printer.print_attribute(self.user_indexing_maps)
        if (sizes := self.sizes) is not None:
            printer.print_string(", iteration_sizes = [")
            printer.print_list(sizes, lambda s: printer.print_string("?" if s < 0 else str(s)))
            printer.print_string("]")
        printer.print_string(">")

    def verify(self) -> None:
        if self.index < 0:
            raise VerifyException(f"operand_index must be non-negative, got {self.index}")
        listed = self.user_indexing_maps
        for entry in listed.data if isinstance(listed, ArrayAttr) else ():
            maps = entry.data if isinstance(entry, ArrayAttr) else (entry,)
            if not maps or not all(isinstance(m, AffineMapAttr) for m in maps):
                raise VerifyException("user_indexing_maps must hold affine maps or lists of them")
        maps = self.maps
        if maps is not None and self.index >= len(maps):
            raise VerifyException(
                f"operand_index {self.index} is out of range of {len(maps)} indexing maps"
            )
        sizes = self.sizes
        if maps and sizes is not None and len(sizes) != maps[0].data.num_dims:
            raise VerifyException(
                f"iteration_sizes has {len(sizes)} entries for {maps[0].data.num_dims} loops"
            )

    def dynamic_iteration_sizes(self) -> int:
        """How many `encoding_dims` values an op producing this encoding needs."""
        return sum(1 for s in self.sizes or [] if s == DYNAMIC_INDEX)


def encoding_of(t: Attribute) -> EncodingAttr | None:
    """The `#iree_encoding.encoding` of a tensor type, if it has one."""
    if isinstance(t, TensorType) and isinstance(t.encoding, EncodingAttr):
        return t.encoding
    return None


def without_encoding(t: TensorType) -> TensorType:
    return TensorType(t.element_type, t.get_shape())


def with_encoding(t: TensorType, encoding: Attribute) -> TensorType:
    return TensorType(t.element_type, t.get_shape(), encoding)


def _parse_dims(parser: Parser, keyword: str | None) -> list[SSAValue]:
    """`keyword{%a, %b}` or `{%a, %b}`, if present."""
    if keyword is not None and parser.parse_optional_keyword(keyword) is None:
        return []
    if keyword is None and parser.parse_optional_punctuation("{") is None:
        return []
    if keyword is not None:
        parser.parse_punctuation("{")
    dims: list[SSAValue] = []
    if parser.parse_optional_punctuation("}") is None:
        def dim() -> SSAValue:
            return parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())

        dims = parser.parse_comma_separated_list(parser.Delimiter.NONE, dim)
        parser.parse_punctuation("}")
    return dims


def _print_dims(printer: Printer, keyword: str, dims: Sequence[SSAValue]) -> None:
    if dims:
        printer.print_string(f"{keyword}{{")
        printer.print_list(dims, printer.print_operand)
        printer.print_string("}")


def _verify_same_shape(op: IRDLOperation, source: Attribute, result: Attribute) -> None:
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    if source.get_shape() != result.get_shape():
        raise VerifyException(f"'{op.name}' op expected to preserve the logical shape of the tensor")
    # IREE lets the element type change; xsplit's passes assume it does not.
    if source.element_type != result.element_type:
        raise VerifyException(
            f"'{op.name}' op source {source} and result {result} differ in element type"
        )


def _verify_encoding_dims(op: IRDLOperation, encoded: Attribute, dims: Sequence[SSAValue]) -> None:
    enc = encoding_of(encoded)
    needed = enc.dynamic_iteration_sizes() if enc is not None else 0
    if needed != len(dims):
        raise VerifyException(
            f"'{op.name}' op encoding expects {needed} dynamic encoding dimension(s), "
            f"but {len(dims)} provided"
        )


def _print_conversion(printer: Printer, op: SetEncodingOp | UnsetEncodingOp) -> None:
    """` %source [encoding_dims{...}] {attrs} : source type -> result type`, the
    form set_encoding and unset_encoding share."""
    printer.print_string(" ")
    printer.print_operand(op.source)
    if op.encoding_dims:
        printer.print_string(" ")
        _print_dims(printer, "encoding_dims", op.encoding_dims)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.source.type)
    printer.print_string(" -> ")
    printer.print_attribute(op.result.type)


@irdl_op_definition
class SetEncodingOp(IRDLOperation):
    """Puts a tensor in an encoding: same shape and values, the result's type
    carries the encoding. `encoding_dims` gives the encoding's dynamic
    iteration sizes."""

    name = "iree_encoding.set_encoding"

    source = operand_def(TensorType)
    encoding_dims = var_operand_def(IndexType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self, source: SSAValue, encoding: Attribute, encoding_dims: Sequence[SSAValue] = ()
    ):
        t = source.type
        assert isinstance(t, TensorType)
        super().__init__(
            operands=[source, encoding_dims], result_types=[with_encoding(t, encoding)]
        )

    @classmethod
    def parse(cls, parser: Parser) -> SetEncodingOp:
        unresolved = parser.parse_unresolved_operand()
        dims = _parse_dims(parser, "encoding_dims")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls.create(
            operands=[parser.resolve_operand(unresolved, source_type), *dims],
            result_types=[result_type],
            attributes=attributes,
        )
        return op

    def print(self, printer: Printer) -> None:
        _print_conversion(printer, self)

    def verify_(self) -> None:
        _verify_same_shape(self, self.source.type, self.result.type)
        if encoding_of(self.source.type) is not None:
            raise VerifyException(
                f"'{self.name}' op source of set_encoding op cannot have a tensor encoding"
            )
        result = self.result.type
        assert isinstance(result, TensorType)
        if isinstance(result.encoding, NoneAttr):
            raise VerifyException(
                f"'{self.name}' op result of set_encoding op expected to have a valid tensor encoding"
            )
        _verify_encoding_dims(self, result, self.encoding_dims)


@irdl_op_definition
class UnsetEncodingOp(IRDLOperation):
    """Takes a tensor out of its encoding. `result_dims` are the result's
    dynamic sizes (printed after its type), `encoding_dims` the encoding's
    dynamic iteration sizes."""

    name = "iree_encoding.unset_encoding"

    source = operand_def(TensorType)
    result_dims = var_operand_def(IndexType)
    encoding_dims = var_operand_def(IndexType)
    result = result_def(TensorType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(
        self,
        source: SSAValue,
        result_dims: Sequence[SSAValue] = (),
        encoding_dims: Sequence[SSAValue] = (),
    ):
        t = source.type
        assert isinstance(t, TensorType)
        init_segmented(self, [[source], result_dims, encoding_dims], [without_encoding(t)])

    @classmethod
    def parse(cls, parser: Parser) -> UnsetEncodingOp:
        unresolved = parser.parse_unresolved_operand()
        encoding_dims = _parse_dims(parser, "encoding_dims")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        result_dims = _parse_dims(parser, None)
        op = cls.__new__(cls)
        init_segmented(
            op,
            [[parser.resolve_operand(unresolved, source_type)], result_dims, encoding_dims],
            [result_type],
        )
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        _print_conversion(printer, self)
        _print_dims(printer, "", self.result_dims)

    def verify_(self) -> None:
        _verify_same_shape(self, self.source.type, self.result.type)
        if encoding_of(self.result.type) is not None:
            raise VerifyException(
                f"'{self.name}' op result of unset_encoding op cannot have a tensor encoding"
            )
        result = self.result.type
        assert isinstance(result, TensorType)
        dynamic = sum(1 for s in result.get_shape() if s == DYNAMIC_INDEX)
        if dynamic != len(self.result_dims):
            raise VerifyException(
                f"'{self.name}' op result type set has {dynamic} dynamic dimensions "
                f"but only {len(self.result_dims)} dimension values are attached"
            )
        _verify_encoding_dims(self, self.source.type, self.encoding_dims)


IREEEncoding = Dialect("iree_encoding", [SetEncodingOp, UnsetEncodingOp], [EncodingAttr])
