"""Array attributes and region bodies on the match side.

`constraints.attr(name)` compares a whole attribute. Some ops carry a table
of integers whose shape is the fact a pattern needs: a grouped GEMM's
`group_offsets`, which are `0, s, 2s, ..., K` when every group has one
size. And some ops carry a body whose ops say what they compute: a
contraction's `mulf` then `addf`. Here:

- `int_array(name)` is the root's dense integer array attribute `name`:
  `.length()` and `.at(i)` are numbers of the match (`numbers.Number`), and
  `.steps_evenly(step, end)` says it is `0, step, 2*step, ..., end`, and
  `.steps_evenly_then(step, end)` that it is so up to a last, shorter step;
  `.tiles_whole_dims(value, positions)` says its entries (tile sizes) divide
  `value`'s dimensions at `positions` (a pack's whole tiles).

      int_array("group_offsets").steps_evenly(dim("K") // GROUPS, dim("K"))

- `body_ops(region, *names)` says the root's region `region` is one block
  whose ops are, in order, `names` (terminator included), as a DRR pattern
  spells out the ops of a tree.

Each states a fact of the op tree, so each is structural (as long as the
numbers given to it are).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, TensorType

from xsplit.rewrites.dsl.constraints import Constraint, Match, Predicate, ValueRef
from xsplit.rewrites.dsl.numbers import Number, NumberLike, Unknown, number


def _values(op_name: str, m: Match) -> list[int]:
    found = m.root.properties.get(op_name) or m.root.attributes.get(op_name)
    if not isinstance(found, DenseArrayBase):
        raise Unknown(f"'{m.root.name}' has no integer array {op_name}")
    return [int(v) for v in found.get_values()]


@dataclass(frozen=True, eq=False)
class _Length(Number):
    name: str

    def evaluate(self, m: Match) -> int:
        return len(_values(self.name, m))

    @property
    def description(self) -> str:
        return f"the length of {self.name}"


@dataclass(frozen=True, eq=False)
class _Entry(Number):
    name: str
    index: int

    def evaluate(self, m: Match) -> int:
        values = _values(self.name, m)
        if not -len(values) <= self.index < len(values):
            raise Unknown(f"{self.name} has no entry {self.index}")
        return values[self.index]

    @property
    def description(self) -> str:
        return f"{self.name}[{self.index}]"


@dataclass(frozen=True)
class IntArrayRef:
    """The root's dense integer array attribute or property `name`."""

    name: str

    def length(self) -> Number:
        """How many entries it has."""
        return _Length(self.name)

    def at(self, index: int) -> Number:
        """Its entry `index` (negative from the end)."""
        return _Entry(self.name, index)

    def steps_evenly(self, step: NumberLike, end: NumberLike) -> Constraint:
        """It is `0, step, 2*step, ..., end`: at least one step, all of one
        size, and the last entry is `end`."""
        step_n, end_n = number(step), number(end)

        def test(m: Match) -> bool | str:
            try:
                values = _values(self.name, m)
                s, e = step_n.evaluate(m), end_n.evaluate(m)
            except Unknown as unknown:
                return str(unknown)
            if s <= 0 or len(values) < 2:
                return f"{self.name} has no steps of {s}"
            expected = [i * s for i in range(len(values))]
            if values != expected or values[-1] != e:
                return f"{self.name} is {', '.join(map(str, values))}"
            return True

        return Predicate(
            f"{self.name} steps from 0 by {step_n} to {end_n}",
            test,
            structural=step_n.structural and end_n.structural,
        )


    def steps_evenly_then(self, step: NumberLike, end: NumberLike) -> Constraint:
        """It is `0, step, ..., full*step, end` with at least one whole step
        and a shorter last one: `0 < end - full*step < step`."""
        step_n, end_n = number(step), number(end)

        def test(m: Match) -> bool | str:
            try:
                values = _values(self.name, m)
                s, e = step_n.evaluate(m), end_n.evaluate(m)
            except Unknown as unknown:
                return str(unknown)
            whole = [i * s for i in range(len(values) - 1)]
            if s <= 0 or len(values) < 3 or values[:-1] != whole or values[-1] != e:
                return f"{self.name} is {', '.join(map(str, values))}"
            return 0 < e - values[-2] < s or f"its last step is {e - values[-2]}, not shorter than {s}"

        return Predicate(
            f"{self.name} steps from 0 by {step_n}, then a shorter step to {end_n}",
            test,
            structural=step_n.structural and end_n.structural,
        )


    def tiles_whole_dims(self, value: ValueRef, positions: IntArrayRef) -> Constraint:
        """Each entry of this array (a tile size) divides the dimension of
        `value` named by the matching entry of `positions`: `value` holds
        whole tiles, none partial (a tile of 1 divides even a dynamic size)."""

        def test(m: Match) -> bool | str:
            found = value.find(m.root)
            if found is None:
                return f"'{m.root.name}' has no {value.description}"
            shape_type = found.type
            if not isinstance(shape_type, TensorType):
                return f"its {value.description} is {shape_type}"
            try:
                tiles, dims = _values(self.name, m), _values(positions.name, m)
            except Unknown as unknown:
                return str(unknown)
            shape = shape_type.get_shape()
            for d, tile in zip(dims, tiles):
                if tile != 1 and (shape[d] == DYNAMIC_INDEX or shape[d] % tile):
                    size = "?" if shape[d] == DYNAMIC_INDEX else shape[d]
                    return f"its {value.description}'s dimension {d} ({size}) holds a partial tile of {tile}"
            return True

        return Predicate(
            f"{self.name} tiles the dimensions {positions.name} of {value.description} whole",
            test,
            structural=True,
        )


def int_array(name: str) -> IntArrayRef:
    """The root's dense integer array `name` (`array<i64: ...>`)."""
    return IntArrayRef(name)


def body_ops(region: str, *names: str) -> Constraint:
    """The root's region `region` (as its op class names it) is one block
    whose ops are `names`, in order, its terminator last."""

    def test(m: Match) -> bool | str:
        blocks = getattr(m.root, region).blocks
        if len(blocks) != 1:
            return f"region {region} has {len(blocks)} blocks"
        found = [op.name for op in blocks[0].ops]
        return found == list(names) or f"region {region} holds {', '.join(found)}"

    return Predicate(f"region {region} holds {', '.join(names)}", test, structural=True)


__all__: Sequence[str] = ["IntArrayRef", "body_ops", "int_array"]
