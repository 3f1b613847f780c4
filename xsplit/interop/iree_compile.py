"""Driving iree-compile on MLIR text."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from functools import cache

from iree.compiler.tools.binaries import find_tool

from xsplit.diagnostics import XsplitError
from xsplit.interop.targets import target


@cache
def iree_compile_path() -> str:
    return find_tool("iree-compile")


class IreeCompileError(XsplitError):
    """iree-compile rejected or crashed on the input."""

    def __init__(self, target_name: str, stderr: str):
        lines = stderr.strip().splitlines()
        first_error = next((line for line in lines if "error" in line), None)
        summary = first_error or (lines[-1] if lines else "crashed")
        super().__init__(f"iree-compile failed for {target_name}: {summary}")
        self.stderr = stderr


def compile_mlir(
    source: str, target_name: str, extra_flags: Sequence[str] = (), compile_to: str | None = None
) -> bytes:
    """Compiles MLIR text for a target; returns the vmfb, or the IR at `compile_to`."""
    flags = [*target(target_name).flags, *extra_flags]
    if compile_to is not None:
        flags.append(f"--compile-to={compile_to}")
    proc = subprocess.run(
        [iree_compile_path(), *flags, "-", "-o", "-"],
        input=source.encode(),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise IreeCompileError(target_name, proc.stderr.decode(errors="replace"))
    return proc.stdout
