"""Whether xsplit's output is the program it read: issue-9's pass-through rule.

Two texts are the same program when `iree-opt --mlir-print-op-generic` prints
them identically: SSA names, aliases, custom syntax and locations aside, every
op, operand, attribute, type and region agrees.
"""

from __future__ import annotations

import difflib
import re
import subprocess

from xsplit.iree.iree_opt import iree_opt_path, run_iree_opt

GENERIC = ("--mlir-print-op-generic",)

_SPLIT_OUTPUT = re.compile(r"^// -----\n?", re.MULTILINE)


def generic_form(text: str, name: str) -> str:
    """iree-opt's generic print of `text`, without locations."""
    return run_iree_opt(text, name, GENERIC)


def generic_forms(texts: list[str]) -> list[str | None]:
    """iree-opt's generic print of each text, or None where it rejects one.

    One iree-opt process reads them all (`--split-input-file`): starting it is
    most of what a small module costs. A text with resources gets a process of
    its own, because the cases of one split input share an MLIR context, whose
    resource names are uniqued across them (a second `dense_resource<blob>`
    would print as `blob_1`)."""
    shared = [i for i, t in enumerate(texts) if "dense_resource" not in t and "{-#" not in t]
    forms: list[str | None] = [None] * len(texts)
    if len(shared) > 1:
        for i, form in zip(shared, _generic_forms_batched([texts[i] for i in shared])):
            forms[i] = form
        alone = [i for i in range(len(texts)) if i not in set(shared)]
    else:
        alone = list(range(len(texts)))
    for i in alone:
        (forms[i],) = _generic_forms_batched([texts[i]])
    return forms


def _generic_forms_batched(texts: list[str]) -> list[str | None]:
    proc = subprocess.run(
        [iree_opt_path(), "--allow-unregistered-dialect", "--split-input-file", *GENERIC, "-"],
        input="\n// -----\n".join(texts).encode(),
        capture_output=True,
        check=False,
    )
    parts = _SPLIT_OUTPUT.split(proc.stdout.decode(errors="replace"))
    if len(parts) != len(texts) or proc.returncode < 0:
        if len(texts) == 1:
            return [None]
        # A crash on one text loses the texts after it: ask text by text.
        return [form for text in texts for form in _generic_forms_batched([text])]
    return [part if part.strip() else None for part in parts]


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
