"""`llvm.atomicrmw` in iree-opt's custom syntax (xDSL 0.74 lacks it).

The op carries a sync scope and an ordering, which `memref.atomic_rmw` does
not: IREE lowers the latter to a system-scope acq_rel atomic (a system-wide
fence before every add on NVPTX, a compare-and-swap loop on gfx942). A
relaxed device-scope add is a plain `RED` on sm_80/sm_90 and a native
`global_atomic_add_f32` on gfx942:

```mlir
%old = llvm.atomicrmw fadd %p, %v syncscope("agent") monotonic : !llvm.ptr<1>, f32
```
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, AnyFloatConstr, IntegerAttr, StringAttr, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

BIN_OPS: dict[str, int] = {"fadd": 11, "fsub": 12, "fmax": 13, "fmin": 14}
"""The float members of `LLVM::AtomicBinOp` with the integers MLIR stores."""

ORDERINGS: dict[str, int] = {
    "unordered": 1,
    "monotonic": 2,
    "acquire": 4,
    "release": 5,
    "acq_rel": 6,
    "seq_cst": 7,
}
"""`LLVM::AtomicOrdering` (without not_atomic, which an atomicrmw cannot have)."""


def _name(table: dict[str, int], value: int) -> str:
    return next(k for k, v in table.items() if v == value)


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """Atomically combines `val` into the float at `ptr`; returns the old value."""

    name = "llvm.atomicrmw"

    T: ClassVar = VarConstraint("T", AnyFloatConstr)

    ptr = operand_def(LLVMPointerType)
    val = operand_def(T)
    res = result_def(T)
    bin_op = prop_def(IntegerAttr[I64])
    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)

    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())

    def __init__(
        self, bin_op: str, ptr: SSAValue, val: SSAValue, ordering: str, syncscope: str | None
    ):
        props: dict = {
            "bin_op": IntegerAttr(BIN_OPS[bin_op], i64),
            "ordering": IntegerAttr(ORDERINGS[ordering], i64),
        }
        if syncscope is not None:
            props["syncscope"] = StringAttr(syncscope)
        super().__init__(operands=[ptr, val], result_types=[val.type], properties=props)

    @property
    def bin_op_name(self) -> str:
        return _name(BIN_OPS, self.bin_op.value.data)

    @property
    def ordering_name(self) -> str:
        return _name(ORDERINGS, self.ordering.value.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.bin_op_name} ")
        printer.print_ssa_value(self.ptr)
        printer.print_string(", ")
        printer.print_ssa_value(self.val)
        if self.syncscope is not None:
            printer.print_string(" syncscope(")
            printer.print_attribute(self.syncscope)
            printer.print_string(")")
        printer.print_string(f" {self.ordering_name}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(", ")
        printer.print_attribute(self.val.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        pos = parser.pos
        bin_op = parser.parse_identifier()
        if bin_op not in BIN_OPS:
            expected = f"expected a float atomicrmw op ({', '.join(BIN_OPS)})"
            parser.raise_error(expected, pos, parser.pos)
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        syncscope = None
        if parser.parse_optional_keyword("syncscope") is not None:
            parser.parse_punctuation("(")
            syncscope = parser.parse_str_literal()
            parser.parse_punctuation(")")
        pos = parser.pos
        ordering = parser.parse_identifier()
        if ordering not in ORDERINGS:
            parser.raise_error(f"expected an ordering ({', '.join(ORDERINGS)})", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation(",")
        val_type = parser.parse_type()
        (ptr_v, val_v) = parser.resolve_operands([ptr, val], [ptr_type, val_type], pos)
        op = cls(bin_op, ptr_v, val_v, ordering, syncscope)
        op.attributes.update(attrs)
        return op


def pointer_memref(op: Operation) -> SSAValue | None:
    """The memref an `llvm.atomicrmw`'s pointer points into, where the
    pointer is the memref's aligned base plus a byte offset (through
    `arith.addi`, `arith.index_cast` and `llvm.inttoptr`, as export-dispatch
    builds it); None for any other pointer."""
    todo = [op.operands[0]]
    while todo:
        owner = todo.pop().owner
        if not isinstance(owner, Operation):
            continue
        if owner.name == "memref.extract_aligned_pointer_as_index":
            return owner.operands[0]
        if owner.name in ("llvm.inttoptr", "arith.index_cast", "arith.addi"):
            todo.extend(owner.operands)
    return None


LLVM_EXTENSION_OPS = (AtomicRMWOp,)
