"""Patterns and remarks: what a rewrite is, declared as data.

    fold = Pattern(
        name="fold-zero-init-add",
        doc="add(matmul(A, B, fill 0), C) becomes matmul(A, B, C)",
        root="linalg.add",
        where=input(0).defined_by("linalg.matmul", where=...) & input(1).capture("c"),
        rewrite=Template("%r = linalg.matmul ins($a, $b : ...) outs($c : $c.type) -> $c.type"),
    )
    Pass("fold-zero-init", "Folds zero-initialised matmuls into adds.", [fold])

Patterns group into a `Pass` (`declared_pass.py`), which the engine runs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Operation, SSAValue

from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.constraints import ALWAYS, Constraint, Match
from xsplit.rewrites.dsl.template import Template, UpdateRoot

BuilderRewrite = Callable[[Match, IRBuilder], Sequence[SSAValue] | None]
"""A rewrite as builder calls that mirror the ops it makes; returns the
values that replace the root's results, or None if it moved the root into the
ops it built and rewired the root's uses itself."""


def _op_names(root: str | type[Operation] | Sequence[str | type[Operation]]) -> tuple[str, ...]:
    items = [root] if isinstance(root, str | type) else list(root)
    names = tuple(item if isinstance(item, str) else item.name for item in items)
    if not names:
        raise XsplitError("a pattern needs at least one root op")
    return names


@dataclass(frozen=True, init=False)
class Pattern:
    """A rewrite: when `where` holds on a `root` op, `rewrite` replaces it."""

    name: str
    doc: str
    root: tuple[str, ...]
    rewrite: Template | UpdateRoot | BuilderRewrite
    where: Constraint
    benefit: int
    options: tuple[str, ...]
    family: str
    """Ops a rewrite creates are never matched again by patterns of its
    family (by default, the pattern itself): a split's partials and merge are
    reductions too, and must not be split again in the same run."""
    memo: Callable[[Match], Hashable] | None
    """For builder rewrites that depend only on the root's operands: a key
    naming everything else they depend on (types, attributes, options). The
    engine builds once per key, keeps what it built as a template, and clones
    that for every other match with the same key."""

    def __init__(
        self,
        name: str,
        doc: str,
        root: str | type[Operation] | Sequence[str | type[Operation]],
        rewrite: Template | UpdateRoot | BuilderRewrite,
        where: Constraint = ALWAYS,
        benefit: int = 1,
        options: Sequence[str] = (),
        family: str | None = None,
        memo: Callable[[Match], Hashable] | None = None,
    ):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "doc", doc)
        object.__setattr__(self, "root", _op_names(root))
        object.__setattr__(self, "rewrite", rewrite)
        object.__setattr__(self, "where", where)
        object.__setattr__(self, "benefit", benefit)
        object.__setattr__(self, "options", tuple(options))
        object.__setattr__(self, "family", family or name)
        object.__setattr__(self, "memo", memo)


@dataclass(frozen=True, init=False)
class Remark:
    """A diagnostic pattern: when `where` holds on a `root` op, it says
    `message` about the op, once, and changes nothing."""

    name: str
    doc: str
    root: tuple[str, ...]
    where: Constraint
    message: str | Callable[[Match], str]
    family: str | None
    """A remark explains what its pass's patterns did to the ops they were
    given, so it never looks at ops its family created: they are that
    family's output, not its input (a split's batched partial is no reduction
    the split gave up on). By default (None) its family is that of every
    pattern of its pass rooted at the same ops; see `Pass.families_of`."""

    def __init__(
        self,
        name: str,
        doc: str,
        root: str | type[Operation] | Sequence[str | type[Operation]],
        where: Constraint,
        message: str | Callable[[Match], str],
        family: str | None = None,
    ):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "doc", doc)
        object.__setattr__(self, "root", _op_names(root))
        object.__setattr__(self, "where", where)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "family", family)

    @property
    def benefit(self) -> int:
        return 0

    def render(self, m: Match) -> str:
        return self.message if isinstance(self.message, str) else self.message(m)


@dataclass(frozen=True)
class Check:
    """A bound on an option's value that can say itself in words, so that
    errors and help read "an integer >= 1"."""

    holds: Callable[[Any], bool]
    words: str
    """What a value that passes is, after its kind: ">= 1"."""

    def __call__(self, value: Any) -> str | None:
        return None if self.holds(value) else f"must be {self.words}"


positive = Check(lambda value: value >= 1, ">= 1")
"""An integer option that counts something: 1 or more."""
