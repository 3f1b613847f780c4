"""Driving iree-opt: MLIR's own parser and verifier for IR xsplit carries.

xsplit reads what `iree-opt` 3.13 reads. For input that xDSL cannot parse on
its own (IREE's `util`, `hal`, `iree_encoding`, ... dialects, or upstream ops
xDSL lacks), iree-opt checks it and prints it in the generic, alias-free form
with every location, which xsplit then carries op by op.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from functools import cache

from iree.compiler.tools.binaries import find_tool

from xsplit.diagnostics import XsplitError

STDIN_NAME = "<stdin>"

GENERIC_WITH_LOCATIONS = (
    "--mlir-print-op-generic",
    "--mlir-print-debuginfo",
    "--mlir-print-local-scope",
)
"""What xsplit's carrying parser reads: every op generic, every location
spelled out, no attribute or type aliases."""


@cache
def iree_opt_path() -> str:
    return find_tool("iree-opt")


def run_iree_opt(source: str, filename: str, flags: Sequence[str] = ()) -> str:
    """Runs iree-opt on `source` and returns its output.

    Locations and diagnostics name `filename` instead of iree-opt's `<stdin>`.
    A rejection raises `XsplitError` with iree-opt's first error line, which
    has `file:line:col`; a crash says it was one.
    """
    try:
        proc = subprocess.run(
            [iree_opt_path(), "--allow-unregistered-dialect", *flags, "-"],
            input=source.encode(),
            capture_output=True,
            check=False,
        )
    except OSError as e:
        raise XsplitError(f"cannot run iree-opt: {e.strerror}") from None
    if proc.returncode != 0:
        raise XsplitError.at_diagnostic(_first_error(proc, filename))
    out = proc.stdout.decode(errors="replace")
    return out.replace(f'loc("{STDIN_NAME}":', f"loc({json.dumps(filename)}:")


def _first_error(proc: subprocess.CompletedProcess[bytes], filename: str) -> str:
    lines = proc.stderr.decode(errors="replace").replace(STDIN_NAME, filename).splitlines()
    first = next((line for line in lines if ": error: " in line), None)
    if first is not None:
        return first
    if proc.returncode < 0:
        return (
            f"error: iree-opt crashed (signal {-proc.returncode}) while xsplit read or printed "
            f"{filename} through it (no target: iree-opt only parses and verifies)"
        )
    last = next((line for line in reversed(lines) if line.strip()), "no message")
    return f"error: iree-opt rejected {filename}: {last.strip()}"
