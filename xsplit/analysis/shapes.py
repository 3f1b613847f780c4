"""Shape arithmetic for patterns, so that none does it by hand."""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute


def ceildiv(a: int, b: int) -> int:
    """The smallest n with n * b >= a, for positive b."""
    if b <= 0:
        raise ValueError(f"ceildiv by {b}")
    return -(-a // b)


def divides(divisor: int, n: int) -> bool:
    """Whether `divisor` divides `n` exactly (`divisor` > 0)."""
    return divisor > 0 and n % divisor == 0


def is_static(size: int) -> bool:
    return size != DYNAMIC_INDEX


def dim(t: Attribute, index: int) -> int | None:
    """The size of dimension `index` of a tensor type, or None if dynamic."""
    if not isinstance(t, TensorType):
        raise TypeError(f"{t} is not a ranked tensor type")
    size = t.get_shape()[index]
    return size if is_static(size) else None


def static_shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a tensor type, or None if any dimension is dynamic."""
    if not isinstance(t, TensorType):
        raise TypeError(f"{t} is not a ranked tensor type")
    shape = tuple(t.get_shape())
    return shape if all(is_static(s) for s in shape) else None
