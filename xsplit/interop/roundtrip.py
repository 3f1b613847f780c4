"""Whether xsplit's output is the program it read: issue-9's pass-through rule.

Two texts are the same program when `iree-opt --mlir-print-op-generic` prints
them identically: SSA names, aliases, custom syntax and locations aside, every
op, operand, attribute, type and region agrees.
"""

from __future__ import annotations

import difflib

from xsplit.interop.iree_opt import run_iree_opt


def generic_form(text: str, name: str) -> str:
    """iree-opt's generic print of `text`, without locations."""
    return run_iree_opt(text, name, ["--mlir-print-op-generic", "--mlir-print-local-scope"])


def program_difference(before: str, after: str, name: str = "<input>") -> str:
    """An empty string when `before` and `after` are the same program; else a
    unified diff of their generic forms."""
    a, b = generic_form(before, name), generic_form(after, f"{name} (xsplit output)")
    if a == b:
        return ""
    return "".join(
        difflib.unified_diff(
            a.splitlines(keepends=True), b.splitlines(keepends=True), "input", "xsplit", n=1
        )
    )
