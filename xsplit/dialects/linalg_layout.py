"""`linalg.pack` and `linalg.unpack`, which xDSL 0.74 lacks: the physical
layouts data tiling materializes an encoding into.

`linalg.pack` cuts some dimensions of a tensor into tiles and moves the tiles'
insides to the end: packing a 100x1001 `A` with `inner_dims_pos = [0, 1]
inner_tiles = [16, 1]` gives 7x1001x16x1, padded with `padding_value` where
100 is not a multiple of 16. `outer_dims_perm` permutes the outer (tile
index) dimensions. `linalg.unpack` is the inverse, dropping the padding.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.op_helpers import dense_i64, init_segmented, split_mixed


def packed_shape(
    source: Sequence[int],
    inner_dims_pos: Sequence[int],
    inner_tiles: Sequence[int],
    outer_dims_perm: Sequence[int] | None,
) -> list[int]:
    """The shape `linalg.pack` makes of `source` (DYNAMIC_INDEX where unknown)."""
    outer = list(source)
    for pos, tile in zip(inner_dims_pos, inner_tiles):
        if outer[pos] == DYNAMIC_INDEX or tile == DYNAMIC_INDEX:
            outer[pos] = DYNAMIC_INDEX
        else:
            outer[pos] = -(-outer[pos] // tile)
    if outer_dims_perm:
        outer = [outer[p] for p in outer_dims_perm]
    return outer + list(inner_tiles)


def _parse_int_list(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def _parse_mixed_list(parser: Parser) -> tuple[list[int], list[UnresolvedOperand]]:
    static: list[int] = []
    dynamic: list[UnresolvedOperand] = []

    def one() -> None:
        if (operand := parser.parse_optional_unresolved_operand()) is not None:
            dynamic.append(operand)
            static.append(DYNAMIC_INDEX)
        else:
            static.append(parser.parse_integer(allow_boolean=False))

    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
    return static, dynamic


class _LayoutOp(IRDLOperation):
    """What pack and unpack share: the tiling and its syntax. (Each declares
    its operands itself, in MLIR's order.)"""

    inner_dims_pos = prop_def(DenseArrayBase.constr(i64))
    outer_dims_perm = opt_prop_def(DenseArrayBase.constr(i64))
    static_inner_tiles = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    traits = traits_def(Pure())

    @property
    def tiles(self) -> list[int]:
        return list(self.static_inner_tiles.get_values())

    @property
    def dims_pos(self) -> list[int]:
        return list(self.inner_dims_pos.get_values())

    @property
    def perm(self) -> list[int] | None:
        return None if self.outer_dims_perm is None else list(self.outer_dims_perm.get_values())

    def _print_layout(self, printer: Printer) -> None:
        if (perm := self.perm) is not None:
            printer.print_string(f" outer_dims_perm = [{', '.join(map(str, perm))}]")
        printer.print_string(f" inner_dims_pos = [{', '.join(map(str, self.dims_pos))}]")
        printer.print_string(" inner_tiles = [")
        dynamic = iter(self.inner_tiles)
        printer.print_list(
            self.tiles,
            lambda t: printer.print_operand(next(dynamic))
            if t == DYNAMIC_INDEX
            else printer.print_string(str(t)),
        )
        printer.print_string("] into ")
        printer.print_operand(self.dest)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dest.type)

    @staticmethod
    def _parse_layout(
        parser: Parser,
    ) -> tuple[
        list[int] | None,
        list[int],
        list[int],
        list[SSAValue],
        UnresolvedOperand,
        dict[str, Attribute],
    ]:
        perm = None
        if parser.parse_optional_keyword("outer_dims_perm") is not None:
            parser.parse_punctuation("=")
            perm = _parse_int_list(parser)
        parser.parse_keyword("inner_dims_pos")
        parser.parse_punctuation("=")
        dims_pos = _parse_int_list(parser)
        parser.parse_keyword("inner_tiles")
        parser.parse_punctuation("=")
        static, unresolved = _parse_mixed_list(parser)
        tiles = [parser.resolve_operand(u, IndexType()) for u in unresolved]
        parser.parse_keyword("into")
        dest = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        return perm, dims_pos, static, tiles, dest, attributes

    def _properties(
        self, inner_dims_pos: Sequence[int], static_tiles: Sequence[int], perm: Sequence[int] | None
    ) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {
            "inner_dims_pos": dense_i64(inner_dims_pos),
            "static_inner_tiles": dense_i64(static_tiles),
        }
        if perm is not None:
            props["outer_dims_perm"] = dense_i64(perm)
        return props

    def _verify_layout(self, unpacked: TensorType, packed: TensorType) -> None:
        rank = unpacked.get_num_dims()
        dims_pos, tiles, perm = self.dims_pos, self.tiles, self.perm
        if len(dims_pos) != len(tiles):
            raise VerifyException(
                f"'{self.name}' op inner_dims_pos has {len(dims_pos)} entries but "
                f"inner_tiles has {len(tiles)}"
            )
        if len(set(dims_pos)) != len(dims_pos) or any(not 0 <= d < rank for d in dims_pos):
            raise VerifyException(f"'{self.name}' op invalid inner_dims_pos vector")
        if perm is not None and sorted(perm) != list(range(rank)):
            raise VerifyException(f"'{self.name}' op invalid outer_dims_perm vector")
        if sum(1 for t in tiles if t == DYNAMIC_INDEX) != len(self.inner_tiles):
            raise VerifyException(f"'{self.name}' op needs one value per dynamic inner tile")
        if any(t != DYNAMIC_INDEX and t <= 0 for t in tiles):
            raise VerifyException(f"'{self.name}' op inner tiles must be positive")
        if packed.get_num_dims() != rank + len(tiles):
            raise VerifyException(
                f"'{self.name}' op packed rank != (unpacked rank + num tiling factors), "
                f"got {packed.get_num_dims()} != {rank + len(tiles)}"
            )
        if unpacked.element_type != packed.element_type:
            raise VerifyException(f"'{self.name}' op source and dest element types differ")
        expected = packed_shape(unpacked.get_shape(), dims_pos, tiles, perm)
        for want, got in zip(expected, packed.get_shape()):
            if want != DYNAMIC_INDEX and got != DYNAMIC_INDEX and want != got:
                raise VerifyException(
                    f"'{self.name}' op expected '{TensorType(packed.element_type, expected)}' "
                    f"for the packed domain value, got '{packed}'"
                )


@irdl_op_definition
class PackOp(_LayoutOp):
    """Tiles `source` into `dest`'s packed layout, padding partial tiles with
    `padding_value`."""

    name = "linalg.pack"

    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    padding_value = opt_operand_def()
    inner_tiles = var_operand_def(IndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        inner_dims_pos: Sequence[int],
        inner_tiles: Sequence[int | SSAValue],
        padding_value: SSAValue | None = None,
        outer_dims_perm: Sequence[int] | None = None,
    ):
        static, dynamic = split_mixed(inner_tiles)
        init_segmented(
            self,
            [[source], [dest], [padding_value] if padding_value is not None else [], dynamic],
            [dest.type],
            self._properties(inner_dims_pos, static.get_values(), outer_dims_perm),
        )

    @classmethod
    def parse(cls, parser: Parser) -> PackOp:
        source = parser.parse_unresolved_operand()
        padding: SSAValue | None = None
        if parser.parse_optional_keyword("padding_value") is not None:
            parser.parse_punctuation("(")
            unresolved = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            padding = parser.resolve_operand(unresolved, parser.parse_type())
            parser.parse_punctuation(")")
        perm, dims_pos, static, tiles, dest, attributes = cls._parse_layout(parser)
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        dest_type = parser.parse_type()
        op = cls.__new__(cls)
        init_segmented(
            op,
            [
                [parser.resolve_operand(source, source_type)],
                [parser.resolve_operand(dest, dest_type)],
                [padding] if padding is not None else [],
                tiles,
            ],
            [dest_type],
            op._properties(dims_pos, static, perm),
        )
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        if self.padding_value is not None:
            printer.print_string(" padding_value(")
            printer.print_operand(self.padding_value)
            printer.print_string(" : ")
            printer.print_attribute(self.padding_value.type)
            printer.print_string(")")
        self._print_layout(printer)

    def verify_(self) -> None:
        source, dest = self.source.type, self.dest.type
        assert isinstance(source, TensorType) and isinstance(dest, TensorType)
        if self.result.type != dest:
            raise VerifyException(f"'{self.name}' op result type must be the dest type")
        self._verify_layout(source, dest)
        if self.padding_value is not None and self.padding_value.type != source.element_type:
            raise VerifyException(
                f"'{self.name}' op padding_value type {self.padding_value.type} is not the "
                f"element type {source.element_type}"
            )


@irdl_op_definition
class UnpackOp(_LayoutOp):
    """Moves a packed `source` back into `dest`'s unpacked shape, dropping
    the padding of partial tiles."""

    name = "linalg.unpack"

    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    inner_tiles = var_operand_def(IndexType)

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        inner_dims_pos: Sequence[int],
        inner_tiles: Sequence[int | SSAValue],
        outer_dims_perm: Sequence[int] | None = None,
    ):
        static, dynamic = split_mixed(inner_tiles)
        super().__init__(
            operands=[source, dest, dynamic],
            result_types=[dest.type],
            properties=self._properties(inner_dims_pos, static.get_values(), outer_dims_perm),
        )

    @classmethod
    def parse(cls, parser: Parser) -> UnpackOp:
        source = parser.parse_unresolved_operand()
        perm, dims_pos, static, tiles, dest, attributes = cls._parse_layout(parser)
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        dest_type = parser.parse_type()
        op = cls.create(
            operands=[
                parser.resolve_operand(source, source_type),
                parser.resolve_operand(dest, dest_type),
                *tiles,
            ],
            result_types=[dest_type],
            properties=cls._properties(cls.__new__(cls), dims_pos, static, perm),
            attributes=attributes,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        self._print_layout(printer)

    def verify_(self) -> None:
        source, dest = self.source.type, self.dest.type
        assert isinstance(source, TensorType) and isinstance(dest, TensorType)
        if self.result.type != dest:
            raise VerifyException(f"'{self.name}' op result type must be the dest type")
        self._verify_layout(dest, source)
