"""Contractions on the match side: an op's loops by role.

A linalg op is a contraction when it has two inputs and one output, its body
multiplies and accumulates, and its indexing maps give each loop one role:
a batch loop indexes all three operands, an M loop the LHS and the output,
an N loop the RHS and the output, the K loop both inputs and is the one
reduction. That is what MLIR's `transform.match.structured.classify_contraction_dims`
matches, a fact of one op's maps, iterator types and body ops; here:

    operand(0).produced_by(where=contraction("c")) & (batch_loops("c") == 1)

`contraction(name)` captures the roles as `name`; `batch_loops(name)`,
`init_position(name, role)` and `loop_of(name, role)` are numbers of the
match (`numbers.py`): how many batch loops it has, which dimension of the
output a role's loop indexes, and which loop has a role.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir.affine import AffineDimExpr

from xsplit.analysis.contraction import ContractionDims, op_contraction_dims
from xsplit.rewrites.dsl.constraints import Constraint, Match, Predicate
from xsplit.rewrites.dsl.numbers import Number, Unknown


def contraction(name: str) -> Constraint:
    """The root is a linalg contraction; its loops' roles are captured as `name`."""

    def test(m: Match) -> bool | str:
        dims = op_contraction_dims(m.root)
        if isinstance(dims, str):
            return dims
        m.captures[name] = dims
        m.captures[name + ".op"] = m.root
        return True

    return Predicate(f"is a contraction, its loops ${name}", test, structural=True)


def _dims(m: Match, name: str) -> ContractionDims:
    dims = m.captures.get(name)
    if not isinstance(dims, ContractionDims):
        raise Unknown(f"${name} is not a captured contraction")
    return dims


@dataclass(frozen=True, eq=False)
class _BatchLoops(Number):
    name: str

    def evaluate(self, m: Match) -> int:
        return len(_dims(m, self.name).batch)

    @property
    def description(self) -> str:
        return f"the batch loops of ${self.name}"


@dataclass(frozen=True, eq=False)
class _InitPosition(Number):
    name: str
    role: str
    """`batch` (its first batch loop), `m` or `n`."""

    def evaluate(self, m: Match) -> int:
        dims = _dims(m, self.name)
        loop = (dims.batch[0] if dims.batch else None) if self.role == "batch" else getattr(dims, self.role)
        if loop is None:
            raise Unknown(f"${self.name} has no {self.role} loop")
        op = m.captures.get(self.name + ".op")
        maps = op.get_indexing_maps().data if op is not None else ()  # type: ignore[union-attr]
        positions = [e.position for e in maps[-1].data.results if isinstance(e, AffineDimExpr)] if maps else []
        if loop not in positions:
            raise Unknown(f"the output of ${self.name} is not indexed by its {self.role} loop")
        return positions.index(loop)

    @property
    def description(self) -> str:
        return f"the output dimension of ${self.name}'s {self.role} loop"


def batch_loops(name: str) -> Number:
    """How many batch loops the contraction captured as `name` has."""
    return _BatchLoops(name)


@dataclass(frozen=True, eq=False)
class _Loop(Number):
    name: str
    role: str
    """`m`, `n` or `k`."""

    def evaluate(self, m: Match) -> int:
        loop = getattr(_dims(m, self.name), self.role)
        if loop is None:
            raise Unknown(f"${self.name} has no {self.role} loop")
        return loop

    @property
    def description(self) -> str:
        return f"the {self.role} loop of ${self.name}"


def loop_of(name: str, role: str) -> Number:
    """Which loop of the contraction captured as `name` has the role `role`
    (`m`, `n`, `k`): unknown, so every relation on it fails, where the
    contraction has none (a matvec's N)."""
    return _Loop(name, role)


def init_position(name: str, role: str) -> Number:
    """Which dimension of the output of the contraction captured as `name`
    its `role` loop (`batch`: the first batch loop, `m`, `n`) indexes."""
    return _InitPosition(name, role)


__all__: Sequence[str] = ["batch_loops", "contraction", "init_position", "loop_of"]
