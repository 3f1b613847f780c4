"""Templates that copy captured ops into the IR they produce: `$clone`.

A `Template` writes every op it makes. Some ops a rewrite keeps are not its
to write: a loop whose body is the user's, a contraction whose region is
whatever the matched op held. As MLIR's `rewriter.clone(op, mapping)` and
PDLL's `op<>` with the matched op's attributes, a `CloningTemplate` line

    %r = $clone $x
    %r = $clone $x(%a, %b : $a_type, $b_type) -> ($r_type)
    %r = $clone $x replacing $vs with %v, $ws with %w

is a copy of the op that defines the captured value `$x` (or `$xs[$i]`):
its attributes, properties and regions, on its own operands or on the ones
given (with their types), with its own result types or those after `->`.
`replacing $vs with %v` makes the copy, its regions included, use the
template's `%v0`, `%v1`, ... wherever the original used `$vs[0]`,
`$vs[1]`, ...: the values a dispatch rebuilds inside. `with {name = value}`
after the operands and types gives the copy those attributes too, as
PDLL's `op<>(...) {name = value}` does (split-k's tail is marked
`xsplit.split_part = "tail"`), its inherent ones replaced where named
(a generic's `indexing_maps`); `renamed` names the copy's results as the
line does (`%partial`), where they would keep the original's names. What a line copies,
replaces and yields are captures. Everything else in the
text is a `Template`'s, and a type's dynamic sizes given by an empty list,
`$t{$dims}`, are left out as MLIR prints them.

Some ops a rewrite keeps are not its to copy either: the user's loop that a
dispatch wraps, the ops of a region that becomes another op's body. As
MLIR's `rewriter.moveOpBefore` and `inlineBlockBefore`, a line

    $move $root replacing $vs with %v
    %y:$n = $move $body.ops replacing $vs with %v yielding $ys

moves the matched op (`$root`), the op that defines a captured value or a
captured op (`$x`), or a captured list of ops (`$xs.ops`, `region_ops`)
to where the line is, as they are: their results stay theirs, so the rest
of the template may read them as captures (`flow.return $loop : $loop.type`
where a region may read from above). `replacing` makes the moved ops, their
regions included, use `%v0`, `%v1`, ... instead of `$vs[0]`, `$vs[1]`, ...
`yielding $ys` names the captured values the rest of the template reads
as `%y#i` (inside an op isolated from above, which may not read a capture):
`$ys[i]`, or what replaces it.
A template that moves its root into what it makes is the root's new home:
the root's uses outside it read the template's results instead, and the
root stays.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    UnregisteredOp,
)
from xdsl.ir import Operation, SSAValue, Use

from xsplit.rewrites.dsl.constraints import Match
from xsplit.rewrites.dsl.template import Helper, Template

_CLONE = re.compile(
    r"^(?P<indent>\s*)(?P<results>%[^=]*=\s*)?\$clone\s+"
    r"(?P<source>\$[A-Za-z_]\w*(?:\[\$?\w+\])?)(?P<ops>\.ops)?"
    r"(?:\((?P<operands>(?:\$\{[^{}]*\}|[^:()])*?)\s*:\s*(?P<types>[^()]*)\))?"
    r"(?:\s*->\s*\((?P<result_types>[^()]*)\))?"
    r"(?:\s+with\s+(?P<adding>\{.*\}))?(?P<renamed>\s+renamed)?"
    r"(?:\s+replacing\s+(?P<replacing>.*?))?"
    r"(?:\s+yielding\s+\$(?P<yielding>[A-Za-z_]\w*))?\s*$"
)
_MOVE = re.compile(
    r"^(?P<indent>\s*)(?P<results>%[^=]*=\s*)?\$move\s+\$(?P<source>[A-Za-z_]\w*)(?P<ops>\.ops)?"
    r"(?:\s+replacing\s+(?P<replacing>.*?))?"
    r"(?:\s+yielding\s+\$(?P<yielding>[A-Za-z_]\w*))?\s*$"
)
_REPLACING = re.compile(r"^\$([A-Za-z_]\w*)\s+with\s+%([\w.]+)$")
_PLACEHOLDER = "xsplit.template_clone"
_OPERANDS = "xsplit.operands"
_REPLACED = "xsplit.replacing"
_UNNAMED = "xsplit.unnamed"
_RENAMED = "xsplit.renamed"
_ADDING = "xsplit.adding"
_OPS = "xsplit.ops"
_SOURCE = "xsplit.source"
_INDEX = "xsplit.index"
_YIELDING = "xsplit.yielding"
_MOVING = "xsplit.move"
_EMPTY_LIST_ITEM = re.compile(r"\(\s*,\s*|,\s*(?=[,)])")
_NO_DIMS = re.compile(r">\{\s*\}")


def _pairs(replacing: str | None, line: str) -> list[tuple[str, str]]:
    """`$vs with %v, $ws with %w` as (list, prefix) pairs."""
    pairs: list[tuple[str, str]] = []
    for part in (replacing or "").split(","):
        if not part.strip():
            continue
        named = _REPLACING.match(part.strip())
        if named is None:
            raise ValueError(f"replacing needs `$list with %prefix`: {line.strip()}")
        pairs.append((named[1], named[2]))
    return pairs


def _move_placeholder(found: re.Match[str], line: str) -> str:
    """A `$move` line as an op xDSL parses: the replacements are its operands."""
    pairs = _pairs(found["replacing"], line)
    replacements = [f"%{prefix}[*{name}]" for name, prefix in pairs]
    replacing = ", ".join(f'"{n}"' for n, _ in pairs)
    types = ", ".join(f"${n}.type" for n, _ in pairs)
    ops = f", {_OPS}" if found["ops"] else ""
    yielding = found["yielding"]
    said = f', {_YIELDING} = "{yielding}"' if yielding else ""
    results = f"${yielding}.type" if yielding else ""
    return (
        f'{found["indent"]}{found["results"] or ""}"{_PLACEHOLDER}"({", ".join(replacements)}) '
        f'{{{_MOVING} = "{found["source"]}"{ops}, {_REPLACED} = [{replacing}]{said}}} : '
        f"({types}) -> ({results})"
    )


def _placeholder(line: str) -> str:
    """A `$clone` line as an op xDSL parses: the operands given and the
    replacements are its operands, what it copies its attributes."""
    moving = _MOVE.match(line)
    if moving is not None:
        return _move_placeholder(moving, line)
    found = _CLONE.match(line)
    if found is None:
        return line
    source = found["source"]
    operands = [o.strip() for o in (found["operands"] or "").split(",") if o.strip()]
    types = [t.strip() for t in (found["types"] or "").split(",") if t.strip()]
    if len(operands) != len(types):
        raise ValueError(f"$clone needs one type per operand: {line.strip()}")
    pairs = _pairs(found["replacing"], line)
    # The replacements are operands too, `%v[*vs]` spelled out as `%v0, %v1,
    # ...` once the length of `$vs` is known (`_spell_replacements`).
    replacements = [f"%{prefix}[*{name}]" for name, prefix in pairs]
    if found["ops"]:
        # Copies of a captured list of ops: no source value, no results.
        name = source[1:]
        replacing = ", ".join(f'"{n}"' for n, _ in pairs)
        types = ", ".join(f"${n}.type" for n, _ in pairs)
        yielding = found["yielding"]
        results = f"${yielding}.type" if yielding else ""
        said = f', {_YIELDING} = "{yielding}"' if yielding else ""
        return (
            f'{found["indent"]}{found["results"] or ""}"{_PLACEHOLDER}"({", ".join(replacements)}) '
            f'{{{_OPS} = "{name}", {_OPERANDS} = 0 : i64, {_REPLACED} = [{replacing}]{said}}} : '
            f"({types}) -> ({results})"
        )
    result_types = found["result_types"] or f"{source}.type"
    replacing = ", ".join(f'"{name}"' for name, _ in pairs)
    # `%3 = $clone ...` leaves the copy's results unnamed, `%x = $clone ...`
    # keeps the original's names.
    unnamed = f", {_UNNAMED}" if re.match(r"%\d", (found["results"] or "").strip()) else ""
    if found["renamed"]:
        unnamed = f", {_RENAMED}"
    adding = f", {_ADDING} = {found['adding']}" if found["adding"] else ""
    # The source is named, not an operand: a copy may go where nothing from
    # outside may be used (a flow.dispatch.workgroups).
    named = re.fullmatch(r"\$(\w+)(?:\[(\$?\w+)\])?", source)
    assert named is not None
    index = f", {_INDEX} = {named[2]} : i64" if named[2] else ""
    # A repetition within the line (`${i in $xs: %x$i}`) gives as many
    # operands as its list: with no replacements, every operand is given.
    given = -1 if any("${" in o for o in operands) and not pairs else len(operands)
    return (
        f'{found["indent"]}{found["results"] or ""}"{_PLACEHOLDER}"'
        f"({', '.join([*operands, *replacements])}) "
        f'{{{_SOURCE} = "{named[1]}"{index}, {_OPERANDS} = {given} : i64, '
        f"{_REPLACED} = [{replacing}]{unnamed}{adding}}} : "
        f"({', '.join([*types, *(f'${name}.type' for name, _ in pairs)])})"
        f" -> ({result_types})"
    )


_SPREAD = re.compile(r"%([\w.]+)\[\*([A-Za-z_]\w*)\]")


def _spell_replacements(text: str, values: dict[str, Any]) -> str:
    return _SPREAD.sub(
        lambda g: ", ".join(f"%{g[1]}{i}" for i in range(len(values[g[2]] or ()))), text
    )


@functools.cache
def _placeholder_context() -> Context:
    """xsplit's dialects, and the placeholders, ops no dialect knows: made
    once, as a template parses once per shape and there are many shapes."""
    from xsplit.dialects import make_context

    return make_context(allow_unregistered=True)


class CloningTemplate(Template):
    """A `Template` whose text may copy captured ops (see the module's doc)."""

    def __init__(
        self,
        text: str,
        results: Sequence[str] = (),
        record: Callable[[list[Operation]], None] | None = None,
        unnamed: bool = False,
        **helpers: Helper,
    ):
        """`record`, if given, is called with the top-level ops each rewrite
        made: for a pass that remembers what it formed (a dispatch region
        `materialize-late` may convert), never to change them."""
        self.source_text = text
        self.record = record
        lines = [_placeholder(line) for line in text.splitlines()]
        super().__init__("\n".join(lines), results, unnamed, **helpers)

    def __repr__(self) -> str:
        return f"CloningTemplate({self.source_text!r})"

    def _text_for(self, values: dict[str, Any]) -> str:
        return _spell_replacements(self.text, values)

    def _tidy(self, filled: str) -> str:
        # An empty list of values leaves a comma or a `{}` behind: MLIR writes neither.
        filled = _EMPTY_LIST_ITEM.sub(lambda g: "(" if g.group(0).startswith("(") else "", filled)
        return _NO_DIMS.sub(">", filled)

    def _context(self) -> Context:
        return _placeholder_context()

    def rewrite(self, m: Match, builder: Builder) -> list[SSAValue] | None:  # type: ignore[override]
        point = builder.insertion_point
        before = point.insert_before.prev_op if point.insert_before is not None else point.block.last_op
        replacements = super().rewrite(m, builder)
        first = before.next_op if before is not None else point.block.first_op
        made: list[Operation] = []
        while first is not None and first is not point.insert_before:
            made.append(first)
            first = first.next_op
        # What the placeholders copy and replace are captures.
        inserted = getattr(builder, "inserted", None)
        root_copies: list[Operation] = []
        replacements = _resolve_clones(
            made, m.captures, replacements, inserted, m.root, root_copies
        )
        made = [op for op in made if op.parent is not None]
        in_place = getattr(builder, "in_place", None)
        if in_place is not None:
            in_place.extend(root_copies)
        if self.record is not None:
            self.record(made)
        if not any(top.is_ancestor(m.root) for top in made):
            return replacements
        # The root moved into what the template made: its uses there stay
        # its own, those outside read the template's results (`None`: the
        # engine keeps the root).
        for old, new in zip(m.root.results, replacements):
            old.replace_uses_with_if(
                new, lambda use: not any(top.is_ancestor(use.operation) for top in made)
            )
        return None


def _resolve_clones(
    made: list[Operation],
    values: dict[str, Any],
    replacements: list[SSAValue],
    inserted: list[Operation] | None,
    root: Operation | None = None,
    root_copies: list[Operation] | None = None,
) -> list[SSAValue]:
    """Replaces each placeholder the template made by the copy it stands for
    (in `inserted` too: the engine's record of the ops a rewrite made), or
    by the ops it moves there; the copies of `root` on its own operands and
    types go to `root_copies`."""
    swapped: dict[SSAValue, SSAValue] = {}
    for top in made:
        for op in list(top.walk()):
            if not _is_placeholder(op):
                continue
            if _MOVING in op.attributes:
                if inserted is not None and op in inserted:
                    inserted.remove(op)
                _move(op, values, root)
                continue
            if _OPS in op.attributes:
                _copy_ops(op, values, made)
                continue
            copy, source = _copy(op, values)
            # On the root's operands, with its types: the root with other
            # attributes, updated in place.
            if (
                root_copies is not None
                and source is root
                and list(copy.operands) == list(source.operands)
                and list(copy.result_types) == list(source.result_types)
            ):
                root_copies.append(copy)
            assert op.parent is not None
            op.parent.insert_op_before(copy, op)
            keep = _UNNAMED not in op.attributes
            renamed = _RENAMED in op.attributes
            for old, new in zip(op.results, copy.results):
                name = old.name_hint if renamed else new.name_hint if keep else None
                old.replace_all_uses_with(new)
                new.name_hint = name
                swapped[old] = new
            if inserted is not None and op in inserted:
                inserted[inserted.index(op)] = copy
            op.detach()
            op.erase()
    return [swapped.get(r, r) for r in replacements]


def _copy_ops(placeholder: Operation, values: dict[str, Any], made: list[Operation]) -> None:
    """`$clone $xs.ops`: copies of the captured ops, in order, where the
    placeholder is; what the rest of the template read of the originals'
    results (`$yielded[$i]`) it reads of the copies."""
    name = placeholder.attributes[_OPS]
    assert isinstance(name, StringAttr)
    mapping = _replaced(placeholder, values, iter(placeholder.operands))
    originals: list[SSAValue] = []
    assert placeholder.parent is not None
    for op in values[name.data]:
        copy = op.clone(value_mapper=mapping)
        placeholder.parent.insert_op_before(copy, placeholder)
        originals.extend(op.results)
    for old in originals:
        old.replace_uses_with_if(
            mapping[old], lambda use: any(top.is_ancestor(use.operation) for top in made)
        )
    yielding = placeholder.attributes.get(_YIELDING)
    if isinstance(yielding, StringAttr):
        for result, value in zip(placeholder.results, values[yielding.data]):
            result.replace_all_uses_with(mapping.get(value, value))
    placeholder.detach()
    placeholder.erase()


def _move(placeholder: Operation, values: dict[str, Any], root: Operation) -> None:
    """`$move`: the ops the line names, moved before the placeholder, and the
    values `replacing` names replaced in them and in what follows them."""
    name = placeholder.attributes[_MOVING]
    assert isinstance(name, StringAttr)
    if _OPS in placeholder.attributes:
        ops = list(values[name.data])
    elif name.data == "root" and "root" not in values:
        ops = [root]
    else:
        found = values[name.data]
        if isinstance(found, list | tuple):
            found = found[0]
        ops = [found if isinstance(found, Operation) else found.owner]
    mapping = _replaced(placeholder, values, iter(placeholder.operands))
    block = placeholder.parent
    assert block is not None
    for op in ops:
        op.detach()
        block.insert_op_before(op, placeholder)
    scope = set(ops)

    def in_scope(use: Use) -> bool:
        op: Operation | None = use.operation
        while op is not None and op.parent is not block:
            op = op.parent_op()
        return op in scope

    for old, new in mapping.items():
        old.replace_uses_with_if(new, in_scope)
    yielding = placeholder.attributes.get(_YIELDING)
    if isinstance(yielding, StringAttr):
        for result, value in zip(placeholder.results, values[yielding.data]):
            result.replace_all_uses_with(mapping.get(value, value))
    placeholder.detach()
    placeholder.erase()


def _replaced(
    placeholder: Operation, values: dict[str, Any], replacements: Iterator[SSAValue]
) -> dict[SSAValue, SSAValue]:
    """Each value of the lists `replacing` names, to the template's value for it."""
    mapping: dict[SSAValue, SSAValue] = {}
    replacing = placeholder.attributes[_REPLACED]
    assert isinstance(replacing, ArrayAttr)
    for entry in replacing.data:
        assert isinstance(entry, StringAttr)
        for value in values[entry.data] or ():
            replacement = mapping[value] = next(replacements)
            # What stands for a value carries its name, as xDSL's
            # replace_all_uses_with gives it.
            if replacement.name_hint is None:
                replacement.name_hint = value.name_hint
    return mapping


def _is_placeholder(op: Operation) -> bool:
    # xDSL carries an op it has no class for as `builtin.unregistered`.
    return isinstance(op, UnregisteredOp) and op.op_name.data == _PLACEHOLDER


def _copy(placeholder: Operation, values: dict[str, Any]) -> tuple[Operation, Operation]:
    """The copy a placeholder stands for, and the op it copies."""
    operands = list(placeholder.operands)
    name = placeholder.attributes[_SOURCE]
    assert isinstance(name, StringAttr)
    value = values[name.data]
    index = placeholder.attributes.get(_INDEX)
    if isinstance(index, IntegerAttr):
        value = value[index.value.data]
    source = value.owner
    assert isinstance(source, Operation), "$clone copies the op that defines a value"
    given_count = placeholder.attributes[_OPERANDS]
    assert isinstance(given_count, IntegerAttr)
    count = given_count.value.data if given_count.value.data >= 0 else len(operands)
    given = operands[:count]
    mapping = _replaced(placeholder, values, iter(operands[count:]))
    copy = source.clone(value_mapper=mapping)
    if given:
        copy.operands = given
    types = list(placeholder.result_types)
    if types != list(copy.result_types):
        regions = [copy.detach_region(r) for r in list(copy.regions)]
        rebuilt = type(copy).create(
            operands=list(copy.operands),
            result_types=types,
            properties=dict(copy.properties),
            attributes=dict(copy.attributes),
            regions=regions,
        )
        for old, new in zip(copy.results, rebuilt.results):
            new.name_hint = old.name_hint
        copy.erase()
        copy = rebuilt
    adding = placeholder.attributes.get(_ADDING)
    if isinstance(adding, DictionaryAttr):
        for key, attribute in adding.data.items():
            # An inherent attribute (a generic's maps) is one of xDSL's
            # properties; any other is the op's discardable attribute.
            if key in copy.properties:
                copy.properties[key] = attribute
            else:
                copy.attributes[key] = attribute
    # A copy is where the original was, as MLIR's clone keeps locations.
    copy.location = source.location
    return copy, source


__all__ = ["CloningTemplate"]
