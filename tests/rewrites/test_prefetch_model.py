"""The CPU model's choice of `stream-prefetch`'s dispatch: only where its
measured time over split-k's tiles is under the margin, by rows of A."""

from __future__ import annotations

import pytest

import xsplit.analysis.cost_model.cpu as cpu
from xsplit.analysis.cost_model.base import matmul_problem
from xsplit.targets.table import target


@pytest.mark.parametrize("rows", [1, 2, 3, 4])
def test_parity_or_worse_keeps_split_k(rows: int) -> None:
    pays, why = cpu.prefetch_stream_pays(matmul_problem(rows, 4096, 14336), target("cpu"))
    assert not pays
    measured = 4 if rows == 3 else rows
    assert f"{cpu.PREFETCH_STREAM_TIME_RATIO[measured]:.2f}x" in why


@pytest.mark.parametrize("rows,taken", [(5, False), (8, False), (9, True), (12, True), (13, False), (16, False)])
def test_five_to_sixteen_rows_by_what_was_measured(rows: int, taken: bool) -> None:
    # 9 to 12 rows ran in 0.71-0.74 of split-k's CPU time; 5 to 8 and 13 to
    # 16 at parity (bench/RESULTS-matvec.md).
    pays, why = cpu.prefetch_stream_pays(matmul_problem(rows, 4096, 8192), target("cpu"))
    assert pays == taken
    measured = min(r for r in cpu.PREFETCH_STREAM_TIME_RATIO if r >= rows)
    assert f"{cpu.PREFETCH_STREAM_TIME_RATIO[measured]:.2f}x" in why and f"({measured} rows" in why
    assert ("not under" in why) != taken


def test_over_sixteen_rows_nothing_was_measured() -> None:
    pays, why = cpu.prefetch_stream_pays(matmul_problem(17, 4096, 8192), target("cpu"))
    assert not pays and why == "no time measured for 17 rows"


def test_a_measured_gain_past_the_margin_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "PREFETCH_STREAM_TIME_RATIO", {1: 1.2, 4: 0.9})
    cpu_target = target("cpu")
    assert cpu.prefetch_stream_pays(matmul_problem(3, 4096, 14336), cpu_target)[0]
    assert not cpu.prefetch_stream_pays(matmul_problem(1, 4096, 14336), cpu_target)[0]
    assert not cpu.prefetch_stream_pays(matmul_problem(4, 4096, 14336), target("sm_80"))[0]


def test_auto_emits_the_dispatch_where_the_model_takes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from xsplit.api import rewrite

    text = """
func.func @main(%a: tensor<4x4096xf32>, %b: tensor<4096x1024xf32>, %c: tensor<4x1024xf32>) -> tensor<4x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x4096xf32>, tensor<4096x1024xf32>) outs(%c : tensor<4x1024xf32>) -> tensor<4x1024xf32>
  return %0 : tensor<4x1024xf32>
}"""
    assert "memref.prefetch" not in rewrite(text, "auto{target=cpu}")
    monkeypatch.setattr(cpu, "PREFETCH_STREAM_TIME_RATIO", {4: 0.9})
    out = rewrite(text, "auto{target=cpu}")
    assert "memref.prefetch" in out and "flow.dispatch @main_stream_dispatch::@main_stream" in out
