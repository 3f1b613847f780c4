"""IR templates: the rewrite side of a pattern written as the IR it produces.

A template is MLIR text with holes. `$name` stands for the captured value
`name`; `$name.type` and `$name.element_type` for its type and element type.

    Template("%r = linalg.matmul ins($a, $b : $a.type, $b.type)"
             " outs($c : $c.type) -> $c.type")

The holes become the arguments of a function that xDSL parses once per
combination of hole types, and the parsed body is cloned at each match. The
results of the template's last op replace the root's results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dsl.constraints import Match

_HOLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)(\.type|\.element_type)?")


@dataclass
class Template:
    """A rewrite given as MLIR text with `$capture` holes."""

    text: str
    _parsed: dict[tuple[str, ...], func.FuncOp] = field(default_factory=dict, repr=False)

    @property
    def holes(self) -> list[str]:
        """The captures the template reads, in order of first appearance."""
        seen: dict[str, None] = {}
        for name, _ in _HOLE.findall(self.text):
            seen.setdefault(name, None)
        return list(seen)

    def _types_of(self, m: Match) -> list[Attribute]:
        types: list[Attribute] = []
        for name in self.holes:
            value = m.captures.get(name)
            if not isinstance(value, SSAValue):
                raise XsplitError(
                    f"template hole ${name} needs a captured value, got {value!r}", m.root
                )
            types.append(value.type)
        return types

    def instantiate(self, m: Match) -> func.FuncOp:
        """The template parsed for the hole types of this match (cached)."""
        types = self._types_of(m)
        key = tuple(str(t) for t in types)
        if key not in self._parsed:
            self._parsed[key] = self._parse(types)
        return self._parsed[key]

    def _parse(self, types: Sequence[Attribute]) -> func.FuncOp:
        from xsplit.reader import parse_module

        by_name = dict(zip(self.holes, types))

        def fill(hole: re.Match[str]) -> str:
            name, suffix = hole.group(1), hole.group(2)
            if suffix == ".type":
                return str(by_name[name])
            if suffix == ".element_type":
                t = by_name[name]
                return str(t.get_element_type() if isinstance(t, TensorType) else t)
            return f"%{name}"

        body = _HOLE.sub(fill, self.text)
        args = ", ".join(f"%{n}: {t}" for n, t in by_name.items())
        source = f"func.func @xsplit_template({args}) {{\n{body}\n  func.return\n}}\n"
        try:
            module: ModuleOp = parse_module(source, "<template>")
        except XsplitError as e:
            raise XsplitError(f"bad template: {e.message}\n{source}") from None
        (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
        return function

    def rewrite(self, m: Match, builder: Builder) -> list[SSAValue]:
        """Clones the template before the root; returns the values replacing it."""
        function = self.instantiate(m)
        mapping: dict[SSAValue, SSAValue] = {
            arg: m.captures[name] for arg, name in zip(function.body.block.args, self.holes)
        }
        last: Operation | None = None
        for op in function.body.block.ops:
            if isinstance(op, func.ReturnOp):
                break
            last = builder.insert(op.clone(value_mapper=mapping))
        if last is None:
            raise XsplitError("a template needs at least one op", m.root)
        return list(last.results)
