"""Workgroup-level kernels, distributed every way, run on the CPU through IREE
and compared with numpy."""

from __future__ import annotations

import numpy as np
import pytest

from tests.distribute.kernels import (
    add_2d,
    exported,
    prefix_rows,
    row_sum,
    run_exported,
    split_k_matvec,
)
from xsplit import XsplitError
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir


def _inputs(rng: np.random.Generator, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize(
    ("grid", "options"),
    [
        (64, ""),  # exact: 64 rows on 64 workgroups
        (80, ""),  # oversubscribed
        (5, ""),  # cyclic
        (5, "strategy=block-cyclic chunk=4"),
        (7, "strategy=block-cyclic"),
        (64, "strategy=cyclic"),
        (80, "strategy=oversubscribed"),
    ],
)
def test_row_sum(grid: int, options: str) -> None:
    rng = np.random.default_rng(grid)
    a, out = _inputs(rng, (64, 100), (64,))
    (got,) = run_exported(row_sum(64, 100, grid), "rows", [a, out], f"distribute{{{options}}}")
    np.testing.assert_allclose(got, a.sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("grid", "options"), [(32, ""), (6, ""), (40, ""), (9, "strategy=block-cyclic")])
def test_split_k_linearized(grid: int, options: str) -> None:
    """The chunk loop and the tile loop share #gpu.block<x>: linearized, every
    (chunk, tile) pair runs exactly once, whatever the grid."""
    rng = np.random.default_rng(grid)
    a, b, out = _inputs(rng, (16, 100), (100,), (16,))
    (got,) = run_exported(
        split_k_matvec(16, 100, 4, 8, grid), "splitk", [a, b, out], f"distribute{{{options}}}"
    )
    np.testing.assert_allclose(got, out + a @ b, rtol=1e-4, atol=1e-4)


def test_split_k_on_two_axes() -> None:
    """Chunks on z (split_reduction_mapping) and tiles on x: a 2-D grid."""
    rng = np.random.default_rng(3)
    a, b, out = _inputs(rng, (12, 90), (90,), (12,))
    source = split_k_matvec(
        12, 90, 3, 4, 4, inner="#gpu.block<x>", outer="#iree_linalg_ext.split_reduction_mapping<0>"
    ).replace("array<i32: 4, 1, 1>", "array<i32: 4, 1, 3>")
    (got,) = run_exported(source, "splitk", [a, b, out])
    np.testing.assert_allclose(got, out + a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("grid", "options"), [((3, 2), ""), ((5, 4), ""), ((2, 2), "strategy=block-cyclic")])
def test_2d_tiles(grid: tuple[int, int], options: str) -> None:
    rng = np.random.default_rng(sum(grid))
    a, b, c = _inputs(rng, (20, 13), (20, 13), (20, 13))
    (got,) = run_exported(add_2d(20, 13, 4, grid), "add", [a, b, c], f"distribute{{{options}}}")
    np.testing.assert_allclose(got, a + b, rtol=1e-6)


def test_generated_cases() -> None:
    """Random shapes, grids and strategies: every distribution the pass accepts
    computes what the unsplit loop computes; the ones it refuses are those it
    cannot prove."""
    rng = np.random.default_rng(1234)
    for _ in range(6):
        m = int(rng.integers(1, 40))
        k = int(rng.integers(1, 30))
        grid = int(rng.integers(1, 50))
        strategy = str(rng.choice(["auto", "cyclic", "block-cyclic", "oversubscribed", "exact"]))
        chunk = int(rng.integers(0, 5))
        a, out = _inputs(rng, (m, k), (m,))
        options = f"distribute{{strategy={strategy} chunk={chunk}}}"
        proven = {"oversubscribed": grid >= m, "exact": grid == m}.get(strategy, True)
        if not proven:
            with pytest.raises(XsplitError, match="which is not proven"):
                run_exported(row_sum(m, k, grid), "rows", [a, out], options)
            continue
        (got,) = run_exported(row_sum(m, k, grid), "rows", [a, out], options)
        np.testing.assert_allclose(got, a.sum(axis=1), rtol=1e-5, atol=1e-5, err_msg=f"{m=} {k=} {grid=} {options}")


@pytest.mark.parametrize(
    ("grid", "options", "form"),
    [
        (40, "", "scf.if"),  # the affine.min bounds n by 40: guarded, proven
        (7, "", "scf.for"),  # cyclic
        (7, "strategy=block-cyclic", "arith.ceildivui"),  # block size computed at run time
    ],
)
def test_trip_count_known_only_at_run_time(grid: int, options: str, form: str) -> None:
    rng = np.random.default_rng(grid)
    a, out = _inputs(rng, (40, 9), (40,))
    text = exported(prefix_rows(40, 9, grid), f"distribute{{{options}}}")
    assert form in text
    vmfb = compile_mlir(text, "cpu")
    for n in (0, 13, 40, 55):
        nbuf = np.array([n], dtype=np.int32)
        (got,) = run_on_cpu(vmfb, "prefix", [a, nbuf, out])
        rows = min(n, 40)
        expected = out.copy()
        expected[:rows] = a[:rows].sum(axis=1)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=f"{n=}")


def test_generated_split_k_nests() -> None:
    """Random split-K nests (chunks that need not divide K, tiles that need
    not divide M, any grid): linearized and distributed, every (chunk, tile)
    pair adds its partial exactly once."""
    rng = np.random.default_rng(99)
    for _ in range(4):
        m, k = int(rng.integers(1, 24)), int(rng.integers(1, 120))
        chunks, tiles = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        grid = int(rng.integers(1, 40))
        strategy = str(rng.choice(["auto", "cyclic", "block-cyclic"]))
        chunk = int(rng.integers(0, 4))
        a, b, out = _inputs(rng, (m, k), (k,), (m,))
        options = f"distribute{{strategy={strategy} chunk={chunk}}}"
        (got,) = run_exported(split_k_matvec(m, k, chunks, tiles, grid), "splitk", [a, b, out], options)
        np.testing.assert_allclose(
            got, out + a @ b, rtol=1e-4, atol=1e-4,
            err_msg=f"{m=} {k=} {chunks=} {tiles=} {grid=} {options}",
        )
