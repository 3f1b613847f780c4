"""The target table on the match side, as `option()` reads the options.

A pass that lays tensors out for a target (`materialize-*`) asks the target
table (`xsplit/targets/table.py`) one question of each op: the data tiles
of a contraction with these element types and M, N sizes, or none where the
target drops encodings. The target is the pass's `target=` option when
given, else the device the root runs on (`xsplit.analysis.devices`):

    target().data_tiles(m=encoding_size(input(0), 0), n=encoding_size(input(0), 1), capture="tiles")
    target().drops_encodings(m=..., n=...)

The element types are those of the root's operands; the sizes are numbers
of the match (`numbers.py`), here the loop sizes the encodings carry. The
answer is data read from a table, not a decision of a cost model, so the
constraint is structural. Where the module declares devices, the answer is
said as a remark on the root (`on @dev (backend): 16x16x1 data tiles`), and
a device that cannot be modeled is said too: a materialization tells which
layout each device got.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType

from xsplit.analysis.devices import placement
from xsplit.diagnostics import remark
from xsplit.dialects.iree_encoding import encoding_of
from xsplit.rewrites.dsl.constraints import Constraint, Match, Predicate, ValueRef
from xsplit.rewrites.dsl.numbers import Number, NumberLike, Unknown, number

Tiles = tuple[int, int, int]


@dataclass(frozen=True)
class TargetRef:
    """The target named by the pass option `option`, else the root's device."""

    option: str = "target"

    def _tiles(self, m: Match, sizes: tuple[Number | None, Number | None]) -> Tiles | None | str:
        try:
            known = tuple(None if s is None else s.evaluate(m) for s in sizes)
        except Unknown as unknown:
            return str(unknown)
        elements = []
        for v in m.root.operands:
            if not isinstance(v.type, TensorType):
                return f"'{m.root.name}' has an operand of type {v.type}"
            elements.append(v.type.element_type)
        placed = placement(m.root, m.options.get(self.option))
        tiles = placed.target.data_tiles(tuple(elements), *known)  # type: ignore[arg-type]
        if placed.note is not None:
            remark(m.root, placed.note)
        if placed.device is not None:
            layout = "x".join(map(str, tiles)) + " data tiles" if tiles else "encodings dropped"
            modeled = placed.target.name
            extra = f" ({modeled})" if modeled != placed.device.backend else ""
            remark(m.root, f"{placed.prefix()}{layout}{extra}")
        return tiles

    def data_tiles(
        self, *, m: NumberLike | None, n: NumberLike | None, capture: str
    ) -> Constraint:
        """The target data-tiles the root, a contraction of sizes `m` x `n`
        (None where it has no such loop): its (m0, n0, k0) tiles are
        captured as `capture`."""
        sizes = (None if m is None else number(m), None if n is None else number(n))

        def test(match: Match) -> bool | str:
            tiles = self._tiles(match, sizes)
            if isinstance(tiles, str):
                return tiles
            if tiles is None:
                return "the target drops the encodings"
            match.captures[capture] = tiles
            return True

        return Predicate(f"the {self.option} data-tiles it", test, structural=_structural(sizes))

    def drops_encodings(self, *, m: NumberLike | None, n: NumberLike | None) -> Constraint:
        """The target does not data-tile the root: it drops the encodings."""
        sizes = (None if m is None else number(m), None if n is None else number(n))

        def test(match: Match) -> bool | str:
            tiles = self._tiles(match, sizes)
            if isinstance(tiles, str):
                return tiles
            return tiles is None or "the target data-tiles it"

        return Predicate(
            f"the {self.option} drops the encodings", test, structural=_structural(sizes)
        )


def _structural(sizes: tuple[Number | None, Number | None]) -> bool:
    return all(s is None or s.structural for s in sizes)


def target(option: str = "target") -> TargetRef:
    """The target the pass lays out for: its `option`, else the root's device."""
    return TargetRef(option)


@dataclass(frozen=True, eq=False)
class _EncodingSize(Number):
    value: ValueRef
    loop: int | Number

    def evaluate(self, m: Match) -> int:
        loop = self.loop if isinstance(self.loop, int) else self.loop.evaluate(m)
        found = self.value.find(m.root)
        encoding = encoding_of(found.type) if found is not None else None
        if encoding is None:
            raise Unknown(f"{self.value.description} has no #iree_encoding.encoding")
        sizes = encoding.sizes
        if sizes is None:
            raise Unknown(f"the encoding of {self.value.description} has no iteration_sizes")
        if not 0 <= loop < len(sizes):
            raise Unknown(f"the encoding of {self.value.description} has no loop {loop}")
        size = sizes[loop]
        if size == DYNAMIC_INDEX:
            raise Unknown(f"loop {loop} of {self.value.description}'s encoding is dynamic")
        return size

    @property
    def description(self) -> str:
        return f"the size of loop {self.loop} in the encoding of {self.value.description}"


def encoding_size(value: ValueRef, loop: int | Number) -> Number:
    """The size of loop `loop` that `value`'s `#iree_encoding.encoding` carries
    (its `iteration_sizes`): a number of the match. `loop` may be one too,
    `loop_of("c", "m")` (`contractions.py`), for a contraction whose M is
    not loop 0."""
    return _EncodingSize(value, loop)


__all__: Sequence[str] = ["TargetRef", "encoding_size", "target"]
