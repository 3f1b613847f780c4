"""The user split-K pattern of `examples/patterns/split_k_unrolled.py` (the
one docs/dsl-and-api.md walks through) runs, and its program computes what
the unsplit one does, on IREE's CPU backend and against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xsplit.api import load_patterns, rewrite

EXAMPLE = Path(__file__).parents[2] / "examples" / "patterns" / "split_k_unrolled.py"

MATMUL = """
func.func @main(%a: tensor<6x12xf32>, %b: tensor<12x5xf32>, %c: tensor<6x5xf32>) -> tensor<6x5xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<6x12xf32>, tensor<12x5xf32>) outs(%c : tensor<6x5xf32>) -> tensor<6x5xf32>
  func.return %r : tensor<6x5xf32>
}
"""


@pytest.mark.parametrize("chunks", [2, 3, 4])
def test_user_split_k_matches_the_unsplit_program(chunks: int) -> None:
    from xsplit.iree.cpu_runner import run_on_cpu
    from xsplit.iree.iree_compile import compile_mlir

    load_patterns(str(EXAMPLE))
    split = rewrite(MATMUL, f"split-k-unrolled{{chunks={chunks}}}")
    assert split.count("linalg.matmul") == chunks
    assert split.count("arith.addf") == chunks
    rng = np.random.default_rng(chunks)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((6, 12), (12, 5), (6, 5))]
    (got,) = run_on_cpu(compile_mlir(split, "cpu"), "main", inputs)
    (unsplit,) = run_on_cpu(compile_mlir(MATMUL, "cpu"), "main", inputs)
    a, b, c = inputs
    np.testing.assert_allclose(got, c + a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, unsplit, rtol=1e-5, atol=1e-5)


def test_a_count_that_does_not_divide_k_leaves_the_matmul() -> None:
    load_patterns(str(EXAMPLE))
    assert rewrite(MATMUL, "split-k-unrolled{chunks=5}").count("linalg.matmul") == 1
