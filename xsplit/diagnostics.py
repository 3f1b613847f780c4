"""Diagnostics: the one error type xsplit raises, and remarks.

Both carry the `file:line:col` of the op they are about, when the op was parsed
from text, and print as one line in MLIR's style:
`in.mlir:3:8: error: ...` or `in.mlir:3:8: remark: ...`.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Operation


class XsplitError(Exception):
    """An error with the one-line diagnostic the command line prints for it."""

    def __init__(self, message: str, op: Operation | None = None):
        self.message = message
        self.location = location_of(op) if op is not None else None
        super().__init__(self.diagnostic)

    @classmethod
    def at(cls, location: str, message: str) -> XsplitError:
        """An error at a `file:line:col` that no op carries (a parse error)."""
        error = cls(message)
        error.location = location
        error.args = (error.diagnostic,)
        return error

    @classmethod
    def at_diagnostic(cls, diagnostic: str) -> XsplitError:
        """An error from a diagnostic another tool printed, `[file:line:col: ]error: msg`."""
        location, sep, message = diagnostic.partition(": error: ")
        if not sep:
            return cls(diagnostic.removeprefix("error: "))
        return cls.at(location, message)

    @property
    def diagnostic(self) -> str:
        prefix = f"{self.location}: " if self.location else ""
        return f"{prefix}error: {self.message}"


def location_of(op: Operation) -> str | None:
    """`file:line:col` of the op, or of its nearest located ancestor."""
    # Imported here: `python -m xsplit.replay` raises XsplitError on a machine
    # without xDSL, and never with an op.
    from xdsl.dialects.builtin import FileLineColLoc

    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        current = current.parent_op()
    return None


@dataclass(frozen=True)
class Diagnostic:
    """One remark, warning or (non-fatal) error, as a value: a pass that runs
    passes of its own reads what they said from these, never from text."""

    severity: str
    message: str
    location: str | None

    @property
    def line(self) -> str:
        """The line a tool prints for it, in MLIR's style."""
        prefix = f"{self.location}: " if self.location else ""
        return f"{prefix}{self.severity}: {self.message}"


_handler: contextvars.ContextVar[Callable[[Diagnostic], None] | None] = contextvars.ContextVar(
    "xsplit_diagnostic_handler", default=None
)
"""The innermost collector's, as MLIR's ScopedDiagnosticHandler: diagnostics
go to it alone."""


def remark(op: Operation, message: str) -> None:
    """Records a remark about `op` for whoever collects them (see `collect_remarks`)."""
    diagnose(op, "remark", message)


def warning(op: Operation, message: str) -> None:
    """Records a warning about `op`, collected with the remarks."""
    diagnose(op, "warning", message)


def diagnose(op: Operation, severity: str, message: str) -> None:
    """Records a `remark`, `warning` or (non-fatal, more may follow) `error` line."""
    handler = _handler.get()
    if handler is None:
        return
    handler(Diagnostic(severity, message, location_of(op)))


@contextlib.contextmanager
def _handled_by(handler: Callable[[Diagnostic], None]) -> Iterator[None]:
    token = _handler.set(handler)
    try:
        yield
    finally:
        _handler.reset(token)


@contextlib.contextmanager
def collect_remarks() -> Iterator[list[str]]:
    """Collects the remarks passes make inside the `with` block, in order, as
    the lines a tool prints."""
    sink: list[str] = []

    def keep(d: Diagnostic) -> None:
        # Patterns re-check ops until a fixpoint; say each thing once.
        if (line := d.line) not in sink:
            sink.append(line)

    with _handled_by(keep):
        yield sink


@contextlib.contextmanager
def collect_diagnostics() -> Iterator[list[Diagnostic]]:
    """Collects the diagnostics said inside the `with` block, in order and
    each once, as values, and keeps them from any outer collector: for a
    pass that runs passes on IR it built and says what they did at the
    user's op (`said_again`)."""
    sink: list[Diagnostic] = []

    def keep(d: Diagnostic) -> None:
        if d not in sink:
            sink.append(d)

    with _handled_by(keep):
        yield sink


def said_again(op: Operation, said: Iterable[Diagnostic], prefix: str) -> None:
    """Says each of `said` again at `op`, with its severity, `prefix` before it."""
    for d in said:
        diagnose(op, d.severity, prefix + d.message)


@contextlib.contextmanager
def report_remarks() -> Iterator[None]:
    """Prints to stderr, at the end of the block, the remarks nobody collects.

    A tool that collects remarks (xsplit-opt, xsplit check) prints them itself;
    a pass run by plain `xdsl-opt` would otherwise say nothing."""
    if _handler.get() is not None:
        yield
        return
    with collect_remarks() as sink:
        try:
            yield
        finally:
            for line in sink:
                print(line, file=sys.stderr)
