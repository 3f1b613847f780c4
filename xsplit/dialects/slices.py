"""MLIR's verification of slices: `memref.subview`, `tensor.extract_slice`,
`tensor.insert_slice` and `tensor.parallel_insert_slice`.

xDSL 0.74 checks only that each static list has one value per dynamic entry,
so a slice whose result type contradicts its sizes or strides parses, and
passes rewrite it into IR iree-opt refuses. These are the checks of MLIR's
`OffsetSizeAndStrideOpInterface`, its `isRankReducedType` and the ops'
verifiers, with MLIR's messages. `SLICE_VERIFIERS` gives xDSL's
slice ops these checks; `tensor.parallel_insert_slice` calls them itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

Strided = tuple[list[int | None], int | None]
"""A memref's strides and offset; `None` where one is dynamic."""


def _error(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"'{op.name}' op {message}")


def _quoted(attr: Attribute) -> str:
    return f"'{attr}'"


def verify_slice_lists(
    op: Operation,
    rank: int,
    offsets: tuple[Sequence[int], Sequence[SSAValue]],
    sizes: tuple[Sequence[int], Sequence[SSAValue]],
    strides: tuple[Sequence[int], Sequence[SSAValue]],
) -> None:
    """What MLIR's `OffsetSizeAndStrideOpInterface` checks, in its order:
    the three lists have one entry per dimension of the sliced type (`rank`),
    one value per dynamic entry, and no negative static offset or size."""
    n_off, n_size, n_stride = len(offsets[0]), len(sizes[0]), len(strides[0])
    if n_off != n_size:
        raise _error(
            op,
            f"expected mixed offsets rank to match mixed sizes rank ({n_off} vs {n_size}) "
            "so the rank of the result type is well-formed.",
        )
    if n_size != n_stride:
        raise _error(
            op,
            f"expected mixed sizes rank to match mixed strides rank ({n_size} vs {n_stride}) "
            "so the rank of the result type is well-formed.",
        )
    for name, (static, dynamic) in (("offset", offsets), ("size", sizes), ("stride", strides)):
        if len(static) != rank:
            raise _error(op, f"expected {rank} {name} values, got {len(static)}")
        n_dynamic = sum(1 for v in static if v == DYNAMIC_INDEX)
        if len(dynamic) != n_dynamic:
            raise _error(op, f"expected {n_dynamic} dynamic {name} values")
    for name, (static, _) in (("offsets", offsets), ("sizes", sizes)):
        for v in static:
            if v < 0 and v != DYNAMIC_INDEX:
                raise _error(op, f"expected {name} to be non-negative, but got {v}")


def rank_reduction_mask(shape: Sequence[int], reduced: Sequence[int]) -> set[int] | None:
    """The dimensions of `shape` that `reduced` drops, matching greedily from
    the left as MLIR's `computeRankReductionMask`; only unit dimensions may be
    dropped. None if `reduced` is not `shape` with unit dimensions dropped."""
    dropped: set[int] = set()
    j = 0
    for i, size in enumerate(shape):
        if j < len(reduced) and size == reduced[j]:
            j += 1
            continue
        if size != 1:
            return None
        dropped.add(i)
    return dropped if j == len(reduced) else None


def verify_in_bounds(
    op: Operation,
    shape: Sequence[int],
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
) -> None:
    """MLIR's `verifyInBoundsSlice`: along each static dimension a static
    offset lies inside it, and a fully static slice ends inside it."""
    for i, (dim, offset, size, stride) in enumerate(zip(shape, offsets, sizes, strides)):
        if dim == DYNAMIC_INDEX:
            continue
        if offset != DYNAMIC_INDEX and offset >= dim:
            raise _error(op, f"offset {i} is out-of-bounds: {offset} >= {dim}")
        if DYNAMIC_INDEX in (offset, size, stride):
            continue
        last = offset + (size - 1) * stride
        if last >= dim:
            raise _error(op, f"slice along dimension {i} runs out-of-bounds: {last} >= {dim}")


def verify_slice_shape(
    op: Operation, expected: TensorType[Attribute], actual: TensorType[Attribute]
) -> None:
    """The rank and sizes half of MLIR's `isRankReducedType` for tensors:
    `actual` is `expected`'s shape, less unit dimensions it may drop."""
    shape, reduced = expected.get_shape(), actual.get_shape()
    if len(reduced) > len(shape):
        raise _error(op, "expected rank to be smaller or equal to the other rank.")
    if rank_reduction_mask(shape, reduced) is None:
        raise _error(
            op, f"expected type to be {_quoted(expected)} or a rank-reduced version. (size mismatch)"
        )


def _verify_tensor_slice(
    op: Operation,
    expected: TensorType[Attribute],
    actual: Attribute,
) -> None:
    """MLIR's `isRankReducedType` for tensors, with `produceSliceErrorMsg`'s messages."""
    assert isinstance(actual, TensorType)
    if actual == expected:
        return
    verify_slice_shape(op, expected, actual)
    if expected.element_type != actual.element_type:
        raise _error(op, f"expected element type to be {_quoted(expected.element_type)}")


def verify_extract_slice(
    op: Operation,
    source: TensorType[Attribute],
    result: Attribute,
    static_offsets: Sequence[int],
    static_sizes: Sequence[int],
    static_strides: Sequence[int],
) -> None:
    """`tensor.extract_slice`: the result is the slice's shape, less unit
    dimensions it may drop, and the slice lies inside the source."""
    expected = TensorType(source.element_type, static_sizes)
    _verify_tensor_slice(op, expected, result)
    verify_in_bounds(op, source.get_shape(), static_offsets, static_sizes, static_strides)


def verify_insert_slice(
    op: Operation,
    source: Attribute,
    dest: TensorType[Attribute],
    static_offsets: Sequence[int],
    static_sizes: Sequence[int],
    static_strides: Sequence[int],
) -> None:
    """`tensor.insert_slice` and `tensor.parallel_insert_slice`: the source is
    the slice's shape, less unit dimensions it may drop, and the slice lies
    inside the destination."""
    expected = TensorType(dest.element_type, static_sizes)
    _verify_tensor_slice(op, expected, source)
    verify_in_bounds(op, dest.get_shape(), static_offsets, static_sizes, static_strides)


def _affine_strides(layout: AffineMapAttr, rank: int) -> Strided | None:
    """The strides and offset of a one-result affine layout, or None if it is
    not linear in its dimensions. A symbol makes the stride or offset it
    reaches dynamic, as MLIR's `getStridesAndOffset` does."""
    amap = layout.data
    if amap.num_dims != rank or len(amap.results) != 1:
        return None
    probes = []
    # Two assignments of the symbols: what changes between them is dynamic.
    for symbols in ([7919] * amap.num_symbols, [104729 + 3 * i for i in range(amap.num_symbols)]):
        try:
            base = amap.eval([0] * rank, symbols)[0]
            strides = [amap.eval([int(i == d) for i in range(rank)], symbols)[0] - base for d in range(rank)]
            point = [3 + 2 * i for i in range(rank)]
            if amap.eval(point, symbols)[0] != base + sum(p * s for p, s in zip(point, strides)):
                return None
        except (ZeroDivisionError, ValueError):
            return None
        probes.append((strides, base))
    if amap.num_symbols == 0:
        return list(probes[0][0]), probes[0][1]
    (s1, o1), (s2, o2) = probes
    return [a if a == b else None for a, b in zip(s1, s2)], o1 if o1 == o2 else None


def strides_and_offset(memref: MemRefType[Attribute]) -> Strided | None | bool:
    """The memref's strides and offset; None if its layout is not strided,
    and False if xsplit cannot tell (a layout it does not model)."""
    layout = memref.layout
    if isinstance(layout, NoneAttr):
        strides = MemRefType.strides_for_shape(memref.get_shape())
        return [None if s == DYNAMIC_INDEX else s for s in strides], 0
    if isinstance(layout, StridedLayoutAttr):
        return list(layout.get_strides()), layout.get_offset()
    if isinstance(layout, AffineMapAttr):
        if layout.data.num_symbols == 0 and layout.data == type(layout.data).identity(
            memref.get_num_dims()
        ):
            return strides_and_offset(MemRefType(memref.element_type, memref.get_shape()))
        return _affine_strides(layout, memref.get_num_dims())
    return False


def _mul(a: int | None, b: int | None) -> int | None:
    # MLIR's saturated arithmetic: anything times a static 0 is 0.
    if a == 0 or b == 0:
        return 0
    return None if a is None or b is None else a * b


def verify_subview(
    op: Operation,
    source: MemRefType[Attribute],
    result: MemRefType[Attribute],
    static_offsets: Sequence[int],
    static_sizes: Sequence[int],
    static_strides: Sequence[int],
) -> None:
    """MLIR's `SubViewOp::verify`: the result is the inferred strided view of
    the source, less unit dimensions it may drop (with their strides), in the
    source's memory space; the slice lies inside the source."""
    if source.memory_space != result.memory_space:
        raise _error(
            op,
            f"different memory spaces specified for base memref type {_quoted(source)} "
            f"and subview memref type {_quoted(result)}",
        )
    base = strides_and_offset(source)
    if base is None:
        raise _error(op, f"base type {_quoted(source)} is not strided")
    if base is False:
        # A layout xsplit does not model: check what does not depend on it.
        verify_in_bounds(op, source.get_shape(), static_offsets, static_sizes, static_strides)
        return
    assert isinstance(base, tuple)
    base_strides, base_offset = base
    offset: int | None = base_offset
    for o, s in zip(static_offsets, base_strides):
        term = _mul(None if o == DYNAMIC_INDEX else o, s)
        offset = None if offset is None or term is None else offset + term
    strides = [
        _mul(s, None if t == DYNAMIC_INDEX else t) for s, t in zip(base_strides, static_strides)
    ]
    expected = MemRefType(
        source.element_type,
        static_sizes,
        StridedLayoutAttr(strides, offset),
        source.memory_space,
    )

    def mismatch(what: str) -> VerifyException:
        return _error(
            op,
            f"expected result type to be {_quoted(expected)} or a rank-reduced version. "
            f"(mismatch of result {what}), but got {_quoted(result)}",
        )

    if result != expected:
        shape, reduced = expected.get_shape(), result.get_shape()
        if len(reduced) > len(shape):
            raise _error(
                op,
                "expected result rank to be smaller or equal to the source rank, "
                f"but got {_quoted(result)}",
            )
        if rank_reduction_mask(shape, reduced) is None:
            raise mismatch("sizes")
        if expected.element_type != result.element_type:
            raise _error(
                op,
                f"expected result element type to be {_quoted(expected.element_type)}, "
                f"but got {_quoted(result)}",
            )
        actual = strides_and_offset(result)
        if actual is not False:
            if actual is None or actual[1] != offset:
                raise mismatch("layout")
            dropped = _dropped_dims(strides, actual[0], static_sizes)
            if dropped is None:
                raise mismatch("layout")
            kept = [s for i, s in enumerate(strides) if i not in dropped]
            if kept != actual[0]:
                raise mismatch("layout")
    verify_in_bounds(op, source.get_shape(), static_offsets, static_sizes, static_strides)


def _dropped_dims(
    strides: Sequence[int | None], reduced: Sequence[int | None], sizes: Sequence[int]
) -> set[int] | None:
    """The unit dimensions a rank-reduced subview drops, told apart by their
    strides as MLIR's `computeMemRefRankReductionMask`: a unit dimension is
    dropped if its stride occurs fewer times in the result than in the source."""
    if len(strides) == len(reduced):
        return set()
    dropped = {i for i, s in enumerate(sizes) if s == 1}
    if len(dropped) + len(reduced) == len(strides):
        return dropped
    unaccounted = Counter(strides)
    in_result = Counter(reduced)
    for i in sorted(dropped):
        stride = strides[i]
        if unaccounted[stride] > in_result[stride]:
            unaccounted[stride] -= 1
        elif unaccounted[stride] == in_result[stride]:
            dropped.discard(i)
        else:
            return None
    return dropped if len(dropped) + len(reduced) == len(strides) else None


def _lists(
    op: memref.SubviewOp | tensor.ExtractSliceOp | tensor.InsertSliceOp, rank: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    verify_slice_lists(
        op, rank, (offsets, op.offsets), (sizes, op.sizes), (strides, op.strides)
    )
    return offsets, sizes, strides


def _verify_subview_op(op: memref.SubviewOp) -> None:
    source, result = op.source.type, op.result.type
    assert isinstance(source, MemRefType) and isinstance(result, MemRefType)
    verify_subview(op, source, result, *_lists(op, source.get_num_dims()))


def _verify_extract_slice_op(op: tensor.ExtractSliceOp) -> None:
    source = op.source.type
    assert isinstance(source, TensorType)
    verify_extract_slice(op, source, op.result.type, *_lists(op, source.get_num_dims()))


def _verify_insert_slice_op(op: tensor.InsertSliceOp) -> None:
    dest = op.dest.type
    assert isinstance(dest, TensorType)
    verify_insert_slice(op, op.source.type, dest, *_lists(op, dest.get_num_dims()))


SLICE_VERIFIERS: dict[type[Operation], Callable[[Any], None]] = {
    memref.SubviewOp: _verify_subview_op,
    tensor.ExtractSliceOp: _verify_extract_slice_op,
    tensor.InsertSliceOp: _verify_insert_slice_op,
}
"""MLIR's verifiers for xDSL's own slices, which `xsplit.xdsl_compat` gives
them. The ops stay xDSL's classes (a decorated op cannot be subclassed), so
the slices passes build are checked as well as the ones xsplit reads."""
