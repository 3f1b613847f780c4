"""The own kernel on skinny outputs (issue 37): the tile table's SKINNY
entry for tensor cores under 16 rows (one 16-row block of warps, both
along N), picked by M; and copies whose rows take whole passes of the
threads, addressed without a div or rem per vector. Numerics in the
simulator against numpy on random inputs."""

from __future__ import annotations

import pytest

from tests.helpers.gemm_kernel import check, matmul
from xsplit.api import parse_module, rewrite
from xsplit.diagnostics import collect_remarks
from xsplit.dialects import make_context
from xsplit.dialects.xsplit_gemm import GridwiseGemmOp
from xsplit.targets.gemm_tiles import (
    GEMM_TILES,
    SKINNY,
    SKINNY_M_MMA,
    SKINNY_NARROW_B,
    SKINNY_NARROW_N,
    SMALL,
    gemm_tiles,
)
from xsplit.targets.table import target


def gridwise(m: int, n: int, k: int, options: str, element: str) -> GridwiseGemmOp:
    with collect_remarks():
        text = rewrite(matmul(m, n, k, element), f"gemm-kernel{{{options}}}")
    module = parse_module(text, "k.mlir", make_context())
    return next(op for op in module.walk() if isinstance(op, GridwiseGemmOp))


@pytest.mark.parametrize("name", ["sm_80", "sm_90", "gfx942"])
@pytest.mark.parametrize("element", ["f16", "bf16"])
def test_skinny_m_takes_the_skinny_entry(name: str, element: str) -> None:
    tgt = target(name)
    skinny = GEMM_TILES[(name, "f16", SKINNY)]
    assert gemm_tiles(tgt, element, SKINNY_M_MMA - 1, 4096, 4096) == skinny
    # On CUDA B's rows not whole 16-byte vectors keep two warps on the same
    # tile (one warp: 255 registers on 11x302x3001), and an N under one
    # tile takes one warp of 16x64 (on 16x128, LLVM drops the HMMAs past
    # N); gfx942's entry is two wavefronts anyway.
    narrow_b = GEMM_TILES[("cuda", "f16", SKINNY_NARROW_B)]
    narrow_n = GEMM_TILES[("cuda", "f16", SKINNY_NARROW_N)]
    narrow = gemm_tiles(tgt, element, 1, 300, 1024)
    assert narrow == (skinny if name == "gfx942" else narrow_b) and narrow.tile == skinny.tile
    for n in (64, 96, 100):
        narrow = gemm_tiles(tgt, element, 1, n, 1024)
        assert narrow == (skinny if name == "gfx942" else narrow_n)
    if name != "gfx942":
        assert skinny.warps == (1, 1) and narrow_b.warps == (1, 2)
        assert narrow_n.warps == (1, 1) and narrow_n.tile_n == 64
    # From one whole block of rows on, the output's own class.
    assert gemm_tiles(tgt, element, SKINNY_M_MMA, 96, 1024) == GEMM_TILES[(name, "f16", SMALL)]
    # f32 has its own skinny entry: on CUDA FMAs that stream B into
    # registers (tests/reduce/test_gemm_kernel_stream.py), on gfx942 the
    # f32 MFMA (tests/reduce/test_gemm_kernel_gfx942.py).
    f32 = gemm_tiles(tgt, "f32", 1, 96, 1024)
    if name == "gfx942":
        assert f32 == GEMM_TILES[(name, "f32", SKINNY)] and f32.mma and not f32.stream_b
    else:
        assert f32.stream_b and f32.warps is None and f32 != skinny


@pytest.mark.parametrize("name", ["sm_80", "gfx942"])
def test_gemm_kernel_takes_the_entrys_warps(name: str) -> None:
    op = gridwise(8, 256, 1024, f"target={name}", "f16")
    skinny = GEMM_TILES[(name, "f16", SKINNY)]
    assert op.tile_sizes == skinny.tile and op.warp_counts == skinny.warps
    # Given warps win over the table's (gfx942's tile is two blocks of its
    # 128 interleaved columns: one wavefront takes both).
    given = (1, 4) if name == "sm_80" else (1, 1)
    warps = f"warps={given[0]},{given[1]}"
    assert gridwise(8, 256, 1024, f"target={name} {warps}", "f16").warp_counts == given
    # A tile the user gives keeps the 2x2 default where warps are not given.
    given = gridwise(64, 256, 1024, f"target={name} tile=64,64,64", "f16")
    assert given.warp_counts == (2, 2)


@pytest.mark.parametrize(
    ("name", "m", "n", "k"),
    [
        ("sm_80", 8, 250, 300),
        ("sm_80", 3, 136, 201),
        ("sm_80", 7, 96, 301),
        ("sm_80", 2, 100, 260),
        ("gfx942", 5, 130, 197),
        ("gfx942", 1, 64, 256),
    ],
)
def test_skinny_defaults_run_right(name: str, m: int, n: int, k: int) -> None:
    """The table's skinny tile, picked by M, in two chunks: right against
    numpy, race-free (odd K on sm_80: A padded first). sm_80's N under one
    tile: 16x64x128 on one warp, its last tile of columns shifted (7x96x301
    overlaps 32 columns; 2x100x260, 8-byte copies, 28)."""
    check(m, n, k, f"target={name} chunks=2", seed=m + k, element="f16", printed=False)


@pytest.mark.parametrize(
    "options",
    [
        "target=sm_80 chunks=2 tile=8,128,32 threads=1,16 stages=2",
        "target=sm_80 chunks=2 tile=8,128,32 threads=1,16 stages=1",
        "target=gfx942 chunks=2 tile=8,128,32 threads=1,16 stages=2",
    ],
)
def test_copies_of_rows_wider_than_the_threads_have_no_div(options: str) -> None:
    """B's rows of 32 vectors, 16 threads: two passes a row. Each vector's
    place is the thread's column plus constants (before: a div and a rem
    of thread + 16 i per vector, 243 of each in the two-stage kernel of
    3x200x101); the
    few left are the thread's place in A's tile and the fragments'."""
    # One tile of columns, the last 8 masked; a ragged K in two chunks.
    text = check(3, 120, 70, options, seed=7)
    assert text.count("arith.divui") <= 10 and text.count("arith.remui") <= 10


@pytest.mark.parametrize(
    ("m", "n", "k", "element", "shifted"),
    [
        (5, 256, 640, "f16", False),
        (15, 384, 448, "bf16", False),
        (2, 136, 320, "f16", True),
        (9, 1000, 300, "f16", True),
    ],
)
def test_skinny_one_warp_rows_of_b_in_pairs(
    m: int, n: int, k: int, element: str, shifted: bool
) -> None:
    """sm_80/sm_90's skinny entry: one warp of 16x128, B's cp.async in pairs
    of threads a row (`row_threads = 2`), the K loop's whole steps read
    through a view at the thread's first vector. Where B's last tile of
    columns is partial it is shifted back to end at B's last column (every
    copy inside B) and writes only the columns past its neighbour's
    (`from`): each C element merged once. Right against numpy, race-free,
    in two chunks: A's rows past M masked (5x256x640); bf16 (15x384x448);
    N past one tile by one vector (2x136x320: the two tiles overlap in 120
    columns); 7 whole tiles and a shifted one (9x1000x300)."""
    text = check(m, n, k, "target=sm_90 chunks=2", seed=m + n, element=element)
    assert "memref.subview %b" in text
    pipeline = "gemm-kernel{target=sm_90 chunks=2},lower-gridwise-gemm"
    with collect_remarks():
        lowered = rewrite(matmul(m, n, k, element), pipeline)
    # The first step's copy and the loop's (unrolled by the stages).
    assert lowered.count("row_threads = 2") >= 2
    # Shifted: the loop's copies are inside B along both dimensions.
    assert ("inside = array<i64: 0, 1>" in lowered) == shifted
    assert (" from %" in lowered) == shifted
    assert "known_block_size = array<i32: 32, 1, 1>" in lowered  # one warp


@pytest.mark.parametrize(
    "options", ["chunks=3 merge=deterministic", "chunks=1 merge=store", "chunks=2 merge=atomic"]
)
def test_shifted_last_tile_merges_each_column_once(options: str) -> None:
    """The shifted last tile of 3x200x300 f16 (columns 72..199, its
    neighbour's 0..127) computes columns 72..127 twice and merges them once,
    by every merge: the partials of the deterministic merge (each slot
    written by one workgroup: the simulator reports two writers as a race),
    a plain store, the atomic add (twice would be twice the value)."""
    text = check(3, 200, 300, f"target=sm_90 {options}", seed=11, element="f16")
    assert "memref.subview %b" in text
