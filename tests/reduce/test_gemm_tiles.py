"""The own GEMM kernels' tile table (xsplit/targets/gemm_tiles.py): gemm-kernel
reads it where tile, threads and stages are not given; every entry of its
fits its target's workgroup memory, and every entry of an output size
compiles for it without spills and runs right in the simulator; the fused
kernel's entries match its epilogue; and bench/pick_gemm_tiles.py writes a
device's sweep into it."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from tests.gpu_assembly import dumped_assembly
from tests.helpers.gemm_kernel import LOWER, check, matmul, worst_conflict
from tests.helpers.gpu_asm import SPILL
from xsplit.api import parse_module, rewrite
from xsplit.diagnostics import collect_remarks
from xsplit.dialects import make_context
from xsplit.dialects.xsplit_gemm import GridwiseGemmOp
from xsplit.dialects.xsplit_gemm.common import shape_of
from xsplit.dialects.fragments import intrinsic_for
from xsplit.targets.gemm_tiles import (
    CANDIDATES,
    FUSED,
    FUSED_MMA,
    GEMM_TILES,
    LARGE,
    NARROW,
    NOT_MEASURED,
    SHORT,
    SKINNY,
    SMALL,
    WORKGROUP_MEMORY,
    GemmTiles,
    can_take,
    default_chunks,
    gemm_tiles,
)
from xsplit.targets.table import TARGETS, target

ROOT = Path(__file__).parents[2]
KERNEL_ENTRIES = {key: t for key, t in GEMM_TILES.items() if key[2] not in (FUSED, FUSED_MMA)}
"""gemm-kernel's entries (the fused kernel's are not its options)."""
DISTINCT = sorted(  # by repr: warps may be None
    {
        (
            target(t).compiles_as or t, e, tiles.tile, tiles.threads, tiles.stages, tiles.warps,
            tiles.mma,
        )  # fmt: skip
        for (t, e, cls), tiles in GEMM_TILES.items()
        if cls in (SMALL, LARGE, SKINNY, NARROW, SHORT)
    },
    key=repr,
)
"""Each output size's kernel once per target and element type (sm_90's
compile as sm_80's). The classes of rows are compiled and run on the
shapes they serve (test_skinny_tiles, test_own_kernel_machine_code)."""
ENTRY = ("name", "element", "tile", "threads", "stages", "warps", "mma")
FORMS = sorted(
    {(e, tile, threads, stages) for _, e, tile, threads, stages, _, mma in DISTINCT if not mma}
)
"""Each entry's tile, threads and stages once, whatever the target (but
those of an intrinsic the entry names: gfx942's f32 MFMA)."""


STREAMED = {(t.tile, t.threads, t.stages) for t in GEMM_TILES.values() if t.stream_b}
"""The forms of the entries that stream B into registers (`stream_b`)."""


def _options(
    name: str, tile: tuple, threads: tuple, stages: int, warps=None, mma: str | None = None
) -> str:
    return (
        f"target={name} chunks=2 tile={','.join(map(str, tile))} "
        f"threads={','.join(map(str, threads))} stages={stages}"
        + (f" warps={','.join(map(str, warps))}" if warps else "")
        + (" stream_b=on" if (tile, threads, stages) in STREAMED else "")
        + (f" mma={mma}" if mma else "")
    )


def _rows(tile: tuple) -> int:
    """M of a test output: the tile's rows less some (masks), a skinny tile's half."""
    return tile[0] - 28 if tile[0] > 28 else tile[0] // 2


def gridwise(m: int, n: int, k: int, options: str, element: str = "f32") -> GridwiseGemmOp:
    with collect_remarks():
        text = rewrite(matmul(m, n, k, element), f"gemm-kernel{{{options}}}")
    module = parse_module(text, "k.mlir", make_context())
    return next(op for op in module.walk() if isinstance(op, GridwiseGemmOp))


@pytest.mark.parametrize(
    ("m", "n", "k", "element", "cls"),
    [(100, 72, 1000, "f32", SMALL), (256, 512, 64, "f32", LARGE), (300, 256, 96, "f16", LARGE)],
)
@pytest.mark.parametrize("name", ["sm_80", "gfx942"])
def test_the_defaults_are_the_tables(
    m: int, n: int, k: int, element: str, cls: str, name: str
) -> None:
    entry = GEMM_TILES[(name, element, cls)]
    op = gridwise(m, n, k, f"target={name}", element)
    assert op.tile_sizes == entry.tile and op.stage_count == entry.stages
    # On tensor cores the warps, not the table's threads, make the workgroup.
    fmas = getattr(op, "mma", None) is None
    assert op.thread_counts == entry.threads or not fmas
    # What is given is kept; the rest comes from the table.
    op = gridwise(m, n, k, f"target={name} tile=32,32,16 stages=1", element)
    assert op.tile_sizes == (32, 32, 16) and op.stage_count == 1
    assert op.thread_counts == entry.threads or not fmas


def test_f16_rows_that_are_not_whole_vectors_go_through_registers() -> None:
    # cp.async cannot copy 2 bytes: an f16 K of 1001 leaves A's rows starting
    # 2 bytes into a word; unpadded (pad=none) A goes through registers, B
    # (N = 256) still by cp.async.
    assert GEMM_TILES[("sm_80", "f16", LARGE)].stages == 2
    ragged = gridwise(256, 256, 1001, "target=sm_80 pad=none", "f16")
    assert ragged.stage_count == 2 and ragged.register_prefetch is not None
    assert ragged.async_b is not None
    both = gridwise(256, 251, 1001, "target=sm_80 pad=none", "f16")
    assert both.register_prefetch is not None and both.async_b is None
    # An even N: B by cp.async of 4-byte pairs (a row starts on a word).
    pairs = gridwise(256, 250, 1001, "target=sm_80 pad=none", "f16")
    assert pairs.register_prefetch is not None and pairs.async_b is not None
    # K and N even: both by cp.async, none through registers, nothing padded.
    even = gridwise(256, 250, 1002, "target=sm_80", "f16")
    assert even.stage_count == 2 and even.register_prefetch is None
    assert even.mnk == (256, 250, 1002)


def test_odd_f16_rows_are_padded_to_whole_vectors() -> None:
    # By default the odd rows are first widened (pad_rows): the GEMM reads A
    # in rows of 1008 and B in rows of 256 (whole 16-byte rows; its K is
    # still B's 1001) and stages both by cp.async, with the table's entry for
    # the padded shape.
    op = gridwise(256, 251, 1001, "target=sm_80", "f16")
    assert op.mnk == (256, 256, 1001) and shape_of(op.a) == (256, 1008)
    assert op.stage_count == 2 and op.register_prefetch is None
    assert op.tile_sizes == GEMM_TILES[("sm_80", "f16", LARGE)].tile
    # Only the odd one: K odd, N whole.
    op = gridwise(256, 256, 1001, "target=sm_80", "f16")
    assert op.mnk == (256, 256, 1001) and shape_of(op.a) == (256, 1008)
    assert shape_of(op.b) == (1001, 256)
    # Not on gfx942 (no cp.async to serve), nor for f32 (4-byte copies).
    assert gridwise(256, 251, 1001, "target=gfx942", "f16").mnk == (256, 251, 1001)
    assert gridwise(256, 251, 1001, "target=sm_80", "f32").mnk == (256, 251, 1001)
    aligned = gridwise(256, 256, 1024, "target=sm_80", "f16")
    assert aligned.stage_count == 2 and aligned.register_prefetch is None


@pytest.mark.parametrize(("key", "tiles"), sorted(KERNEL_ENTRIES.items()))
def test_every_entry_fits_its_target(key: tuple[str, str, str], tiles: GemmTiles) -> None:
    """The kernel can take it (stages=3 and 4 only on CUDA, whole cp.async copies),
    and its staged tiles fit the target's workgroup memory."""
    from xsplit.rewrites.reduce.lower_gridwise_gemm import a_tile_shape

    tgt = target(key[0])
    name, element = tgt.name, key[1]
    assert can_take(tiles, tgt, element) is None
    assert tiles.measured == NOT_MEASURED or tiles.measured.startswith("measured on")
    op = gridwise(512, 512, 4096, f"target={name} {tiles.options}", element)
    rows, cols = a_tile_shape(op)
    size = 2 if element == "f16" else 4
    # An entry that streams B stages A alone.
    b_tile = 0 if tiles.stream_b else tiles.tile[2] * tiles.tile[1]
    assert (op.stream_b is not None) == tiles.stream_b
    bytes_ = (rows * cols + b_tile) * size * tiles.stages
    assert bytes_ <= WORKGROUP_MEMORY[tgt.backend]


@pytest.mark.parametrize("name", sorted(TARGETS))
@pytest.mark.parametrize("element", ["f32", "f16", "bf16"])
def test_the_fused_kernel_has_an_entry_for_every_target(name: str, element: str) -> None:
    """The fused GEMM + reduction's FMA (or CPU) entry on every target, and
    its tensor-core entry wherever the target has an intrinsic for the
    element: as many threads as its warps' lanes, 16 a row of the tile, as
    the epilogue reduces rows (fused_gemm.layout)."""
    tgt = target(name)
    fma = gemm_tiles(tgt, element, 100, 100, 100, form=FUSED)
    if tgt.is_gpu:
        assert fma.threads[1] == 16 and fma.tile[2] > 0 and fma.warps is None
    else:
        assert fma.threads == (1, 1) and fma.tile[2] == 0
    intr = intrinsic_for(name, element)
    if intr is None:
        with pytest.raises(KeyError):
            gemm_tiles(tgt, element, 100, 100, 100, form=FUSED_MMA)
        return
    mma = gemm_tiles(tgt, element, 100, 100, 100, form=FUSED_MMA)
    assert mma.warps is not None and mma.threads[1] == 16
    assert mma.thread_count == mma.warps[0] * mma.warps[1] * intr.lanes


def test_candidates_the_kernel_cannot_take_are_named() -> None:
    sm80, gfx = target("sm_80"), target("gfx942")
    double = GemmTiles((64, 64, 16), (16, 16), 2)
    assert can_take(double, sm80, "f32") is None
    # gfx942 stages its second tile through registers; three stages need cp.async.
    assert can_take(double, gfx, "f32") is None
    assert "CUDA" in can_take(GemmTiles((64, 64, 16), (16, 16), 3), gfx, "f32")
    # Four halves a thread: an 8-byte share, below the 16-byte vectors f16 copies need.
    assert "cp.async" in can_take(double, sm80, "f16")
    assert all(can_take(c, sm80, "f32") is None for c in CANDIDATES)


def test_default_chunks_make_about_a_wave() -> None:
    h = target("sm_90")  # 132 SMs, 2 workgroups each
    small = GEMM_TILES[("sm_90", "f32", SMALL)]
    assert default_chunks(h, 32, 32, 500009, small) == 264
    assert default_chunks(h, 2048, 2048, 2048, GEMM_TILES[("sm_90", "f32", LARGE)]) == 1
    # Never a chunk of fewer than 8 K steps.
    assert default_chunks(h, 32, 32, 1024, small) == 1024 // (8 * 16)


@pytest.mark.gpu_compile
@pytest.mark.parametrize(ENTRY, DISTINCT)
def test_every_entry_compiles_without_spills(
    name: str, element: str, tile: tuple, threads: tuple, stages: int, warps, mma, tmp_path: Path
) -> None:
    """iree-compile's assembly of each entry has no spill: no `.local` on
    sm_80, no private segment on gfx942."""
    with collect_remarks():
        out = rewrite(
            matmul(_rows(tile), tile[1] - 8, 4 * tile[2], element),
            f"gemm-kernel{{{_options(name, tile, threads, stages, warps, mma)}}},{LOWER},"
            f"export-dispatch{{target={name}}}",
        )
    asm = "\n".join(dumped_assembly(out, name, tmp_path))
    assert asm and not re.search(SPILL[name], asm)


@pytest.mark.parametrize(ENTRY, DISTINCT)
def test_every_entry_runs_right(
    name: str, element: str, tile: tuple, threads: tuple, stages: int, warps, mma
) -> None:
    """In the simulator, race-free and right against numpy, on one tile's
    output less some rows and columns (masks) in two chunks of two steps,
    on its own target (gfx942's ragged loads and column runs are its own)."""
    options = _options(name, tile, threads, stages, warps, mma)
    check(_rows(tile), tile[1] - 8, 4 * tile[2], options, element=element, printed=False)


@pytest.mark.parametrize(
    ("tile", "threads", "stages"),
    sorted({(t, th, st) for e, t, th, st in FORMS if e == "f32"}),
)
def test_every_f32_entry_reads_and_writes_its_a_tile_without_bank_conflicts(
    tile: tuple, threads: tuple, stages: int
) -> None:
    """Per warp for the register reads, per quarter warp for the 128-bit
    stores of a one-stage copy (two stages copy with cp.async, no stores)."""
    options = _options("sm_80", tile, threads, stages).replace("chunks=2", "chunks=1")
    assert worst_conflict(options, 64, "memref.load") == 1
    if stages == 1:
        assert worst_conflict(options, 64, "vector.store", group=8) == 1


def _load_pick():
    path = ROOT / "bench" / "pick_gemm_tiles.py"
    spec = importlib.util.spec_from_file_location("pick_gemm_tiles", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_pick_writes_each_sweeps_fastest_right_candidate(tmp_path: Path) -> None:
    from xsplit.bench.device_timing import DeviceBenchReport, DeviceConfig, to_json

    fast, wrong, slow = CANDIDATES[6], CANDIDATES[7], CANDIDATES[0]
    configs = [
        DeviceConfig(slow.label, 1, None, [], "m/1", [3.0], 1e-7, True),
        DeviceConfig(fast.label, 1, None, [], "m/2", [1.0, 1.1, 1.2], 1e-7, True),
        DeviceConfig(wrong.label, 1, None, [], "m/3", [0.5], 0.3, False),
    ]
    report = DeviceBenchReport(
        "tiles f32 large 2048x2048x2048", "matmul", "cuda (NVIDIA H100)", "sm_80", 3, "numpy",
        configs, 2.0 * 2048**3,
        extra={"kind": "tiles", "element": "f32", "class": "large", "target": "sm_90",
               "shape": [2048, 2048, 2048],
               "candidates": {c.label: {"tile": list(c.tile), "threads": list(c.threads),
                                        "stages": c.stages} for c in (fast, wrong, slow)}},
    )
    pick = _load_pick()
    gpu_json = tmp_path / "gpu.json"
    gpu_json.write_text(to_json([report]))
    entries = pick.measured_entries(json.loads(gpu_json.read_text()), ["sm_80"])
    text = pick.rewrite_table((ROOT / "xsplit" / "targets" / "gemm_tiles.py").read_text(), entries)
    written = tmp_path / "gemm_tiles_written.py"
    written.write_text(text)
    spec = importlib.util.spec_from_file_location("gemm_tiles_written", written)
    table = importlib.util.module_from_spec(spec)
    sys.modules["gemm_tiles_written"] = table
    try:
        spec.loader.exec_module(table)  # type: ignore[union-attr]
    finally:
        del sys.modules["gemm_tiles_written"]
    for name in ("sm_90", "sm_80"):
        entry = table.GEMM_TILES[(name, "f32", LARGE)]
        assert (entry.tile, entry.threads, entry.stages) == (fast.tile, fast.threads, fast.stages)
        assert entry.measured.startswith("measured on cuda (NVIDIA H100): 1.1 ms")
    # The entries it measured nothing for are as they were.
    untouched = [key for key in GEMM_TILES if key[1:] != ("f32", LARGE)]
    fields = lambda e: (e.tile, e.threads, e.stages, e.measured, e.why)  # noqa: E731
    assert all(fields(table.GEMM_TILES[key]) == fields(GEMM_TILES[key]) for key in untouched)
    assert len(table.GEMM_TILES) == len(GEMM_TILES)


def test_pick_reads_and_rewrites_every_class_of_entry(tmp_path: Path) -> None:
    """The picker's key pattern finds every entry of the table, of every
    class; a rewrite with nothing measured leaves the source as it is, and
    one of another class than an output size's replaces that entry alone."""
    import xsplit.targets.gemm_tiles as table

    pick = _load_pick()
    text = (ROOT / "xsplit" / "targets" / "gemm_tiles.py").read_text()
    body = text.split(pick.BEGIN, 1)[1].split(pick.END, 1)[0]
    found = [pick.KEY.match(line) for line in body.splitlines()]
    keys = [(m["target"], m["element"], getattr(table, m["cls"])) for m in found if m]
    assert sorted(keys) == sorted(GEMM_TILES)
    assert pick.rewrite_table(text, {}) == text
    entry = '    ("cuda", "f16", RAGGED): GemmTiles((32, 32, 32), (8, 8), 2, "measured on x"),\n'
    written = tmp_path / "gemm_tiles_ragged.py"
    written.write_text(pick.rewrite_table(text, {("cuda", "f16", "RAGGED"): entry}))
    spec = importlib.util.spec_from_file_location("gemm_tiles_ragged", written)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gemm_tiles_ragged"] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    finally:
        del sys.modules["gemm_tiles_ragged"]
    changed = {k for k in GEMM_TILES if module.GEMM_TILES[k].tile != GEMM_TILES[k].tile}
    assert changed == {("cuda", "f16", table.RAGGED)} and len(module.GEMM_TILES) == len(GEMM_TILES)
