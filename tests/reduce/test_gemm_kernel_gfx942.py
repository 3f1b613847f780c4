"""gfx942's forms of the own GEMM kernel, run in the SPMD simulator against
numpy: rows that are not whole 16-byte vectors (odd K or N) loaded 16
bytes at a time (`ragged` copies: the vector straddling a row's end loads
ending at it, shifted down), the ragged last K step peeled out of the
register-prefetched loop (in a chunk with whole steps before it, and in
one that holds only the ragged step), each thread's columns in runs of 4
(two runs a thread in the small-output f32 entry), and K-packed B slices of 8 columns. Also the ISA reader's loops."""

from __future__ import annotations

import re

import pytest

from tests.helpers.gemm_kernel import check, lowered
from xsplit.bench.machine_code import (
    _innermost_natural_loop,
    _math_per_barrier_natural,
    _natural_loops,
)
from xsplit.diagnostics import XsplitError
from xsplit.targets.gemm_tiles import gemm_tiles
from xsplit.targets.table import TARGETS

SMALL = "tile=16,16,8 threads=4,4"


@pytest.mark.parametrize("stages", [1, 2])
def test_ragged_rows_f32(stages: int) -> None:
    # K = 101 and N = 37: neither A's nor B's rows are whole vectors of 4.
    # Three chunks of 40: the last holds whole steps, then the ragged one.
    text = check(21, 37, 101, f"target=gfx942 chunks=3 stages={stages} {SMALL}", seed=3)
    assert re.search(r"vector\.load %a\[", text) and re.search(r"vector\.load %b\[", text)
    assert "arith.minui" in text  # the straddling vector loads ending at the row's end


def test_ragged_step_alone_in_its_chunk() -> None:
    # K = 13 in two chunks of 8: the second chunk is only the ragged step
    # (its loop runs no step; the prologue's copy is redone by the peel).
    check(9, 10, 13, f"target=gfx942 chunks=2 stages=2 {SMALL}", seed=4)


def test_ragged_rows_f16_fma() -> None:
    # 16-bit rows of odd K and N in vectors of 8 halves, FMAs (mma=none).
    options = "target=gfx942 chunks=2 stages=2 mma=none tile=16,16,16 threads=4,4"
    text = check(19, 27, 77, options, seed=5, element="f16")
    assert re.search(r"vector\.load %a\[.*vector<8xf16>", text)


def test_kpacked_slices_of_eight_columns() -> None:
    # MFMA 16x16x16 on one wavefront: B's K-packed slices are 4 K x 8
    # columns (four 16-byte loads), ragged along N = 37.
    options = "target=gfx942 chunks=2 stages=2 tile=64,64,64 warps=1,1"
    text = check(20, 37, 101, options, seed=6, element="f16")
    assert re.search(r"vector\.load %b\[.*vector<8xf16>", text)
    assert "amdgpu.mfma" in text


def test_small_f32_entry_two_runs_of_four_columns() -> None:
    # The table's small-output f32 entry: 64x64x16 on 16x8 threads, so each
    # thread's 8 columns are two runs of 4; M, N and K all ragged, 2 chunks.
    entry = gemm_tiles(TARGETS["gfx942"], "f32", 37, 45, 37)
    assert (entry.tile, entry.threads, entry.columns) == ((64, 64, 16), (16, 8), 4)
    text = check(37, 45, 37, "target=gfx942 chunks=2", seed=7)
    assert re.search(r"vector\.load %\S+\[.*vector<4xf32>", text)


def test_narrow_f32_entry_rows_past_m_clamped() -> None:
    # N under 64 beside M from 64: the NARROW f32 entry, the f32 MFMA on
    # 128x32x32, 2x1 wavefronts. M = 130 makes a second row of tiles that
    # overhangs M by 126 rows, N = 17 half a tile: their loads read A's last
    # row and B's last vector (`clamp`), no mask; K = 37 in two chunks is
    # ragged.
    entry = gemm_tiles(TARGETS["gfx942"], "f32", 130, 17, 37)
    assert (entry.tile, entry.warps, entry.mma) == ((128, 32, 32), (2, 1), "mfma_f32_16x16x4_f32")
    text = check(130, 17, 37, "target=gfx942 chunks=2", seed=8)
    assert re.search(r"arith\.constant 129 : index", text)  # A's last row
    assert "amdgpu.mfma 16x16x4" in text
    # With FMAs asked for: the small-output entry's FMAs, in runs of 4 columns.
    fma = check(130, 17, 37, "target=gfx942 chunks=2 mma=none", seed=8)
    assert "amdgpu.mfma" not in fma and re.search(r"vector\.load %b\[.*vector<4xf32>", fma)


def test_narrow_f16_entry() -> None:
    # The NARROW f16 entry: MFMA on 256x32x32, 2 wavefronts along M; M = 70
    # leaves most of the tile's rows past M (read from A's last row), N = 19
    # and K = 45 are ragged.
    entry = gemm_tiles(TARGETS["gfx942"], "f16", 70, 19, 45)
    assert (entry.tile, entry.warps) == ((256, 32, 32), (2, 1))
    text = check(70, 19, 45, "target=gfx942 chunks=2", seed=9, element="f16")
    assert "amdgpu.mfma" in text and re.search(r"arith\.constant 69 : index", text)


@pytest.mark.parametrize(("m", "n", "k"), [(3, 37, 45), (1, 130, 70)])
def test_skinny_f32_entry_mfma(m: int, n: int, k: int) -> None:
    # f32 with M under 8: the SKINNY entry multiplies on the f32 MFMA
    # (16x16x4, one element of A and B a lane) on 16x128x32, 1x2 wavefronts.
    # N = 37 is ragged inside one tile, N = 130 overhangs a second tile;
    # K = 45 and 70 leave a ragged step; rows past M read A's last row.
    entry = gemm_tiles(TARGETS["gfx942"], "f32", m, n, k)
    assert (entry.tile, entry.warps, entry.mma) == ((16, 128, 32), (1, 2), "mfma_f32_16x16x4_f32")
    text = check(m, n, k, "target=gfx942 chunks=2", seed=10 + m)
    assert re.search(r"amdgpu\.mfma 16x16x4 %\S+ \* %\S+ \+ %\S+ : f32, f32, vector<4xf32>", text)


@pytest.mark.parametrize(("m", "n", "k", "rows"), [(20, 70, 45, 32), (12, 150, 37, 16)])
def test_short_f32_entry_mfma(m: int, n: int, k: int, rows: int) -> None:
    # M under 64 beside N from 64: the SHORT f32 entry, the f32 MFMA on 32
    # rows (16 where M fits in them), 1x2 wavefronts; N overhangs the tile.
    entry = gemm_tiles(TARGETS["gfx942"], "f32", m, n, k)
    assert (entry.tile, entry.warps, entry.mma) == ((rows, 128, 32), (1, 2), "mfma_f32_16x16x4_f32")
    text = check(m, n, k, "target=gfx942 chunks=2", seed=20 + m)
    assert "amdgpu.mfma 16x16x4" in text


def test_f32_mfma_only_where_asked() -> None:
    # mma=auto keeps FMAs for f32 from 8 rows (and with mma=none); the f32
    # MFMA by name takes any f32 tile, f16 widened, and only on gfx942.
    assert "amdgpu.mfma" not in lowered_text(8, 40, 24, "target=gfx942 tile=16,16,8 threads=4,4")
    text = lowered_text(9, 20, 12, "target=gfx942 mma=mfma_f32_16x16x4_f32 tile=16,64,8 warps=1,1")
    assert "amdgpu.mfma 16x16x4" in text
    takes = "mma=mfma_f32_16x16x4_f32 takes A and B of f32/f16/bf16 on gfx942"
    with pytest.raises(XsplitError, match=takes):
        lowered_text(9, 20, 12, "target=sm_80 mma=mfma_f32_16x16x4_f32", element="f16")


@pytest.mark.parametrize(
    ("m", "n", "k", "element"),
    [(3, 37, 45, "f16"), (15, 300, 70, "f16"), (1, 256, 97, "f16"), (6, 90, 53, "bf16")],
)
def test_skinny_f16_entry_widened_f32_mfma(m: int, n: int, k: int, element: str) -> None:
    # f16 with M under 16: the SKINNY entry widens A and B to f32 for eight
    # f32 MFMAs over 128 interleaved columns (`mfma_f32_16x16x4_f32_x8`):
    # a lane's B of all eight is one 16-byte read, converted once each, the
    # conversions before a scheduling barrier and the MFMAs after it.
    # N = 37 ragged (odd) inside one tile, 300 overhangs a second, 256 fills
    # one; every K leaves a ragged step; random f16 (bf16 reads f16's entry)
    # against numpy.
    entry = gemm_tiles(TARGETS["gfx942"], element, m, n, k)
    want = ((16, 256, 32), (1, 2), "mfma_f32_16x16x4_f32_x8")
    assert (entry.tile, entry.warps, entry.mma) == want
    text = check(m, n, k, "target=gfx942 chunks=2", seed=30 + m, element=element)
    t = element
    lds = rf"memref<\S+x{t}, #gpu\.address_space<workgroup>>"
    assert re.search(rf"vector\.load %\S+\[.*\] : {lds}, vector<8x{t}>", text)
    assert re.search(rf"arith\.extf %\S+ : {t} to f32", text)
    assert "amdgpu.sched_barrier allow = none" in text
    mfma = re.findall(r"amdgpu\.mfma 16x16x4 %\S+ \* %\S+ \+ %\S+ : f32, f32, vector<4xf32>", text)
    assert mfma and len(mfma) % 8 == 0


def lowered_text(m: int, n: int, k: int, options: str, element: str = "f32") -> str:
    return lowered(m, n, k, options, element)[1]


def test_wide_output_keeps_small_entry() -> None:
    # N from 64, or M under 64 beside N under it: not NARROW.
    gfx942 = TARGETS["gfx942"]
    assert gemm_tiles(gfx942, "f32", 200, 64, 1001).tile == (64, 64, 16)
    assert gemm_tiles(gfx942, "f16", 48, 40, 2039).tile == (128, 128, 32)
    assert gemm_tiles(TARGETS["sm_90"], "f32", 200, 17, 1001).tile == (64, 64, 16)


LISTING = """mm:
	s_load_dwordx4 s[0:3], s[0:1], 0x0
	s_branch .LBB0_2
.LBB0_1:
	global_atomic_add_f32 v1, v2, s[0:1]
	s_endpgm
.LBB0_2:
	v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[0:1]
	s_barrier
	s_cbranch_scc1 .LBB0_1
	v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[0:1]
	s_branch .LBB0_2
""".splitlines()


def test_natural_loops_in_amd_layout() -> None:
    """LLVM lays the loop's exit block out before the loop: the branch to
    it is backward in the text, but no loop (its target does not dominate
    it); the loop is the header's block and the latch."""
    label, branch = r"(\.LBB\d+_\d+):", r"s_c?branch\w*\s+(\.LBB\d+_\d+)"
    loops = _natural_loops(LISTING, label, branch, r"\bs_branch\b", r"\bs_endpgm\b")
    assert len(loops) == 1
    body = _innermost_natural_loop(loops, LISTING, r"v_pk_fma")
    assert [x.split()[0] for x in body] == [
        ".LBB0_2:", "v_pk_fma_f32", "s_barrier", "s_cbranch_scc1", "v_pk_fma_f32", "s_branch"
    ]  # fmt: skip
    assert _math_per_barrier_natural(loops, LISTING, r"v_pk_fma", r"s_barrier") == 2.0
