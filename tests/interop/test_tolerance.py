"""The check's tolerance for a re-associated reduction: a share of the
largest result, or one rounding unit of the sum of the terms' magnitudes
where they cancel. Generated long dot products: the split order's rounding
passes, and a chunk dropped or counted twice fails."""

from __future__ import annotations

import random

import numpy as np

from xsplit.interop.check import check_rewrite, compare, magnitude_inputs


def _chunked_dot(a: np.ndarray, b: np.ndarray, chunks: int) -> tuple[np.float32, list[np.float32]]:
    parts = [np.dot(x, y) for x, y in zip(np.array_split(a, chunks), np.array_split(b, chunks))]
    return np.float32(np.sum(np.array(parts, dtype=np.float32))), parts


def test_rounding_of_a_cancelling_sum_passes_and_a_lost_chunk_fails() -> None:
    rng = random.Random(4000037)
    gen = np.random.default_rng(4000037)
    for _ in range(20):
        k, chunks = rng.randint(200_000, 3_000_000), rng.randint(2, 64)
        a, b = (gen.uniform(-1, 1, k).astype(np.float32) for _ in range(2))
        exact = np.array(np.dot(a.astype(np.float64), b.astype(np.float64)), dtype=np.float32)
        split, parts = _chunked_dot(a, b, chunks)
        magnitude = np.array(np.dot(*(x.astype(np.float64) for x in magnitude_inputs([a, b]))), dtype=np.float32)
        assert compare(np.array(split), exact, 0, magnitude).passed
        lost = np.float32(split - parts[rng.randrange(chunks)])
        assert not compare(np.array(lost), exact, 0, magnitude).passed
        twice = np.float32(split + parts[rng.randrange(chunks)])
        assert not compare(np.array(twice), exact, 0, magnitude).passed
    # Without magnitudes, the share of the result alone applies.
    assert compare(np.array(np.float32(1.0)), np.array(np.float32(1.0)), 0).tolerance == 2e-4


def test_xsplit_check_passes_a_long_dot_split_in_two() -> None:
    text = """
func.func @dot(%a: tensor<2000003xf32>, %b: tensor<2000003xf32>, %c: tensor<f32>) -> tensor<f32> {
  %r = linalg.dot ins(%a, %b : tensor<2000003xf32>, tensor<2000003xf32>) outs(%c : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}"""
    _, checks = check_rewrite(text, "split-k{factor=2},materialize-late")
    assert [c.passed for c in checks] == [True], [c.describe() for c in checks]
