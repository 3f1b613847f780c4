"""Faster paths through xDSL 0.74 that leave its results unchanged.

xsplit-opt parses, verifies and prints modules of tens of thousands of ops;
two of xDSL's helpers redo the same work on every op there:

- `isa(value, SomeAttr[Param])` turns its type hint into a constraint on
  each call (printing a `tensor.extract_slice` does it twice). The
  constraint a hint gives never changes, so it is made once per hint.
  Printing the static offsets, sizes and strides of a slice
  (`DynamicIndexList`) checks its array's type the same way, with the
  `isinstance` checks that hint stands for.
- `DenseArrayBase.get_values()` unpacks the array's bytes on each call; an
  op's `operandSegmentSizes` is read this way for every operand accessor and
  every verification. The attribute is immutable, so the values are unpacked
  once per attribute.
- `IsolatedFromAbove.verify` walks up from the definition of every operand in
  a function to see that it lies inside. The blocks and ops it walks are
  known as it goes, so an operand defined by one of them needs no walk; the
  others get xDSL's check, and the first op that fails is the same.

xsplit's printer and verifier also remember work per attribute value
(`xsplit.reader`), which needs attributes to be equal only when their
parameters are. xDSL compares an attribute by the fields of the class
`irdl_attr_definition` decorated, and a parameter declared on an undecorated
base class is no field: every two `dlti` specs compare equal. Such classes
are given an equality on their parameters.
"""

from __future__ import annotations

import typing
from typing import Any

import xdsl.irdl
from xdsl.dialects.builtin import DenseArrayBase, IntegerType
from xdsl.ir import Operation, ParametrizedAttribute, Region
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException
from xdsl.dialects.utils.dynamic_index_list import (
    DYNAMIC_INDEX,
    DynamicIndexList,
    print_dynamic_index_list,
)

_xdsl_irdl_to_attr_constraint = xdsl.irdl.irdl_to_attr_constraint
_xdsl_get_values = DenseArrayBase.get_values
_constraints: dict[Any, Any] = {}


def _irdl_to_attr_constraint(irdl: Any, **options: Any) -> Any:
    # `isa` calls this through `xdsl.irdl` with a generic alias alone
    # (`DenseArrayBase[IntegerType]`); other calls go straight through.
    if options or typing.get_origin(irdl) is None:
        return _xdsl_irdl_to_attr_constraint(irdl, **options)
    try:
        return _constraints[irdl]
    except KeyError:
        constraint = _constraints[irdl] = _xdsl_irdl_to_attr_constraint(irdl)
        return constraint
    except TypeError:  # an unhashable hint
        return _xdsl_irdl_to_attr_constraint(irdl)


def _get_values(self: DenseArrayBase) -> Any:
    values = self.__dict__.get("_xsplit_values")
    if values is None:
        values = _xdsl_get_values(self)
        object.__setattr__(self, "_xsplit_values", values)
    return values


def _is_integer_array(attr: Any) -> bool:
    """`isa(attr, DenseArrayBase[IntegerType])`, without building the constraint."""
    return isinstance(attr, DenseArrayBase) and isinstance(attr.elt_type, IntegerType)


def _print_index_list(self: DynamicIndexList, printer: Any, state: Any, op: Any) -> None:
    state.print_whitespace(printer)
    dynamic = self.dynamic_position.get(op)
    static = self.static_position.get(op)
    assert _is_integer_array(static)
    print_dynamic_index_list(printer, DYNAMIC_INDEX, dynamic, static.get_values())


def _index_list_is_present(self: DynamicIndexList, op: Any) -> bool:
    dynamic_empty = not self.dynamic_position.get(op)
    static = self.static_position.get(op)
    assert _is_integer_array(static)
    return not (dynamic_empty and not static.data.data)


def _verify_isolated(self: IsolatedFromAbove, op: Operation) -> None:
    inside: set[int] = set()
    children: list[Operation] = []
    regions: list[Region] = list(op.regions)
    while regions:
        region = regions.pop()
        for block in region.blocks:
            inside.add(id(block))
            for child in block.ops:
                inside.add(id(child))
                children.append(child)
                if not child.has_trait(IsolatedFromAbove):
                    regions += child.regions
    for child in children:
        for operand in child.operands:
            owner = operand.owner
            if id(owner) not in inside and (not op.is_ancestor(owner) or owner is op):
                raise VerifyException(
                    f"Operation using value defined out of its IsolatedFromAbove parent: {child}"
                )


def _equal_parameters(self: ParametrizedAttribute, other: object) -> bool:
    return type(self) is type(other) and self.parameters == other.parameters  # type: ignore


def _hash_parameters(self: ParametrizedAttribute) -> int:
    return hash((type(self), self.parameters))


_checked: set[type] = set()


def compare_attributes_by_parameters() -> None:
    """Gives the attribute classes defined so far whose parameters are not all
    fields an equality and hash on their parameters. xDSL defines a dialect's
    classes when the dialect is first loaded, so this runs again before each
    module is verified or printed; it looks at each class once."""
    pending = list(ParametrizedAttribute.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls in _checked:
            continue
        _checked.add(cls)
        try:
            definition = cls.get_irdl_definition()
        except Exception:  # an abstract base, not an attribute of its own
            continue
        if definition is None:
            continue
        fields = set(getattr(cls, "__dataclass_fields__", {})) - {"name"}
        if fields != {name for name, _ in definition.parameters}:
            cls.__eq__ = _equal_parameters  # type: ignore[method-assign]
            cls.__hash__ = _hash_parameters  # type: ignore[method-assign]


_installed = False


def install_speedups() -> None:
    """Installs the faster paths, once."""
    global _installed
    if _installed:
        return
    xdsl.irdl.irdl_to_attr_constraint = _irdl_to_attr_constraint  # pyright: ignore
    DenseArrayBase.get_values = _get_values  # type: ignore[method-assign]
    DynamicIndexList.print = _print_index_list  # type: ignore[method-assign]
    DynamicIndexList.is_present = _index_list_is_present  # type: ignore[method-assign]
    IsolatedFromAbove.verify = _verify_isolated  # type: ignore[method-assign]
    compare_attributes_by_parameters()
    _installed = True
