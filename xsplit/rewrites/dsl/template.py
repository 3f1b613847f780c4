"""IR templates: the rewrite side of a pattern written as the IR it produces.

A template is MLIR text with holes, as DRR's result patterns and PDLL's
`rewrite` blocks are IR with the matched values spliced in:

    Template("%r = linalg.matmul ins($a, $b : $a.type, $b.type)"
             " outs($c : $c.type) -> $c.type")

Holes:

- `$x` is the captured value `x`; `$x.type` and `$x.element_type` are its
  type and element type. A captured list of values is spelled out with commas
  (`ins($xs : $xs.type)`), `$xs[2]` or `$xs[$i]` is one of them.
- `$n` is a number, shape or attribute computed by a small named helper, as
  DRR's `NativeCodeCall`: `Template(text, chunk=chunk_size)` calls
  `chunk_size(match)` and writes what it returns (an `int`, an xDSL attribute
  or type in its MLIR syntax, a list of them joined with commas; `$n[$i]`
  indexes a list). A helper computes numbers, never IR.
- Ops repeated over a count, as lines between `$for i in $n:` (or
  `$for i in 1..$n:`) and `$end`. Inside, `$i` is the index and `$i.prev` is
  `$i - 1`, so `%part$i` names one value per repetition and
  `%acc$i = arith.addf %acc$i.prev, %part$i` chains them.
- Lines kept or left out by a helper's truth value, as `$if $n:` (or
  `$if $n[$i]:`) ... `$else:` ... `$end`: an argument loaded only where it
  is a tensor.
- Repetition within a line, `${i in $n: text}`: `text` once per `i`, joined
  with commas, for what a line lists once per operand (`ins(${i in $xs:
  %e$i} : ...)`, a block's arguments `^bb0(${j in $args: %9$j:
  $args[$j].type})`). A list inside a helper's list is written in brackets
  (`[[0], [1, 2]]`, a reassociation).
- Regions are MLIR text like the rest (a `linalg.generic` body, an
  `scf.forall` body).
- A helper may return a list of lists of values (each result's dynamic
  sizes): `$dims[$i]` spells out one of those lists.

xDSL parses the filled text once per combination of hole contents (types,
numbers, counts) and the parsed ops are cloned at each match. The results of
the template's last op replace the root's results, or those `results=` names:
`results=["%merged"]`, `results=["%r#1"]`, or `results=["$c"]` to replace the
root by a captured value (DRR's `replaceWithValue`), with no ops at all.
With `unnamed=True` the values the text names (`%in$i`) carry no name into
the IR, as MLIR numbers unnamed values: the values they stand for give them
theirs (a load of `%a` prints as `%a_1`).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ContainerType, ModuleOp, UnknownLoc
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute

from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dsl.builders import clone_in_order, defined_before_use
from xsplit.rewrites.dsl.constraints import Match

_HOLE = re.compile(
    r"\$([A-Za-z_][A-Za-z0-9_]*)(?:\[(\$?[A-Za-z0-9_]+)\])?(\.type|\.element_type|\.prev)?"
)
_FOR = re.compile(r"^\s*\$for\s+([A-Za-z_]\w*)\s+in\s+(?:(\d+)\.\.)?\$([A-Za-z_]\w*)\s*:\s*$")
_END = re.compile(r"^\s*\$end\s*$")
_IF = re.compile(r"^\s*\$if\s+(not\s+)?\$([A-Za-z_]\w*)(?:\[(\$?\w+)\])?\s*:\s*$")
_ELSE = re.compile(r"^\s*\$else\s*:\s*$")
_INLINE = re.compile(r"\$\{\s*([A-Za-z_]\w*)\s+in\s+(?:(\d+)\.\.)?\$([A-Za-z_]\w*)\s*:\s*")
"""The head of a repetition within a line, `${i in $n: `; its text runs to
the brace that closes it."""
_RESULT = re.compile(r"^%([A-Za-z_.$\-][\w.$\-]*)(?:#(\d+))?$")
_ARG = "xsplit_hole_"
"""Prefix of the template function's arguments: a capture `$x` is `%xsplit_hole_x`,
so that it never meets a name the template itself defines."""

Helper = Callable[[Match], Any]


@dataclass(frozen=True)
class TemplateValue:
    """A value the template itself defines, in a helper's list of offsets or
    sizes: a mixed static/dynamic list is written as MLIR prints it,
    `[0, %chunk_offset]`."""

    name: str

    def __str__(self) -> str:
        return f"%{self.name}"


def value_named(name: str) -> TemplateValue:
    """The template's value `%name`, for a helper's list (`TemplateValue`)."""
    return TemplateValue(name)

VERIFY_TEMPLATES_VARIABLE = "XSPLIT_VERIFY_TEMPLATES"
"""Set (not to 0), every filled template is verified as it is parsed: the
tests set it. Else it is only parsed, once per shape: what it makes is
verified with the pass's output (xsplit-opt's, the API's), and verifying
each shape added a third to the time spent parsing them."""


def _verifies_templates() -> bool:
    return os.environ.get(VERIFY_TEMPLATES_VARIABLE, "0") not in ("", "0")


@dataclass(frozen=True)
class _Parsed:
    """A template filled for one key: its ops, its arguments by capture, and
    where the root's replacements come from."""

    function: func.FuncOp
    arguments: tuple[tuple[str, int | tuple[int, int] | None], ...]
    """(capture, index in it or None) for each argument of `function`."""
    results: tuple[tuple[str, int, int], ...]
    """("op", op position, result) or ("capture", argument position, 0)."""
    in_order: bool
    """Its values are defined before their uses (`defined_before_use`):
    then it is cloned in one walk (`clone_in_order`)."""


class Template:
    """A rewrite given as MLIR text with holes (see the module's doc)."""

    def __init__(
        self, text: str, results: Sequence[str] = (), unnamed: bool = False, **helpers: Helper
    ):
        self.text = text
        self.results = tuple(results)
        self.unnamed = unnamed
        self.helpers = helpers
        self._parsed: dict[Hashable, _Parsed] = {}

    def __repr__(self) -> str:
        return f"Template({self.text!r})"

    @functools.cached_property
    def holes(self) -> list[str]:
        """The names the template reads (captures and helpers), in order of
        first appearance; loop indices are not holes."""
        lines = self.text.splitlines()
        loops = {f.group(1) for line in lines if (f := _FOR.match(line))}
        counts = [f.group(3) for line in lines if (f := _FOR.match(line))]
        for line in lines:
            for inline in _INLINE.finditer(line):
                loops.add(inline.group(1))
                counts.append(inline.group(3))
        seen: dict[str, None] = {}
        for line in self.text.splitlines():
            if (opened := _IF.match(line)) is not None:
                if opened.group(2) not in loops:
                    seen.setdefault(opened.group(2), None)
                index = opened.group(3) or ""
                if index.startswith("$") and index[1:] not in loops:
                    seen.setdefault(index[1:], None)
                continue
            if _FOR.match(line) or _END.match(line) or _ELSE.match(line):
                continue
            for name, index, _ in _HOLE.findall(line):
                if name not in loops:
                    seen.setdefault(name, None)
                if index.startswith("$") and index[1:] not in loops:
                    seen.setdefault(index[1:], None)
        for name in counts:
            seen.setdefault(name, None)
        for spec in self.results:
            if spec.startswith("$"):
                seen.setdefault(spec[1:], None)
        return list(seen)

    def _values(self, m: Match) -> dict[str, Any]:
        """What each hole stands for in this match: a helper's value, else a capture."""
        values: dict[str, Any] = {}
        for name in self.holes:
            if name in self.helpers:
                values[name] = self.helpers[name](m)
            elif name in m.captures:
                values[name] = m.captures[name]
            else:
                raise XsplitError(f"template hole ${name} is neither a capture nor a helper", m.root)
        return values

    def _key(self, values: dict[str, Any]) -> Hashable:
        # Values enter by type only: the parsed ops take them as arguments.
        return tuple(_signature(values[name]) for name in values)

    def instantiate(self, m: Match) -> func.FuncOp:
        """The template parsed for the hole contents of this match (cached)."""
        return self._instantiate(self._values(m), m).function

    def _instantiate(self, values: dict[str, Any], m: Match) -> _Parsed:
        key = self._key(values)
        parsed = self._parsed.get(key)
        if parsed is None:
            parsed = self._parsed[key] = self._parse(values, m)
        return parsed

    def _parse(self, values: dict[str, Any], m: Match) -> _Parsed:
        from xsplit.reader import parse_module

        arguments: dict[tuple[str, int | tuple[int, int] | None], Attribute] = {}
        for name, value in values.items():
            if isinstance(value, SSAValue):
                arguments[(name, None)] = value.type
            elif _is_value_list(value):
                for i, v in enumerate(value):
                    arguments[(name, i)] = v.type
            elif _is_value_table(value):
                for i, row in enumerate(value):
                    for j, v in enumerate(row):
                        arguments[(name, (i, j))] = v.type
        names: dict[tuple[str, str, int | None], str] = {}
        text = self._text_for(values)
        body = self._tidy("\n".join(_expand(text.splitlines(), values, {}, m, names)))
        args = ", ".join(f"{_arg_name(n, i)}: {t}" for (n, i), t in arguments.items())
        source = f"func.func @xsplit_template({args}) {{\n{body}\n  func.return\n}}\n"
        try:
            module: ModuleOp = parse_module(
                source, "<template>", self._context(), verify=_verifies_templates()
            )
        except XsplitError as e:
            raise XsplitError(f"bad template: {e.message}\n{source}") from None
        (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
        if self.unnamed:
            _drop_names(function, set(names.values()))
        _name_values(function, {unique: wanted for (_, wanted, _), unique in names.items()})
        # What a template makes is located where its root was (the engine
        # sees to it), never in the template's text.
        for op in function.walk():
            op.location = UnknownLoc()
        order = list(arguments)
        return _Parsed(
            function,
            tuple(order),
            self._find_results(function, order, m),
            defined_before_use(function.body.block),
        )

    # Hooks for templates with more syntax (`clone.CloningTemplate`): the
    # text for these hole contents, the filled text tidied, the context
    # it parses in (None: xsplit's).

    def _text_for(self, values: dict[str, Any]) -> str:
        return self.text

    def _tidy(self, filled: str) -> str:
        return filled

    def _context(self) -> Context | None:
        return None

    def _find_results(
        self,
        function: func.FuncOp,
        arguments: list[tuple[str, int | tuple[int, int] | None]],
        m: Match,
    ) -> tuple[tuple[str, int, int], ...]:
        ops = [op for op in function.body.block.ops if not isinstance(op, func.ReturnOp)]
        if not self.results:
            if not ops:
                raise XsplitError("a template needs at least one op or results=", m.root)
            return tuple(("op", len(ops) - 1, i) for i in range(len(ops[-1].results)))
        found: list[tuple[str, int, int]] = []
        for spec in self.results:
            if spec.startswith("$"):
                found.append(("capture", arguments.index((spec[1:], None)), 0))
                continue
            named = _RESULT.match(spec)
            if named is None:
                raise XsplitError(f"template results= names values as %name or %name#i: {spec}")
            name, index = named.group(1), int(named.group(2) or 0)
            at = [
                (p, i)
                for p, op in enumerate(ops)
                for i, r in enumerate(op.results)
                if r.name_hint == name
            ]
            if index >= len(at):
                raise XsplitError(f"template results=: no value {spec} at the top level", m.root)
            found.append(("op", *at[index]))
        return tuple(found)

    def rewrite(self, m: Match, builder: Builder) -> list[SSAValue]:
        """Clones the template before the root; returns the values replacing it."""
        values = self._values(m)
        parsed = self._instantiate(values, m)
        mapping: dict[SSAValue, SSAValue] = {}
        for arg, (name, index) in zip(parsed.function.body.block.args, parsed.arguments):
            if index is None:
                mapping[arg] = values[name]
            elif isinstance(index, tuple):
                mapping[arg] = values[name][index[0]][index[1]]
            else:
                mapping[arg] = values[name][index]
        made: list[Operation] = []
        for op in parsed.function.body.block.ops:
            if isinstance(op, func.ReturnOp):
                break
            copy = clone_in_order(op, mapping) if parsed.in_order else op.clone(value_mapper=mapping)
            made.append(builder.insert(copy))
        replacements: list[SSAValue] = []
        for kind, position, index in parsed.results:
            if kind == "capture":
                replacements.append(mapping[parsed.function.body.block.args[position]])
            else:
                replacements.append(made[position].results[index])
        return replacements


def _is_value_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(
        isinstance(v, SSAValue) for v in value
    )


def _is_value_table(value: Any) -> bool:
    """A list of lists of values (each result's sizes), some list not empty."""
    return (
        isinstance(value, list | tuple)
        and all(isinstance(row, list | tuple) for row in value)
        and any(row for row in value)
        and all(isinstance(v, SSAValue) for row in value for v in row)
    )


def _signature(value: Any) -> Hashable:
    """What of a hole's content the parsed template depends on, hashable: a
    value's type, a number, a type; lists as tuples of those.

    Types key as themselves: equal types print alike, and hashing one costs
    far less than printing it (a key is made at every match). Other
    attributes key by their text: equal ones may print apart (0.0, -0.0).
    A bool keys apart from the int it equals (`true` is not `1`)."""
    if isinstance(value, SSAValue):
        return value.type
    if isinstance(value, list | tuple):
        return tuple(_signature(v) for v in value)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | str | TypeAttribute) or value is None:
        return value
    return _text(value)


def _text(value: Any) -> str:
    """A computed hole's MLIR spelling."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(f"[{_text(v)}]" if isinstance(v, list | tuple) else _text(v) for v in value)
    return str(value)


def _arg_name(name: str, index: int | tuple[int, int] | None) -> str:
    if isinstance(index, tuple):
        return f"%{_ARG}{name}_{index[0]}_{index[1]}"
    return f"%{_ARG}{name}" if index is None else f"%{_ARG}{name}_{index}"


def _drop_names(function: func.FuncOp, kept: set[str]) -> None:
    """Takes the names the template's text gave its values off them, but
    those a name hole asked for (`kept`, as they parsed)."""
    for op in function.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for value in values:
            if value.name_hint not in kept:
                value.name_hint = None


def _element_type(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, ContainerType) else t  # type: ignore[return-value]


def _name_values(function: func.FuncOp, wanted: dict[str, str]) -> None:
    """Gives the values a name hole defined the names the holes asked for
    (none for a number), now that they parsed under unique ones."""
    for op in function.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for value in values:
            if value.name_hint in wanted:
                name = wanted[value.name_hint]
                value.name_hint = None if name.isdigit() else name


def _expand(
    lines: list[str],
    values: dict[str, Any],
    loops: dict[str, int],
    m: Match,
    names: dict[tuple[str, str, int | None], str],
) -> list[str]:
    """The template's lines with `$for` blocks unrolled, `$if` blocks kept
    or left out, and holes filled."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _FOR.match(line)
        condition = _IF.match(line) if opened is None else None
        if opened is None and condition is None:
            if _END.match(line):
                raise XsplitError("bad template: $end without $for", m.root)
            if _ELSE.match(line):
                raise XsplitError("bad template: $else without $if", m.root)
            out.append(_fill(line, values, loops, m, names))
            i += 1
            continue
        depth, j, otherwise = 1, i + 1, None
        while j < len(lines) and depth:
            if _FOR.match(lines[j]) or _IF.match(lines[j]):
                depth += 1
            elif _END.match(lines[j]):
                depth -= 1
            elif depth == 1 and _ELSE.match(lines[j]):
                otherwise = j
            j += 1
        if depth:
            raise XsplitError(f"bad template: ${'if' if condition else 'for'} without $end", m.root)
        if condition is not None:
            holds = _truth(condition, values, loops, m)
            if opened is None and otherwise is not None:
                kept = lines[i + 1 : otherwise] if holds else lines[otherwise + 1 : j - 1]
            else:
                kept = lines[i + 1 : j - 1] if holds else []
            out += _expand(kept, values, loops, m, names)
            i = j
            continue
        if otherwise is not None:
            raise XsplitError("bad template: $else in a $for", m.root)
        assert opened is not None
        var = opened.group(1)
        for index in _repetitions(opened, "$for", values, loops, m):
            out += _expand(lines[i + 1 : j - 1], values, {**loops, var: index}, m, names)
        i = j
    return out


def _truth(condition: re.Match[str], values: dict[str, Any], loops: dict[str, int], m: Match) -> bool:
    """Whether an `$if` line's helper value (or the element it indexes) holds."""
    negated, name, index_text = condition.group(1), condition.group(2), condition.group(3)
    if name not in values:
        raise XsplitError(f"template $if needs a helper, ${name} is none", m.root)
    value = values[name]
    if index_text is not None:
        if index_text.startswith("$"):
            key = index_text[1:]
            index = loops[key] if key in loops else int(values[key])
        else:
            index = int(index_text)
        value = value[index]
    return bool(value) != bool(negated)


def _fill(
    line: str,
    values: dict[str, Any],
    loops: dict[str, int],
    m: Match,
    names: dict[tuple[str, str, int | None], str],
) -> str:
    def fill(hole: re.Match[str]) -> str:
        text = fill_value(hole)
        # A hole that names an SSA value (`%$a_chunk`): two holes may ask for
        # one name (two unnamed inputs' `input_tail`), as two values can
        # share a name hint; each hole's value parses under a unique name,
        # given the asked-for name after parsing (`_name_values`).
        if hole.start() > 0 and line[hole.start() - 1] == "%" and hole.group(1) not in loops:
            # `%$names[$i]` in a `$for` names one value per `i`, even where
            # two of them ask for one name.
            index = hole.group(2) or ""
            key = (hole.group(0), text, loops.get(index[1:]) if index.startswith("$") else None)
            if key not in names:
                names[key] = f"xsplit{len(names)}name"
            return names[key]
        return text

    def fill_value(hole: re.Match[str]) -> str:
        name, index_text, suffix = hole.group(1), hole.group(2), hole.group(3)
        if name in loops:
            if index_text is not None:
                raise XsplitError(f"bad template: loop index ${name} is not a list", m.root)
            return str(loops[name] - 1 if suffix == ".prev" else loops[name]) + (
                suffix if suffix not in (None, ".prev") else ""
            )
        value = values[name]
        index: int | None = None
        if index_text is not None:
            index = (
                loops[index_text[1:]]
                if index_text.startswith("$") and index_text[1:] in loops
                else int(values[index_text[1:]] if index_text.startswith("$") else index_text)
            )
        if isinstance(value, SSAValue) and index is not None:
            # One value has no items: writing it whole would hide a template
            # that meant to take a list.
            raise XsplitError(f"bad template: ${name} is one value, not a list to index", m.root)
        listed = _is_value_list(value) or _is_value_table(value)
        if listed and index is not None and not 0 <= index < len(value):
            raise XsplitError(
                f"bad template: ${name}[{index}] is past its {len(value)} values", m.root
            )
        if _is_value_table(value):
            rows = list(enumerate(value)) if index is None else [(index, value[index])]
            table: list[tuple[int | tuple[int, int] | None, SSAValue]] = [
                ((r, c), v) for r, row in rows for c, v in enumerate(row)
            ]
        if isinstance(value, SSAValue) or _is_value_list(value) or _is_value_table(value):
            chosen = (
                table
                if _is_value_table(value)
                else [(None, value)]
                if isinstance(value, SSAValue)
                else list(enumerate(value))
                if index is None
                else [(index, value[index])]
            )
            if suffix == ".type":
                return ", ".join(str(v.type) for _, v in chosen)
            if suffix == ".element_type":
                return ", ".join(str(_element_type(v.type)) for _, v in chosen)
            if suffix == ".prev":
                raise XsplitError(f"bad template: ${name}.prev is for loop indices", m.root)
            return ", ".join(_arg_name(name, i) for i, _ in chosen)
        if index is not None:
            value = value[index]
        if suffix == ".type" and isinstance(value, Attribute):
            return str(value)
        if suffix == ".element_type" and isinstance(value, Attribute):
            return str(_element_type(value))
        return _text(value) + (suffix if suffix == ".prev" else "")

    # `fill` reads the line it fills around each hole (a `%` before it).
    line = _repeat_inline(line, values, loops, m, names)
    return _HOLE.sub(fill, line)


def _repetitions(
    head: re.Match[str], what: str, values: dict[str, Any], loops: dict[str, int], m: Match
) -> range:
    """The indices a `$for` or `${i in ...}` head (`_FOR`, `_INLINE`) runs
    over: from its start (0 unless given) to its count, a number or the
    length of a list."""
    start, count_name = int(head.group(2) or 0), head.group(3)
    count = loops.get(count_name, values.get(count_name))
    if isinstance(count, list | tuple):
        count = len(count)
    if not isinstance(count, int):
        raise XsplitError(f"template {what} needs a count, ${count_name} is {count!r}", m.root)
    return range(start, count)


def _repeat_inline(
    line: str,
    values: dict[str, Any],
    loops: dict[str, int],
    m: Match,
    names: dict[tuple[str, str, int | None], str],
) -> str:
    """`line` with each `${i in $n: text}` written out, `text` filled once
    per `i` and the copies joined with commas."""
    out: list[str] = []
    at = 0
    while (head := _INLINE.search(line, at)) is not None:
        depth, end = 1, head.end()
        while end < len(line) and depth:
            depth += {"{": 1, "}": -1}.get(line[end], 0)
            end += 1
        if depth:
            raise XsplitError("bad template: ${ without its }", m.root)
        var = head.group(1)
        text = line[head.end() : end - 1]
        repeated = _repetitions(head, f"${{{var} in ...}}", values, loops, m)
        copies = [_fill(text, values, {**loops, var: i}, m, names) for i in repeated]
        out += [line[at : head.start()], ", ".join(copies)]
        at = end
    return "".join(out) + line[at:]


class UpdateRoot:
    """A rewrite that changes the root in place, as PDLL's
    `rewrite root with { ... }`: it sets the attributes `attributes` names to
    what their helpers return, and makes the remark `remark` returns, if any.
    The root keeps its operands, results and uses."""

    def __init__(
        self, attributes: dict[str, Helper], remark: Helper | None = None
    ):
        self.attributes = dict(attributes)
        self.remark = remark

    def __repr__(self) -> str:
        return f"UpdateRoot({sorted(self.attributes)})"

    def rewrite(self, m: Match, builder: Builder) -> None:
        from xsplit.diagnostics import remark

        for name, helper in self.attributes.items():
            m.root.attributes[name] = helper(m)
        if self.remark is not None:
            remark(m.root, self.remark(m))
