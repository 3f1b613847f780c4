"""Patterns, remarks, options and passes: what a rewrite is, declared as data.

    fold = Pattern(
        name="fold-zero-init-add",
        doc="add(matmul(A, B, fill 0), C) becomes matmul(A, B, C)",
        root="linalg.add",
        where=input(0).defined_by("linalg.matmul", where=...) & input(1).capture("c"),
        rewrite=Template("%r = linalg.matmul ins($a, $b : ...) outs($c : $c.type) -> $c.type"),
    )
    Pass("fold-zero-init", "Folds zero-initialised matmuls into adds.", [fold])

A `Pass` registers itself under its name, so `xsplit-opt -p NAME` and
`xsplit.rewrite(text, "NAME{...}")` find it, with its options type-checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xsplit.diagnostics import XsplitError
from xsplit.rewrites.builders import IRBuilder
from xsplit.rewrites.dsl.constraints import ALWAYS, Constraint, Match
from xsplit.rewrites.dsl.template import Template

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
    rewrite: Template | BuilderRewrite
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
        rewrite: Template | BuilderRewrite,
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
    family: str
    """A remark is not made on ops that patterns of its family created."""

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
        object.__setattr__(self, "family", family or name)

    @property
    def benefit(self) -> int:
        return 0

    def render(self, m: Match) -> str:
        return self.message if isinstance(self.message, str) else self.message(m)


@dataclass(frozen=True)
class Option:
    """A typed pass option. `check` returns an error message for a bad value."""

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], str | None] | None = None

    @property
    def annotation(self) -> Any:
        return Union[self.type, None] if self.default is None else self.type  # noqa: UP007

    def validate(self, pass_name: str, value: Any) -> None:
        if value is None and self.default is None:
            return
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise XsplitError(
                f"{pass_name}: {self.name} must be {self.type.__name__}, got {value!r}"
            )
        if self.choices is not None and value not in self.choices:
            raise XsplitError(
                f"{pass_name}: unknown {self.name} '{value}', expected one of "
                f"{', '.join(map(str, self.choices))}"
            )
        if self.check is not None and (message := self.check(value)) is not None:
            raise XsplitError(f"{pass_name}: {self.name} {message}")


def positive(value: int) -> str | None:
    return None if value > 0 else f"must be positive, got {value}"


PASSES: dict[str, Pass] = {}
"""Every pass declared with the DSL, by name: xsplit's and loaded ones."""


class Pass:
    """A named group of patterns run to a fixpoint, with typed options."""

    def __init__(
        self,
        name: str,
        doc: str,
        patterns: Sequence[Pattern | Remark],
        options: Sequence[Option] = (),
        validate: Callable[[Mapping[str, Any]], str | None] | None = None,
        max_rewrites: int = 1_000_000,
    ):
        self.name = name
        self.doc = doc
        self.patterns = tuple(patterns)
        self.options = tuple(options)
        self.validate = validate
        self.max_rewrites = max_rewrites
        known = {o.name for o in self.options}
        for p in self.patterns:
            if isinstance(p, Pattern) and (unknown := set(p.options) - known):
                raise XsplitError(
                    f"pattern '{p.name}' reads options {sorted(unknown)} that pass "
                    f"'{name}' does not declare"
                )
        self.pass_class = self._make_pass_class()
        if name in PASSES and PASSES[name].patterns != self.patterns:
            raise XsplitError(f"a pass named '{name}' is already registered")
        PASSES[name] = self

    def check_options(self, values: Mapping[str, Any]) -> None:
        for o in self.options:
            o.validate(self.name, values[o.name])
        if self.validate is not None and (message := self.validate(values)) is not None:
            raise XsplitError(f"{self.name}: {message}")

    def apply(self, module: ModuleOp, **options: Any) -> dict[str, int]:
        """Runs the pass on `module`; returns how often each pattern fired."""
        values = {o.name: options.pop(o.name, o.default) for o in self.options}
        if options:
            raise XsplitError(f"{self.name}: unknown options {sorted(options)}")
        self.check_options(values)
        from xsplit.rewrites.dsl.engine import Engine

        return Engine(self, values).run(module)

    def _make_pass_class(self) -> type[ModulePass]:
        fields = [
            (o.name, o.annotation, dataclasses.field(default=o.default)) for o in self.options
        ]
        class_name = "".join(part.capitalize() for part in self.name.split("-")) + "Pass"
        return dataclasses.make_dataclass(
            class_name,
            fields,
            bases=(DSLModulePass,),
            frozen=True,
            namespace={"name": self.name, "dsl_pass": self, "__doc__": self.doc},
        )


class DSLModulePass(ModulePass):
    """The xDSL face of a DSL pass, so pipelines and xdsl-opt can run it."""

    name: ClassVar[str]
    dsl_pass: ClassVar[Pass]

    def __post_init__(self) -> None:
        self.dsl_pass.check_options(self.option_values())

    def option_values(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xsplit.rewrites.dsl.engine import Engine

        Engine(self.dsl_pass, self.option_values()).run(op)
