"""Helpers shared by xsplit's op definitions."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, i64
from xdsl.dialects.utils import verify_dynamic_index_list
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException


def dense_i64(values: Sequence[int]) -> DenseArrayBase:
    """An `array<i64: ...>`; attributes are immutable, so equal ones are shared."""
    return _dense_i64(tuple(values))


@functools.lru_cache(maxsize=4096)
def _dense_i64(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def split_mixed(mixed: Sequence[int | SSAValue]) -> tuple[DenseArrayBase, list[SSAValue]]:
    """Offsets, sizes or bounds given as constants or values, split the MLIR way:
    a static array with DYNAMIC_INDEX where a value goes, and the values."""
    static = [m if isinstance(m, int) else DYNAMIC_INDEX for m in mixed]
    return dense_i64(static), [m for m in mixed if not isinstance(m, int)]


def verify_mixed_lists(
    op: Operation,
    rank: int,
    lists: Sequence[tuple[str, DenseArrayBase, Sequence[SSAValue]]],
) -> None:
    """Each (name, static array, values) list has `rank` entries and one value
    per DYNAMIC_INDEX entry."""
    for what, static, dynamic in lists:
        values = static.get_values()
        if len(values) != rank:
            raise VerifyException(
                f"'{op.name}' op expects {rank} {what} entries, got {len(values)}"
            )
        verify_dynamic_index_list(values, dynamic, DYNAMIC_INDEX, f" in the {what}")
