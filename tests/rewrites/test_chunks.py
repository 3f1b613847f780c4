"""The chunk arithmetic split-k emits, evaluated on every chunk."""

from __future__ import annotations

from collections import Counter

import pytest
from xdsl.dialects import affine
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.tensor import ExtractSliceOp

from tests.e2e.cases import matmul
from xsplit.api import parse_module, rewrite_module
from xsplit.attr_names import SPLIT_PART
from xsplit.dialects.affine import MaxOp
from xsplit.dialects.scf import ForallOp
from xsplit.rewrites.split.chunks import ChunkPlan, default_plan


def chunk_sizes(k: int, options: str) -> list[int]:
    """Runs split-k on a K-long matmul and evaluates each chunk's offset and size."""
    module = rewrite_module(parse_module(matmul(2, 2, k)), f"split-k{{{options}}}")
    (loop,) = [op for op in module.walk() if isinstance(op, ForallOp)]
    count = loop.staticUpperBound.get_values()[0]
    spans = []
    for s in range(count):
        values = {loop.induction_vars[0]: s}
        for op in loop.body.block.ops:
            if isinstance(op, affine.ApplyOp | affine.MinOp | MaxOp):
                args = [values[v] for v in op.operands]
                m = op.map.data
                results = m.eval(args[: m.num_dims], args[m.num_dims :])
                value = (
                    results[0]
                    if isinstance(op, affine.ApplyOp)
                    else (min(results) if isinstance(op, affine.MinOp) else max(results))
                )
                values[op.results[0]] = value
        # The first apply is the offset; the size is the last index value or static.
        offsets = [values[r] for r in values if r is not loop.induction_vars[0]]
        sizes = _slice_size(loop, values)
        spans.append((offsets[0], sizes))
    # A static tail beside the loop: the op on the last of K.
    for op in module.walk():
        if isinstance(op, ExtractSliceOp) and op.attributes.get(SPLIT_PART) == StringAttr("tail"):
            if op.source.type.get_shape()[1] == k:  # A's slice: [0, offset] [rows, size]
                offset, size = op.static_offsets.get_values()[1], op.static_sizes.get_values()[1]
                spans.append((offset, size))
    # Chunks tile [0, K) exactly, in order.
    position = 0
    for offset, size in spans:
        assert offset == position
        position += size
    assert position == k
    return [size for _, size in spans]


def _slice_size(loop: ForallOp, values: dict) -> int:
    first = next(op for op in loop.body.block.ops if isinstance(op, ExtractSliceOp))
    static = first.static_sizes.get_values()[1]
    return static if static >= 0 else values[first.sizes[0]]


def test_seed_77_chunks_of_666_and_one_of_618() -> None:
    assert Counter(chunk_sizes(51234, "factor=77")) == {666: 76, 618: 1}


@pytest.mark.parametrize("k", [13, 97, 1009, 4096, 51234])
@pytest.mark.parametrize("factor", [2, 3, 7, 12, 77])
def test_balanced_with_a_static_k_is_the_static_plan(k: int, factor: int) -> None:
    """One chunk size in the loop and a shorter tail, as factor= cuts it:
    sizes that differ by one would be two static sizes."""
    if factor > k:
        return
    sizes = chunk_sizes(k, f"factor={factor} balanced=true")
    assert sizes == chunk_sizes(k, f"factor={factor}")
    assert len(set(sizes[:-1])) == 1 and sizes[-1] <= sizes[0]


def test_tile_gives_a_shorter_last_chunk() -> None:
    assert chunk_sizes(1000, "tile=300") == [300, 300, 300, 100]


def test_factor_that_does_not_fill_all_chunks_uses_fewer() -> None:
    # ceil(9 / 4) = 3 covers K in 3 chunks.
    assert chunk_sizes(9, "factor=4") == [3, 3, 3]


def test_default_rule() -> None:
    assert default_plan(51234) == ChunkPlan(50, balanced=True)
    assert default_plan(10**7) == ChunkPlan(64, balanced=True)
    assert isinstance(default_plan(2047), str)
    assert default_plan(None) == ChunkPlan(16, balanced=True)
