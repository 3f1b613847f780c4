"""Attributes and types that xsplit carries without modelling them.

IREE's and MLIR's dialects have hundreds of attributes and types
(`#iree_encoding.encoding<...>`, `#hal.executable.target<...>`,
`!hal.buffer_view`, ...). A pass that does not rewrite them only needs to hand
them on. `OpaqueAttr` and `OpaqueType` keep the exact text MLIR printed for one
(in the local-scope form `iree-opt --mlir-print-local-scope` gives, so with no
aliases), and print it back unchanged. Builtin ones that xDSL 0.74 cannot
represent (a semi-affine `affine_map`, a scalable vector) are kept the same way. Two of them are equal when their texts
are, which is MLIR's uniquing for a canonical printer.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BuiltinAttribute, StringAttr
from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


class _OpaqueText(ParametrizedAttribute, BuiltinAttribute):
    text: StringAttr
    """The whole attribute or type as MLIR prints it, sigil included."""

    def __init__(self, text: str):
        super().__init__(StringAttr(text))

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string(self.text.data)

    def verify(self) -> None:
        if not self.text.data.strip():
            raise VerifyException("an opaque attribute or type needs its text")

    @property
    def mnemonic(self) -> str:
        """`iree_encoding.encoding` for `#iree_encoding.encoding<...>`,
        `affine_map` for a (semi-affine) `affine_map<...>`."""
        return self.text.data.lstrip("#!").split("<", 1)[0]


# Each class declares `text` again: xDSL compares attributes by the fields of
# the class `irdl_attr_definition` decorates, and a parameter declared only on
# an undecorated base is no field, which made every two of them equal.


@irdl_attr_definition
class OpaqueAttr(_OpaqueText):
    """A dialect attribute xsplit does not model, kept as MLIR's text for it."""

    name = "xsplit.opaque_attr"
    text: StringAttr


@irdl_attr_definition
class OpaqueType(_OpaqueText, TypeAttribute):
    """A dialect type xsplit does not model, kept as MLIR's text for it."""

    name = "xsplit.opaque_type"
    text: StringAttr
