"""Reading MLIR text: xDSL's parser where it suffices, iree-opt's where not.

xsplit must read whatever `iree-opt` 3.13 reads (IREE dumps, `util.func`
modules, IREE's and MLIR's test files) and print back the same program, whether
or not it has a Python class for every op, attribute and type in it. It reads
in two ways:

- natively: xDSL parses the text with xsplit's dialects. This keeps the user's
  SSA names and prints in xDSL's form, and it is the only way to read xsplit's
  own dialects (`rock`, `linalg_ext`), which iree-opt does not know. Text that
  xDSL reads but loses part of (file metadata such as resource blobs, a
  function declaration's argument attributes) is read carried instead.
- carried: when xDSL cannot parse the text, iree-opt parses and verifies it and
  prints it generic, alias-free and with every location. xsplit then parses
  that with every op it does not know kept as an unregistered op, every
  attribute or type it does not know kept as its text (`OpaqueAttr`,
  `OpaqueType`), and every known op that MLIR's generic form does not fit
  xDSL's definition of kept as an unregistered op too. Rewrites see the ops
  they match as xsplit's classes, and everything else goes through untouched.
  Such a module is printed back through iree-opt, in its custom form where
  that reads back as the same program, else in its generic form.

Either way an error names `file:line:col`: xDSL's parse errors and verifier
failures by the op's location, iree-opt's by its own diagnostic.
"""

from __future__ import annotations

import functools
import io
import json
import math
import re
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
    UnregisteredAttr,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from xsplit.collector import collector_paused
from xsplit.diagnostics import XsplitError
from xsplit.dialects import make_context
from xsplit.dialects.builtin import SPLAT_STORED_ONCE_ABOVE, SplatElementsAttr
from xsplit.dialects.opaque import OpaqueAttr, OpaqueType
from xsplit.dialects.util import FuncOp as UtilFuncOp
from xsplit.verifier import one_line, verify_module
from xsplit.xdsl_compat import (
    FastMLIRLexer,
    compare_attributes_by_parameters,
    overridden,
    prints_by_signature,
)


class XsplitParser(Parser):
    """xDSL's parser with large splats read in constant time per element type,
    hexadecimal floats read as MLIR reads them, resource handles kept,
    each static tensor type and affine map read once per spelling, and
    tokens read by xsplit's lexer (`FastMLIRLexer`)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, input, name)
        # xDSL's lexer has read the first token; the rest are xsplit's.
        state = self._parser_state
        lexer = FastMLIRLexer(state.lexer.input)
        lexer.pos = state.lexer.pos
        state.lexer = lexer

    def _parse_optional_builtin_parametrized_type(self) -> Any:
        # `tensor<16x1000xf32>` costs xDSL some twenty tokens; a module spells
        # the same few types over and over.
        token = self._current_token
        if token.text != "tensor":
            return super()._parse_optional_builtin_parametrized_type()
        spelled = _STATIC_TENSOR_TYPE.match(self.lexer.input.content, token.span.start)
        if spelled is None:
            return super()._parse_optional_builtin_parametrized_type()
        return self._once_per_spelling(
            spelled.group(), spelled.end(), super()._parse_optional_builtin_parametrized_type
        )

    def _parse_optional_builtin_parametrized_attr(self) -> Any:
        # So do `affine_map<(d0, d1, d2) -> (d0, d2)>`s, in every linalg.generic.
        token = self._current_token
        text = self.lexer.input.content
        if token.text != "affine_map" or not text.startswith("<", token.span.end):
            return super()._parse_optional_builtin_parametrized_attr()
        end = _balanced_end(text, token.span.end + 1)
        if end < 0:
            return super()._parse_optional_builtin_parametrized_attr()
        return self._once_per_spelling(
            text[token.span.start : end + 1],
            end + 1,
            super()._parse_optional_builtin_parametrized_attr,
        )

    def _once_per_spelling(self, spelled: str, end: int, parse: Any) -> Any:
        """The attribute spelled `spelled`, which ends at `end`: parsed by
        `parse` the first time in the process, the same (immutable, and
        builtin: no context reads it differently) attribute after. The
        templates of a pass's rewrites spell the input's types again, once
        per shape they are filled for."""
        known = _SPELLED.get(spelled)
        if known is None:
            known = parse()
            after = self.pos
            text = self.lexer.input.content
            if known is not None and after >= end and not text[end:after].strip():
                if len(_SPELLED) >= _SPELLED_KEPT:
                    _SPELLED.clear()
                _SPELLED[spelled] = known
            return known
        self._resume_from(end)
        return known

    def _parse_dialect_resource_handle(self, dialect_name: str, interface: Any) -> str:
        # xDSL declares each handle in its dialect's storage, which outlives
        # the context, and renames a key it has seen before (`blob` becomes
        # `blob_0` in the second module a process reads). xsplit reads no
        # blobs into that storage (a carried module keeps its `{-# ... #-}`
        # text), so the handle is just its name.
        return self.parse_identifier(" for resource handle")

    def parse_dense_int_or_fp_elements_attr(self, type: Any) -> DenseIntOrFPElementsAttr:
        start = self._current_token.span.start
        literal = self._parse_optional_literal(type)
        if literal is not None:
            return literal
        self._resume_from(start)
        return super().parse_dense_int_or_fp_elements_attr(type)

    def _parse_optional_literal(self, type: Any) -> DenseIntOrFPElementsAttr | None:
        """A splat `<v> [: type]`, or a literal with hexadecimal floats, or
        None (with the position undefined) for what xDSL's parser reads right.

        MLIR reads a hexadecimal integer for a float element as its bits
        (`dense<0xFF800000> : tensor<4xf32>` is -inf); xDSL converts the
        integer's value."""
        if self.parse_optional_punctuation("<") is None:
            return None
        if self._current_token.text in (">", "[") and not self._hex_ahead():
            return None
        if self.parse_optional_str_literal():
            return None
        try:
            values, shape = self._parse_tensor_literal()
        except ParseError:
            return None
        if self.parse_optional_punctuation(">") is None:
            return None
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        element_type = type.element_type
        if isinstance(element_type, ComplexType):
            return None
        if shape:
            if not isinstance(element_type, AnyFloat) or not any(map(_is_hex, values)):
                return None
            if list(type.get_shape()) != shape:
                self.raise_error(
                    f"Shape mismatch in dense literal. Expected {list(type.get_shape())} "
                    f"shape from the type, but got {shape} shape."
                )
            data = b"".join(self._element_bytes(v, type) for v in values)
            return DenseIntOrFPElementsAttr(type, BytesAttr(data))
        if len(values) != 1:
            return None
        one = DenseIntOrFPElementsAttr(
            type.__class__(element_type, [1]),  # pyright: ignore[reportCallIssue]
            BytesAttr(self._element_bytes(values[0], type)),
        )
        count = math.prod(type.get_shape())
        if count > SPLAT_STORED_ONCE_ABOVE:
            return SplatElementsAttr(type, one)  # pyright: ignore[reportReturnType]
        return DenseIntOrFPElementsAttr(type, BytesAttr(one.data.data * count))

    def _hex_ahead(self) -> bool:
        """Whether the bracketed literal starting here holds a `0x` number."""
        text = self.lexer.input.content
        start = self._current_token.span.start
        end = text.find(">", start)
        return "0x" in text[start : end if end >= 0 else len(text)]

    def _element_bytes(self, value: Any, type: Any) -> bytes:
        element_type = type.element_type
        if isinstance(element_type, AnyFloat) and _is_hex(value):
            size = element_type.compile_time_size
            bits = int(value.span.text, 16)
            if bits >= 1 << (8 * size):
                self.raise_error(f"hexadecimal float literal does not fit {element_type}", value.span)
            return bits.to_bytes(size, "little")
        one = type.__class__(element_type, [1])
        return DenseIntOrFPElementsAttr.from_list(one, [value.to_type(self, element_type)]).data.data


_SPELLED: dict[str, Attribute] = {}
"""The attributes `XsplitParser._once_per_spelling` has read, by spelling."""
_SPELLED_KEPT = 4096
"""At most this many: a long-lived process (the tests) reads many modules."""

_STATIC_TENSOR_TYPE = re.compile(r"tensor<(?:[0-9]+x)*(?:[fi][0-9]+|bf16|index)>")
"""A ranked tensor type of static shape and a scalar element type, without an
encoding: what `XsplitParser` reads once per spelling."""


def _is_hex(value: Any) -> bool:
    return value.span.text.lower().startswith("0x")


class LocatingParser(XsplitParser):
    """A parser that gives each op the `file:line:col` it was parsed from.

    Lines are counted incrementally, in the order ops start: xDSL's
    `Span.get_location()` counts from the start of the input each time, which
    is quadratic over a large file."""

    _line_start: int = 0
    _line_number: int = 1
    _filename: StringAttr | None = None

    def parse_operation(self) -> Operation:
        start = self._current_token.span  # pyright: ignore[reportPrivateUsage]
        # Before the op is parsed: the ops nested in it start after it does.
        line, col = self._line_col(start.start)
        op = super().parse_operation()
        if _loses_attributes(op, self.lexer.input.content, start.start, self.pos):
            raise MustCarry(op.name)
        if isinstance(op.location, UnknownLoc):
            if self._filename is None:
                self._filename = StringAttr(start.input.name)
            op.location = FileLineColLoc(self._filename, IntAttr(line), IntAttr(col))
        return op

    def _line_col(self, pos: int) -> tuple[int, int]:
        text = self.lexer.input.content
        if pos < self._line_start:  # not expected: ops start in order
            self._line_start, self._line_number = 0, 1
        line_start = text.rfind("\n", 0, pos) + 1
        if line_start > self._line_start:
            self._line_number += text.count("\n", self._line_start, line_start)
            self._line_start = line_start
        return self._line_number, pos - line_start + 1


class MustCarry(Exception):
    """The text parsed natively, but xDSL's op lost part of it: read it carried."""


def _loses_attributes(op: Operation, text: str, start: int, end: int) -> bool:
    """Whether xDSL dropped attributes of `op` that its text, `text[start:end]`, spells.

    xDSL 0.74 parses a function declaration's argument and result attributes
    (`func.func private @f(tensor<4xf32> {a.b = 1})`) and forgets them; so
    does `util.func`, which reads its signature the same way."""
    if not isinstance(op, FuncOp | UtilFuncOp) or op.body.blocks:
        return False
    signature = text[start:end].split(" attributes", 1)[0]
    return "{" in signature


class CarryingParser(XsplitParser):
    """Reads iree-opt's generic form, carrying what xsplit does not model.

    A dialect attribute or type that no xsplit or xDSL class parses, or a
    builtin one that xDSL cannot represent, becomes an `OpaqueAttr` or
    `OpaqueType` holding its exact text. Unknown ops are xDSL's
    `UnregisteredOp`s (the context allows them)."""

    def _parse_extended_type_or_attribute(self, attr_or_dialect_name: str, is_type: bool) -> Any:
        after_name = self._current_token.span.start
        if "." not in attr_or_dialect_name and self._current_token.text != "<":
            # An alias: iree-opt's local-scope output has none, but keep xDSL's rule.
            return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)  # pyright: ignore
        attr = self._attempt(
            lambda: super(CarryingParser, self)._parse_extended_type_or_attribute(  # pyright: ignore
                attr_or_dialect_name, is_type
            )
        )
        if attr is not _FAILED and not isinstance(attr, UnregisteredAttr):
            return attr
        self._resume_from(after_name)
        sigil = "!" if is_type else "#"
        # A typed dialect attribute prints its type after it
        # (`#flow.parameter.named<...> : tensor<i32>`): it is part of the attribute.
        return self._carry(sigil + attr_or_dialect_name, after_name, is_type, typed=not is_type)

    def _parse_optional_builtin_parametrized_attr(self) -> Attribute | None:
        return self._builtin_or_carried(super()._parse_optional_builtin_parametrized_attr, False)

    def parse_optional_type(self) -> Any:
        return self._builtin_or_carried(super().parse_optional_type, True)

    def _builtin_or_carried(self, parse: Any, is_type: bool) -> Any:
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT:
            return parse()
        attr = self._attempt(parse)
        if attr is not _FAILED:
            return attr
        self._resume_from(token.span.start)
        return self._carry(token.text, token.span.end, is_type, typed=not is_type)

    def _attempt(self, parse: Any) -> Any:
        """`parse()`, or `_FAILED` where xDSL fails on what MLIR printed."""
        try:
            return parse()
        except (ParseError, NotImplementedError, ValueError, TypeError, AssertionError, KeyError):
            return _FAILED

    def _carry(self, head: str, pos: int, is_type: bool, typed: bool = False) -> Attribute:
        """Carries `head` and the `<...>` body at `pos` (and, for a typed
        builtin attribute, its `: type`) as text."""
        text = self.lexer.input.content
        end = pos
        if text.startswith("<", pos):
            end = _balanced_end(text, pos + 1)
            if end < 0:
                self.raise_error(f"unbalanced '<' after '{head}'", pos)
            end += 1
        self._resume_from(end)
        whole = head + text[pos:end]
        if typed and self.parse_optional_punctuation(":") is not None:
            type_start = self._current_token.span.start
            self.parse_type()
            whole += " : " + text[type_start : self._current_token.span.start].rstrip()
        return OpaqueType(whole) if is_type else OpaqueAttr(whole)


_FAILED = object()

_CLOSING = {">": "<", ")": "(", "]": "[", "}": "{"}


def _balanced_end(text: str, pos: int) -> int:
    """The index of the `>` that closes the `<` just before `pos`, or -1.

    String literals may hold any bracket; `->` is an arrow, not a bracket."""
    stack: list[str] = []
    n = len(text)
    while pos < n:
        c = text[pos]
        if c == '"':
            pos += 1
            while pos < n and text[pos] != '"':
                pos += 2 if text[pos] == "\\" else 1
        elif c == "-" and text.startswith(">", pos + 1):
            pos += 1
        elif c in "<([{":
            stack.append(c)
        elif c in _CLOSING:
            if not stack:
                return pos if c == ">" else -1
            if stack.pop() != _CLOSING[c]:
                return -1
        pos += 1
    return -1


_CARRIED: weakref.WeakSet[ModuleOp] = weakref.WeakSet()
"""Modules read through iree-opt; they are printed back through it too."""


def was_carried(module: ModuleOp) -> bool:
    """Whether `module` was read through iree-opt (and so is printed through it)."""
    return module in _CARRIED


def read_module(
    source: str,
    filename: str = "<string>",
    ctx: Context | None = None,
    first_line: int = 1,
    verify: bool = True,
) -> ModuleOp:
    """Parses and verifies MLIR text; `first_line` numbers its first line.
    With `verify` False it is only parsed (see `parse_module`)."""
    padded = "\n" * (first_line - 1) + source
    if "{-#" in source:
        # File metadata (`{-# dialect_resources: ... #-}`, the blobs behind
        # `dense_resource<...>`): xDSL reads and drops it; iree-opt keeps it.
        return _read_carried(padded, filename)
    try:
        with collector_paused():
            module = LocatingParser(ctx or make_context(), padded, filename).parse_module()
    except ParseError as e:
        return _read_carried(padded, filename, parse_error=e)
    except Exception:  # xDSL raises plain errors for some input it cannot parse
        return _read_carried(padded, filename, parse_error=None)
    if not verify:
        return module
    try:
        verify_module(module)
    except XsplitError as e:
        return _read_carried(padded, filename, verify_error=e)
    return module


def _read_carried(
    padded: str,
    filename: str,
    parse_error: ParseError | None = None,
    verify_error: XsplitError | None = None,
) -> ModuleOp:
    from xsplit.iree.iree_opt import GENERIC_WITH_LOCATIONS, run_iree_opt

    # iree-opt is MLIR's parser and verifier: if it accepts the input, xDSL's
    # complaint was about xDSL, and the module is carried. If it rejects it
    # too, the module is invalid. Then xsplit's verifier message stands where
    # xsplit parsed the module; else MLIR's diagnostic is given, unless what
    # MLIR does not know is an op of xsplit's own dialects (`rock`, ...).
    try:
        generic = run_iree_opt(padded, filename, GENERIC_WITH_LOCATIONS)
    except XsplitError as mlir_error:
        if verify_error is not None:
            raise verify_error from None
        unknown_to_mlir = any(m in mlir_error.message for m in _MLIR_UNKNOWN_OP_MESSAGES)
        if unknown_to_mlir and parse_error is not None:
            location = str(parse_error.span.get_location())
            raise XsplitError.at(location, one_line(parse_error.msg)) from None
        raise mlir_error from None
    generic, metadata = _split_metadata(generic)
    if "{-#" in padded and not metadata:
        # iree-opt prints no resources in local-scope form: ask for them alone.
        _, metadata = _split_metadata(run_iree_opt(padded, filename, ["--mlir-print-op-generic"]))
    try:
        module = CarryingParser(_carrying_context(), generic, filename).parse_module()
    except ParseError as e:
        where = _input_location(generic, e.span.start) or filename
        raise XsplitError.at(where, f"xsplit cannot carry this op: {one_line(e.msg)}") from None
    except Exception:
        raise XsplitError(f"{filename}: iree-opt reads it, but xsplit cannot carry it") from None
    _carry_ops_xsplit_misreads(module)
    _CARRIED.add(module)
    if metadata:
        _METADATA[module] = metadata
    return module


_METADATA: weakref.WeakKeyDictionary[ModuleOp, str] = weakref.WeakKeyDictionary()
"""The `{-# ... #-}` file metadata of a carried module, printed after it."""


def _split_metadata(generic: str) -> tuple[str, str]:
    """iree-opt's output as the module's text and the metadata after it."""
    at = generic.find("\n{-#")
    if at < 0:
        return generic, ""
    return generic[:at] + "\n", generic[at + 1 :]


_LOC = re.compile(r'loc\(("(?:[^"\\]|\\.)*"):(\d+):(\d+)\)')


def _input_location(generic: str, pos: int) -> str | None:
    """`file:line:col` of the op whose generic line holds `pos`: iree-opt
    printed each op's input location at the end of its line."""
    line_start = generic.rfind("\n", 0, pos) + 1
    line_end = generic.find("\n", pos)
    found = _LOC.findall(generic[line_start : line_end if line_end >= 0 else len(generic)])
    if not found:
        return None
    name, line, col = found[-1]
    return f"{json.loads(name)}:{line}:{col}"


def print_carried(module: ModuleOp, generic: bool = False) -> str:
    """A carried module's text, as iree-opt prints it.

    MLIR's custom printers are not all a fixed point: `util.func @f` (no
    visibility) prints as `util.func public @f`, which reads back with a
    `sym_visibility` the module did not have. Where iree-opt's custom form
    does not read back as the module, the generic form is given: the same
    program is what matters."""
    from xsplit.iree.iree_opt import run_iree_opt
    from xsplit.iree.roundtrip import generic_forms

    out = io.StringIO()
    with collector_paused():
        XsplitPrinter(stream=out, print_generic_format=True).print_op(module)
    out.write("\n")
    out.write(_METADATA.get(module, ""))
    text = out.getvalue()
    if generic:
        return run_iree_opt(text, _OUTPUT_NAME, ["--mlir-print-op-generic"])
    custom = run_iree_opt(text, _OUTPUT_NAME)
    held, printed = generic_forms([text, custom])
    if held is not None and held == printed:
        return custom
    return run_iree_opt(text, _OUTPUT_NAME, ["--mlir-print-op-generic"])


_OUTPUT_NAME = "<xsplit output>"


_MLIR_UNKNOWN_OP_MESSAGES = ("is unknown", "not found for custom op", "is not registered")


def _carrying_context() -> Context:
    ctx = make_context(allow_unregistered=True)
    return ctx


def _carry_ops_xsplit_misreads(module: ModuleOp) -> None:
    """Turns each known op whose generic form xDSL's class rejects into an
    unregistered op with the same operands, results, attributes, properties,
    successors and regions. Why each was is kept for `demoted_ops`."""
    with _plain_verify_errors():
        misread = [
            (op, reason)
            for op in module.walk(reverse=True)
            if not isinstance(op, UnregisteredOp | ModuleOp)
            and (reason := _verify_failure(op)) is not None
        ]
    demoted: list[tuple[str, str]] = []
    while misread:
        demoted.extend((op.name, reason) for op, reason in reversed(misread))
        misread = _demote(misread)
    if demoted:
        _DEMOTED[module] = demoted


def _demote(misread: list[tuple[Operation, str]]) -> list[tuple[Operation, str]]:
    """Carries each op as an unregistered one; returns the ops directly inside
    them that no longer verify once their parent is unregistered (a
    `flow.return`, which must sit in a dispatch op xsplit knows)."""
    children: list[Operation] = []
    for op, _ in misread:
        carried = UnregisteredOp.with_name(op.name).create(
            operands=op.operands,
            result_types=op.result_types,
            attributes=dict(op.attributes),
            properties=dict(op.properties),
            successors=op.successors,
            regions=[op.detach_region(r) for r in tuple(op.regions)],
        )
        carried.location = op.location
        for old, new in zip(op.results, carried.results):
            new.name_hint = old.name_hint
        Rewriter.replace_op(op, carried)
        children.extend(
            inner
            for region in carried.regions
            for block in region.blocks
            for inner in block.ops
            if not isinstance(inner, UnregisteredOp)
        )
    with _plain_verify_errors():
        return [
            (op, reason)
            for op in reversed(children)
            if (reason := _verify_failure(op)) is not None
        ]


_DEMOTED: weakref.WeakKeyDictionary[ModuleOp, list[tuple[str, str]]] = weakref.WeakKeyDictionary()


def demoted_ops(module: ModuleOp) -> list[tuple[str, str]]:
    """The ops of a carried module that xsplit has a class for but holds as
    unregistered ops, because MLIR's form of them did not verify as that
    class: (op name, the verifier's message), in program order. Passes do not
    see these ops as what they are."""
    return list(_DEMOTED.get(module, ()))


@contextmanager
def _plain_verify_errors() -> Iterator[None]:
    """xDSL's verifier prints the whole module into each failure's message:
    quadratic when many ops of a large module fail. Here only the message is
    needed."""

    def emit_error(self: Operation, message: str, underlying_error: Exception) -> NoReturn:
        raise VerifyException(str(underlying_error)) from underlying_error

    with overridden(Operation, "emit_error", emit_error):
        yield


def _verify_failure(op: Operation) -> str | None:
    try:
        op.verify(verify_nested_ops=False)
    except Exception as e:
        return one_line(str(e)) or type(e).__name__
    return None


_COMMENT = re.compile(r"//[^\n]*")


def parse_module(
    source: str,
    filename: str = "<string>",
    ctx: Context | None = None,
    first_line: int = 1,
    verify: bool = True,
) -> ModuleOp:
    """Parses and verifies MLIR text; `first_line` numbers its first line.

    Whatever iree-opt 3.13 reads is read: see `xsplit.reader`. `verify`
    False skips the verification, for text whose IR is verified later
    anyway (a rewrite's templates: the pass's output is)."""
    if not _COMMENT.sub("", source).strip():
        # mlir-opt reads an empty input (or one of only comments) as an empty
        # module; xDSL 0.74's parser rejects it.
        return ModuleOp([])
    return read_module(source, filename, ctx, first_line, verify)


def print_module(module: Operation, generic: bool = False) -> str:
    """The module's text. One read through iree-opt is printed through it
    again, so that what xsplit carried reads as iree-opt prints it."""
    if isinstance(module, ModuleOp) and was_carried(module):
        return print_carried(module, generic)
    out = io.StringIO()
    with collector_paused():
        XsplitPrinter(stream=out, print_generic_format=generic).print_op(module)
    out.write("\n")
    return out.getvalue()


class XsplitPrinter(Printer):
    """xDSL's printer, with the same output, faster on large modules.

    Text without a line break goes straight to the stream (xDSL's goes through
    `print()`), and each parametrized attribute (a type, an affine map) is
    printed once per module: its text is kept and written again where the same
    or an equal attribute recurs. An attribute is a value, so equal ones print the same;
    one whose printing spans lines or names a resource blob is printed each
    time, since its text depends on where it is printed.

    The same goes for an op whose printed form reads nothing but its
    signature and its operands' names (`prints_by_signature`: most
    declarative formats, the named linalg ops): its text is printed once per
    signature, with the places of its operands' names and its regions
    noted, and written again for every op of that signature with their
    names and regions printed in place (`_print_by_signature`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        compare_attributes_by_parameters()
        self._attribute_text: dict[Attribute, str | None] = {}
        self._by_identity: dict[int, tuple[Attribute, str | None]] = {}
        self._texts: dict[tuple[Any, ...], _OpText | None] = {}
        self._recording: _Recording | None = None

    def print_op(self, op: Operation) -> None:
        if (
            op._successors  # pyright: ignore[reportPrivateUsage]
            or self.print_generic_format
            or self.print_debuginfo
            or self._next_line_callback
            or self.diagnostic.op_messages
            or not _by_signature(type(op))
        ):
            super().print_op(op)
            return
        # What xDSL's print_op writes for an op that is not isolated from
        # above and has a custom format: its results, its name, its text.
        results = op.results
        if len(results) == 1:
            self.print_ssa_value(results[0])
            self.print_string(" = ")
        elif results:
            self.print_list(results, self.print_ssa_value)
            self.print_string(" = ")
        self.print_string(op.name)
        self._print_by_signature(op)

    def _print_by_signature(self, op: Operation) -> None:
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        properties, attributes = op.properties, op.attributes
        key = (
            type(op),
            # `_type`: what the `type` property reads, without the call.
            *[id(v._type) for v in operands],  # pyright: ignore[reportPrivateUsage]
            None,
            *[id(r._type) for r in op.results],  # pyright: ignore[reportPrivateUsage]
            None,
            *properties,
            *map(id, properties.values()),
            None,
            *attributes,
            *map(id, attributes.values()),
            None,
            # Which operands are one value: the text notes an operand's name
            # by the first place the value has among the operands.
            *(() if len(set(map(id, operands))) == len(operands) else _aliasing(operands)),
        )
        text = self._texts.get(key, _UNSEEN_TEXT)
        if text is _UNSEEN_TEXT:
            text = self._texts[key] = self._record(op)
        if text is None:
            op.print(self)
            return
        pieces, places = text.pieces, text.places
        write = self.stream.write  # pyright: ignore[reportOptionalMemberAccess]
        for piece, place in zip(pieces, places):
            write(piece)
            self._current_column += len(piece)
            if type(place) is int:
                self.print_ssa_value(operands[place])
            else:
                index, args, kwargs = place
                self.print_region(op.regions[index], *args, **kwargs)
        write(pieces[-1])
        self._current_column += len(pieces[-1])

    def _record(self, op: Operation) -> _OpText | None:
        """`op`'s text cut at its operands' names and its regions, printed
        aside; None where it cannot be written again for another op (a name
        that is not an operand's, a line break, a resource blob named)."""
        stream, column = self.stream, self._current_column
        resources = sum(map(len, self._dialect_resources.values()))
        recording = self._recording = _Recording(op)
        self.stream = recording.text
        try:
            op.print(self)
        finally:
            self.stream, self._current_column = stream, column
            self._recording = None
        text = recording.text.getvalue()
        if (
            recording.foreign
            or "\n" in text
            or resources != sum(map(len, self._dialect_resources.values()))
        ):
            return None
        cuts = [0, *recording.at, len(text)]
        pieces = tuple(text[a:b] for a, b in zip(cuts, cuts[1:]))
        # The op is kept: its types and attributes are the key's ids.
        return _OpText(pieces, tuple(recording.places), op)

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text:
            super().print_string(text, indent=indent)
            return
        self._current_column += len(text)
        self.stream.write(text)  # pyright: ignore[reportOptionalMemberAccess]

    def _print_new_line(self, indent: int | None = None, print_message: bool = True) -> None:
        # xDSL's, writing to the stream where it calls `print` twice (a
        # line per op of the module).
        indent = self._indent if indent is None else indent
        write = self.stream.write  # pyright: ignore[reportOptionalMemberAccess]
        write("\n")
        self._current_line += 1
        if print_message:
            for callback in self._next_line_callback:
                callback()
            self._next_line_callback = []
        spaces = indent * self.indent_num_spaces
        write(" " * spaces)
        self._current_column = spaces

    def print_region(self, region: Region, *args: Any, **kwargs: Any) -> None:
        if self._recording is not None:
            self._recording.note_region(region, args, kwargs)
            return
        super().print_region(region, *args, **kwargs)

    def print_ssa_value(self, value: SSAValue) -> str:
        if self._recording is not None:
            return self._recording.note(value)
        # xDSL's, with one lookup for a value named before (every use), and
        # its naming of a new one written out (every definition).
        name = self._ssa_values.get(value)
        if name is None:
            hint = value.name_hint
            if hint:
                names = self._ssa_names[-1]
                index = names.get(hint, 0)
                name = f"{hint}_{index}" if index else hint
                names[hint] = index + 1
            else:
                name = self._get_new_valid_name_id()
            self._ssa_values[value] = name
        self._current_column += len(name) + 1
        self.stream.write("%" + name)  # pyright: ignore[reportOptionalMemberAccess]
        return name

    def print_attribute(self, attribute: Attribute) -> None:
        if not isinstance(attribute, ParametrizedAttribute) or self._next_line_callback:
            super().print_attribute(attribute)
            return
        seen = self._by_identity.get(id(attribute))
        if seen is not None:
            text = seen[1]
        else:
            try:
                text = self._attribute_text.get(attribute, _UNSEEN)
            except TypeError:  # an unhashable parameter
                text = None
            if text is _UNSEEN:
                text = self._render(attribute)
            # Holding the attribute keeps its id from being reused.
            self._by_identity[id(attribute)] = (attribute, text)
        if text is None:
            super().print_attribute(attribute)
            return
        self._current_column += len(text)
        self.stream.write(text)  # pyright: ignore[reportOptionalMemberAccess]

    def _render(self, attribute: Attribute) -> str | None:
        """Prints `attribute` aside and keeps its text; None where its text
        depends on where it is printed (the caller prints it there)."""
        stream, column = self.stream, self._current_column
        resources = sum(map(len, self._dialect_resources.values()))
        self.stream = io.StringIO()
        try:
            super().print_attribute(attribute)
            text = self.stream.getvalue()
        finally:
            self.stream, self._current_column = stream, column
        context_free = "\n" not in text and resources == sum(
            map(len, self._dialect_resources.values())
        )
        self._attribute_text[attribute] = text if context_free else None
        return self._attribute_text[attribute]


_UNSEEN = "\0unseen"


class _OpText(NamedTuple):
    """An op's printed text (after its name) between its operands' names
    and its regions."""

    pieces: tuple[str, ...]
    places: tuple[int | tuple[int, tuple[Any, ...], dict[str, Any]], ...]
    """What goes after each piece but the last: the operand whose name it
    is, or the region printed there (its index and `print_region`'s
    arguments)."""
    first: Operation


_UNSEEN_TEXT = _OpText((), (), None)  # type: ignore[arg-type]


class _Recording:
    """What `XsplitPrinter._record` notes while an op prints aside."""

    def __init__(self, op: Operation) -> None:
        self.operands = op._operands  # pyright: ignore[reportPrivateUsage]
        self.regions = op.regions
        self.text = io.StringIO()
        self.at: list[int] = []
        self.places: list[int | tuple[int, tuple[Any, ...], dict[str, Any]]] = []
        self.foreign = False
        """Whether a value that is none of the op's operands, or a region
        that is none of its regions, was printed."""

    def note_region(self, region: Region, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        for index, own in enumerate(self.regions):
            if own is region:
                self.at.append(len(self.text.getvalue()))
                self.places.append((index, args, dict(kwargs)))
                return
        self.foreign = True

    def note(self, value: SSAValue) -> str:
        for place, operand in enumerate(self.operands):
            if operand is value:
                self.at.append(len(self.text.getvalue()))
                self.places.append(place)
                return ""
        self.foreign = True
        return ""


def _aliasing(operands: Sequence[SSAValue]) -> tuple[int, ...]:
    """Each operand's first place among the operands."""
    first: dict[int, int] = {}
    return tuple(first.setdefault(id(v), i) for i, v in enumerate(operands))


@functools.cache
def _by_signature(cls: type[Operation]) -> bool:
    """Whether ops of `cls` are printed once per signature: they print by
    their signature alone and are not isolated from above (xDSL's print_op
    opens a scope of names for those)."""
    return (
        issubclass(cls, IRDLOperation)
        and not issubclass(cls, UnregisteredOp)
        and prints_by_signature(cls)
        and not any(isinstance(t, IsolatedFromAbove) for t in cls.traits)
    )
