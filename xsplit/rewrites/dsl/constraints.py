"""The match side of a pattern, as data.

A `Constraint` holds or fails on a `Match` (the root op, the pass options and
the captures made so far) and, when it fails, says why. Constraints compose
with `&`, `|` and `~`. Values around the root are named with `operand(i)`,
`input(i)`, `init(i)` and `result(i)`; their methods give the usual
constraints (`is_tensor()`, `element_type(...)`, `defined_by(...)`,
`is_constant(...)`, `capture(...)`).

    init().defined_by("linalg.fill", where=input(0).is_constant(0.0))

reads "the init comes from a linalg.fill of the constant 0".
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IntegerAttr,
    NoneAttr,
    TensorType,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Operation, SSAValue


DIM_PREFIX = "dim:"
"""Dimensions `has_shape` names live beside the other captures under this
prefix, so that a dimension `K` never shadows a captured value `%K`."""


@dataclass
class Match:
    """What a pattern sees: the op it is tried on, the pass options, and captures."""

    root: Operation
    options: Mapping[str, Any] = field(default_factory=dict)
    captures: dict[str, Any] = field(default_factory=dict)
    analyses: dict[tuple[str, int], Any] = field(default_factory=dict)
    """Facts about the IR computed while matching, shared by every pattern
    tried on the same op while the IR does not change."""
    ctx: Context | None = None
    """The context the pass runs in: a rewrite that applies passes of its
    own (`pass_pipeline.PassPipeline`) applies them in it."""

    def __getitem__(self, name: str) -> Any:
        return self.captures[name]

    def at(self, op: Operation) -> Match:
        """The same match seen from another op, sharing its captures."""
        return Match(op, self.options, self.captures, self.analyses, self.ctx)

    def defined_above(self, op: Operation | None = None) -> list[SSAValue]:
        """The values from outside `op` (default: the root) that it uses."""
        from xsplit.rewrites.dsl.builders import values_defined_above

        op = op or self.root
        key = ("defined_above", id(op))
        if key not in self.analyses:
            self.analyses[key] = values_defined_above(op)
        return self.analyses[key]


@dataclass(frozen=True)
class Failure:
    """Which constraint failed, and why."""

    constraint: str
    reason: str

    def __str__(self) -> str:
        return f"'{self.constraint}' failed: {self.reason}"


class Constraint(ABC):
    """A condition on a match. `check` returns None when it holds.

    A constraint is immutable, and so is its description: the composite
    ones keep theirs once made (a failed test names it, on every op a
    pattern is tried on)."""

    description: str

    @abstractmethod
    def check(self, m: Match) -> Failure | None: ...

    def holds(self, m: Match) -> bool:
        return self.check(m) is None

    def __and__(self, other: Constraint) -> Constraint:
        return AllOf((*_parts(self, AllOf), *_parts(other, AllOf)))

    def __or__(self, other: Constraint) -> Constraint:
        return AnyOf((*_parts(self, AnyOf), *_parts(other, AnyOf)))

    def __invert__(self) -> Constraint:
        return Not(self)

    def __str__(self) -> str:
        return self.description


def _parts(c: Constraint, kind: type[AllOf | AnyOf]) -> tuple[Constraint, ...]:
    return c.children if isinstance(c, kind) else (c,)


@dataclass(frozen=True)
class AllOf(Constraint):
    """Holds when every child holds; reports the first that fails."""

    children: tuple[Constraint, ...]

    @functools.cached_property
    def description(self) -> str:  # type: ignore[override]
        return " and ".join(f"({c})" if isinstance(c, AnyOf) else str(c) for c in self.children)

    def check(self, m: Match) -> Failure | None:
        for child in self.children:
            if (failure := child.check(m)) is not None:
                return failure
        return None


@dataclass(frozen=True)
class AnyOf(Constraint):
    """Holds when a child holds; tried in order, captures of failed tries dropped."""

    children: tuple[Constraint, ...]

    @functools.cached_property
    def description(self) -> str:  # type: ignore[override]
        return " or ".join(f"({c})" if isinstance(c, AllOf) else str(c) for c in self.children)

    def check(self, m: Match) -> Failure | None:
        reasons: list[str] = []
        for child in self.children:
            saved = dict.copy(m.captures)  # not a read of them: `engine._Watched`
            failure = child.check(m)
            if failure is None:
                return None
            m.captures.clear()
            m.captures.update(saved)
            reasons.append(str(failure))
        return Failure(self.description, "; ".join(reasons))


@dataclass(frozen=True)
class Not(Constraint):
    """Holds when its child fails. Captures made inside are dropped."""

    child: Constraint

    @functools.cached_property
    def description(self) -> str:  # type: ignore[override]
        return f"not {self.child}"

    def check(self, m: Match) -> Failure | None:
        saved = dict.copy(m.captures)  # not a read of them: `engine._Watched`
        failure = self.child.check(m)
        m.captures.clear()
        m.captures.update(saved)
        if failure is None:
            return Failure(self.description, f"{self.child} holds")
        return None


@dataclass(frozen=True)
class Predicate(Constraint):
    """A named test. `test` returns True/None to hold, False or a reason to fail."""

    description: str  # type: ignore[misc]
    test: Callable[[Match], bool | str | None]
    structural: bool = False
    """Whether the DSL states it about the op tree (ops, operands, types,
    attributes, captures, options), as DRR's and PDLL's match sides do;
    False for a Python function given to `where` (a native constraint)."""
    options_only: bool = False
    """Whether it reads nothing but the pass options: its outcome is the same
    on every op of a run (the engine decides it once, `on_options_alone`)."""
    pure: bool = False
    """For a native test: whether it does nothing but read the IR, make
    captures and keep facts in `Match.analyses` (no remark, no change to
    the IR), as structural tests do. The engine may then decide a
    structural test after it first (`engine._early_tests`)."""

    def check(self, m: Match) -> Failure | None:
        outcome = self.test(m)
        if outcome is True or outcome is None:
            return None
        return Failure(self.description, "it does not" if outcome is False else outcome)


def where(
    description: str, test: Callable[[Match], bool | str | None], *, pure: bool = False
) -> Constraint:
    """A constraint from a function of the match; `description` names it in
    diagnostics. It is native code, as DRR's `CPred`: prefer the structural
    constraints below where they say it. `pure=True` declares that `test`
    only reads the IR and makes captures (`Predicate.pure`)."""
    return Predicate(description, test, pure=pure)


def _structural(description: str, test: Callable[[Match], bool | str | None]) -> Constraint:
    return Predicate(description, test, structural=True)


def _on_options(description: str, test: Callable[[Match], bool | str | None]) -> Constraint:
    return Predicate(description, test, structural=True, options_only=True)


def on_options_alone(c: Constraint) -> bool:
    """Whether `c` reads nothing but the pass options."""
    return all(isinstance(leaf, Predicate) and leaf.options_only for leaf in leaves(c))


def is_pure(c: Constraint) -> bool:
    """Whether every test in `c` is structural or a native one declared pure."""
    return all(
        isinstance(leaf, Predicate) and (leaf.structural or leaf.pure) for leaf in leaves(c)
    )


def leaves(c: Constraint) -> list[Constraint]:
    """The tests a constraint is made of, through `&`, `|` and `~`."""
    if isinstance(c, AllOf | AnyOf):
        return [leaf for child in c.children for leaf in leaves(child)]
    if isinstance(c, Not):
        return leaves(c.child)
    return [c]


def is_structural(c: Constraint) -> bool:
    """Whether every test in `c` is one the DSL states about the op tree."""
    return all(isinstance(leaf, Predicate) and leaf.structural for leaf in leaves(c))


ALWAYS = _structural("always", lambda m: True)


def option(name: str) -> OptionRef:
    """A pass option, for constraints such as `option("strategy") == "expand"`."""
    return OptionRef(name)


@dataclass(frozen=True)
class OptionRef:
    name: str

    def __eq__(self, value: object) -> Constraint:  # type: ignore[override]
        return _on_options(
            f"{self.name} = {value}",
            lambda m: (
                m.options.get(self.name) == value or f"{self.name} is {m.options.get(self.name)}"
            ),
        )

    def __ne__(self, value: object) -> Constraint:  # type: ignore[override]
        return _on_options(
            f"{self.name} != {value}",
            lambda m: m.options.get(self.name) != value or f"{self.name} is {value}",
        )

    # An integer option against a constant; against a number of the match
    # (`dim("K")`) Python takes the number's side (`numbers.py`).
    def __gt__(self, other: object) -> Constraint:
        return self._compare(">", other, lambda a, b: a > b)

    def __ge__(self, other: object) -> Constraint:
        return self._compare(">=", other, lambda a, b: a >= b)

    def __lt__(self, other: object) -> Constraint:
        return self._compare("<", other, lambda a, b: a < b)

    def __le__(self, other: object) -> Constraint:
        return self._compare("<=", other, lambda a, b: a <= b)

    def _compare(self, op: str, other: object, test: Callable[[int, int], bool]) -> Constraint:
        if not isinstance(other, int) or isinstance(other, bool):
            return NotImplemented

        def check(m: Match) -> bool | str:
            value = m.options.get(self.name)
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{self.name} is not given"
            return test(value, other) or f"{self.name} = {value} is not {op} {other}"

        return _on_options(f"{self.name} {op} {other}", check)

    def is_set(self) -> Constraint:
        return _on_options(f"{self.name} is given", lambda m: m.options.get(self.name) is not None)

    def is_truthy(self) -> Constraint:
        """Given, and not false, 0 or the empty string."""
        return _on_options(
            f"{self.name} is given",
            lambda m: bool(m.options.get(self.name)) or f"{self.name} is not given",
        )

    def __hash__(self) -> int:
        return hash(self.name)


class ValueRef:
    """A value found from the match root, e.g. its first operand."""

    def __init__(self, description: str, find: Callable[[Operation], SSAValue | None]):
        self.description = description
        self.find = find

    def _check(self, what: str, test: Callable[[SSAValue, Match], bool | str | None]) -> Constraint:
        def run(m: Match) -> bool | str | None:
            value = self.find(m.root)
            if value is None:
                return f"'{m.root.name}' has no {self.description}"
            return test(value, m)

        return _structural(f"{self.description} {what}", run)

    def capture(self, name: str) -> Constraint:
        """Always holds (if the value exists) and records it as `name`."""

        def record(value: SSAValue, m: Match) -> bool:
            m.captures[name] = value
            return True

        return self._check(f"captured as ${name}", record)

    def is_tensor(self) -> Constraint:
        return self._check(
            "is a ranked tensor",
            lambda v, m: isinstance(v.type, TensorType) or f"its type is {v.type}",
        )

    def has_static_shape(self) -> Constraint:
        return self._check(
            "has a static shape",
            lambda v, m: (
                (isinstance(v.type, TensorType) and v.type.has_static_shape())
                or f"its type is {v.type}"
            ),
        )

    def element_type(self, *types: Attribute) -> Constraint:
        names = " or ".join(str(t) for t in types)

        def test(v: SSAValue, m: Match) -> bool | str:
            t = v.type
            element = t.get_element_type() if isinstance(t, TensorType) else t
            return element in types or f"its element type is {element}"

        return self._check(f"has element type {names}", test)

    def defined_by(
        self, op_name: str, *, capture: str | None = None, where: Constraint | None = None
    ) -> Constraint:
        """The value is a result of an `op_name` op, on which `where` then holds."""

        def test(v: SSAValue, m: Match) -> bool | str | None:
            producer = v.owner
            if not isinstance(producer, Operation) or producer.name != op_name:
                what = producer.name if isinstance(producer, Operation) else "a block argument"
                return f"it comes from {what}"
            if capture is not None:
                m.captures[capture] = producer
            if where is not None and (failure := where.check(m.at(producer))) is not None:
                return str(failure)
            return True

        inner = f" where {where}" if where is not None else ""
        return self._check(f"is defined by {op_name}{inner}", test)

    def produced_by(self, *, where: Constraint, capture: str | None = None) -> Constraint:
        """The value is a result of an op (of any name) on which `where` holds."""

        def test(v: SSAValue, m: Match) -> bool | str | None:
            producer = v.owner
            if not isinstance(producer, Operation):
                return "it is a block argument"
            if capture is not None:
                m.captures[capture] = producer
            if (failure := where.check(m.at(producer))) is not None:
                return str(failure)
            return True

        return _nested(self._check(f"is produced by an op where {where}", test), where)

    def used_only_by(self, op_name: str, *, where: Constraint | None = None) -> Constraint:
        """The value has one use, by an `op_name` op on which `where` holds."""

        def test(v: SSAValue, m: Match) -> bool | str | None:
            if v.uses.get_length() != 1:
                return f"it has {v.uses.get_length()} uses"
            user = next(iter(v.uses)).operation
            if user.name != op_name:
                return f"its user is {user.name}"
            if where is not None and (failure := where.check(m.at(user))) is not None:
                return str(failure)
            return True

        inner = f" where {where}" if where is not None else ""
        return _nested(self._check(f"is used only by {op_name}{inner}", test), where)

    def is_constant(self, value: float | None = None) -> Constraint:
        """The value is an `arith.constant`, equal to `value` when one is given."""

        def test(v: SSAValue, m: Match) -> bool | str:
            producer = v.owner
            if not isinstance(producer, arith.ConstantOp):
                return "it is not an arith.constant"
            if value is None:
                return True
            attr = producer.value
            if isinstance(attr, IntegerAttr | FloatAttr):
                actual = attr.value.data
                # Compare as numbers, so that 0 matches 0 and 0.0 alike, and
                # 1 never matches 0.
                return actual == value or f"it is the constant {actual}"
            return f"it is the constant {attr}"

        what = "is a constant" if value is None else f"is the constant {value}"
        return self._check(what, test)

    def is_captured(self, name: str) -> Constraint:
        """The value is the one captured as `name` (DRR's repeated `$name`)."""
        return self._check(
            f"is ${name}",
            lambda v, m: v is m.captures.get(name) or f"it is not ${name}",
        )

    def same_type_as(self, name: str) -> Constraint:
        """The value's type is that of the value captured as `name`."""

        def test(v: SSAValue, m: Match) -> bool | str:
            other = m.captures.get(name)
            if not isinstance(other, SSAValue):
                return f"${name} is not a captured value"
            return v.type == other.type or f"its type is {v.type}, ${name}'s {other.type}"

        return self._check(f"has the type of ${name}", test)

    def same_element_type_as(self, name: str) -> Constraint:
        """The value's element type is that of the value captured as `name`."""

        def test(v: SSAValue, m: Match) -> bool | str:
            other = m.captures.get(name)
            if not isinstance(other, SSAValue):
                return f"${name} is not a captured value"
            mine, theirs = (
                t.get_element_type() if isinstance(t, TensorType) else t
                for t in (v.type, other.type)
            )
            return mine == theirs or f"its element type is {mine}, ${name}'s {theirs}"

        return self._check(f"has the element type of ${name}", test)

    def has_shape(self, *names: str) -> Constraint:
        """A ranked tensor whose dimensions are captured by name, as DRR
        names operands (`"_"` names none); a name captured before must be
        the same size. `numbers.dim(name)` reads one back."""

        def test(v: SSAValue, m: Match) -> bool | str:
            t = v.type
            if not isinstance(t, TensorType) or t.get_num_dims() != len(names):
                return f"its type is {t}"
            for name, size in zip(names, t.get_shape()):
                if name == "_":
                    continue
                known = None if size == DYNAMIC_INDEX else size
                key = DIM_PREFIX + name
                if key in m.captures and m.captures[key] != known:
                    return f"its {name} is {known or '?'}, not {m.captures[key] or '?'}"
                m.captures[key] = known
            return True

        return self._check(f"has shape ({' x '.join(names)})", test)

    def is_encoded(self, kind: type[Attribute] | None = None) -> Constraint:
        """A tensor whose type carries an encoding (a `kind` one, when given)."""
        if kind is None:
            return self._check(
                "is encoded",
                lambda v, m: (
                    isinstance(v.type, TensorType) and not isinstance(v.type.encoding, NoneAttr)
                )
                or "it has no encoding",
            )
        return self._check(
            f"is encoded by {kind.name}",  # type: ignore[attr-defined]
            lambda v, m: (isinstance(v.type, TensorType) and isinstance(v.type.encoding, kind))
            or f"it has no {kind.name}",  # type: ignore[attr-defined]
        )

    def has_one_use(self) -> Constraint:
        return self._check(
            "has one use",
            lambda v, m: v.uses.get_length() == 1 or f"it has {v.uses.get_length()} uses",
        )


def _nested(c: Constraint, where: Constraint | None) -> Constraint:
    """`c`, native when the test `where` it runs at another op is."""
    if where is None or is_structural(where):
        return c
    assert isinstance(c, Predicate)
    return Predicate(c.description, c.test)


def operand(index: int) -> ValueRef:
    return ValueRef(
        f"operand {index}",
        lambda op: op.operands[index] if index < len(op.operands) else None,
    )


def result(index: int = 0) -> ValueRef:
    return ValueRef(
        f"result {index}",
        lambda op: op.results[index] if index < len(op.results) else None,
    )


def input(index: int) -> ValueRef:
    """The `index`-th input (`ins`) of a linalg op."""

    def find(op: Operation) -> SSAValue | None:
        inputs = getattr(op, "inputs", None)
        if inputs is None and op.name == "linalg.reduce":
            inputs = [op.operands[0]]
        return inputs[index] if inputs is not None and index < len(inputs) else None

    return ValueRef(f"input {index}", find)


def init(index: int = 0) -> ValueRef:
    """The `index`-th init (`outs`) of a linalg op."""

    def find(op: Operation) -> SSAValue | None:
        outputs = getattr(op, "outputs", None)
        if outputs is None and op.name == "linalg.reduce":
            outputs = [op.operands[1]]
        return outputs[index] if outputs is not None and index < len(outputs) else None

    return ValueRef(f"init {index}", find)


def attr(name: str) -> AttrRef:
    return AttrRef(name)


@dataclass(frozen=True)
class AttrRef:
    """An attribute or property of the root, by name."""

    name: str

    def _get(self, op: Operation) -> Attribute | None:
        return op.attributes.get(self.name) or op.properties.get(self.name)

    def is_present(self) -> Constraint:
        return _structural(f"has attribute {self.name}", lambda m: self._get(m.root) is not None)

    def equals(self, value: Attribute) -> Constraint:
        def test(m: Match) -> bool | str:
            actual = self._get(m.root)
            return actual == value or f"it is {actual}"

        return _structural(f"attribute {self.name} is {value}", test)

    def capture(self, name: str) -> Constraint:
        """Records the attribute (or None) as `name`."""

        def record(m: Match) -> bool:
            m.captures[name] = self._get(m.root)
            return True

        return _structural(f"attribute {self.name} captured as ${name}", record)

    def equals_capture(self, name: str) -> Constraint:
        """The attribute equals the one captured as `name` (on another op of the tree)."""

        def test(m: Match) -> bool | str:
            actual = self._get(m.root)
            return actual == m.captures.get(name) or f"it is {actual}, ${name} is {m.captures.get(name)}"

        return _structural(f"attribute {self.name} is ${name}", test)

    def each_is(self, kind: type[Attribute]) -> Constraint:
        """The attribute is a non-empty array of `kind` attributes."""

        def test(m: Match) -> bool | str:
            actual = self._get(m.root)
            items = getattr(actual, "data", None)
            if not isinstance(items, tuple) or not items:
                return f"it is {actual}"
            return all(isinstance(a, kind) for a in items) or f"it is {actual}"

        return _structural(f"attribute {self.name} is a list of {kind.name}", test)  # type: ignore[attr-defined]

    def has_an(self, kind: type[Attribute]) -> Constraint:
        """The attribute is an array holding a `kind` attribute."""

        def test(m: Match) -> bool | str:
            items = getattr(self._get(m.root), "data", None)
            return (isinstance(items, tuple) and any(isinstance(a, kind) for a in items)) or (
                f"it holds no {kind.name}"  # type: ignore[attr-defined]
            )

        return _structural(f"attribute {self.name} holds a {kind.name}", test)  # type: ignore[attr-defined]


def iterators(*kinds: str) -> Constraint:
    """The root's loops are exactly these (`"parallel"`, `"reduction"`)."""

    def test(m: Match) -> bool | str:
        actual = _iterator_kinds(m.root)
        if actual is None:
            return f"'{m.root.name}' has no iterator types"
        return actual == list(kinds) or f"they are {actual}"

    return _structural(f"iterator types are [{', '.join(kinds)}]", test)


def reduction_loops(count: int) -> Constraint:
    """The root has exactly `count` reduction loops."""

    def test(m: Match) -> bool | str:
        actual = _iterator_kinds(m.root)
        if actual is None:
            return f"'{m.root.name}' has no iterator types"
        n = actual.count("reduction")
        return n == count or f"it has {n}"

    return _structural(f"has {count} reduction loop{'s' if count != 1 else ''}", test)


def _iterator_kinds(op: Operation) -> list[str] | None:
    getter = getattr(op, "get_iterator_types", None)
    if getter is None:
        return None
    return [str(t.data) for t in getter().data]


def root_is(*names: str) -> Constraint:
    return _structural(
        f"root is {' or '.join(names)}",
        lambda m: m.root.name in names or f"it is {m.root.name}",
    )


def not_inside(*names: str, description: str | None = None) -> Constraint:
    """The root is not nested, at any depth, in an op named one of `names`
    (an op carried unregistered counts by the name it was written with)."""
    wanted = frozenset(names)

    def test(m: Match) -> bool | str:
        parent = m.root.parent_op()
        while parent is not None:
            name = parent.op_name.data if isinstance(parent, UnregisteredOp) else parent.name
            if name in wanted:
                return f"it is inside {name}"
            parent = parent.parent_op()
        return True

    return _structural(description or f"is not inside {' or '.join(sorted(wanted))}", test)


def region_blocks(name: str, count: int) -> Constraint:
    """The root's region `name` (as its op class names it) holds `count` blocks."""

    def test(m: Match) -> bool | str:
        blocks = len(getattr(m.root, name).blocks)
        return blocks == count or f"it has {blocks}"

    return _structural(f"region {name} has {count} block{'s' if count != 1 else ''}", test)


def operand_group_size(name: str, count: int) -> Constraint:
    """The root's variadic operand group `name` holds `count` values."""

    def test(m: Match) -> bool | str:
        values = len(getattr(m.root, name))
        return values == count or f"it has {values}"

    return _structural(f"{name} has {count} operand{'s' if count != 1 else ''}", test)


def no_discardable_attributes() -> Constraint:
    """The root carries no attributes beyond its own properties."""
    return _structural(
        "has no discardable attributes",
        lambda m: not m.root.attributes or f"it has {', '.join(m.root.attributes)}",
    )



def no_discardable_attributes_but(*names: str) -> Constraint:
    """The root carries no attributes beyond its properties and `names`:
    caches xDSL sets on an op when something reads it, which no pass means."""
    allowed = frozenset(names)
    return _structural(
        f"carries no attributes but {', '.join(names)}",
        lambda m: set(m.root.attributes) <= allowed
        or f"it has {', '.join(a for a in m.root.attributes if a not in allowed)}",
    )

__all__: Sequence[str] = [
    "ALWAYS",
    "AllOf",
    "AnyOf",
    "AttrRef",
    "Constraint",
    "Failure",
    "Match",
    "Not",
    "OptionRef",
    "Predicate",
    "ValueRef",
    "attr",
    "init",
    "input",
    "is_structural",
    "iterators",
    "leaves",
    "no_discardable_attributes",
    "no_discardable_attributes_but",
    "not_inside",
    "operand_group_size",
    "region_blocks",
    "operand",
    "option",
    "reduction_loops",
    "result",
    "root_is",
    "where",
]
