"""Every change xsplit makes to xDSL 0.74's own classes, in one place.

xsplit runs on a pinned xDSL (0.74) and reads and prints what MLIR's tools
read and print. Where xDSL's classes fall short of that, or redo the same work
on every op of a module of tens of thousands, xsplit changes them in place:
an op class that `irdl_op_definition` decorated cannot be subclassed, and
xDSL's parser, printer and verifier reach its helpers by name, so a subclass
would not be seen. Each change is one function below, decorated `@_patch`,
whose docstring says what xDSL 0.74 lacks and why the change is safe;
`install()` applies them all, once, before any context is made
(`xsplit.dialects.register_upstream_extensions`). The changes that must hold
only while xsplit verifies a module are made with `overridden`, which puts
xDSL's own back afterwards (`xsplit.reader`).

Three kinds:

- compatibility: MLIR's verifiers, parsers and printed forms for xDSL's own
  ops. The functions are the ops' semantics and live with xsplit's dialects
  (`xsplit.dialects.slices`, `reshapes`, `linalg`, `builtin`); this module
  only attaches them to xDSL's classes.
- speed: the same result as xDSL's, computed once instead of on every call.
  Each patch names the xDSL function it replaces and keeps its results,
  its exceptions included.
- fast paths: functions of xsplit's own (`copy_op_shell`, `same_name_hint`)
  that read xDSL's internals to do what an xDSL call does, for the engine's
  copies of its templates. They check the layout they rely on and fall back
  to xDSL's call where it differs.

`xdsl-opt` loads xsplit through its `xdsl.universe` entry point, which
registers xsplit's dialects and so applies these too.

When xsplit moves to a newer xDSL, each docstring says what to look for
there; a patch whose gap xDSL has closed is deleted here and nowhere else.
"""

from __future__ import annotations

import dataclasses
import string
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import xdsl.irdl
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, IntegerType
from xdsl.dialects.utils.dynamic_index_list import (
    DYNAMIC_INDEX,
    DynamicIndexList,
)
from xdsl.ir import Block, BlockArgument, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.ir.core import OpResult, SSAValues, Use, _IRNode  # pyright: ignore[reportPrivateUsage]
from xdsl.irdl.operations import (
    BaseAccessor,
    BaseAttrAccessor,
    BeforeVariadicSingleAccessor,
    SingleAttrAccessor,
    VariadicAttrAccessor,
    VarIRConstruct,
)
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

_PATCHES: list[Callable[[], None]] = []


def _patch(install: Callable[[], None]) -> Callable[[], None]:
    _PATCHES.append(install)
    return install


_installed = False


def install() -> None:
    """Applies every patch below, once."""
    global _installed
    if _installed:
        return
    for apply in _PATCHES:
        apply()
    compare_attributes_by_parameters()
    _installed = True


@contextmanager
def overridden(owner: Any, name: str, value: Any) -> Iterator[None]:
    """`owner.name` is `value` inside the block and what it was after."""
    previous = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, previous)


# --- compatibility: MLIR's semantics for xDSL's own ops ----------------------


@_patch
def _slice_verifiers() -> None:
    """xDSL 0.74's `memref.subview`, `tensor.extract_slice` and
    `tensor.insert_slice` do not check their static offsets, sizes and strides
    against their dynamic operands and types as MLIR does. They get MLIR's
    verifiers, with MLIR's messages (`xsplit.dialects.slices`), so that the
    slices xsplit's passes build are checked as well as those it reads."""
    from xsplit.dialects.slices import SLICE_VERIFIERS

    for op, verify in SLICE_VERIFIERS.items():
        op.verify_ = verify  # type: ignore[method-assign]


@_patch
def _reshapes() -> None:
    """xDSL 0.74's tensor reshapes lack MLIR's checks of the reassociation
    against the shapes, and the tensor and memref reshapes print
    `[[0, 1], [2]]` as xDSL's integer attributes (`[[0 : i64, ...`) where MLIR
    prints plain integers. They get MLIR's checks and printed form
    (`xsplit.dialects.reshapes`); xDSL's parsers already read both forms."""
    from xsplit.dialects.reshapes import RESHAPE_PRINTERS, RESHAPE_VERIFIERS

    for op, verify in RESHAPE_VERIFIERS.items():
        op.verify_ = verify  # type: ignore[method-assign]
    for op, print_op in RESHAPE_PRINTERS.items():
        op.print = print_op  # type: ignore[method-assign]


@_patch
def _linalg_generic_and_reduce() -> None:
    """xDSL 0.74's `linalg.generic` parser misses parts of MLIR's custom form
    that IREE's dumps use, and its `linalg.reduce` drops the attribute
    dictionary. They get the parsers (and the printer) of
    `xsplit.dialects.linalg`; the classes stay xDSL's, so every `isinstance`
    check and builder keeps working."""
    from xsplit.dialects.linalg import GENERIC_AND_REDUCE_FORMAT

    for op, name, function in GENERIC_AND_REDUCE_FORMAT:
        setattr(op, name, classmethod(function) if name == "parse" else function)


@_patch
def _dense_splats() -> None:
    """xDSL 0.74 unpacks every element of a `dense<...>` attribute to decide
    whether it is a splat when it prints it: minutes and gigabytes for a
    62M-element constant MLIR holds as one value. Splat-ness is decided on
    the packed bytes instead (`xsplit.dialects.builtin`), with the same text."""
    from xsplit.dialects.builtin import is_splat, print_without_type

    DenseIntOrFPElementsAttr.is_splat = is_splat  # type: ignore[method-assign]
    DenseIntOrFPElementsAttr.print_without_type = print_without_type  # type: ignore[method-assign]


# --- speed: xDSL's results, computed once -------------------------------------

_xdsl_irdl_to_attr_constraint = xdsl.irdl.irdl_to_attr_constraint
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


@_patch
def _constraints_made_once() -> None:
    """xDSL 0.74's `isa(value, SomeAttr[Param])` turns its type hint into a
    constraint on every call (printing a `tensor.extract_slice` does it
    twice). The constraint a hint gives never changes, so
    `irdl_to_attr_constraint` makes it once per hint."""
    xdsl.irdl.irdl_to_attr_constraint = _irdl_to_attr_constraint  # pyright: ignore


_xdsl_get_values = DenseArrayBase.get_values


def _get_values(self: DenseArrayBase) -> Any:
    values = self.__dict__.get("_xsplit_values")
    if values is None:
        values = _xdsl_get_values(self)
        object.__setattr__(self, "_xsplit_values", values)
    return values


@_patch
def _dense_array_values_unpacked_once() -> None:
    """xDSL 0.74's `DenseArrayBase.get_values()` unpacks the array's bytes on
    each call; an op's `operandSegmentSizes` is read this way for every
    operand accessor and every verification. The attribute is immutable, so
    its values are unpacked once per attribute."""
    DenseArrayBase.get_values = _get_values  # type: ignore[method-assign]


def _is_integer_array(attr: Any) -> bool:
    """`isa(attr, DenseArrayBase[IntegerType])`, without building the constraint."""
    return isinstance(attr, DenseArrayBase) and isinstance(attr.elt_type, IntegerType)


def _print_index_list(self: DynamicIndexList, printer: Any, state: Any, op: Any) -> None:
    state.print_whitespace(printer)
    dynamic = self.dynamic_position.get(op)
    static = self.static_position.get(op)
    assert _is_integer_array(static)
    _print_indices(printer, dynamic, static.get_values())


def _print_indices(printer: Any, dynamic: Sequence[SSAValue], static: Sequence[int]) -> None:
    """`print_dynamic_index_list(printer, DYNAMIC_INDEX, dynamic, static)`:
    the same text, the integers between two values written in one piece
    where xDSL writes each integer and each comma alone."""
    if DYNAMIC_INDEX not in static:
        printer.print_string("[" + ", ".join(map(str, static)) + "]")
        return
    text = "["
    values = iter(dynamic)
    for i, integer in enumerate(static):
        if i:
            text += ", "
        if integer == DYNAMIC_INDEX:
            printer.print_string(text)
            printer.print_ssa_value(next(values))
            text = ""
        else:
            text += str(integer)
    printer.print_string(text + "]")


def _index_list_is_present(self: DynamicIndexList, op: Any) -> bool:
    dynamic_empty = not self.dynamic_position.get(op)
    static = self.static_position.get(op)
    assert _is_integer_array(static)
    return not (dynamic_empty and not static.data.data)


@_patch
def _index_lists_checked_by_isinstance() -> None:
    """xDSL 0.74's declarative format prints a slice's static offsets, sizes
    and strides (`DynamicIndexList`) after checking the array's type with
    `isa` and a generic hint, on every op. The `isinstance` checks that hint
    stands for give the same answer."""
    DynamicIndexList.print = _print_index_list  # type: ignore[method-assign]
    DynamicIndexList.is_present = _index_list_is_present  # type: ignore[method-assign]


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


@_patch
def _isolation_checked_in_one_walk() -> None:
    """xDSL 0.74's `IsolatedFromAbove.verify` walks up from the definition of
    every operand in the op's body to see that it lies inside. The blocks and
    ops of the body are known as it goes, so an operand defined by one of
    them needs no walk; the others get xDSL's check, and the first op that
    fails is the same."""
    IsolatedFromAbove.verify = _verify_isolated  # type: ignore[method-assign]


@_patch
def _identity_hashed_in_c() -> None:
    """xDSL 0.74 hashes ops, blocks, regions, SSA values and uses by
    `return id(self)`, a Python call on every dict and set lookup: the
    printer's table of value names, the verifier's and the rewrites' sets of
    values and ops. They compare by identity, and `object.__hash__` is an
    identity hash computed in C. Only the numbers differ, so only the order
    of a set of them could, which xsplit never prints from."""
    for cls in (_IRNode, SSAValue, Use):
        cls.__hash__ = object.__hash__  # type: ignore[method-assign]


_OPERAND, _RESULT, _REGION = VarIRConstruct.OPERAND, VarIRConstruct.RESULT, VarIRConstruct.REGION


def _constructs(op: Operation, construct: VarIRConstruct) -> Any:
    """The tuple behind `op.operands` (`.results`, ...): the view xDSL's
    property makes for each access indexes and slices this same tuple."""
    if construct is _OPERAND:
        return op._operands  # pyright: ignore[reportPrivateUsage]
    if construct is _RESULT:
        return op.results
    if construct is _REGION:
        return op.regions
    return op._successors  # pyright: ignore[reportPrivateUsage]


def _accessor_get(self: BaseAccessor, obj: Operation, objtype: Any = None) -> Any:
    return self.index(_constructs(obj, self.construct))


def _segment_starts(sizes: DenseArrayBase) -> tuple[int, ...]:
    """Where each segment begins, and the end of the last: the sizes'
    running sums, once per (immutable) sizes attribute."""
    starts = sizes.__dict__.get("_xsplit_starts")
    if starts is None:
        total, running = 0, [0]
        for size in _get_values(sizes):
            total += size
            running.append(total)
        starts = tuple(running)
        object.__setattr__(sizes, "_xsplit_starts", starts)
    return starts


def _attr_accessor_get(self: BaseAttrAccessor, obj: Operation, objtype: Any = None) -> Any:
    option = self.option
    container = obj.properties if option.as_property else obj.attributes
    sizes = container[option.attribute_name]
    kind = type(self)
    if kind is VariadicAttrAccessor or kind is SingleAttrAccessor:
        # xDSL's `index` for these two, from the running sums: a slice of
        # the segment, or its one element.
        starts = _segment_starts(sizes)
        begin = starts[self.idx]
        if kind is SingleAttrAccessor:
            return _constructs(obj, self.construct)[begin]
        return _constructs(obj, self.construct)[begin : starts[self.idx + 1]]
    return self.index(sizes.get_values(), _constructs(obj, self.construct))


def _single_accessor_get(
    self: BeforeVariadicSingleAccessor, obj: Operation, objtype: Any = None
) -> Any:
    return _constructs(obj, self.construct)[self.idx]


@_patch
def _named_operands_read_directly() -> None:
    """xDSL 0.74 reads a named operand, result or region (`op.lhs`) through
    `op.operands`, a view object made anew on each access, then picks the
    element or slice out of the tuple behind it. Printing, verifying and
    matching read names hundreds of thousands of times on a large module;
    the accessors index the tuple itself, with the same result (a slice of
    it is the same `SSAValues` the view returns)."""
    BaseAccessor.__get__ = _accessor_get  # type: ignore[method-assign]
    BeforeVariadicSingleAccessor.__get__ = _single_accessor_get  # type: ignore[method-assign]
    # The same for ops whose segments' sizes are a property (`operandSegmentSizes`).
    BaseAttrAccessor.__get__ = _attr_accessor_get  # type: ignore[method-assign]


def _equal_parameters(self: ParametrizedAttribute, other: object) -> bool:
    return type(self) is type(other) and self.parameters == other.parameters  # type: ignore


def _hash_parameters(self: ParametrizedAttribute) -> int:
    return hash((type(self), self.parameters))


_checked: set[type] = set()


def compare_attributes_by_parameters() -> None:
    """xDSL 0.74 compares an attribute by the fields of the class
    `irdl_attr_definition` decorated, and a parameter declared on an
    undecorated base class is no field: every two `dlti` specs compare equal.
    xsplit's printer and verifier remember work per attribute value
    (`xsplit.reader`), which needs attributes equal only when their
    parameters are, so such classes get an equality and hash on their
    parameters.

    xDSL defines a dialect's classes when the dialect is first loaded, so
    this runs again before each module is verified or printed; it looks at
    each class once."""
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


# --- fast paths that read xDSL's internals ------------------------------------

_OPERATION_FIELDS = (
    "_operands",
    "_operand_uses",
    "results",
    "_successors",
    "_successor_uses",
    "properties",
    "attributes",
    "location",
    "regions",
    "parent",
    "_next_op",
    "_prev_op",
)
_KNOWN_LAYOUT = tuple(f.name for f in dataclasses.fields(Operation)) == _OPERATION_FIELDS


_name_hints: dict[str, str] = {}


def same_name_hint(name: str | None) -> str | None:
    """What `value.name_hint = name` stores: xDSL 0.74's setter checks the
    name against a pattern and drops one `_N` suffix, each time, which copying
    a value's name repeats for every copy. Names repeat, so each is checked
    once."""
    if name is None:
        return None
    hint = _name_hints.get(name)
    if hint is None:
        hint = _name_hints[name] = SSAValue.extract_valid_name(name)
    return hint


def copy_op_shell(op: Operation, operands: Sequence[SSAValue]) -> Operation:
    """A new op of `op`'s class with its attributes, properties, location and
    result types and names, reading `operands`, with as many empty regions
    as `op` has and no successors: `op.create(...)` as `op.clone()` calls it.

    xDSL 0.74's `Operation.__init__` fills in the default properties and
    attributes of the op's definition, which a copy of an op has already, and
    setting each result's name checks it again (`same_name_hint`); the engine
    copies tens of thousands of ops from its templates. Where xDSL's
    `Operation` has other fields than the ones this fills in (another
    version), it is `op.create` itself."""
    if not _KNOWN_LAYOUT or op.successors:
        new = op.create(
            operands=operands,
            result_types=op.result_types,
            attributes=op.attributes.copy(),
            properties=op.properties.copy(),
            location=op.location,
            regions=[Region() for _ in op.regions],
        )
        for old, result in zip(op.results, new.results, strict=True):
            result.name_hint = old.name_hint
        return new
    cls = type(op)
    new = cls.__new__(cls)
    values = SSAValues(operands)
    uses = tuple([Use(new, index) for index in range(len(values))])
    for value, use in zip(values, uses):
        value.add_use(use)
    new._operands = values  # pyright: ignore[reportPrivateUsage]
    new._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    results: list[OpResult] = []
    for index, old in enumerate(op.results):
        result = OpResult(old.type, new, index)
        result._name = same_name_hint(old._name)  # pyright: ignore[reportPrivateUsage]
        results.append(result)
    new.results = SSAValues(results)
    new._successors = ()  # pyright: ignore[reportPrivateUsage]
    new._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
    new.properties = op.properties.copy()
    new.attributes = op.attributes.copy()
    new.location = op.location
    new.parent = None
    new._next_op = None  # pyright: ignore[reportPrivateUsage]
    new._prev_op = None  # pyright: ignore[reportPrivateUsage]
    new.regions = ()
    for _ in op.regions:
        new.add_region(Region())
    return new


_BLOCK_FIELDS = ("_first_op", "_last_op", "_next_block", "_prev_block", "parent")
_KNOWN_BLOCK_LAYOUT = _BLOCK_FIELDS == tuple(
    f.name for f in dataclasses.fields(Block) if f.name in _BLOCK_FIELDS
) and {f.name for f in dataclasses.fields(BlockArgument)} >= {"block", "index", "location"}


def copy_block_shell(block: Block) -> Block:
    """A new block with arguments of `block`'s types, locations and names
    and no ops, as xDSL's clone makes it with `insert_arg` per argument
    (which rebuilds the argument tuple each time)."""
    new = Block()
    args = block._args  # pyright: ignore[reportPrivateUsage]
    if not args:
        return new
    if not _KNOWN_BLOCK_LAYOUT:
        for index, arg in enumerate(args):
            new.insert_arg(arg.type, index, arg.location).name_hint = arg.name_hint
        return new
    made: list[BlockArgument] = []
    for index, arg in enumerate(args):
        new_arg = BlockArgument(arg.type, new, index, arg.location)
        new_arg._name = same_name_hint(arg._name)  # pyright: ignore[reportPrivateUsage]
        made.append(new_arg)
    new._args = tuple(made)  # pyright: ignore[reportPrivateUsage]
    return new


def append_new_op(block: Block, op: Operation) -> None:
    """`block.add_op(op)` for an op just made (no parent, no neighbours)
    and a block it does not hold: what `add_op` checks holds by making, so
    the op is linked at the end directly."""
    if not (_KNOWN_LAYOUT and _KNOWN_BLOCK_LAYOUT) or op.parent is not None or op.regions:
        block.add_op(op)
        return
    last = block._last_op  # pyright: ignore[reportPrivateUsage]
    op.parent = block
    op._prev_op = last  # pyright: ignore[reportPrivateUsage]
    if last is None:
        block._first_op = op  # pyright: ignore[reportPrivateUsage]
    else:
        last._next_op = op  # pyright: ignore[reportPrivateUsage]
    block._last_op = op  # pyright: ignore[reportPrivateUsage]


_SLICE_PROPERTIES = frozenset(
    {"static_offsets", "static_sizes", "static_strides", "operandSegmentSizes"}
)


def _print_extract_slice(self: Any, printer: Any) -> None:
    properties = self.properties
    if properties.keys() != _SLICE_PROPERTIES or not all(
        _is_integer_array(properties[name])
        for name in ("static_offsets", "static_sizes", "static_strides")
    ):
        _FORMATTED_EXTRACT_SLICE(self, printer)
        return
    operands = self._operands  # pyright: ignore[reportPrivateUsage]
    starts = _segment_starts(properties["operandSegmentSizes"])
    printer.print_string(" ")
    printer.print_ssa_value(operands[0])
    for i, name in enumerate(("static_offsets", "static_sizes", "static_strides")):
        if i:
            printer.print_string(" ")
        dynamic = operands[starts[i + 1] : starts[i + 2]]
        _print_indices(printer, dynamic, properties[name].get_values())
    printer.print_op_attributes(self.attributes)
    printer.print_string(" : ")
    printer.print_attribute(operands[0].type)
    printer.print_string(" to ")
    printer.print_attribute(self.results[0].type)


_FORMATTED_EXTRACT_SLICE: Callable[[Any, Any], None] = tensor.ExtractSliceOp.print


# --- printing by signature ----------------------------------------------------


def _format_directives() -> frozenset[type]:
    """The directives of xDSL 0.74's declarative format whose printing reads
    nothing of an op but its operands (printed by name), their and its
    results' types, its properties and attributes, and the format itself;
    `DynamicIndexList` as `_print_index_list` prints it. Region and successor
    directives, other custom directives and anything unknown are not here."""
    from xdsl.irdl import declarative_assembly_format as f

    return frozenset(
        {
            f.PunctuationDirective,
            f.KeywordDirective,
            f.WhitespaceDirective,
            f.OperandVariable,
            f.VariadicOperandVariable,
            f.OptionalOperandVariable,
            f.OperandsDirective,
            f.ResultVariable,
            f.VariadicResultVariable,
            f.OptionalResultVariable,
            f.ResultsDirective,
            f.TypeDirective,
            f.FunctionalTypeDirective,
            f.AttrDictDirective,
            f.AttributeVariable,
            f.UniqueBaseAttributeVariable,
            f.TypedAttributeVariable,
            f.DenseArrayAttributeVariable,
            f.SymbolNameAttributeVariable,
            f.OptionalUnitAttrVariable,
            f.OptionalGroupDirective,
            DynamicIndexList,
        }
    )


def _directives_read_the_signature(
    directive: Any, known: frozenset[type], optional: bool = False
) -> bool:
    """Whether `directive` and every directive inside it is of a kind in
    `known`, or a single region outside optional groups (printed by
    `print_region`; whether a group prints depends on its anchor, and a
    region anchors on whether it has blocks, which no signature says)."""
    from xdsl.irdl.declarative_assembly_format import (
        Directive,
        OptionalGroupDirective,
        RegionVariable,
    )

    if type(directive) is RegionVariable and not optional:
        return True
    if type(directive) not in known:
        return False
    optional = optional or type(directive) is OptionalGroupDirective
    inner = [
        value
        for field in dataclasses.fields(directive)
        for value in _as_tuple(getattr(directive, field.name))
        if isinstance(value, Directive)
    ]
    return all(_directives_read_the_signature(d, known, optional) for d in inner)


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def _signature_printers() -> frozenset[Callable[..., None]]:
    """Hand-written printers that read nothing of an op but its class,
    operands (printed by name, and their types), result types, properties
    and attributes, and print its regions, if at all, by `print_region`: a
    named linalg op's body, implied by its name, is not printed.
    `tensor.extract_slice`'s here, xDSL's `linalg.generic`, named linalg
    ops' (`linalg.fill`), `tensor.empty`'s, `arith.cmpi`'s and
    `affine.apply`'s, and xsplit's named linalg ops' (`linalg.matmul`,
    `xsplit.dialects.linalg`) and `scf.forall.in_parallel`'s."""
    from xdsl.dialects.affine import ApplyOp
    from xdsl.dialects.arith import CmpiOp
    from xdsl.dialects.linalg.abstract_ops import NamedOperation
    from xdsl.dialects.linalg.ops import GenericOp
    from xdsl.dialects.tensor import EmptyOp

    from xsplit.dialects.linalg import StructuredNamedOp
    from xsplit.dialects.scf import InParallelOp

    return frozenset(
        {
            _print_extract_slice,
            NamedOperation.print,
            StructuredNamedOp.print,
            GenericOp.print,
            EmptyOp.print,
            CmpiOp.print,
            ApplyOp.print,
            InParallelOp.print,
        }
    )


def prints_by_signature(cls: type[Operation]) -> bool:
    """Whether an op of class `cls` prints (after its name) text that depends
    only on its signature, with its operands' names spliced in: the class's
    `print` is xDSL's declarative format made of the directives
    `_format_directives` names (and regions), for a class without
    successors, or one of `_signature_printers`. Such an op's text is the
    same, but for those names and its regions, for every op of one
    signature (its class, the types of its operands and results, its
    properties and attributes), so a printer may print it once per
    signature (`xsplit.reader.XsplitPrinter`). An op with successors prints
    their names too; the caller checks."""
    from xdsl.irdl.declarative_assembly_format import FormatProgram

    printer = getattr(cls, "print", None)
    if printer in _signature_printers():
        return True
    if getattr(printer, "__name__", None) != "print_with_format" or not printer.__closure__:
        return False
    if cls.get_irdl_definition().successors:  # type: ignore[attr-defined]
        return False
    programs = [
        cell.cell_contents
        for cell in printer.__closure__
        if isinstance(cell.cell_contents, FormatProgram)
    ]
    if len(programs) != 1:
        return False
    known = _format_directives()
    return all(_directives_read_the_signature(d, known) for d in programs[0].stmts)


@_patch
def _extract_slice_printed_directly() -> None:
    """`tensor.extract_slice` is the op xsplit prints most (a split's chunks
    and tails); xDSL 0.74 prints it through its declarative format, directive
    by directive with a printing state. It is written here as that format
    writes it, for the properties the format knows; anything else goes
    through the format."""
    tensor.ExtractSliceOp.print = _print_extract_slice  # type: ignore[method-assign]


# --- the lexer -----------------------------------------------------------------

_LEXER_SINGLE = {
    ":": MLIRTokenKind.COLON,
    ",": MLIRTokenKind.COMMA,
    "(": MLIRTokenKind.L_PAREN,
    ")": MLIRTokenKind.R_PAREN,
    "}": MLIRTokenKind.R_BRACE,
    "[": MLIRTokenKind.L_SQUARE,
    "]": MLIRTokenKind.R_SQUARE,
    "<": MLIRTokenKind.LESS,
    ">": MLIRTokenKind.GREATER,
    "=": MLIRTokenKind.EQUAL,
    "+": MLIRTokenKind.PLUS,
    "/": MLIRTokenKind.SLASH,
    "*": MLIRTokenKind.STAR,
    "?": MLIRTokenKind.QUESTION,
    "|": MLIRTokenKind.VERTICAL_BAR,
}
"""xDSL 0.74's single-character tokens (`MLIRLexer.lex` builds this dict
for every token it lexes)."""
_LEXER_SPACE = frozenset(" \t\n\r\f\v/")
"""What may start whitespace or a comment; a lone `/` stays a token."""
_LEXER_LETTERS = frozenset(string.ascii_letters + "_")
_LEXER_DIGITS = frozenset(string.digits)


class FastMLIRLexer(MLIRLexer):
    """xDSL 0.74's `MLIRLexer`, with the tokens a module is mostly made of
    (bare and `%` identifiers, punctuation, `->`, decimal integers: 98% of
    the tokens of `bench/tool_speed.py`'s module) lexed in one branch on their first character, where
    xDSL's goes through a chain of tests, slices and a dict built anew for
    each token. The same tokens, spans and positions; everything else
    (strings, floats, hexadecimal numbers, `@`, `#`, `!`, `^` identifiers,
    file metadata, non-ASCII letters, the end of the input and every error)
    is xDSL's own `lex`, from the same position. The parsers of
    `xsplit.reader` lex with it."""

    def lex(self) -> Token[MLIRTokenKind, str]:
        content = self.input.content
        pos = self.pos
        if pos >= len(content):
            return super().lex()
        c = content[pos]
        if c in _LEXER_SPACE:
            pos = self._whitespace_regex.match(content, pos).end()  # type: ignore[union-attr]
            if pos >= len(content):
                return super().lex()
            c = content[pos]
        kind = _LEXER_SINGLE.get(c)
        if kind is not None:
            end = pos + 1
        elif c in _LEXER_LETTERS:
            end = self.bare_identifier_suffix_regex.match(content, pos + 1).end()  # type: ignore[union-attr]
            kind = MLIRTokenKind.BARE_IDENT
        elif c == "%":
            suffix = self._suffix_id.match(content, pos + 1)
            if suffix is None:
                return super().lex()  # its error
            end = suffix.end()
            kind = MLIRTokenKind.PERCENT_IDENT
        elif c == "-":
            if content.startswith(">", pos + 1):
                end, kind = pos + 2, MLIRTokenKind.ARROW
            else:
                end, kind = pos + 1, MLIRTokenKind.MINUS
        elif c == "{" and not content.startswith("-#", pos + 1):
            end, kind = pos + 1, MLIRTokenKind.L_BRACE
        elif c in _LEXER_DIGITS:
            end = self._digits_star_regex.match(content, pos + 1).end()  # type: ignore[union-attr]
            if content.startswith(".", end) or (c == "0" and content.startswith("x", pos + 1)):
                return super().lex()  # a float, or perhaps hexadecimal
            kind = MLIRTokenKind.INTEGER_LIT
        else:
            return super().lex()
        self.pos = end
        return Token(kind, Span(pos, end, self.input))
