"""The `xdsl.universe` entry point: stock `xdsl-opt` sees xsplit's dialects and
passes. Loading it also adds xsplit's upstream ops (`scf.forall`, ...) to xDSL's
own dialects, since a universe may not register a dialect name twice.

Under `xdsl-opt`, xsplit keeps its own conventions: its passes print their
remarks to stderr (see `DSLModulePass.apply`), and an error in xsplit's passes
or options, or in the input, is one line on stderr and exit status 1, not a
Python traceback (xdsl-opt 0.74 catches none of them)."""

from __future__ import annotations

import os
import sys
from types import TracebackType

from xdsl.universe import Universe

from xsplit.dialects import XSPLIT_DIALECTS, register_upstream_extensions
from xsplit.passes import XSPLIT_PASSES

register_upstream_extensions()

XSPLIT_UNIVERSE = Universe(all_dialects=dict(XSPLIT_DIALECTS), all_passes=dict(XSPLIT_PASSES))


def one_line_error(error: BaseException) -> str | None:
    """The one line xsplit prints for an error xdsl-opt leaves uncaught, or
    None for one that is not about the input, a pass or its options."""
    from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

    from xsplit.diagnostics import XsplitError
    from xsplit.reader import one_line

    if isinstance(error, XsplitError):
        return error.diagnostic
    if isinstance(error, ParseError):
        return f"{error.span.get_location()}: error: {one_line(error.msg)}"
    if isinstance(error, ArgSpecParseError):
        from xsplit.api import build_pipeline

        lines = str(error).splitlines()
        where = next((i for i, line in enumerate(lines) if line.startswith("pass-pipeline:")), None)
        if where is not None and where + 1 < len(lines):
            try:  # xsplit's reading of the same pipeline points at the right character
                build_pipeline(lines[where + 1])
            except XsplitError as e:
                return e.diagnostic
        return f"error: bad pass pipeline: {one_line(lines[-1].lstrip().lstrip('^'))}"
    if isinstance(error, DiagnosticException):
        return f"error: {one_line(str(error))}"
    if isinstance(error, ValueError) and str(error).startswith("Unrecognized passes"):
        return f"error: {one_line(str(error))}"
    return None


def _excepthook(
    kind: type[BaseException], error: BaseException, traceback: TracebackType | None
) -> None:
    line = one_line_error(error)
    if line is None:
        _previous_excepthook(kind, error, traceback)
        return
    sys.stdout.flush()
    print(line, file=sys.stderr)
    sys.stderr.flush()
    os._exit(1)  # sys.exit would run the hook's caller's cleanup with the error pending


_previous_excepthook = sys.excepthook
if os.path.basename(sys.argv[0]) == "xdsl-opt" if sys.argv else False:
    # Only in xdsl-opt: a program that imports xsplit keeps Python's own
    # handling of the errors it lets through.
    sys.excepthook = _excepthook
