"""Reading how many workgroups each dispatch of a compiled program launches.

`iree-compile --compile-to=executable-targets` prints each export's `count(...)`
region; for static shapes it folds to `hal.return %x, %y, %z` of constants,
whose product is the number of workgroups. A full compile that dumped its
phases (`compile_keeping`) holds the same IR, so a checked program's CPU counts
cost no compile of their own. A split is really spread over
workgroups when its dispatch's count exceeds the unsplit one's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xsplit.iree.iree_compile import ir_at_phase

_EXPORT = re.compile(r"hal\.executable\.export public @(\S+) .*?count\(")
_RETURN = re.compile(r"hal\.return (%\S+), (%\S+), (%\S+) :")


@dataclass(frozen=True)
class DispatchCount:
    dispatch: str
    grid: tuple[int, int, int] | None
    """The (x, y, z) workgroup counts, or None when they are not constants."""

    @property
    def total(self) -> int | None:
        return None if self.grid is None else self.grid[0] * self.grid[1] * self.grid[2]


def read_counts(executable_targets_ir: str) -> list[DispatchCount]:
    """The workgroup grid of each dispatch in `--compile-to=executable-targets` IR."""
    counts: list[DispatchCount] = []
    lines = executable_targets_ir.splitlines()
    for i, line in enumerate(lines):
        export = _EXPORT.search(line)
        if not export:
            continue
        constants: dict[str, int] = {}
        grid: tuple[int, int, int] | None = None
        for body_line in lines[i + 1 :]:
            if m := re.match(r"\s*(%\S+) = arith\.constant (-?\d+) : index", body_line):
                constants[m.group(1)] = int(m.group(2))
                continue
            if m := _RETURN.search(body_line):
                values = [constants.get(v) for v in m.groups()]
                if all(v is not None for v in values):
                    grid = (values[0], values[1], values[2])  # type: ignore[assignment]
                break
        counts.append(DispatchCount(export.group(1), grid))
    return counts


def workgroup_counts(
    source: str, target_name: str, phase: str = "reading the workgroup counts"
) -> list[DispatchCount]:
    """Compiles `source` for a target and reads each dispatch's workgroup grid
    (from the full compile's kept IR where `compile_keeping` made one)."""
    ir = ir_at_phase(source, target_name, "executable-targets", phase)
    return read_counts(ir.decode())


def split_dispatch_pair(
    before: list[DispatchCount], after: list[DispatchCount]
) -> tuple[int | None, int | None]:
    """Workgroups of the reduction's dispatch, unsplit and split.

    IREE numbers dispatches in program order and names each after its root
    op. The unsplit reduction is the first dispatch not named elementwise;
    what comes before it is the same in both programs, so the split loop's
    dispatch has the same number (its merge comes after it)."""
    index = next((i for i, c in enumerate(before) if "_elementwise_" not in c.dispatch), 0)
    if index >= len(before) or index >= len(after):
        return None, None
    return before[index].total, after[index].total
