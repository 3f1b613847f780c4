"""split-k's memo keys: everything a split depends on besides the root's
operand values, so that the engine builds each distinct split once and
clones it for the others (`Pattern.memo`)."""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.ir import Region, SSAValue

from xsplit.dialects.linalg import StructuredNamedOp
from xsplit.rewrites.dsl import Match
from xsplit.rewrites.split.chunks import K, plan_chunks


def shape(m: Match) -> Hashable:
    """Everything a split depends on besides the root's operand values, so that
    the engine builds each distinct split once and clones it for the others."""
    root = m.root
    # A named op's body follows from its operand types.
    body = () if isinstance(root, StructuredNamedOp) else _body_key(root.regions[0])
    return (
        root.name,
        tuple(v.type for v in root.operands),
        tuple(root.result_types),
        tuple(sorted(root.properties.items())),
        tuple(sorted(root.attributes.items())),
        body,
        tuple(sorted(m.options.items())),
        m["plan"],
    )


def planned_shape(m: Match) -> Hashable:
    """`shape` for a pattern that matched structurally: the chunk plan is
    computed here, by the rule the structural match restates
    (`chunks.options_cut_k`), so that it says what it says on every op (a
    factor above K, a count rounded), matched first or cloned."""
    o = m.options
    plan = plan_chunks(
        m.root, K(m), o["factor"], o["tile"], o["balanced"], o["align"], o["pad_m"],
        o["cpu_tiles"],
    )
    assert plan is not None, "options_cut_k and plan_chunks disagree"
    m.captures["plan"] = plan
    return shape(m)


def _body_key(region: Region) -> Hashable:
    """A reduction body as its ops, their types and attributes, and how their
    operands connect, free of SSA names and object identity, so that two
    generics with the same computation share one split. A body with nested
    regions, or one that uses a value from outside, is keyed by itself."""
    block = region.block
    where: dict[SSAValue, tuple[int, int]] = {arg: (-1, i) for i, arg in enumerate(block.args)}
    ops: list[Hashable] = [tuple(arg.type for arg in block.args)]
    for i, op in enumerate(block.ops):
        if op.regions or any(v not in where for v in op.operands):
            return ("identity", id(region))
        ops.append(
            (
                op.name,
                tuple(where[v] for v in op.operands),
                tuple(op.result_types),
                tuple(sorted(op.properties.items())),
                tuple(sorted(op.attributes.items())),
            )
        )
        where.update({r: (i, j) for j, r in enumerate(op.results)})
    return tuple(ops)
