"""`source_map`: reading a `linalg.transpose`'s source where a map read its
result, checked element by element against numpy's transpose (which permutes
as linalg.transpose does: result.shape[d] == source.shape[permutation[d]]) on
generated permutations, ranks and loop orders."""

from __future__ import annotations

import random

import numpy as np
from xdsl.ir.affine import AffineDimExpr, AffineMap

from xsplit.analysis.reduction import source_map


def _evaluate(m: AffineMap, loops: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(loops[e.position] for e in m.results if isinstance(e, AffineDimExpr))


def test_the_source_map_reads_the_element_the_transposed_map_read() -> None:
    rng = random.Random(13115)
    for _ in range(400):
        rank = rng.randint(1, 5)
        num_loops = rng.randint(rank, rank + 2)
        permutation = rng.sample(range(rank), rank)
        # The op reads the transposed tensor with `rank` distinct loops, in any order.
        positions = rng.sample(range(num_loops), rank)
        transposed_map = AffineMap(num_loops, 0, tuple(AffineDimExpr(p) for p in positions))
        source_shape = [rng.randint(1, 4) for _ in range(rank)]
        source = np.arange(np.prod(source_shape)).reshape(source_shape)
        transposed = np.transpose(source, permutation)
        extents = [1] * num_loops
        for p, size in zip(positions, transposed.shape):
            extents[p] = size
        reading_source = source_map(transposed_map, permutation)
        for loops in np.ndindex(*extents):
            assert source[_evaluate(reading_source, loops)] == transposed[_evaluate(transposed_map, loops)]
