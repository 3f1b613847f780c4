"""xsplit's own GEMM kernel (`gemm-kernel` and its three lowering passes),
run in the SPMD simulator: race-free and right against numpy in every merge,
with M, N and K that are not multiples of the tile (prime K included), in a
shuffled thread order (tests/helpers/gemm_kernel.py's ORDERS says why one is
enough); the deterministic merge bitwise equal across every order; and
global loads per FMA counted against the fused GEMM's text kernel."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.helpers.gemm_kernel import (
    ORDERS,
    LoadCounter,
    QuietMachine,
    check,
    expected,
    inputs,
    lowered,
    matmul,
    worst_conflict,
)
from tests.helpers.kept import parsed, rewrite_kept
from tests.helpers.simulation import simulate_module
from xsplit.api import parse_module, rewrite
from xsplit.diagnostics import collect_remarks
from xsplit.dialects import make_context
from xsplit.simulator.machine import Launch
from xsplit.simulator.program import host_function, simulate_program
from xsplit.simulator.run import launch_sizes, pick_function, simulate

SMALL = "tile=16,16,8 threads=4,4"


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
def test_split_k_unaligned(merge: str) -> None:
    # M, N not multiples of 16, K = 101 (prime) in 4 chunks of 32: the last
    # chunk is 5 long and its one step mostly masked.
    text = check(37, 21, 101, f"target=sm_80 chunks=4 merge={merge} {SMALL}")
    assert ("memref.atomic_rmw" in text) == (merge == "atomic")


def test_store_one_chunk() -> None:
    text = check(19, 33, 29, f"target=gfx942 {SMALL}")
    assert "atomic_rmw" not in text and "gpu.block_id z" not in text


def test_default_tiles() -> None:
    # The 64x64 tile, 256 threads of 4x4, K steps of 16, on a ragged C.
    check(70, 65, 40, "target=sm_80 chunks=2", printed=False)


def test_register_tile_8x8() -> None:
    check(40, 72, 24, "target=sm_80 chunks=3 tile=32,64,8 threads=4,8", printed=False)


def test_generated_cases() -> None:
    """Random shapes, chunk counts, merges, stages, tiles and targets: each run is
    race-free and right (a fixed seed, so a failure reproduces)."""
    rng = np.random.default_rng(32)
    tiles = [SMALL, "tile=8,16,4 threads=2,4", "tile=16,8,8 threads=8,2"]
    for case in range(5):
        m, n = (int(x) for x in rng.integers(1, 40, 2))
        k = int(rng.choice([1, 7, 13, 31, 64, 97]))
        chunks = int(rng.integers(1, 6))
        merge = str(rng.choice(["auto", "atomic", "deterministic"]))
        stages = int(rng.integers(1, 3))
        tile = tiles[case % len(tiles)]
        # stages=2 is cp.async on sm_80 and register prefetch on gfx942.
        target = ("sm_80", "gfx942")[case % 2]
        options = f"target={target} chunks={chunks} merge={merge} stages={stages} {tile}"
        check(m, n, k, options, seed=case, printed=False)


def test_deterministic_is_bitwise_stable() -> None:
    """The partials are merged in chunk order whatever the thread order:
    runs under shuffled schedules agree to the bit (simulate_program checks
    every order against the first when no float atomic is involved)."""
    module, text = lowered(23, 17, 97, f"target=sm_80 chunks=5 merge=deterministic {SMALL}")
    assert "atomic_rmw" not in text
    args = inputs(23, 17, 97, 3)
    host = host_function(module, None)
    assert host is not None
    for seed in (1, 2):
        report = simulate_program(module, host, None, args, seed=seed)
        assert report.clean, report.mismatches


def count(fn, args: list[np.ndarray]) -> tuple[dict[str, int], list[np.ndarray]]:
    grid, block = launch_sizes(fn, None, None)
    machine = LoadCounter(Launch(grid, block, 32))
    results = machine.run(fn, [a.copy() for a in args])
    c = machine.counts
    return {"ab": c["a"] + c["b"], "ab_loads": c["a_loads"] + c["b_loads"], "fma": c["fma"]}, results


def _fused_program(m: int, n: int, k: int) -> str:
    t = lambda *s: f"tensor<{'x'.join(map(str, s))}xf32>"
    return f"""
func.func @mm_sum(%a: {t(m, k)}, %b: {t(k, n)}, %c: {t(m, n)}, %o: {t(m, 1)}) -> ({t(m, n)}, {t(m, 1)}) {{
  %x = linalg.matmul ins(%a, %b : {t(m, k)}, {t(k, n)}) outs(%c : {t(m, n)}) -> {t(m, n)}
  %r = rock.reduce sum %x into %o {{axis = 1 : index}} : {t(m, n)} into {t(m, 1)} -> {t(m, 1)}
  return %x, %r : {t(m, n)}, {t(m, 1)}
}}
"""


def fused_staged_kernel(m: int, n: int, k: int):
    """The same as lower-reduce writes it now: the staged kernel's epilogue."""
    with collect_remarks():
        out = rewrite_kept(_fused_program(m, n, k), "fuse-reduction,lower-reduce{stage=atomic target=sm_80}")
    assert "gpu.thread_id" in out and "vector.load" in out
    return pick_function(parsed(out, "new.mlir"), None)


def test_global_loads_per_fma() -> None:
    """With a 64x64 tile and K step 16 the kernel loads 1/32 elements of A
    and B per FMA (1/64 + 1/64) on a 128x128x64 GEMM, as the fused text
    kernel did (now deleted), in a quarter of its load instructions
    (128-bit loads: 1/128, it had 1/32); 128x128 tiles of 8x8 registers
    halve the elements again. The fused GEMM + row sum, the same kernel with
    a reduction epilogue, loads as the plain GEMM does."""
    m = n = 128
    k = 64
    useful = m * n * k
    args = inputs(m, n, k, 5)
    want = expected(args)[2]
    rows = {}
    # One stage: its copies are loads the simulator counts (cp.async's are not).
    for name, options in (("64x64", "target=sm_80 stages=1"), ("128x128", "target=sm_80 tile=128,128,8 threads=16,16 stages=1")):
        module, _ = lowered(m, n, k, options, printed=False)
        counts, results = count(pick_function(module, None), args)
        assert np.allclose(results[2], want, rtol=1e-4, atol=1e-4)
        assert counts["fma"] == useful  # no padding on aligned shapes
        rows[name] = (counts["ab"] / useful, counts["ab_loads"] / useful)
    assert rows["64x64"] == (1 / 32, 1 / 128)
    assert rows["128x128"] == (1 / 64, 1 / 256)
    # The fused GEMM + row sum as lower-reduce writes it now loads like the
    # plain GEMM kernel: its epilogue reads no A or B.
    fused_counts, fused_results = count(
        fused_staged_kernel(m, n, k), [*args, np.zeros((m, 1), np.float32)]
    )
    assert np.allclose(fused_results[2], want, rtol=1e-4, atol=1e-4)
    assert np.allclose(fused_results[3][:, 0], want.sum(axis=1), rtol=1e-4, atol=1e-3)
    assert fused_counts["fma"] == useful
    assert (fused_counts["ab"] / useful, fused_counts["ab_loads"] / useful) == (1 / 32, 1 / 128)


def test_global_loads_per_multiply_add_with_tensor_cores() -> None:
    """f16 on tensor cores with the same 64x64 tile: as many A and B
    elements per multiply-add as the FMA kernel (1/32), in half the load
    instructions (128 bits are 8 halves: 1/256); every product is in an
    mma.sync."""
    m = n = 128
    k = 64
    useful = m * n * k
    args = inputs(m, n, k, 5, "f16")
    # One stage: its copies are loads the simulator counts (cp.async's are not).
    module, _ = lowered(m, n, k, "target=sm_80 stages=1", "f16", printed=False)
    counts, results = count(pick_function(module, None), args)
    assert np.allclose(results[2], expected(args)[2], rtol=1e-3, atol=1e-3)
    assert counts["fma"] == useful
    assert (counts["ab"] / useful, counts["ab_loads"] / useful) == (1 / 32, 1 / 256)


def test_vector_loads_masked() -> None:
    # K and N are whole vectors of 4: 128-bit loads, masked as a whole where
    # the tile overhangs N (72 past 64) and K (the short last chunk).
    text = check(37, 72, 200, f"target=sm_80 chunks=3 stages=1 {SMALL}")
    assert "vector.load %a" in text and "vector.load %b" in text
    text = check(37, 70, 200, f"target=sm_80 chunks=3 stages=1 {SMALL}")
    assert "vector.load %a" in text and "vector.load %b" not in text


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("k", [101, 96, 8])
def test_double_buffered(merge: str, k: int) -> None:
    # Two tile pairs and cp.async (stages=2): odd and even step counts per
    # chunk (101 in 3 chunks of 40: 5, 5 and 3 steps of 8; 96: 4 each; 8:
    # one step, one chunk), masked copies, and a copy into a tile pair
    # while the other is read: the simulator logs each copy's writes at its
    # issue, so a copy into a pair still being read would race.
    chunks = 1 if k == 8 else 3
    text = check(37, 20, k, f"target=sm_80 chunks={chunks} merge={merge} stages=2 {SMALL}")
    # Two stages: each step waits for all of its own copies (none other is in flight).
    assert "nvgpu.device_async_copy" in text and "numGroups = 0" in text
    assert not re.search(r"(memref|vector)\.load %[ab]\[", text)  # all staging is async


def test_double_buffer_without_its_barrier_races() -> None:
    """One barrier a step: the one at the top of the second step is what
    keeps its copies (into the first pair) after everyone's reads of the
    first pair: without it the simulator reports the race."""
    module, text = lowered(37, 20, 96, f"target=sm_80 chunks=1 stages=2 {SMALL}")
    fn = pick_function(module, None)
    loop = next(op for op in fn.walk() if op.name == "scf.for" and op.parent_op() is fn)
    barriers = [op for op in loop.body.block.ops if op.name == "gpu.barrier"]
    assert len(barriers) == 2
    barriers[1].detach()  # the one before the second step's copies and multiply
    barriers[1].erase()
    args = inputs(37, 20, 96, 0)
    report = simulate(fn, reference=expected(args), inputs=args, orders=["reverse"])
    assert report.races


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("k", [101, 96, 8])
def test_register_prefetch(merge: str, k: int) -> None:
    # stages=2 on gfx942: the step ahead goes through registers into the idle
    # pair; odd and even step counts per chunk, and one step alone.
    chunks = 1 if k == 8 else 3
    text = check(37, 20, k, f"target=gfx942 chunks={chunks} merge={merge} stages=2 {SMALL}")
    assert "%a_next" in text and "%b_tile1" in text and "nvgpu" not in text


def test_register_prefetch_f16_transposed_a() -> None:
    options = f"target=gfx942 chunks=2 stages=2 a_layout=k {SMALL}"
    check(37, 24, 101, options, element="f16", printed=False)


@pytest.mark.parametrize("which", [0, 1])
def test_register_prefetch_needs_both_barriers(which: int) -> None:
    """One barrier a step: each orders the stores into one pair against the
    reads of it on both sides. Without either the simulator reports a race."""
    module, _ = lowered(37, 20, 96, f"target=gfx942 chunks=1 stages=2 {SMALL}")
    fn = pick_function(module, None)
    loop = next(op for op in fn.walk() if op.name == "scf.for" and op.parent_op() is fn)
    barriers = [op for op in loop.body.block.ops if op.name == "gpu.barrier"]
    assert len(barriers) == 2
    barriers[which].detach()
    barriers[which].erase()
    args = inputs(37, 20, 96, 0)
    report = simulate(fn, reference=expected(args), inputs=args, orders=["reverse"])
    assert report.races


# Direct-to-LDS loads (prefetch=lds on gfx942): whole 64-lane wavefronts,
# each load 4 bytes a lane into 64 consecutive words of the tile.
LDS = "tile=16,16,8 threads=8,8"


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("k", [101, 96, 8])
def test_direct_to_lds(merge: str, k: int) -> None:
    # Odd and even step counts per chunk, a short last chunk (101 = 3 x 40 -
    # 19), lanes outside A or B writing zeros, one step alone.
    chunks = 1 if k == 8 else 3
    options = f"target=gfx942 chunks={chunks} merge={merge} stages=2 prefetch=lds {LDS}"
    text = check(37, 20, k, options)
    assert "amdgpu.gather_to_lds" in text and "%a_next" not in text
    assert not re.search(r"(memref|vector)\.load %[ab]\[", text)  # all staging is direct


def test_direct_to_lds_mfma() -> None:
    # f16: two halves a lane (vector<2xf16>), into the MFMA kernel's tiles.
    options = f"target=gfx942 chunks=3 stages=2 prefetch=lds {MFMA_SMALL}"
    text = check(37, 24, 100, options, element="f16")
    assert "amdgpu.gather_to_lds" in text and "vector<2xf16>" in text and "amdgpu.mfma" in text


def test_direct_to_lds_needs_its_barrier() -> None:
    """The loads into one pair start after the barrier that ends the step
    reading it and land by the next one: without the first the simulator
    reports a race."""
    module, _ = lowered(37, 20, 96, f"target=gfx942 chunks=1 stages=2 prefetch=lds {LDS}")
    fn = pick_function(module, None)
    loop = next(op for op in fn.walk() if op.name == "scf.for" and op.parent_op() is fn)
    barriers = [op for op in loop.body.block.ops if op.name == "gpu.barrier"]
    assert len(barriers) == 2
    barriers[0].detach()
    barriers[0].erase()
    args = inputs(37, 20, 96, 0)
    report = simulate(fn, reference=expected(args), inputs=args, orders=["reverse"])
    assert report.races


@pytest.mark.parametrize(
    "options",
    ["", "tile=128,128,8 threads=16,16", "tile=64,64,32 threads=16,16"],
)
@pytest.mark.parametrize("k", [64, 66])  # 128-bit loads of A, and scalar ones
def test_transposed_a_tile_stores_are_free_of_bank_conflicts(options: str, k: int) -> None:
    """A K-major A tile (a_layout=k) is written transposed; its padding
    (`a_pad`) spreads each warp's stores over all 32 banks. Without it they
    pile up (checked by zeroing the pad: 16-way for scalar copies with K
    steps of 16, at least 2-way everywhere)."""
    from xsplit.rewrites.reduce import lower_gridwise_gemm

    options = f"target=sm_80 a_layout=k {options}"
    assert worst_conflict(options, k, "memref.store") == 1
    saved = lower_gridwise_gemm.a_pad
    lower_gridwise_gemm.a_pad = lambda step_k: 0
    try:
        unpadded = worst_conflict(options, k, "memref.store")
    finally:
        lower_gridwise_gemm.a_pad = saved
    assert unpadded >= (16 if "tile" not in options and k == 66 else 2)


@pytest.mark.parametrize("step_k", [16, 32])
def test_m_major_a_tile_is_free_of_bank_conflicts(step_k: int) -> None:
    """The default M-major A tile: stores are 128-bit row copies
    (conflict-free per quarter warp), and each warp's register reads touch
    32 / threads_n rows at once, which
    `a_row_pad` puts in different banks: with K steps of 32 unpadded rows
    of 32 words would share a bank (2-way), padded to 36 they do not."""
    from xsplit.rewrites.reduce import lower_gridwise_gemm

    options = f"target=sm_80 tile=64,64,{step_k} stages=1"  # stores, not cp.async
    assert worst_conflict(options, 64, "vector.store", group=8) == 1
    assert worst_conflict(options, 64, "memref.load") == 1
    saved = lower_gridwise_gemm.a_row_pad
    lower_gridwise_gemm.a_row_pad = lambda *args: 0
    try:
        unpadded = worst_conflict(options, 64, "memref.load")
    finally:
        lower_gridwise_gemm.a_row_pad = saved
    assert unpadded == (2 if step_k == 32 else 1)


# Tensor cores: f16 A and B on sm_80 take nvgpu.mma.sync m16n8k16 (mma=auto).
# Small warp tiles keep the simulator quick: 32x16 C tiles of two warps (one
# 16x16 warp tile each, 1x2 blocks of 16x8), or 32x32 tiles of two warps.
MMA_SMALL = "tile=32,16,16 warps=2,1"
MMA_WIDE = "tile=32,32,16 warps=1,2"


@pytest.mark.parametrize("merge", ["store", "atomic", "deterministic"])
def test_tensor_cores_every_merge(merge: str) -> None:
    # M, N not multiples of the tile, K = 101 (prime): the last K block of
    # every chunk is partly outside K, masked to zeros.
    chunks = 1 if merge == "store" else 4
    options = f"target=sm_80 chunks={chunks} merge={merge} stages=1 {MMA_SMALL}"
    text = check(37, 21, 101, options, element="f16")
    assert "nvgpu.mma.sync" in text and "arith.extf" not in text
    assert text.count("nvgpu.ldmatrix") == 2  # per K block: 1 A fragment and a pair of B
    # The tiles are XOR-swizzled (test_lds_layouts): unpadded, and addressed through xori.
    assert "memref<32x16xf16" in text and "memref<16x16xf16" in text and "arith.xori" in text
    assert ("memref.atomic_rmw" in text) == (merge == "atomic")


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("k", [200, 48])
def test_tensor_cores_double_buffered(merge: str, k: int) -> None:
    # stages=2 with f16: 16-byte cp.async of 8 halves; 200 in 3 chunks of 80
    # (5, 5 and 3 steps of 16: odd counts and a short last chunk), 48: one
    # chunk of 3 steps.
    chunks = 3 if k == 200 else 1
    options = f"target=sm_80 chunks={chunks} merge={merge} stages=2 {MMA_WIDE}"
    text = check(37, 24, k, options, element="f16")
    assert "nvgpu.mma.sync" in text and "numGroups = 0" in text and "arith.xori" in text
    assert not re.search(r"(memref|vector)\.load %[ab]\[", text)


def test_tensor_cores_default_tiles() -> None:
    # 64x64 tiles of four warps, 32x32 warp tiles of 2x4 blocks, K steps of
    # 64 (4 blocks of 16) in two stages, unrolled by two: 8 x 4 x 2.
    text = check(70, 72, 40, "target=sm_80 chunks=2", element="f16")
    assert text.count("nvgpu.mma.sync") == 64


def test_tensor_cores_generated_cases() -> None:
    """Random shapes, chunks, merges, stages and warp layouts with tensor
    cores: race-free and right (a fixed seed)."""
    rng = np.random.default_rng(16)
    # Layouts whose threads divide the 16-byte copies (stages=2 needs them).
    layouts = [MMA_WIDE, "tile=16,16,32 warps=1,1", "tile=64,16,16 warps=2,1"]
    for case in range(4):
        stages = int(rng.integers(1, 3))
        m = int(rng.integers(1, 40))
        n = int(rng.integers(1, 5)) * 8 if stages == 2 else int(rng.integers(1, 40))
        k = int(rng.integers(1, 12)) * 8 if stages == 2 else int(rng.choice([1, 7, 31, 97]))
        chunks = int(rng.integers(1, 4))
        merge = str(rng.choice(["auto", "atomic", "deterministic"]))
        layout = layouts[case % len(layouts)]
        options = f"target=sm_80 chunks={chunks} merge={merge} stages={stages} {layout}"
        text = check(m, n, k, options, seed=case, element="f16")
        assert "nvgpu.mma.sync" in text


@pytest.mark.parametrize(("k", "n", "width"), [(106, 42, "2"), (100, 44, "4")])
def test_tensor_cores_cp_async_of_pairs_and_quads(k: int, n: int, width: str) -> None:
    """f16 rows that are even but not whole 16-byte vectors (K and N of 2
    or 4 mod 8) stay asynchronous: copies of 4 or 8 bytes, each starting on
    its own alignment, into the same swizzled tiles; the last K step of a
    chunk partly outside K, masked."""
    options = f"target=sm_80 chunks=3 merge=atomic stages=2 {MMA_WIDE}"
    text = check(37, n, k, options, seed=k, element="f16")
    assert "nvgpu.device_async_copy" in text and "%a_next" not in text
    # The elements each copy moves: A's and B's alike.
    widths = re.findall(r"nvgpu\.device_async_copy [^]]*\], [^]]*\], (\d+)", text)
    assert widths and set(widths) == {width}, widths


@pytest.mark.parametrize(
    ("n", "k", "element", "merge"),
    [(21, 101, "f16", "atomic"), (24, 203, "f16", "deterministic"), (19, 96, "bf16", "store")],
)
def test_odd_rows_padded_first(n: int, k: int, element: str, merge: str) -> None:
    """16-bit rows of an odd length (K, N or both) are first widened to
    whole 16-byte vectors by `pad_rows` kernels (zeros past the row), and
    the GEMM stages the copies by cp.async: the host's program of kernels
    gives C + A·B."""
    chunks = 1 if merge == "store" else 3
    options = f"target=sm_80 chunks={chunks} merge={merge} {MMA_WIDE}"
    text = check(37, n, k, options, seed=n + k, element=element)
    pads = re.findall(r"func\.func @mm_pad_([ab])\(", text)
    assert pads == [w for w, odd in (("a", k % 2), ("b", n % 2)) if odd]
    assert "nvgpu.device_async_copy" in text and "%a_next" not in text


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
def test_tensor_cores_with_the_lanes_own_loads(merge: str) -> None:
    """Fragments read by each lane's loads at the places the intrinsic's
    layout gives (`threadwise_fragment {loads}`, the path of an intrinsic
    without a collective load) instead of `nvgpu.ldmatrix`: right too."""
    options = f"target=sm_80 chunks=3 merge={merge} {MMA_WIDE}"
    with collect_remarks():
        text = rewrite(
            matmul(37, 24, 101, "f16"),
            f"gemm-kernel{{{options}}},lower-gridwise-gemm,lower-blockwise-gemm",
        )
        text = re.sub(r'(operand = "[ab]")', r"\1, loads", text)
        text = rewrite(text, "lower-threadwise-gemm")
    assert "nvgpu.ldmatrix" not in text and "vector.load %a_tile" in text
    module = parse_module(text, "kernel.mlir", make_context())
    args = inputs(37, 24, 101, 4, "f16")
    report = simulate_module(module, expected(args), args, orders=ORDERS)
    assert report.clean, report.races + report.mismatches


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
def test_tensor_cores_bf16(merge: str) -> None:
    # bf16 takes the same intrinsic (mma.sync ... .bf16.bf16.f32), inputs
    # rounded to bf16; stages=2 copies it like f16.
    for stages, k in ((1, 101), (2, 200)):
        options = f"target=sm_80 chunks=3 merge={merge} stages={stages} {MMA_WIDE}"
        text = check(37, 24, k, options, element="bf16")
        assert "vector<2x2xbf16>" in text and "nvgpu.mma.sync" in text and "arith.xori" in text


def test_tensor_cores_only_where_the_target_has_them() -> None:
    # f32 has none on either target: FMAs; mma=none forces them for f16.
    for options, element in (
        (f"target=gfx942 {SMALL}", "f32"), (f"target=sm_80 {SMALL}", "f32"),
        (f"target=sm_80 mma=none {SMALL}", "f16"), (f"target=gfx942 mma=none {SMALL}", "f16"),
    ):  # fmt: skip
        _, text = lowered(19, 17, 29, options, element)
        assert "nvgpu.mma.sync" not in text and "amdgpu.mfma" not in text
        assert "arith.mulf" in text


# gfx942: f16 A and B take amdgpu.mfma 16x16x16 (mma=auto), one 64-lane
# wavefront per warp tile. 32x32 C tiles of two wavefronts (16x32 warp
# tiles, 1x2 blocks), or 16x16 tiles of one.
MFMA_SMALL = "tile=32,32,16 warps=2,1"
MFMA_ONE = "tile=16,16,16 warps=1,1"


@pytest.mark.parametrize("merge", ["store", "atomic", "deterministic"])
def test_mfma_every_merge(merge: str) -> None:
    # M, N not multiples of the tile, K = 101 (prime): the last K block of
    # every chunk is partly outside K, masked to zeros.
    chunks = 1 if merge == "store" else 4
    options = f"target=gfx942 chunks={chunks} merge={merge} {MFMA_SMALL}"
    text = check(37, 21, 101, options, element="f16")
    assert "amdgpu.mfma 16x16x16" in text and "arith.extf" not in text
    assert ("memref.atomic_rmw" in text) == (merge == "atomic")
    # B's tile K-packed (test_lds_layouts): 16x32 as 4x128, read 4 halves at once.
    assert "memref<4x128xf16" in text and "memref.load %b_tile" not in text


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("k", [203, 48])
def test_mfma_register_prefetch(merge: str, k: int) -> None:
    # stages=2 with MFMA: the next K block through registers; 203 (7 x 29)
    # in 3 chunks of 80 (5, 5 and 3 steps of 16, the last partly outside
    # K), 48: one chunk of 3 steps.
    chunks = 3 if k == 203 else 1
    options = f"target=gfx942 chunks={chunks} merge={merge} stages=2 {MFMA_SMALL}"
    text = check(37, 24, k, options, element="f16")
    assert "amdgpu.mfma" in text and "%a_next" in text and "nvgpu" not in text
    assert "memref<4x128xf16" in text and "memref.load %b_tile" not in text


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
def test_mfma_bf16(merge: str) -> None:
    # bf16 takes the same 16x16x16 MFMA in its bf16 form.
    options = f"target=gfx942 chunks=3 merge={merge} {MFMA_SMALL}"
    text = check(37, 21, 101, options, element="bf16")
    assert "vector<4xbf16>, vector<4xbf16>, vector<4xf32>" in text


def test_mfma_default_tiles() -> None:
    # 128x128 tiles of four wavefronts, 64x64 warp tiles of 4x4 16x16 blocks,
    # K steps of 32 (two K blocks): 32 MFMAs a step. Double-buffered: the
    # loop's two steps, and the ragged step (K = 40: one chunk) peeled after it.
    text = check(70, 72, 40, "target=gfx942 chunks=2", element="f16")
    assert text.count("amdgpu.mfma") == 3 * 32


def test_mfma_generated_cases() -> None:
    """Random shapes, chunks, merges, stages and warp layouts with MFMA:
    race-free and right (a fixed seed)."""
    rng = np.random.default_rng(940)
    layouts = [MFMA_SMALL, MFMA_ONE, "tile=32,16,16 warps=2,1"]
    for case in range(4):
        m, n = (int(x) for x in rng.integers(1, 40, 2))
        k = int(rng.choice([1, 7, 31, 97]))
        chunks = int(rng.integers(1, 4))
        merge = str(rng.choice(["auto", "atomic", "deterministic"]))
        stages = int(rng.integers(1, 3))
        layout = layouts[case % len(layouts)]
        options = f"target=gfx942 chunks={chunks} merge={merge} stages={stages} {layout}"
        text = check(m, n, k, options, seed=case, element="f16")
        assert "amdgpu.mfma" in text


class FragmentBankMachine(QuietMachine):
    """The worst bank conflict of any warp's read from an A or B tile (its
    fragments): the most distinct 4-byte words of one bank in one access.
    A lane's own loads are one access per warp; `nvgpu.ldmatrix` reads each
    8x8 matrix in one access, its 8 rows of 16 bytes addressed by lanes
    8i..8i+7. Lockstep, so each op runs for all its lanes at once."""

    def fn(self, op):
        f = super().fn(op)
        if op.name not in ("memref.load", "vector.load", "nvgpu.ldmatrix"):
            return f
        tile = str(op.operands[0].name_hint)
        if not (tile.startswith("a_tile") or tile.startswith("b_tile")):
            return f
        if id(op) not in self._wrapped:
            shape = op.operands[0].type.get_shape()
            size = op.operands[0].type.element_type.bitwidth // 8
            tiles = op.num_tiles.value.data if op.name == "nvgpu.ldmatrix" else 0

            def wrapped(fr, chunked, f=f, op=op, tiles=tiles) -> None:
                row, col = (
                    np.broadcast_to(self.arr(fr, self.slots[v]), (fr.n,)) for v in op.operands[1:]
                )
                words = (row * shape[1] + col) * size // 4
                thread = fr.lanes  # one workgroup's threads are consecutive lanes
                for w in np.unique(thread // 32):
                    mine = words[thread // 32 == w]
                    groups = (
                        [np.unique(mine)]
                        if not tiles
                        else [np.unique(mine[8 * i : 8 * i + 8, None] + np.arange(4)) for i in range(tiles)]
                    )
                    for g in groups:
                        self.worst = max(self.worst, int(np.bincount(g % 32).max()))
                f(fr, chunked)

            self._wrapped[id(op)] = wrapped
        return self._wrapped[id(op)]


def fragment_conflict(options: str, k: int) -> int:
    module, _ = lowered(64, 64, k, options, "f16")
    fn = pick_function(module, None)
    grid, block = launch_sizes(fn, None, None)
    machine = FragmentBankMachine(Launch(grid, block, 32))
    machine.run(fn, inputs(64, 64, k, 0, "f16"))
    return machine.worst


@pytest.mark.parametrize("tile", ["64,64,16", "64,64,32"])
def test_fragment_reads_are_free_of_bank_conflicts(tile: str, monkeypatch) -> None:
    """Each 8x8 matrix an `ldmatrix` reads (8 rows of 16 bytes: A's rows of
    a block, B's K rows) falls in 32 distinct banks with the tiles
    swizzled (the default) or with the rows padded by `fragment_pad`;
    unpadded and unswizzled, rows of 8, 16 or 32 words share banks (B's
    rows of 32 words all start in bank 0: 8-way)."""
    from xsplit.rewrites.reduce import lower_gridwise_gemm

    options = f"target=sm_80 tile={tile}"
    assert fragment_conflict(options, 64) == 1
    monkeypatch.setattr(lower_gridwise_gemm, "swizzles", lambda op, operand: False)
    assert fragment_conflict(options, 64) == 1
    saved = lower_gridwise_gemm.fragment_pad
    lower_gridwise_gemm.fragment_pad = lambda *args: 0
    try:
        unpadded = fragment_conflict(options, 64)
    finally:
        lower_gridwise_gemm.fragment_pad = saved
    assert unpadded >= 4


class TileStoreBankMachine(QuietMachine):
    """The worst bank conflict of a row copy's 128-bit `vector.store`s into
    the tile named `tile`, per quarter warp (8 lanes: a 128-bit access is
    served a quarter warp at a time), counting each lane's 4 words."""

    def __init__(self, launch: Launch, tile: str) -> None:
        super().__init__(launch)
        self.tile = tile

    def fn(self, op):
        f = super().fn(op)
        if op.name != "vector.store" or not str(op.operands[1].name_hint).startswith(self.tile):
            return f
        if id(op) not in self._wrapped:
            shape = op.operands[1].type.get_shape()
            size = op.operands[1].type.element_type.bitwidth // 8
            words_each = op.operands[0].type.get_shape()[0] * size // 4

            def wrapped(fr, chunked, f=f, op=op) -> None:
                row, col = (
                    np.broadcast_to(self.arr(fr, self.slots[v]), (fr.n,)) for v in op.operands[2:]
                )
                words = (row * shape[1] + col) * size // 4
                quarter = fr.lanes // 8
                for q in np.unique(quarter):
                    mine = np.unique(words[quarter == q][:, None] + np.arange(words_each))
                    self.worst = max(self.worst, int(np.bincount(mine % 32).max()))
                f(fr, chunked)

            self._wrapped[id(op)] = wrapped
        return self._wrapped[id(op)]


@pytest.mark.parametrize("step_k", [16, 32, 64])
def test_tile_stores_with_tensor_cores(step_k: int, monkeypatch) -> None:
    """The f16 tiles' 128-bit stores, as padded for ldmatrix (the layout
    before the swizzle, which `test_lds_layouts` measures conflict-free):
    B's rows (72 halves) take one quarter warp each, conflict-free; A's are
    too with K steps of 64, but with 16 or 32 a quarter warp stores 4 or 2
    rows, and no row length puts those in distinct banks while keeping
    ldmatrix's 8 rows distinct (2-way)."""
    from xsplit.rewrites.reduce import lower_gridwise_gemm

    monkeypatch.setattr(lower_gridwise_gemm, "swizzles", lambda op, operand: False)
    results = {}
    for tile in ("a_tile", "b_tile"):
        # One stage: its stores are the 128-bit vector stores measured here.
        module, _ = lowered(64, 64, 128, f"target=sm_80 tile=64,64,{step_k} stages=1", "f16")
        fn = pick_function(module, None)
        grid, block = launch_sizes(fn, None, None)
        machine = TileStoreBankMachine(Launch(grid, block, 32), tile)
        machine.run(fn, inputs(64, 64, 128, 0, "f16"))
        results[tile] = machine.worst
    assert results == {"a_tile": 1 if step_k == 64 else 2, "b_tile": 1}
