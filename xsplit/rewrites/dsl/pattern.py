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
import textwrap
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec

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

_KIND_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
_TYPE_NAMES = {bool: "bool", int: "integer", float: "number", str: "string"}
_TRUE = frozenset({"true", "True", "TRUE", "1"})
_FALSE = frozenset({"false", "False", "FALSE", "0"})
"""What MLIR's (LLVM's) boolean option parser accepts."""


class OptionError(XsplitError):
    """A pass option with a value it cannot take."""


@dataclass(frozen=True)
class Option:
    """A typed pass option. `check` returns an error message for a bad value;
    a `Check` also says in words which values are good."""

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], str | None] | None = None

    @property
    def annotation(self) -> Any:
        return Union[self.type, None] if self.default is None else self.type  # noqa: UP007

    @property
    def kind(self) -> str:
        """The values it takes, in words: "an integer >= 1", "true or false"."""
        if self.choices is not None:
            return "one of " + ", ".join(map(_show, self.choices))
        words = _KIND_WORDS.get(self.type, f"a {self.type.__name__}")
        if isinstance(self.check, Check):
            words += f" {self.check.words}"
        return words

    @property
    def type_name(self) -> str:
        return _TYPE_NAMES.get(self.type, self.type.__name__)

    @property
    def default_text(self) -> str:
        return "not set" if self.default is None else _show(self.default)

    def _bad(self, pass_name: str, given: str) -> OptionError:
        return OptionError(f"{pass_name}: {self.name} must be {self.kind}, got {given}")

    def validate(self, pass_name: str, value: Any) -> None:
        """Checks a Python value, as `Pass.apply` and the pass class take them."""
        if value is None and self.default is None:
            return
        typed = isinstance(value, self.type) and not (
            self.type in (int, float) and isinstance(value, bool)
        )
        if not typed or (self.choices is not None and value not in self.choices):
            raise self._bad(pass_name, repr(value))
        if self.check is not None and (message := self.check(value)) is not None:
            if isinstance(self.check, Check):
                raise self._bad(pass_name, repr(value))
            raise OptionError(f"{pass_name}: {self.name} {message}")

    def parse(self, pass_name: str, given: tuple[Any, ...]) -> Any:
        """The value of `name=given` in a pipeline; `given` is what xDSL's
        pipeline lexer made of the text (numbers, true/false, words)."""
        text = ",".join(_show(v) for v in given)
        shown = f"'{text}'" if given else "no value"
        if self.type is bool and not given:
            return True  # `{balanced}` alone, as MLIR reads a flag
        if len(given) != 1:
            raise self._bad(pass_name, shown)
        (value,) = given
        if self.type is bool:
            if isinstance(value, bool):
                return value
            if str(value) in _TRUE or str(value) in _FALSE:
                return str(value) in _TRUE
            raise self._bad(pass_name, shown)
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise self._bad(pass_name, shown)
        elif self.type is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise self._bad(pass_name, shown)
            value = float(value)
        elif self.type is str:
            value = str(value)
        if self.choices is not None and value not in self.choices:
            raise self._bad(pass_name, shown)
        if self.check is not None and (message := self.check(value)) is not None:
            if isinstance(self.check, Check):
                raise self._bad(pass_name, shown)
            raise OptionError(f"{pass_name}: {self.name} {message}")
        return value


def _show(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


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
        self._remark_families = {
            r.name: self._families_of(r) for r in self.patterns if isinstance(r, Remark)
        }
        self.pass_class = self._make_pass_class()
        if name in PASSES and PASSES[name].patterns != self.patterns:
            raise XsplitError(f"a pass named '{name}' is already registered")
        PASSES[name] = self

    def _families_of(self, r: Remark) -> frozenset[str]:
        if r.family is not None:
            return frozenset({r.family})
        shared = frozenset(
            p.family
            for p in self.patterns
            if isinstance(p, Pattern) and set(p.root) & set(r.root)
        )
        return shared or frozenset({r.name})

    def families_of(self, r: Remark) -> frozenset[str]:
        """The families a remark belongs to: it is not made on their output."""
        return self._remark_families[r.name]

    def option(self, name: str) -> Option:
        """The option called `name` (a pipeline's `-` read as `_`)."""
        for o in self.options:
            if o.name == name.replace("-", "_"):
                return o
        known = ", ".join(o.name for o in self.options)
        raise OptionError(
            f"{self.name}: unknown option '{name}'; "
            + (f"its options are {known}" if known else "it takes no options")
        )

    def parse_options(self, given: Mapping[str, tuple[Any, ...]]) -> dict[str, Any]:
        """Option values from a pipeline's `{name=value ...}`, defaults for the rest."""
        values = {o.name: o.default for o in self.options}
        for name, raw in given.items():
            o = self.option(name)
            values[o.name] = o.parse(self.name, raw)
        self.check_options(values)
        return values

    def help(self) -> str:
        """`--help-pass`: the pass's doc, then each option's name, type,
        default and meaning."""
        lines = [f"{self.name}: {self.doc}"]
        if not self.options:
            lines.append("  It takes no options.")
        for o in self.options:
            lines.append(f"  {o.name}={o.type_name}  (default: {o.default_text})")
            lines += textwrap.wrap(
                f"{o.doc}; takes {o.kind}", 79, initial_indent=" " * 6, subsequent_indent=" " * 6
            )
        return "\n".join(lines) + "\n"

    def check_options(self, values: Mapping[str, Any]) -> None:
        for o in self.options:
            o.validate(self.name, values[o.name])
        if self.validate is not None and (message := self.validate(values)) is not None:
            raise OptionError(f"{self.name}: {message}")

    def apply(self, module: ModuleOp, **options: Any) -> dict[str, int]:
        """Runs the pass on `module`; returns how often each pattern fired."""
        values = {o.name: options.pop(o.name, o.default) for o in self.options}
        for name in options:
            self.option(name)  # raises: unknown
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

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> DSLModulePass:
        """Reads `{name=value ...}` with xsplit's errors, which name the option,
        the values it takes in words and the value given (xDSL's own would
        print Python types)."""
        return cls(**cls.dsl_pass.parse_options(spec.parameters))

    def option_values(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xsplit.rewrites.dsl.engine import Engine

        from xsplit.diagnostics import report_remarks

        # Under plain xdsl-opt nobody collects remarks: they go to stderr, as
        # MLIR's do when no handler takes them.
        with report_remarks():
            Engine(self.dsl_pass, self.option_values()).run(op)
