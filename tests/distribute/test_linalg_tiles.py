"""Kernels of linalg tiles on memref.subviews (seed 003's form), distributed
each way, exported (export-dispatch lowers the linalg ops to loops), run on
the CPU through IREE and compared with numpy; and a synchronized one
compiled for sm_80 and gfx942, whose barrier reaches the assembly.

Shapes, tile sizes and processor counts are drawn from seeded generators:
edge tiles are partial, so the tiles' shapes are dynamic."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.distribute.kernels import (
    exported,
    run_exported,
    split_k_partials,
    tiled_matmul,
    tiled_row_norms,
    tiled_scale_add,
)
from tests.gpu_assembly import dumped_assembly
from xsplit import rewrite
from xsplit.iree.iree_compile import compile_mlir

STRATEGIES = ("exact", "oversubscribed", "cyclic", "block-cyclic")


def _inputs(rng: np.random.Generator, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _procs(rng: np.random.Generator, strategy: str, trips: int) -> int:
    """A processor count the strategy is proven right for; fewer processors
    than iterations for the looping ones, so that each processor loops."""
    if strategy == "exact":
        return trips
    if strategy == "oversubscribed":
        return trips + int(rng.integers(0, 4))
    return int(rng.integers(1, trips)) if trips > 1 else 1


def _options(rng: np.random.Generator, strategy: str) -> str:
    chunk = f" chunk={int(rng.integers(0, 4))}" if strategy == "block-cyclic" else ""
    return f"distribute{{strategy={strategy}{chunk}}}"


def _tiles(n: int, t: int) -> int:
    return -(-n // t)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_fill_matmul_tiles(strategy: str) -> None:
    rng = np.random.default_rng(100 + STRATEGIES.index(strategy))
    m, n, k = (int(x) for x in rng.integers(3, 30, size=3))
    tm, tn = (int(x) for x in rng.integers(2, 9, size=2))
    grid = (_procs(rng, strategy, _tiles(n, tn)), _procs(rng, strategy, _tiles(m, tm)))
    options = _options(rng, strategy)
    a, b, c = _inputs(rng, (m, k), (k, n), (m, n))
    (got,) = run_exported(tiled_matmul(m, n, k, tm, tn, grid), "matmul", [a, b, c], options)
    np.testing.assert_allclose(
        got, a @ b, rtol=1e-4, atol=1e-4, err_msg=f"{m=} {n=} {k=} {tm=} {tn=} {grid=} {options}"
    )


@pytest.mark.parametrize("strategy", ["exact", "cyclic"])
def test_elementwise_generic_tiles(strategy: str) -> None:
    """An scf.parallel of linalg.generic tiles with a transposed and a
    broadcast operand."""
    rng = np.random.default_rng(200 + STRATEGIES.index(strategy))
    m, n = (int(x) for x in rng.integers(3, 40, size=2))
    tm, tn = (int(x) for x in rng.integers(2, 9, size=2))
    grid = (_procs(rng, strategy, _tiles(n, tn)), _procs(rng, strategy, _tiles(m, tm)))
    options = _options(rng, strategy)
    a, bt, bias, out = _inputs(rng, (m, n), (n, m), (n,), (m, n))
    (got,) = run_exported(
        tiled_scale_add(m, n, tm, tn, grid), "scale_add", [a, bt, bias, out], options
    )
    np.testing.assert_allclose(
        got, a * bt.T + bias, rtol=1e-5, atol=1e-5,
        err_msg=f"{m=} {n=} {tm=} {tn=} {grid=} {options}",
    )


@pytest.mark.parametrize("strategy", ["oversubscribed", "block-cyclic"])
def test_row_reduction_tiles(strategy: str) -> None:
    """A linalg.generic that reduces each row of its tile into the output tile
    a linalg.fill zeroed."""
    rng = np.random.default_rng(300 + STRATEGIES.index(strategy))
    m, k = int(rng.integers(2, 60)), int(rng.integers(1, 40))
    tm = int(rng.integers(1, 9))
    grid = _procs(rng, strategy, _tiles(m, tm))
    options = _options(rng, strategy)
    a, out = _inputs(rng, (m, k), (m,))
    (got,) = run_exported(tiled_row_norms(m, k, tm, grid), "norms", [a, out], options)
    np.testing.assert_allclose(
        got, (a * a).sum(axis=1), rtol=1e-4, atol=1e-4, err_msg=f"{m=} {k=} {tm=} {grid=} {options}"
    )


@pytest.mark.parametrize("strategy", ["exact", "oversubscribed", "block-cyclic"])
def test_split_k_tiles_on_a_shared_dimension(strategy: str) -> None:
    """The chunk loop (#gpu.block<x>) and the tile loop ([#gpu.block<y>,
    #gpu.block<x>]) share x: chunks x column tiles are linearized on x, row
    tiles go on y; every (chunk, tile) writes its partial exactly once."""
    rng = np.random.default_rng(400 + STRATEGIES.index(strategy))
    m, n, k = int(rng.integers(2, 20)), int(rng.integers(2, 20)), int(rng.integers(2, 50))
    chunk = int(rng.integers(1, k + 1))
    tm, tn = (int(x) for x in rng.integers(2, 7, size=2))
    chunks = _tiles(k, chunk)
    grid = (
        _procs(rng, strategy, chunks * _tiles(n, tn)),
        _procs(rng, strategy, _tiles(m, tm)),
    )
    options = _options(rng, strategy)
    a, b, p = _inputs(rng, (m, k), (k, n), (chunks, m, n))
    (got,) = run_exported(
        split_k_partials(m, n, k, chunk, tm, tn, grid), "partials", [a, b, p], options
    )
    expected = np.stack(
        [a[:, c * chunk : (c + 1) * chunk] @ b[c * chunk : (c + 1) * chunk] for c in range(chunks)]
    )
    np.testing.assert_allclose(
        got, expected, rtol=1e-4, atol=1e-4,
        err_msg=f"{m=} {n=} {k=} {chunk=} {tm=} {tn=} {grid=} {options}",
    )


@pytest.mark.gpu_compile
@pytest.mark.parametrize("target_name", ["sm_80", "gfx942"])
def test_workgroup_linalg_tiles_compile_for_gpus(target_name: str) -> None:
    """The loops the linalg tiles become are what the GPU backends take too,
    partial tiles and the linearized nest included."""
    for source in (
        tiled_matmul(13, 11, 7, 4, 3, (2, 2)),
        split_k_partials(9, 7, 20, 8, 4, 3, (5, 2)),
    ):
        text = exported(source, "distribute", target_name)
        assert not re.search(r"\blinalg\.", text)
        assert compile_mlir(text, target_name)


# Each block stages a 32x128 tile of `a` in workgroup memory, one column per
# thread (linalg.copy), then sums its rows, one per thread (linalg.fill and a
# reducing linalg.generic): the sums read what other threads copied. 128
# threads: more than one wave on gfx942, whose compiler drops a barrier a
# single wave does not need.
STAGED_ROW_SUMS = """
func.func @stage(%a: memref<64x128xf32>, %out: memref<64xf32>) attributes {gpu.known_grid_size = array<i32: GRID, 1, 1>, gpu.known_block_size = array<i32: 128, 1, 1>} {
  %tile = memref.alloc() : memref<32x128xf32, #gpu.address_space<workgroup>>
  %zero = arith.constant 0.0 : f32
  scf.forall (%b) in (2) {
    %r = affine.apply affine_map<(d0) -> (d0 * 32)>(%b)
    scf.forall (%t) in (128) {
      %src = memref.subview %a[%r, %t] [32, 1] [1, 1] : memref<64x128xf32> to memref<32x1xf32, strided<[128, 1], offset: ?>>
      %dst = memref.subview %tile[0, %t] [32, 1] [1, 1] : memref<32x128xf32, #gpu.address_space<workgroup>> to memref<32x1xf32, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
      linalg.copy ins(%src : memref<32x1xf32, strided<[128, 1], offset: ?>>) outs(%dst : memref<32x1xf32, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
    } {mapping = [#gpu.thread<x>]}
    scf.forall (%t) in (32) {
      %row = memref.subview %tile[%t, 0] [1, 128] [1, 1] : memref<32x128xf32, #gpu.address_space<workgroup>> to memref<1x128xf32, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
      %i = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%r, %t)
      %o = memref.subview %out[%i] [1] [1] : memref<64xf32> to memref<1xf32, strided<[1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%o : memref<1xf32, strided<[1], offset: ?>>)
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x128xf32, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%o : memref<1xf32, strided<[1], offset: ?>>) {
      ^bb0(%x: f32, %acc: f32):
        %s = arith.addf %acc, %x : f32
        linalg.yield %s : f32
      }
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}
"""

SHARED_MEMORY_TOKENS = {
    "sm_80": {"bar": r"bar\.sync", "st": r"st\.shared", "ld": r"ld\.shared"},
    "gfx942": {"bar": r"s_barrier", "st": r"ds_write", "ld": r"ds_read"},
}


def _shared_memory_steps(source: str, target_name: str, tmp_path: Path) -> list[str]:
    """Barriers, stores to and loads from workgroup memory, in assembly order,
    runs of one kind counted once."""
    (asm,) = dumped_assembly(source, target_name, tmp_path)
    kinds = SHARED_MEMORY_TOKENS[target_name]
    pattern = re.compile("|".join(f"(?P<{k}>\\b{p})" for k, p in kinds.items()))
    found = [m.lastgroup for m in pattern.finditer(asm)]
    return [k for i, k in enumerate(found) if i == 0 or found[i - 1] != k]  # type: ignore[misc]


@pytest.mark.gpu_compile
@pytest.mark.parametrize("target_name", ["sm_80", "gfx942"])
@pytest.mark.parametrize(
    ("grid", "barriers", "steps"),
    [
        # One tile per block: a barrier between the copies and the sums.
        (2, 1, ["st", "bar", "ld"]),
        # Both tiles on one block, in a loop: also one before the next
        # tile's copies overwrite what the last sums read.
        (1, 2, ["bar", "st", "bar", "ld"]),
    ],
)
def test_synchronized_linalg_tiles_reach_the_assembly(
    target_name: str, grid: int, barriers: int, steps: list[str], tmp_path: Path
) -> None:
    source = STAGED_ROW_SUMS.replace("GRID", str(grid))
    synced = rewrite(source, "distribute,insert-barriers")
    assert synced.count("gpu.barrier") == barriers
    exported = rewrite(synced, f"export-dispatch{{target={target_name}}}")
    assert not re.search(r"\blinalg\.", exported)
    got = _shared_memory_steps(exported, target_name, tmp_path)
    # The block loop may be unrolled.
    assert got and len(got) % len(steps) == 0, got
    assert got == steps * (len(got) // len(steps)), got
    unsynced = rewrite(rewrite(source, "distribute"), f"export-dispatch{{target={target_name}}}")
    assert "bar" not in _shared_memory_steps(unsynced, target_name, tmp_path / "unsynced")
