"""The engine that applies a pass's patterns: greedily, to a fixpoint.

Ops are visited in IR order from a worklist. On each op the patterns rooted at
its name are tried by decreasing benefit, then in declaration order; the first
that matches rewrites it. The users of the values a rewrite produces, and the
ops it creates that a pattern of another family may match, go back on the
worklist, so the result is a fixpoint (a family never re-matches its own
output: `Pattern.family`, nor remarks on it: `Remark.family`). The order never depends on hashing, so the same
input gives the same output, byte for byte. A rewrite with a `memo` key is
built once per key and cloned from then on.

With `engine_settings(stats=..., explain=True)` the engine counts the patterns
that fired and says, for each op it tried, why each pattern did not match.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import deque
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp, UnknownLoc, UnregisteredOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import NoMemoryEffect, Pure

from xsplit.collector import collector_paused
from xsplit.diagnostics import XsplitError, remark
from xsplit.rewrites.dsl.builders import (
    IRBuilder,
    nested_ops,
    values_defined_above,
)
from xsplit.rewrites.dsl.builders import clone_in_order as _clone_in_order
from xsplit.rewrites.dsl.builders import defined_before_use as _defined_before_use
from xsplit.rewrites.dsl.constraints import (
    AllOf,
    Constraint,
    Failure,
    Match,
    Not,
    is_pure,
    is_structural,
    on_options_alone,
)
from xsplit.rewrites.dsl.pattern import Pattern, Remark
from xsplit.rewrites.dsl.structure import testing_a_set


class PatternGroup(Protocol):
    """What the engine reads of a pass (declared_pass.Pass): the pass runs the
    engine, so the engine names only this, not the pass's module."""

    name: str
    patterns: Sequence[Pattern | Remark]
    max_rewrites: int

    def families_of(self, r: Remark) -> frozenset[str]: ...
from xsplit.rewrites.dsl.template import Template, UpdateRoot


@dataclass
class EngineSettings:
    explain: bool = False
    stats: dict[str, dict[str, int]] | None = None
    """Per pass, per pattern: how many times it fired. None: not collected."""


_settings: contextvars.ContextVar[EngineSettings] = contextvars.ContextVar(
    "xsplit_engine_settings", default=EngineSettings()
)


@contextlib.contextmanager
def engine_settings(explain: bool = False, stats: bool = False) -> Iterator[EngineSettings]:
    """Turns on explanations and statistics for passes run inside the block."""
    settings = EngineSettings(explain, {} if stats else None)
    token = _settings.set(settings)
    try:
        yield settings
    finally:
        _settings.reset(token)


class _RecordingBuilder(Builder):
    """A builder that remembers the top-level ops it inserts."""

    def __init__(self, insertion_point: InsertPoint):
        super().__init__(insertion_point)
        self.inserted: list[Operation] = []
        self.in_place: list[Operation] = []
        """Copies of the root a template made in its place (`$clone` of the
        root with other attributes): the root rewritten in place, as
        MLIR's `modifyOpInPlace` leaves it, not a new op."""

    def insert(self, op):  # type: ignore[override]
        self.inserted.append(op)
        return super().insert(op)


@dataclass
class Engine:
    dsl_pass: PatternGroup
    options: Mapping[str, Any]
    ctx: Context
    """The pass's context, handed to the rewrites (`Match.ctx`)."""
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.counts = {p.name: 0 for p in self.dsl_pass.patterns if isinstance(p, Pattern)}
        by_root: dict[str, list[Pattern]] = {}
        remarks: dict[str, list[Remark]] = {}
        for p in self.dsl_pass.patterns:
            for name in p.root:
                if isinstance(p, Remark):
                    remarks.setdefault(name, []).append(p)
                else:
                    by_root.setdefault(name, []).append(p)
        # sorted() is stable, so equal benefits keep declaration order.
        self.by_root = {n: sorted(ps, key=lambda p: -p.benefit) for n, ps in by_root.items()}
        # A pattern whose match fails on these options whatever the op
        # (`_may_hold`) matches nothing in this run: it is not tried.
        # Explanations try every pattern, as they say why each one failed.
        self.live_by_root = {
            n: [p for p in ps if _may_hold(p.where, self.options)]
            for n, ps in self.by_root.items()
        }
        self.remarks = remarks
        self.templates: dict[Hashable, _BuiltTemplate] = {}
        self.families: dict[str, set[str]] = {}
        for p in self.dsl_pass.patterns:
            owners = (
                self.dsl_pass.families_of(p) if isinstance(p, Remark) else frozenset({p.family})
            )
            for name in p.root:
                self.families.setdefault(name, set()).update(owners)
        self._wanted: dict[str, frozenset[str]] = {}
        self._shared: dict[int, tuple[Constraint, tuple[str, int] | None]] = {}
        """Per conjunct tested (by id): the test it is or negates, and its
        key in an op's analyses where `_check_shared` keeps its outcome."""
        self._early = {id(p): _early_tests(p.where) for p in self.dsl_pass.patterns}
        self._reads_captures: set[int] = set()

    def run(self, module: ModuleOp) -> dict[str, int]:
        with collector_paused():
            return self._run(module)

    def _run(self, module: ModuleOp) -> dict[str, int]:
        settings = _settings.get()
        roots = self.by_root.keys() | self.remarks.keys()
        worklist: deque[Operation] = deque(op for op in nested_ops(module) if op.name in roots)
        queued = set(map(id, worklist))
        remarked: set[tuple[int, str]] = set()
        created_by: dict[int, str] = {}
        rewrites = 0
        while worklist:
            op = worklist.popleft()
            queued.discard(id(op))
            if op.parent is None:
                continue  # erased by an earlier rewrite
            analyses: dict[tuple[str, int], Any] = {}
            family = created_by.get(id(op))
            self._remarks(op, remarked, analyses, family)
            pattern, m = self._first_match(op, settings.explain, family, analyses)
            if pattern is None or m is None:
                continue
            rewrites += 1
            if rewrites > self.dsl_pass.max_rewrites:
                raise XsplitError(
                    f"pass '{self.dsl_pass.name}' did not reach a fixpoint within "
                    f"{self.dsl_pass.max_rewrites} rewrites",
                    op,
                )
            # `created` holds only the new ops a pattern of another family is rooted at.
            created, users = self._apply(pattern, m)
            for new_op in created:
                created_by[id(new_op)] = pattern.family
            for new_op in (*created, *users):
                if new_op.name in roots and id(new_op) not in queued:
                    worklist.append(new_op)
                    queued.add(id(new_op))
            self.counts[pattern.name] += 1
        if settings.stats is not None:
            totals = settings.stats.setdefault(self.dsl_pass.name, {})
            for name, n in self.counts.items():
                totals[name] = totals.get(name, 0) + n
        return dict(self.counts)

    def _remarks(
        self,
        op: Operation,
        remarked: set[tuple[int, str]],
        analyses: dict[tuple[str, int], Any],
        family: str | None,
    ) -> None:
        for r in self.remarks.get(op.name, ()):
            key = (id(op), r.name)
            if key in remarked or family in self.dsl_pass.families_of(r):
                continue  # its family's own output: see Remark.family
            m = Match(op, self.options, {}, analyses, self.ctx)
            if self._check(r.where, m) is None:
                remarked.add(key)
                remark(op, r.render(m))

    def _first_match(
        self,
        op: Operation,
        explain: bool,
        family: str | None,
        analyses: dict[tuple[str, int], Any],
    ) -> tuple[Pattern | None, Match | None]:
        tried = self.by_root if explain else self.live_by_root
        for pattern in tried.get(op.name, ()):
            if pattern.family == family:
                continue  # made by this family's rewrite; see Pattern.family
            early = self._early[id(pattern)]
            if early and not explain and self._fails_early(early, op, analyses):
                continue
            m = Match(op, self.options, {}, analyses, self.ctx)
            failure = self._check(pattern.where, m)
            if failure is None:
                return pattern, m
            if explain:
                remark(
                    op, f"explain: pattern '{pattern.name}' did not match '{op.name}': {failure}"
                )
        return None, None

    def _check(self, where: Constraint, m: Match) -> Failure | None:
        """`where.check(m)`, the tests it is a conjunction of decided once
        per op visit where they can be (`_check_shared`): the patterns and
        remarks rooted at one op share many (the remarks that say why a
        pattern did not apply test what it tests)."""
        for c in where.children if isinstance(where, AllOf) else (where,):
            if (failure := self._check_shared(c, m)) is not None:
                return failure
        return None

    def _check_shared(self, c: Constraint, m: Match) -> Failure | None:
        """`c.check(m)`, kept in the op's analyses when `c` (or what `c`
        negates) is a structural test tried with no captures made and no
        value of a set under test (`testing_a_set`), and made no captures: its
        outcome then depends on the op alone, which does not change while
        patterns are tried on it. The pass options are the same for all."""
        shared = self._shared.get(id(c))
        if shared is None:
            # Once per test of the pass (they live as long as its patterns).
            inner = c.child if isinstance(c, Not) else c
            key = ("shared test", id(inner)) if is_structural(inner) else None
            shared = self._shared[id(c)] = (inner, key)
        inner, key = shared
        if key is None or m.captures or testing_a_set():
            return c.check(m)
        failure = m.analyses.get(key, _UNDECIDED)
        if failure is _UNDECIDED:
            failure = inner.check(m)
            if m.captures:
                # It captured: its outcome goes with them, not the op alone.
                if inner is c:
                    return failure
                m.captures.clear()
            else:
                m.analyses[key] = failure
        if inner is c:
            return failure
        return None if failure is not None else Failure(c.description, f"{inner} holds")

    def _fails_early(
        self, early: tuple[Constraint, ...], op: Operation, analyses: dict[tuple[str, int], Any]
    ) -> bool:
        """Whether one of a pattern's `_early_tests` fails on `op` whatever
        the captures: tried with none, it read none (`_Watched`). Its place
        in the match comes after tests that only read the IR and capture,
        so the match would fail there as it fails here, with nothing else
        done but facts about the IR not computed. Decided once per op visit
        for every pattern that has the test."""
        for c in early:
            if id(c) in self._reads_captures:
                continue
            key = ("early test", id(c))
            fails = analyses.get(key)
            if fails is None:
                watched = _Watched()
                try:
                    failure = c.check(Match(op, self.options, watched, analyses, self.ctx))
                except Exception:  # in its place, with captures, it may not raise
                    failure = None
                if watched.read:
                    # It will most likely read them on other ops too: not
                    # tried early again in this run (a matter of time only).
                    self._reads_captures.add(id(c))
                fails = analyses[key] = failure is not None and not watched.read
            if fails:
                return True
        return False

    def _apply(self, pattern: Pattern, m: Match) -> tuple[list[Operation], list[Operation]]:
        """Rewrites the root; returns the ops it created that a pattern of another
        family is rooted at, and the users of its results.

        A rewrite returns the values that replace the root's results, and the
        engine erases the root; or None when it moved the root into what it
        built and rewired the root's uses itself."""
        root = m.root
        producers = [v.owner for v in m.defined_above() if isinstance(v.owner, Operation)]
        builder = _RecordingBuilder(InsertPoint.before(root))
        key = (
            None
            if pattern.memo is None
            else (pattern.name, _operand_aliasing(root), pattern.memo(m))
        )
        if key is not None and key in self.templates:
            replacements = self.templates[key].instantiate(root, builder)
        else:
            if isinstance(pattern.rewrite, Template):
                replacements = pattern.rewrite.rewrite(m, builder)
            elif isinstance(pattern.rewrite, UpdateRoot):
                replacements = pattern.rewrite.rewrite(m, builder)
            else:
                result = pattern.rewrite(m, IRBuilder(builder))
                replacements = None if result is None else list(result)
            if key is not None and replacements is not None:
                if template := _BuiltTemplate.snapshot(root, builder.inserted, replacements):
                    self.templates[key] = template
        users: list[Operation] = []
        # The root's copy in its place is the root updated: as after an
        # UpdateRoot, neither it nor its users are tried again.
        in_place = bool(builder.in_place) and replacements is not None and all(
            isinstance(r.owner, Operation) and r.owner in builder.in_place for r in replacements
        )
        if replacements is not None:
            if len(replacements) != len(root.results):
                raise XsplitError(
                    f"pattern '{pattern.name}' replaced {len(root.results)} results with "
                    f"{len(replacements)} values",
                    root,
                )
            for old, new in zip(root.results, replacements):
                if not in_place:
                    users.extend(use.operation for use in old.uses)
                old.replace_all_uses_with(new)
            Rewriter.erase_op(root)
        _erase_if_dead(producers)
        # As in MLIR, what a rewrite makes is located where the root was (ops
        # nested in it report their closest located ancestor).
        for op in builder.inserted:
            if isinstance(op.location, UnknownLoc):
                op.location = root.location
        wanted = self._wanted_by_others(pattern.family)
        if not wanted:
            return [], users
        created: list[Operation] = []
        for op in builder.inserted:
            if not (in_place and op in builder.in_place):
                _collect_new(op, root, wanted, created)
        return created, users

    def _wanted_by_others(self, family: str) -> frozenset[str]:
        """The op names a pattern or remark outside `family` is rooted at."""
        wanted = self._wanted.get(family)
        if wanted is None:
            wanted = frozenset(n for n, fams in self.families.items() if fams - {family})
            self._wanted[family] = wanted
        return wanted


_UNDECIDED: Any = object()
"""An op's analyses hold no outcome of the test yet (None: it held)."""


def _may_hold(where: Constraint, options: Mapping[str, Any]) -> bool:
    """False when a test of the options alone in `where` fails on `options`
    and only tests the DSL states on the op tree come before it: those read
    the IR and make captures, which a failed match drops, so the match fails
    on every op as it would have, and nothing else happens. A native test
    (`where`) before it may do more (remarks): from there, the match runs."""
    opening = where.children if isinstance(where, AllOf) else (where,)
    nowhere = Match(None, options)  # type: ignore[arg-type]  # they read no op
    for c in opening:
        if on_options_alone(c):
            if c.check(nowhere) is not None:
                return False
        elif not is_structural(c):
            return True
    return True


def _early_tests(where: Constraint) -> tuple[Constraint, ...]:
    """The structural tests of a conjunction that come after a native test
    declared pure (`Predicate.pure`) and only such tests or structural ones:
    where one fails whatever the captures, the match fails before the
    native tests run (`Engine._fails_early`). The first impure native test
    ends them: from there, what the match does before a failure may be seen.
    Explanations run every match in order."""
    early: list[Constraint] = []
    after_native = False
    for c in where.children if isinstance(where, AllOf) else (where,):
        if is_structural(c):
            if after_native:
                early.append(c)
        elif is_pure(c):
            after_native = True
        else:
            break
    return tuple(early)


class _Watched(dict[str, Any]):
    """Captures that note whether a test read them, by name or whole. The
    DSL's own saves and restores around `~` and `|` copy them with
    `dict.copy`, which reads no entry for a test's outcome."""

    read = False

    def __getitem__(self, name: str) -> Any:
        self.read = True
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        self.read = True
        return super().__contains__(name)

    def __iter__(self) -> Iterator[str]:
        self.read = True
        return super().__iter__()

    def __len__(self) -> int:
        self.read = True
        return super().__len__()

    def get(self, name: str, default: Any = None) -> Any:
        self.read = True
        return super().get(name, default)

    def keys(self) -> Any:
        self.read = True
        return super().keys()

    def values(self) -> Any:
        self.read = True
        return super().values()

    def items(self) -> Any:
        self.read = True
        return super().items()

    def copy(self) -> dict[str, Any]:
        self.read = True
        return super().copy()

    def setdefault(self, name: str, default: Any = None) -> Any:
        self.read = True
        return super().setdefault(name, default)

    def pop(self, name: str, *default: Any) -> Any:
        self.read = True
        return super().pop(name, *default)

    def popitem(self) -> tuple[str, Any]:
        self.read = True
        return super().popitem()

    def __eq__(self, other: object) -> bool:
        self.read = True
        return super().__eq__(other)

    def __ne__(self, other: object) -> bool:
        self.read = True
        return super().__ne__(other)

    def __or__(self, other: Any) -> Any:
        self.read = True
        return super().__or__(other)

    __hash__ = None  # type: ignore[assignment]


def _walk_new(op: Operation, moved_root: Operation | None) -> Iterator[Operation]:
    """`op` and the ops nested in it, except the root a rewrite moved inside:
    that existed before, and was visited already."""
    if op is moved_root:
        return
    yield op
    for region in op.regions:
        for block in region.blocks:
            for nested in block.ops:
                yield from _walk_new(nested, moved_root)


def _collect_new(
    op: Operation, moved_root: Operation, names: frozenset[str], out: list[Operation]
) -> None:
    """Appends to `out` the ops of `_walk_new(op, moved_root)` named in
    `names`, in the same order."""
    if op is moved_root:
        return
    if op.name in names:
        out.append(op)
    for region in op.regions:
        for block in region.blocks:
            for nested in block.ops:
                _collect_new(nested, moved_root, names, out)


def _operand_aliasing(root: Operation) -> tuple[int, ...]:
    """Which operands are the same value, as the index of each one's first use."""
    first: dict[SSAValue, int] = {}
    return tuple(first.setdefault(v, i) for i, v in enumerate(root.operands))


@dataclass
class _BuiltTemplate:
    """What one rewrite built, detached, with the root's operands as holes."""

    block: Block
    results: list[SSAValue]
    in_order: bool = False
    """Whether every value the template defines is defined before its uses,
    in one block per region and with no successors: then it is cloned in
    one walk (`_clone_in_order`)."""

    def __post_init__(self) -> None:
        self.in_order = _defined_before_use(self.block)

    @staticmethod
    def snapshot(
        root: Operation, built: list[Operation], replacements: list[SSAValue]
    ) -> _BuiltTemplate | None:
        holes: dict[SSAValue, int] = {}
        for i, v in enumerate(root.operands):
            holes.setdefault(v, i)
        block = Block(arg_types=[v.type for v in root.operands])
        mapping: dict[SSAValue, SSAValue] = {}
        defined: set[SSAValue] = set()
        for op in built:
            for used in values_defined_above(op):
                if used in defined:
                    continue
                if used not in holes:
                    return None  # it reads something besides the root's operands
                mapping[used] = block.args[holes[used]]
            block.add_op(op.clone(value_mapper=mapping))
            defined.update(op.results)
        if not all(r in mapping for r in replacements):
            return None
        return _BuiltTemplate(block, [mapping[r] for r in replacements])

    def instantiate(self, root: Operation, builder: Builder) -> list[SSAValue]:
        mapping: dict[SSAValue, SSAValue] = dict(zip(self.block.args, root.operands))
        for op in self.block.ops:
            if self.in_order:
                builder.insert(_clone_in_order(op, mapping))
            else:
                builder.insert(op.clone(value_mapper=mapping))
        return [mapping[r] for r in self.results]


def _erase_if_dead(ops: list[Operation]) -> None:
    """Erases side-effect-free ops that a rewrite left without users, and then
    their producers that this leaves without users, and so on."""
    worklist = list(dict.fromkeys(ops))
    while worklist:
        op = worklist.pop()
        if op.parent is None or any(r.uses for r in op.results) or not _is_free(op):
            continue
        producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        Rewriter.erase_op(op)
        worklist.extend(producers)


def _is_free(op: Operation) -> bool:
    """Whether erasing `op` when unused changes nothing: pure ops, and linalg
    ops on tensors, which have value semantics."""
    # An op carried unregistered may write memory: xDSL's default for it
    # (every trait held) would erase it.
    known = not isinstance(op, UnregisteredOp)
    if known and (op.has_trait(Pure) or op.has_trait(NoMemoryEffect)) or op.name in _FREE_OPS:
        return True
    values = [*op.operands, *op.results]
    return (
        op.name.startswith("linalg.")
        and bool(op.results)
        and all(not isinstance(v.type, MemRefType) for v in values)
    )


_FREE_OPS = frozenset({"arith.constant", "tensor.empty"})
