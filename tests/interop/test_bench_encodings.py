"""`xsplit bench`'s new configurations: auto{target=cpu}, the sweep with
encodings and numpy, each checked against IREE default before it is timed;
and `--calibrate` writing the per-user cache that target=cpu reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xsplit.bench import driver as bench

SHAPE = """
func.func @mm(%a: tensor<48x3001xf32>, %b: tensor<3001x40xf32>, %c: tensor<48x40xf32>) -> tensor<48x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<48x3001xf32>, tensor<3001x40xf32>) outs(%c : tensor<48x40xf32>) -> tensor<48x40xf32>
  return %r : tensor<48x40xf32>
}
"""


def test_bench_times_auto_the_encoded_sweep_and_numpy(tmp_path: Path) -> None:
    report = bench.run_bench(SHAPE, "shape.mlir", sweep=[1, 3], runs=2, gpu_targets=())
    names = {c.name for c in report.configs}
    assert {bench.AUTO_CONFIG, "xsplit-enc-x1", "xsplit-enc-x3", bench.NUMPY_CONFIG} <= names
    for c in report.configs:
        assert c.error is None, (c.name, c.error)
        assert c.max_rel_error is not None and c.max_rel_error < 1e-3, c.name
        assert len(c.times_ms) == 2, c.name
    # The sweep's one chunk is the source itself, IREE default's program: one
    # binary, timed once, one number for both.
    whole = report.config("xsplit-x1")
    assert whole.same_as == "iree-default"
    assert whole.times_ms == report.config("iree-default").times_ms
    assert all(report.config(c.same_as).same_as is None for c in report.configs if c.same_as)
    assert "(the binary of iree-default)" in bench.format_table(report)
    assert report.flops == 2.0 * 48 * 3001 * 40
    assert report.peak_gflops and report.peak_gflops > 0
    assert report.auto_choice in ("whole", "encode") or report.auto_choice.split()[0] in (
        "split",
        "split+encode",
    )
    summary = report.to_json()["summary"]
    assert summary["auto_over_best_iree"] > 0
    assert summary["best_sweep_config"] in names
    table = bench.format_table(report)
    assert "xsplit auto over IREE's best" in table and "of the CPU's peak" in table
    out = tmp_path / "p.png"
    bench.plot(report, str(out))
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_calibrate_writes_the_cache_target_cpu_reads(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    code = (
        "from xsplit.bench import driver as bench; from xsplit.targets.table import target; "
        "before = target('cpu').memory_bandwidth; "
        "f, b, p = bench.calibrate(0.2); print(f, b, p); "
        # The calibrating process models with the new rates from then on.
        "print(target('cpu').cpu.bandwidth == b, "
        "target('cpu').memory_bandwidth == target('cpu').cpu.read_bandwidth > 0, "
        "'calibrated' in target('cpu').description)"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    assert second.split() == ["True", "True", "True"]
    flops, bandwidth, path = first.split()
    assert float(flops) > 1e8 and float(bandwidth) > 1e8
    data = json.loads(Path(path).read_text())
    (entry,) = data.values()
    assert entry["flops_per_core"] == float(flops)
    # A fresh process reading the host CPU picks the rates up.
    check = (
        "from xsplit.targets.cpu_info import host_cpu; c = host_cpu(); "
        "print(c.flops_per_core, c.bandwidth, c.source)"
    )
    proc = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True)
    got_flops, got_bandwidth, *_ = proc.stdout.split()
    assert float(got_flops) == float(flops) and float(got_bandwidth) == float(bandwidth)
    assert "calibrated" in proc.stdout


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="niceness is a POSIX notion")
def test_timed_calls_run_at_low_priority_and_leave_the_caller_as_it_was() -> None:
    """The timed calls come from a thread at CALLER_NICENESS, so that the
    caller never holds a core a pinned IREE worker needs; the thread that
    asked for the timings keeps its own niceness."""
    before = os.getpriority(os.PRIO_PROCESS, 0)
    seen: list[int] = []
    result = bench.ConfigResult("probe", None, [])
    bench.time_rounds(
        [(result, lambda: seen.append(os.getpriority(os.PRIO_PROCESS, 0)))],
        runs=2, seed=0, progress=lambda step: None,
    )
    assert len(result.times_ms) == 2 and len(seen) == 2
    assert set(seen) == {bench.CALLER_NICENESS}
    assert os.getpriority(os.PRIO_PROCESS, 0) == before


def test_a_failing_timed_call_raises_where_the_timings_were_asked() -> None:
    def broken() -> None:
        raise RuntimeError("the runtime failed")

    with pytest.raises(RuntimeError, match="the runtime failed"):
        bench.time_rounds(
            [(bench.ConfigResult("broken", None, []), broken)],
            runs=1, seed=0, progress=lambda step: None,
        )


def test_the_peak_is_measured_once_per_compile_cache(tmp_path, monkeypatch) -> None:
    # The probe spins the CPU for seconds: the bench commands of a test run
    # share one measurement through the run's compile cache.
    from xsplit.bench import machine
    from xsplit.iree.iree_compile import COMPILE_CACHE_VARIABLE

    monkeypatch.setenv(COMPILE_CACHE_VARIABLE, str(tmp_path))
    measured: list[int] = []

    class Peak:
        flops = 123e9

    monkeypatch.setattr(machine, "measure_peak", lambda: measured.append(1) or Peak())
    bench.peak_gflops.cache_clear()
    try:
        assert bench.peak_gflops() == 123.0
        bench.peak_gflops.cache_clear()  # another process of the same run
        assert bench.peak_gflops() == 123.0
    finally:
        bench.peak_gflops.cache_clear()
    assert measured == [1]
    assert float((tmp_path / "peak-gflops").read_text()) == 123.0
