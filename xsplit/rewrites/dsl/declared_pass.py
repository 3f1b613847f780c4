"""Options and passes: a group of patterns, declared as data.

A `Pass` registers itself under its name, so `xsplit-opt -p NAME` and
`xsplit.rewrite(text, "NAME{...}")` find it, with its options type-checked.
The engine runs it; it sits above both the patterns and the engine.
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec

from xsplit.diagnostics import XsplitError, report_remarks
from xsplit.rewrites.dsl.engine import Engine
from xsplit.rewrites.dsl.pattern import Check, Pattern, Remark

_KIND_WORDS = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    tuple: "a comma-separated list of integers",
}
_TYPE_NAMES = {bool: "bool", int: "integer", float: "number", str: "string", tuple: "list"}
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
            # "" is an option's "not given" (its default), not a value to name.
            return "one of " + ", ".join(_show(c) for c in self.choices if c != "")
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
        if self.type is tuple:
            # A list option, `grid=4,2` as MLIR writes one: integers.
            if not given or any(isinstance(v, bool) or not isinstance(v, int) for v in given):
                raise self._bad(pass_name, shown)
            return self._checked(pass_name, tuple(given), shown)
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
        return self._checked(pass_name, value, shown)

    def _checked(self, pass_name: str, value: Any, shown: str) -> Any:
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

    def apply(
        self, module: ModuleOp, *, ctx: Context | None = None, **options: Any
    ) -> dict[str, int]:
        """Runs the pass on `module` (in `ctx`, default a fresh context of
        every dialect); returns how often each pattern fired."""
        from xsplit.dialects import make_context

        values = {o.name: options.pop(o.name, o.default) for o in self.options}
        for name in options:
            self.option(name)  # raises: unknown
        self.check_options(values)
        return Engine(self, values, ctx or make_context()).run(module)

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
        # Under plain xdsl-opt nobody collects remarks: they go to stderr, as
        # MLIR's do when no handler takes them.
        with report_remarks():
            Engine(self.dsl_pass, self.option_values(), ctx).run(op)
