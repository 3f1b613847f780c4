"""Numbers on the match side: named dimensions captured from the op tree,
pass options, and the arithmetic and relations among them.

A shape is captured by naming its dimensions, as DRR and PDLL name operands;
a name used twice must be the same size both times:

    input(0).has_shape("M", "K") & input(1).has_shape("K", "N") & init().has_shape("M", "N")

Then relations among those numbers and the pass options are constraints:

    (dim("K") > 1) & (dim("K") % option("factor") == 0)

and the numbers themselves are what a template's holes need
(`Template(text, full=dim("K") // CHUNK)`): a `Number` is called with the
match like any helper. Each is stated in the DSL, so a constraint built from
them is structural; a number only Python can compute stays a helper of the
rewrite (DRR's `NativeCodeCall`), never a test of the match.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Operation

from xsplit.analysis.shapes import ceildiv as int_ceildiv
from xsplit.rewrites.dsl.constraints import (
    DIM_PREFIX,
    Constraint,
    Match,
    OptionRef,
    Predicate,
    ValueRef,
    is_structural,
)

class Unknown(Exception):
    """A number the match cannot know (a dynamic size, an option not given):
    every relation on it fails, saying which."""


class Number(ABC):
    """An integer the match side computes from captures and options."""

    @abstractmethod
    def evaluate(self, m: Match) -> int: ...

    @property
    @abstractmethod
    def description(self) -> str: ...

    @property
    def structural(self) -> bool:
        return True

    def __call__(self, m: Match) -> int:
        """Its value, as a template helper: the match held, so it is known."""
        return self.evaluate(m)

    def __str__(self) -> str:
        return self.description

    # Arithmetic builds larger numbers.
    def __add__(self, other: NumberLike) -> Number:
        return _Arith("+", self, number(other), lambda a, b: a + b)

    def __sub__(self, other: NumberLike) -> Number:
        return _Arith("-", self, number(other), lambda a, b: a - b)

    def __mul__(self, other: NumberLike) -> Number:
        return _Arith("*", self, number(other), lambda a, b: a * b)

    def __floordiv__(self, other: NumberLike) -> Number:
        return _Arith("floordiv", self, number(other), _floordiv)

    def __mod__(self, other: NumberLike) -> Number:
        return _Arith("mod", self, number(other), _mod)

    # Relations are constraints.
    def __eq__(self, other: object) -> Constraint:  # type: ignore[override]
        return relation("=", self, number(other), lambda a, b: a == b)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> Constraint:  # type: ignore[override]
        return relation("!=", self, number(other), lambda a, b: a != b)  # type: ignore[arg-type]

    def __lt__(self, other: NumberLike) -> Constraint:
        return relation("<", self, number(other), lambda a, b: a < b)

    def __le__(self, other: NumberLike) -> Constraint:
        return relation("<=", self, number(other), lambda a, b: a <= b)

    def __gt__(self, other: NumberLike) -> Constraint:
        return relation(">", self, number(other), lambda a, b: a > b)

    def __ge__(self, other: NumberLike) -> Constraint:
        return relation(">=", self, number(other), lambda a, b: a >= b)

    def __hash__(self) -> int:
        return id(self)


NumberLike = "Number | OptionRef | int"


def _floordiv(a: int, b: int) -> int:
    if b == 0:
        raise Unknown("a division by 0")
    return a // b


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise Unknown("a remainder by 0")
    return a % b


@dataclass(frozen=True, eq=False)
class Constant(Number):
    value: int

    def evaluate(self, m: Match) -> int:
        return self.value

    @property
    def description(self) -> str:
        return str(self.value)


@dataclass(frozen=True, eq=False)
class Dim(Number):
    """A dimension named by `has_shape`."""

    name: str

    def evaluate(self, m: Match) -> int:
        key = DIM_PREFIX + self.name
        if key not in m.captures:
            raise Unknown(f"{self.name} is not captured")
        size = m.captures[key]
        if size is None:
            raise Unknown(f"{self.name} is dynamic")
        return size

    @property
    def description(self) -> str:
        return self.name

    def is_dynamic(self) -> Constraint:
        """The dimension was captured, and is dynamic (`?`)."""
        key = DIM_PREFIX + self.name

        def check(m: Match) -> bool | str:
            if key not in m.captures:
                return f"{self.name} is not captured"
            size = m.captures[key]
            return size is None or f"{self.name} is {size}"

        return Predicate(f"{self.name} is dynamic", check, structural=True)


@dataclass(frozen=True, eq=False)
class Option(Number):
    """An integer pass option."""

    name: str

    def evaluate(self, m: Match) -> int:
        value = m.options.get(self.name)
        if value is None:
            raise Unknown(f"{self.name} is not given")
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unknown(f"{self.name} is {value!r}, not an integer")
        return value

    @property
    def description(self) -> str:
        return self.name


@dataclass(frozen=True, eq=False)
class Captured(Number):
    """An integer a constraint before it bound to a name, as DRR binds a
    `NativeCodeCall`'s result: the relations stated on it are the DSL's,
    while the test that bound it stays what it is (native where it is)."""

    name: str

    def evaluate(self, m: Match) -> int:
        value = m.captures.get(self.name)
        if value is None:
            raise Unknown(f"${self.name} is not captured")
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unknown(f"${self.name} is {value!r}, not an integer")
        return value

    @property
    def description(self) -> str:
        return f"${self.name}"


@dataclass(frozen=True, eq=False)
class _Arith(Number):
    op: str
    lhs: Number
    rhs: Number
    apply: Callable[[int, int], int]

    def evaluate(self, m: Match) -> int:
        return self.apply(self.lhs.evaluate(m), self.rhs.evaluate(m))

    @functools.cached_property
    def description(self) -> str:
        return f"({self.lhs} {self.op} {self.rhs})"

    @property
    def structural(self) -> bool:
        return self.lhs.structural and self.rhs.structural


@dataclass(frozen=True, eq=False)
class _Call(Number):
    """A named function of numbers (`ceildiv`, `minimum`)."""

    name: str
    args: tuple[Number, ...]
    apply: Callable[..., int]

    def evaluate(self, m: Match) -> int:
        return self.apply(*(a.evaluate(m) for a in self.args))

    @functools.cached_property
    def description(self) -> str:
        return f"{self.name}({', '.join(str(a) for a in self.args)})"

    @property
    def structural(self) -> bool:
        return all(a.structural for a in self.args)


@dataclass(frozen=True, eq=False)
class _Cases(Number):
    """The number of the first case whose condition holds."""

    cases: tuple[tuple[Constraint, Number], ...]

    def evaluate(self, m: Match) -> int:
        for condition, value in self.cases:
            if condition.holds(m):
                return value.evaluate(m)
        raise Unknown("no case holds")

    @functools.cached_property
    def description(self) -> str:
        return "(" + "; ".join(f"{v} if {c}" for c, v in self.cases) + ")"

    @property
    def structural(self) -> bool:
        return all(is_structural(c) and v.structural for c, v in self.cases)


def number(x: Any) -> Number:
    """`x` as a Number: an int is a constant, `option(name)` the option."""
    if isinstance(x, Number):
        return x
    if isinstance(x, OptionRef):
        return Option(x.name)
    if isinstance(x, int) and not isinstance(x, bool):
        return Constant(x)
    raise TypeError(f"not a number of the match: {x!r}")


def captured(name: str) -> Captured:
    """The integer captured as `name` (`m.captures[name]`)."""
    return Captured(name)


def dim(name: str) -> Dim:
    """The dimension `has_shape` named `name`."""
    return Dim(name)


def ceildiv(a: Any, b: Any) -> Any:
    """ceil(a / b): an int of two ints, else a Number of the match."""
    if _plain(a) and _plain(b):
        return int_ceildiv(a, b)
    return _Call("ceildiv", (number(a), number(b)), lambda x, y: -(-x // _nonzero(y)))


def minimum(a: Any, b: Any) -> Any:
    """The smaller: an int of two ints, else a Number of the match."""
    if _plain(a) and _plain(b):
        return min(a, b)
    return _Call("min", (number(a), number(b)), min)


def cases(*pairs: tuple[Constraint, Any]) -> Number:
    """`cases((c1, n1), (c2, n2), ...)`: `n1` where `c1` holds, else `n2`
    where `c2` holds, ...: the number that differs with an option."""
    return _Cases(tuple((c, number(n)) for c, n in pairs))


def _plain(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _nonzero(y: int) -> int:
    if y == 0:
        raise Unknown("a division by 0")
    return y


def relation(op: str, lhs: Number, rhs: Number, test: Callable[[int, int], bool]) -> Constraint:
    """`lhs op rhs`, failing with the values (or what is unknown)."""
    description = f"{lhs} {op} {rhs}"

    def check(m: Match) -> bool | str:
        try:
            a, b = lhs.evaluate(m), rhs.evaluate(m)
        except Unknown as e:
            return str(e)
        return test(a, b) or f"{_said(lhs, a)} is not {op} {_said(rhs, b)}"

    return Predicate(description, check, structural=lhs.structural and rhs.structural)


def _said(n: Number, value: int) -> str:
    return str(value) if isinstance(n, Constant) else f"{n} = {value}"


def some_operand(test: Callable[[ValueRef], Constraint], description: str) -> Constraint:
    """`test` holds on one of the root's operands: `some_operand(is_encoded)`.
    Structural when `test` is. Captures of the first operand it holds on stay."""

    # One constraint per operand position, built once: this runs on every
    # op every pattern of a pass is tried on.
    per_operand: list[Constraint] = []

    def check(m: Match) -> bool | str:
        while len(per_operand) < len(m.root.operands):
            per_operand.append(test(_nth_operand(len(per_operand))))
        for inner in per_operand[: len(m.root.operands)]:
            saved = dict(m.captures)
            if inner.check(m) is None:
                return True
            m.captures.clear()
            m.captures.update(saved)
        return f"no operand {description}"

    probe = test(_nth_operand(0))
    return Predicate(f"some operand {description}", check, structural=is_structural(probe))


def described(c: Constraint, description: str, reason: str | None = None) -> Constraint:
    """`c` under another name (and, failing, `reason` for its own), as
    diagnostics say it; structural when `c` is."""

    def check(m: Match) -> bool | str:
        failure = c.check(m)
        return True if failure is None else reason or failure.reason

    return Predicate(description, check, structural=is_structural(c))


def _nth_operand(i: int) -> ValueRef:
    return ValueRef(
        f"operand {i}", lambda op: op.operands[i] if i < len(op.operands) else None
    )


def parent_is(name: str, where: Constraint | None = None) -> Constraint:
    """The root's enclosing op is a `name` op, on which `where` holds (seen
    from it: `attr(...)` reads the parent's attributes)."""

    def check(m: Match) -> bool | str:
        parent: Operation | None = m.root.parent_op()
        if parent is None or parent.name != name:
            return f"it is inside {parent.name if parent else 'nothing'}"
        if where is not None and (failure := where.check(m.at(parent))) is not None:
            return str(failure)
        return True

    inner = f" where {where}" if where is not None else ""
    structural = where is None or is_structural(where)
    return Predicate(f"is directly inside {name}{inner}", check, structural=structural)


__all__: Sequence[str] = [
    "Number",
    "Unknown",
    "captured",
    "cases",
    "ceildiv",
    "described",
    "dim",
    "minimum",
    "number",
    "parent_is",
    "relation",
    "some_operand",
]
