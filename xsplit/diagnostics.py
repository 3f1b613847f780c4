"""Diagnostics: the one error type xsplit raises, and remarks.

Both carry the `file:line:col` of the op they are about, when the op was parsed
from text, and print as one line in MLIR's style:
`in.mlir:3:8: error: ...` or `in.mlir:3:8: remark: ...`.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Iterator
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


_remarks: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "xsplit_remarks", default=None
)


def remark(op: Operation, message: str) -> None:
    """Records a remark about `op` for whoever collects them (see `collect_remarks`)."""
    diagnose(op, "remark", message)


def warning(op: Operation, message: str) -> None:
    """Records a warning about `op`, collected with the remarks."""
    diagnose(op, "warning", message)


def diagnose(op: Operation, severity: str, message: str) -> None:
    """Records a `remark`, `warning` or (non-fatal, more may follow) `error` line."""
    sink = _remarks.get()
    if sink is None:
        return
    loc = location_of(op)
    line = f"{loc}: {severity}: {message}" if loc else f"{severity}: {message}"
    # Patterns re-check ops until a fixpoint; say each thing once.
    if line not in sink:
        sink.append(line)


@contextlib.contextmanager
def collect_remarks() -> Iterator[list[str]]:
    """Collects the remarks passes make inside the `with` block, in order."""
    sink: list[str] = []
    token = _remarks.set(sink)
    try:
        yield sink
    finally:
        _remarks.reset(token)


@contextlib.contextmanager
def report_remarks() -> Iterator[None]:
    """Prints to stderr, at the end of the block, the remarks nobody collects.

    A tool that collects remarks (xsplit-opt, xsplit check) prints them itself;
    a pass run by plain `xdsl-opt` would otherwise say nothing."""
    if _remarks.get() is not None:
        yield
        return
    with collect_remarks() as sink:
        try:
            yield
        finally:
            for line in sink:
                print(line, file=sys.stderr)
