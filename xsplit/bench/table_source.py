"""Rewriting the entries of a table that lives in Python source, between two
marker comments, as the device-run fitters (`bench/pick_gemm_tiles.py`,
`bench/fit_own_kernel.py`) do: the table stays code that reviewers read and
imports need no data file."""

from __future__ import annotations

import re
from collections.abc import Callable


def replace_entries(
    text: str,
    entries: dict[tuple[str, ...], str],
    begin: str,
    end: str,
    key: re.Pattern[str],
    key_of: Callable[[re.Match[str]], tuple[str, ...]],
) -> str:
    """`text` with `entries` in place of the table's entries of the same keys,
    and those it lacks added at the end of its dict. An entry starts at a
    line `key` matches (`key_of` names it) and ends on that line where the
    line ends with `),`, else at the next line `    ),`."""
    head, rest = text.split(begin + "\n", 1)
    body, tail = rest.split(end, 1)
    lines = body.splitlines(keepends=True)
    out, pending, i = [], dict(entries), 0
    while i < len(lines):
        line = lines[i]
        found = key.match(line)
        if not found:
            if line.startswith("}") and pending:
                out.extend(pending.values())
                pending.clear()
            out.append(line)
            i += 1
            continue
        last = i
        if not line.rstrip().endswith("),"):
            while lines[last].rstrip() != "    ),":
                last += 1
        name = key_of(found)
        out.append(pending.pop(name) if name in pending else "".join(lines[i : last + 1]))
        i = last + 1
    return head + begin + "\n" + "".join(out) + end + tail
