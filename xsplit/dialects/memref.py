"""`memref.atomic_rmw`, `memref.copy` and `memref.prefetch` in iree-opt's custom syntax.

xDSL 0.74 parses the op only in generic form, where the kind is a bare
integer. Distributed split-K kernels accumulate their partials with it:

```mlir
%old = memref.atomic_rmw addf %v, %out[%i, %j] : (f32, memref<4x8xf32>) -> f32
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    BoolAttr,
    AnyFloatConstr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    SignlessIntegerConstraint,
    i32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

ATOMIC_KINDS: tuple[str, ...] = (
    "addf",
    "addi",
    "andi",
    "assign",
    "maximumf",
    "maxnumf",
    "maxs",
    "maxu",
    "minimumf",
    "minnumf",
    "mins",
    "minu",
    "mulf",
    "muli",
    "ori",
    "xori",
)
"""`arith::AtomicRMWKind` in enum order: the index is the `kind` integer MLIR stores."""

FLOAT_KINDS = frozenset({"addf", "maximumf", "maxnumf", "minimumf", "minnumf", "mulf"})
INTEGER_KINDS = frozenset({"addi", "andi", "maxs", "maxu", "mins", "minu", "muli", "ori", "xori"})


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """
    Atomically combines `value` into one element of a memref and returns the
    element's old value. `kind` is the combiner (`addf`, `maxs`, `assign`, ...).
    """

    name = "memref.atomic_rmw"

    T: ClassVar = VarConstraint("T", AnyFloatConstr | SignlessIntegerConstraint)

    value = operand_def(T)
    memref = operand_def(MemRefType.constr(T))
    indices = var_operand_def(IndexType)
    kind = prop_def(IntegerAttr[I64])
    result = result_def(T)

    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())

    def __init__(self, kind: str, value: SSAValue, memref: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(
            operands=[value, memref, list(indices)],
            result_types=[value.type],
            properties={"kind": IntegerAttr(ATOMIC_KINDS.index(kind), i64)},
        )

    @property
    def kind_name(self) -> str:
        return ATOMIC_KINDS[self.kind.value.data]

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind_name} ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_ssa_value)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.memref.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        pos = parser.pos
        kind = parser.parse_identifier()
        if kind not in ATOMIC_KINDS:
            parser.raise_error(
                f"expected an atomic_rmw kind ({', '.join(ATOMIC_KINDS)})", pos, parser.pos
            )
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        memref = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        value_type = parser.parse_type()
        parser.parse_punctuation(",")
        memref_type = parser.parse_type()
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        parser.parse_type()
        op = cls(
            kind,
            parser.resolve_operand(value, value_type),
            parser.resolve_operand(memref, memref_type),
            [parser.resolve_operand(i, IndexType()) for i in indices],
        )
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        k = self.kind.value.data
        if not 0 <= k < len(ATOMIC_KINDS):
            raise VerifyException(f"'{self.name}' op kind {k} is not an atomic_rmw kind")
        kind = ATOMIC_KINDS[k]
        is_float = not isinstance(self.value.type, IntegerType)
        if kind in FLOAT_KINDS and not is_float:
            raise VerifyException(f"'{self.name}' op with kind '{kind}' expects a floating-point type")
        if kind in INTEGER_KINDS and is_float:
            raise VerifyException(f"'{self.name}' op with kind '{kind}' expects an integer type")
        assert isinstance(self.memref.type, MemRefType)
        if len(self.indices) != self.memref.type.get_num_dims():
            raise VerifyException(
                f"'{self.name}' op invalid number of indices for accessed memref, "
                f"expected {self.memref.type.get_num_dims()} but got {len(self.indices)}"
            )


@irdl_op_definition
class CopyOp(IRDLOperation):
    """
    Copies every element of `source` into `target`, which has the same shape
    and element type (their layouts and memory spaces may differ). xDSL's own
    op prints only the generic form; this one prints as iree-opt does:

        memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    """

    name = "memref.copy"

    source = operand_def(MemRefType)
    destination = operand_def(MemRefType)

    assembly_format = "$source `,` $destination attr-dict `:` type($source) `to` type($destination)"

    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())

    def __init__(self, source: SSAValue, destination: SSAValue):
        super().__init__(operands=[source, destination])

    def verify_(self) -> None:
        src, dst = self.source.type, self.destination.type
        assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
        if src.get_shape() != dst.get_shape():
            raise VerifyException(f"'{self.name}' op requires the same shape for all operands")
        if src.element_type != dst.element_type:
            raise VerifyException(f"'{self.name}' op requires the same element type for all operands")


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """
    A hint that one element's cache line will be read (or written) soon;
    LLVM makes it `llvm.prefetch`, x86 `prefetcht0/t1/t2/nta` for locality
    3/2/1/0. It has no effect on the program's values:

        memref.prefetch %b[%k, %j], read, locality<2>, data : memref<64x64xf32>
    """

    name = "memref.prefetch"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    isWrite = prop_def(BoolAttr)
    localityHint = prop_def(IntegerAttr[I32])
    isDataCache = prop_def(BoolAttr)

    def __init__(
        self,
        memref: SSAValue,
        indices: Sequence[SSAValue],
        locality: int,
        write: bool = False,
        data: bool = True,
    ):
        super().__init__(
            operands=[memref, list(indices)],
            properties={
                "isWrite": BoolAttr.from_bool(write),
                "localityHint": IntegerAttr(locality, i32),
                "isDataCache": BoolAttr.from_bool(data),
            },
        )

    @property
    def locality(self) -> int:
        return self.localityHint.value.data

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_ssa_value)
        printer.print_string("]")
        printer.print_string(", write" if self.isWrite.value.data else ", read")
        printer.print_string(f", locality<{self.locality}>")
        printer.print_string(", data" if self.isDataCache.value.data else ", instr")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)

    @classmethod
    def parse(cls, parser: Parser) -> PrefetchOp:
        memref = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(",")
        pos = parser.pos
        kind = parser.parse_identifier()
        if kind not in ("read", "write"):
            parser.raise_error("rw specifier has to be 'read' or 'write'", pos, parser.pos)
        parser.parse_punctuation(",")
        parser.parse_keyword("locality")
        parser.parse_punctuation("<")
        locality = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        parser.parse_punctuation(",")
        pos = parser.pos
        cache = parser.parse_identifier()
        if cache not in ("data", "instr"):
            parser.raise_error("cache type has to be 'data' or 'instr'", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(memref, memref_type),
            [parser.resolve_operand(i, IndexType()) for i in indices],
            locality,
            write=kind == "write",
            data=cache == "data",
        )
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        if not 0 <= self.locality <= 3:
            raise VerifyException(
                f"'{self.name}' op attribute 'localityHint' failed to satisfy constraint: "
                "32-bit signless integer attribute whose minimum value is 0 whose maximum value is 3"
            )
        assert isinstance(self.memref.type, MemRefType)
        if len(self.indices) != self.memref.type.get_num_dims():
            raise VerifyException(f"'{self.name}' op too few indices")


MEMREF_EXTENSION_OPS = (AtomicRMWOp, CopyOp, PrefetchOp)
