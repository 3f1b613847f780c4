"""Fixes to xDSL 0.74's builtin `dense<...>` attribute for large splats.

xDSL expands a splat (`dense<0> : tensor<100x64x220x220xi32>`) element by
element when it parses it, and unpacks every element again to decide whether
it is a splat when it prints it: minutes and gigabytes for a 62M-element
constant that MLIR holds as one value. xsplit's parser (`xsplit.reader`) makes
a `SplatElementsAttr`, which stores the one value, for every large splat.
Printing any dense attribute decides splat-ness on the packed bytes.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BuiltinAttribute, DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.printer import Printer

SPLAT_STORED_ONCE_ABOVE = 1 << 20
"""Splats with more elements than this are stored once; smaller ones stay
plain dense attributes (a few MiB at most), as xDSL's own code expects."""


@irdl_attr_definition
class SplatElementsAttr(ParametrizedAttribute, BuiltinAttribute):
    """`dense<v> : T` for a shaped type `T` whose elements all equal `v`, stored once.

    xDSL's dense attribute cannot be subclassed, so ops that insist on one
    (`arith.constant`) do not accept this: xsplit then carries the op
    unregistered, which prints it back unchanged."""

    name = "xsplit.splat_elements"

    type: Attribute
    element: DenseIntOrFPElementsAttr
    """The one value, as a one-element dense attribute."""

    def __init__(self, type: Attribute, element: DenseIntOrFPElementsAttr):
        super().__init__(type, element)

    def get_type(self) -> Attribute:
        return self.type

    def print_builtin(self, printer: Printer) -> None:
        _print_splat(self.element, self.element.data.data, printer)
        printer.print_string(" : ")
        printer.print_attribute(self.type)


def _print_splat(attr: DenseIntOrFPElementsAttr, one: bytes, printer: Printer) -> None:
    (value,) = attr.get_element_type().unpack(one, 1)  # pyright: ignore
    printer.print_string("dense")
    with printer.in_angle_brackets():
        attr._print_one_elem(value, printer)  # pyright: ignore[reportPrivateUsage]


_xdsl_print_without_type = DenseIntOrFPElementsAttr.print_without_type


def _element_size(attr: DenseIntOrFPElementsAttr) -> int:
    return attr.get_element_type().compile_time_size  # pyright: ignore[reportAttributeAccessIssue]


def is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """All elements are equal: the bytes repeat with the element's period."""
    data = memoryview(attr.data.data)
    size = _element_size(attr)
    return len(data) >= size and data[size:] == data[:-size]


def print_without_type(attr: DenseIntOrFPElementsAttr, printer: Printer) -> None:
    size = _element_size(attr)
    if len(attr.data.data) > size and is_splat(attr):
        _print_splat(attr, attr.data.data[:size], printer)
        return
    _xdsl_print_without_type(attr, printer)
