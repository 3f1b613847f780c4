"""Counts xsplit's shipped patterns: how many rewrite through a `Template`
(the IR they produce, with holes) and how many match structurally (every
test of their match side is one the DSL states about the op tree: ops,
operands, types, attributes, captures, options; none a Python function given
to `where`).

    python bench/pattern_census.py            # the numbers
    python bench/pattern_census.py --list     # and each pattern's kind

Not a timing: it only reads the pattern declarations.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from xsplit.passes import load_builtin_passes
from xsplit.rewrites.dsl import (
    PASSES,
    Pattern,
    Remark,
    Template,
    UpdateRoot,
    is_structural,
    leaves,
)
from xsplit.rewrites.dsl.constraints import Predicate


@dataclass(frozen=True)
class Entry:
    pass_name: str
    name: str
    kind: str
    """`rewrite` or `remark`."""
    template: bool
    in_place: bool
    """Its rewrite is an `UpdateRoot`: declared, but no IR is produced."""
    structural: bool
    native: int
    """How many of its match tests are native (Python given to `where`)."""


def census() -> list[Entry]:
    """Each pattern once by name (the early and late materializations share
    their folds, materialize-late declares dispatch-regions-to-workgroups'
    patterns again), in the order the passes declare them."""
    load_builtin_passes()
    seen: set[str] = set()
    entries: list[Entry] = []
    for pass_name, p in PASSES.items():
        for pattern in p.patterns:
            if pattern.name in seen:
                continue
            seen.add(pattern.name)
            native = sum(
                1 for leaf in leaves(pattern.where) if not (isinstance(leaf, Predicate) and leaf.structural)
            )
            entries.append(
                Entry(
                    pass_name,
                    pattern.name,
                    "remark" if isinstance(pattern, Remark) else "rewrite",
                    isinstance(pattern, Pattern) and isinstance(pattern.rewrite, Template),
                    isinstance(pattern, Pattern) and isinstance(pattern.rewrite, UpdateRoot),
                    is_structural(pattern.where),
                    native,
                )
            )
    return entries


def shipped(entries: list[Entry]) -> list[Entry]:
    """Patterns declared by xsplit's own passes, not by test or user files."""
    from xsplit.passes import XSPLIT_PASSES

    return [e for e in entries if e.pass_name in XSPLIT_PASSES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print each pattern's kind")
    args = parser.parse_args()
    entries = shipped(census())
    rewrites = [e for e in entries if e.kind == "rewrite"]
    templates = [e for e in rewrites if e.template]
    structural = [e for e in entries if e.structural]
    if args.list:
        for e in entries:
            print(
                f"{e.pass_name:28} {e.name:48} {e.kind:7} "
                f"{'template' if e.template else 'in-place' if e.in_place else '-':8} "
                f"{'structural' if e.structural else f'{e.native} native'}"
            )
    n = len(entries)
    print(f"patterns: {n} ({len(rewrites)} rewrites, {n - len(rewrites)} remarks)")
    print(
        f"template rewrites: {len(templates)} "
        f"({100 * len(templates) / n:.0f}% of all, {100 * len(templates) / len(rewrites):.0f}% of rewrites)"
    )
    in_place = [e for e in rewrites if e.in_place]
    print(f"in-place declared rewrites (UpdateRoot): {len(in_place)}")
    print(f"structural matches: {len(structural)} ({100 * len(structural) / n:.0f}%)")


if __name__ == "__main__":
    main()
