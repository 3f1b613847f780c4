"""The GPU benchmark's tables (bench/gpu.py, `gpu_markdown`), from made-up
device reports: the own kernel's program joins its shape's row, the ratios
to cuBLAS and the peak are its best right configuration's, wrong ones are
named and left out; the tile sweep marks its best; the fused GEMM + row sum
is held to torch."""

from __future__ import annotations

from xsplit.bench.device_timing import (
    DeviceBenchReport,
    DeviceConfig,
    gpu_markdown,
    markdown,
)


def config(name: str, ms: float, factor: int | None = None, passed: bool = True) -> DeviceConfig:
    return DeviceConfig(name, factor, None, [], f"m/{name}", [ms, ms, ms], 1e-7 if passed else 0.3,
                        passed)


def report(name: str, configs: list[DeviceConfig], flops: float, **extra) -> DeviceBenchReport:
    return DeviceBenchReport(name, "matmul", "cuda (NVIDIA H100)", "sm_80", 3, "numpy", configs,
                             flops, "", extra)


def test_the_own_kernel_joins_its_shape_and_is_held_to_cublas() -> None:
    flops = 2.0 * 64 * 96 * 200003
    peak = 67e12
    gemm = report("64x96x200003 f32", [
        config("iree-default", 90.0), config("iree-split-reduction", 91.0),
        config("xsplit-auto", 0.6, 259), config("xsplit-x128", 0.4, 128),
        config("cublas", 0.1),
    ], flops, kind="matmul", group="64x96x200003 f32", element="f32", skinny=True, peak_flops=peak)
    own = report("64x96x200003 f32 own", [
        config("own-atomic", 0.2, 132), config("own-deterministic", 0.25, 132),
        config("own-atomic-fewer", 0.05, 33, passed=False), config("own-atomic-more", 0.15, 528),
    ], flops, kind="own", group="64x96x200003 f32", element="f32", tiles="64x64x16 t16x16 s1",
        peak_flops=peak)
    text = markdown([gemm, own], "Timed on an H100")
    row = next(line for line in text.splitlines() if line.startswith("| 64x96x200003 f32 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[5] == "0.200 (64x64x16 t16x16 s1, 132)"
    # The wrong configuration is faster, and left out: the best is 4x the chunks.
    assert cells[7] == "0.150 (528)" and cells[8] == "0.100"
    assert cells[9] == "6.00x" and cells[10] == "1.50x"
    rate = flops / 0.15e-3
    assert cells[11] == f"{rate / 1e12:.1f} ({100 * rate / peak:.0f}%)"
    assert cells[13] == "own-atomic-fewer"
    assert "- f32 skinny, time over cuBLAS, geomean: auto 6.00x (worst 6.00x, 1 shapes); " \
        "own 1.50x (worst 1.50x, 1 shapes)" in text


def test_the_tile_sweep_marks_its_best_and_the_fused_row_is_held_to_torch() -> None:
    tiles = report("tiles f16 large 2048x2048x2048", [
        config("64x64x16 t16x16 s1", 2.0, 1), config("128x128x16 t16x16 s2", 1.0, 1),
        config("128x128x8 t16x16 s2", 0.5, 1, passed=False),
    ], 2.0 * 2048**3, kind="tiles", element="f16", left_out={"64x64x16 t16x16 s2": "cp.async"},
        **{"class": "large"})
    fused = report("4096x4096x1024 f32 rowsum", [
        config("iree-default", 9.0), config("fused-atomic", 2.4), config("fused-deterministic", 2.3),
        config("cublas", 0.73),
    ], 2.0 * 4096 * 4096 * 1024, kind="fused", element="f32")
    text = gpu_markdown([tiles, fused])
    lines = text.splitlines()
    assert next(x for x in lines if x.startswith("| 128x128x16 ")).endswith("| **best** |")
    assert next(x for x in lines if x.startswith("| 128x128x8 ")).endswith("| WRONG |")
    assert "| 64x64x16 t16x16 s2 | | | | | left out: cp.async |" in lines
    row = next(x for x in lines if x.startswith("| 4096x4096x1024 f32 rowsum |"))
    assert row == "| 4096x4096x1024 f32 rowsum | 9.00 | 2.40 | 2.30 | 0.730 | 3.15x | 12.33x | none |"
