"""The read pass xsplit bench times beside products of few rows, and the
report's figures built on it: the largest operand's rate, its share of the
pass's, and the roofline."""

from __future__ import annotations

import numpy as np
import pytest

from xsplit.bench.driver import (
    AUTO_CONFIG,
    IREE_CONFIGS,
    MODEL_CONFIG,
    READ_PASS_CONFIG,
    BenchReport,
    ConfigResult,
    _streams,
)
from xsplit.bench.machine import ReadPass, read_bandwidth


def test_the_read_pass_reads_its_bytes_in_a_positive_time() -> None:
    probe = ReadPass.build(8 * 1024 * 1024)
    if probe is None:
        pytest.skip("no C compiler: the read pass is left out of the bench")
    assert probe.nbytes == 8 * 1024 * 1024
    seconds = [probe() for _ in range(3)]
    # Eight MiB cannot be read in under a microsecond, nor take a second.
    assert all(1e-6 < s < 1.0 for s in seconds)


def test_the_machine_read_bandwidth_is_the_better_of_its_two_measures() -> None:
    measured = read_bandwidth(mib=16, repeats=2)
    assert measured.best == max(measured.numpy_matvec, measured.all_cores or 0.0)
    assert 1e8 < measured.best < 1e13
    assert f"{measured.best / 1e9:.1f}" in measured.describe()


def _report(times: dict[str, list[float]], streamed: int | None, flops: float) -> BenchReport:
    configs = [ConfigResult(name, None, [], [30.0]) for name, _ in IREE_CONFIGS]
    configs.append(ConfigResult(MODEL_CONFIG, 1, [], [30.0]))
    configs += [ConfigResult(name, None, [], t) for name, t in times.items()]
    return BenchReport(
        "x.mlir", "f", 2, 3, "cpu", 1, [], configs, [], flops=flops, peak_gflops=500.0,
        streamed_bytes=streamed,
    )


def test_shares_and_roofline_follow_the_medians() -> None:
    nbytes = 240_000_000
    report = _report({AUTO_CONFIG: [6.0, 5.0, 7.0], READ_PASS_CONFIG: [5.0, 4.0, 4.5]}, nbytes, 1e8)
    assert report.read_rate(AUTO_CONFIG) == pytest.approx(nbytes / 6e-3)
    # Round by round: 5/6, 4/5, 4.5/7; the median is 0.8.
    assert report.read_share(AUTO_CONFIG) == pytest.approx(0.8)
    # 240 MB at the pass's median (4.5 ms) takes longer than 0.1 GFLOP at the peak.
    assert report.roofline_ms() == pytest.approx(4.5)
    compute_bound = _report({AUTO_CONFIG: [6.0], READ_PASS_CONFIG: [1.0]}, nbytes, 1e10)
    assert compute_bound.roofline_ms() == pytest.approx(20.0)
    unstreamed = _report({AUTO_CONFIG: [6.0]}, None, 1e10)
    assert unstreamed.read_share(AUTO_CONFIG) is None
    assert unstreamed.roofline_ms() == pytest.approx(20.0)
    again = BenchReport.from_json(report.to_json())
    assert again.streamed_bytes == nbytes
    assert report.to_json()["summary"]["auto_read_share"] == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("shapes", "streams"),
    [
        (((1, 4096), (4096, 512)), True),
        (((16, 4096), (4096, 512)), True),
        (((17, 4096), (4096, 512)), False),
        (((16, 4096), (512, 4096)), True),  # B transposed (N x K)
        (((4096,), (4096, 512)), True),  # a vecmat
        (((512, 4096), (4096,)), True),  # a matvec
    ],
)
def test_products_of_few_rows_get_a_read_pass(shapes: tuple, streams: bool) -> None:
    inputs = [np.zeros(s, np.float32) for s in shapes]
    assert _streams(inputs) is streams
