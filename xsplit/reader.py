"""Reading MLIR text: xDSL's parser where it suffices, iree-opt's where not.

xsplit must read whatever `iree-opt` 3.13 reads (IREE dumps, `util.func`
modules, IREE's and MLIR's test files) and print back the same program, whether
or not it has a Python class for every op, attribute and type in it. It reads
in two ways:

- natively: xDSL parses the text with xsplit's dialects. This keeps the user's
  SSA names and prints in xDSL's form, and it is the only way to read xsplit's
  own dialects (`rock`, `linalg_ext`), which iree-opt does not know.
- carried: when xDSL cannot parse the text, iree-opt parses and verifies it and
  prints it generic, alias-free and with every location. xsplit then parses
  that with every op it does not know kept as an unregistered op, every
  attribute or type it does not know kept as its text (`OpaqueAttr`,
  `OpaqueType`), and every known op that MLIR's generic form does not fit
  xDSL's definition of kept as an unregistered op too. Rewrites see the ops
  they match as xsplit's classes, and everything else goes through untouched.
  Such a module is printed back through iree-opt, in its form.

Either way an error names `file:line:col`: xDSL's parse errors and verifier
failures by the op's location, iree-opt's by its own diagnostic.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
    UnregisteredAttr,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.parser import Parser
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from xsplit.collector import collector_paused
from xsplit.diagnostics import XsplitError
from xsplit.dialects import make_context
from xsplit.dialects.builtin import SPLAT_STORED_ONCE_ABOVE, SplatElementsAttr
from xsplit.dialects.opaque import OpaqueAttr, OpaqueType


class XsplitParser(Parser):
    """xDSL's parser with large splats read in constant time per element type."""

    def parse_dense_int_or_fp_elements_attr(self, type: Any) -> DenseIntOrFPElementsAttr:
        start = self._current_token.span.start
        splat = self._parse_optional_splat(type)
        if splat is not None:
            return splat
        self._resume_from(start)
        return super().parse_dense_int_or_fp_elements_attr(type)

    def _parse_optional_splat(self, type: Any) -> DenseIntOrFPElementsAttr | None:
        """`<scalar> [: type]`, or None (with the position undefined) if it is not one."""
        if self.parse_optional_punctuation("<") is None:
            return None
        if self._current_token.text in (">", "[") or self.parse_optional_str_literal():
            return None
        try:
            values, shape = self._parse_tensor_literal()
        except ParseError:
            return None
        if shape or len(values) != 1 or self.parse_optional_punctuation(">") is None:
            return None
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        element_type = type.element_type
        value = values[0].to_type(self, element_type)
        one = DenseIntOrFPElementsAttr.from_list(
            type.__class__(element_type, [1]),  # pyright: ignore[reportCallIssue]
            [value],
        )
        count = math.prod(type.get_shape())
        if count > SPLAT_STORED_ONCE_ABOVE:
            return SplatElementsAttr(type, one)  # pyright: ignore[reportReturnType]
        return DenseIntOrFPElementsAttr(type, BytesAttr(one.data.data * count))


class LocatingParser(XsplitParser):
    """A parser that gives each op the `file:line:col` it was parsed from.

    Lines are counted incrementally: xDSL's `Span.get_location()` counts from
    the start of the input each time, which is quadratic over a large file."""

    _line_start: int = 0
    _line_number: int = 1

    def parse_operation(self) -> Operation:
        start = self._current_token.span  # pyright: ignore[reportPrivateUsage]
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line, col = self._line_col(start.start)
            op.location = FileLineColLoc(StringAttr(start.input.name), IntAttr(line), IntAttr(col))
        return op

    def _line_col(self, pos: int) -> tuple[int, int]:
        text = self.lexer.input.content
        if pos < self._line_start:  # not expected: ops are parsed in order
            self._line_start, self._line_number = 0, 1
        line_start = text.rfind("\n", 0, pos) + 1
        if line_start > self._line_start:
            self._line_number += text.count("\n", self._line_start, line_start)
            self._line_start = line_start
        return self._line_number, pos - line_start + 1


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
        return self._carry(sigil + attr_or_dialect_name, after_name, is_type)

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
    source: str, filename: str = "<string>", ctx: Context | None = None, first_line: int = 1
) -> ModuleOp:
    """Parses and verifies MLIR text; `first_line` numbers its first line."""
    padded = "\n" * (first_line - 1) + source
    try:
        with collector_paused():
            module = LocatingParser(ctx or make_context(), padded, filename).parse_module()
    except ParseError as e:
        return _read_carried(padded, filename, parse_error=e)
    except Exception:  # xDSL raises plain errors for some input it cannot parse
        return _read_carried(padded, filename, parse_error=None)
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
    from xsplit.interop.iree_opt import GENERIC_WITH_LOCATIONS, run_iree_opt

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
    try:
        module = CarryingParser(_carrying_context(), generic, filename).parse_module()
    except ParseError as e:
        raise XsplitError.at(
            str(e.span.get_location()), f"cannot carry iree-opt's output: {one_line(e.msg)}"
        ) from None
    except Exception:
        raise XsplitError(f"{filename}: iree-opt reads it, but xsplit cannot carry it") from None
    _carry_ops_xsplit_misreads(module)
    _CARRIED.add(module)
    return module


_MLIR_UNKNOWN_OP_MESSAGES = ("is unknown", "not found for custom op", "is not registered")


def _carrying_context() -> Context:
    ctx = make_context(allow_unregistered=True)
    return ctx


def _carry_ops_xsplit_misreads(module: ModuleOp) -> None:
    """Turns each known op whose generic form xDSL's class rejects into an
    unregistered op with the same operands, results, attributes, properties,
    successors and regions."""
    misread = [
        op
        for op in module.walk(reverse=True)
        if not isinstance(op, UnregisteredOp | ModuleOp) and not _verifies(op)
    ]
    for op in misread:
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


def _verifies(op: Operation) -> bool:
    try:
        op.verify(verify_nested_ops=False)
    except Exception:
        return False
    return True


def one_line(message: str) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def verify_module(module: ModuleOp) -> None:
    """Verifies every op and that every use is dominated by its definition,
    naming the first op that fails by its location."""
    with collector_paused():
        _verify_ops(module)
        verify_dominance(module)


def _verify_ops(module: ModuleOp) -> None:
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception as e:
            message = one_line(str(e))
            if not message.startswith(f"'{op.name}' op"):
                message = f"'{op.name}' op {message}"
            raise XsplitError(message, op) from None


def verify_dominance(module: ModuleOp) -> None:
    """Each operand is defined before its use in the same block, or in a block
    that encloses it. Uses across the blocks of one region (a CFG) are left to
    iree-opt: xsplit's passes do not create them."""
    order: dict[Block, dict[Operation, int]] = {}

    def position(op: Operation, block: Block) -> int:
        if block not in order:
            order[block] = {o: i for i, o in enumerate(block.ops)}
        return order[block][op]

    def dominates(definer: Operation | Block, user: Operation) -> bool:
        def_block = definer if isinstance(definer, Block) else definer.parent_block()
        if def_block is None:
            return True
        current: Operation | None = user
        while current is not None:
            block = current.parent_block()
            if block is None:
                return False
            if block is def_block:
                if isinstance(definer, Block) or isinstance(block.parent_op(), ModuleOp):
                    return True  # a block argument, or a graph region
                return definer is not current and position(definer, block) < position(
                    current, block
                )
            if block.parent is def_block.parent:
                return True
            current = block.parent_op()
        return False

    for op in module.walk():
        for index, operand in enumerate(op.operands):
            if not dominates(operand.owner, op):
                raise XsplitError(
                    f"operand #{index} of '{op.name}' does not dominate this use", op
                )
