"""The target table: every entry's flags compile a small matmul, and the
entries hold what the cost model reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from xsplit.diagnostics import XsplitError
from xsplit.iree.iree_compile import compile_mlir
from xsplit.targets.table import COMPILED_GPU_TARGETS, GPU_TARGETS, TARGETS, host_threads, target

SMALL = (Path(__file__).parents[2] / "examples" / "small_matmul.mlir").read_text()


def test_table_lists_the_issue_targets() -> None:
    assert list(TARGETS) == ["cpu", "sm_80", "sm_90", "gfx942"]
    assert GPU_TARGETS == ("sm_80", "sm_90", "gfx942")
    assert COMPILED_GPU_TARGETS == ("sm_80", "gfx942")
    assert [TARGETS[n].processors for n in GPU_TARGETS] == [108, 132, 304]
    assert TARGETS["cpu"].processors == host_threads() >= 1
    for t in TARGETS.values():
        assert t.tile[0] > 0 and t.tile[1] > 0
        assert t.memory_bandwidth > 0
        assert {"f32", "f16", "i8"} <= set(t.peak_flops)


def test_sm_90_compiles_through_sm_80() -> None:
    assert TARGETS["sm_90"].flags == TARGETS["sm_80"].flags
    assert "--iree-cuda-target=sm_80" in TARGETS["sm_90"].flags


def test_aliases_and_unknown_names() -> None:
    assert target("cuda") is TARGETS["sm_80"]
    assert target("rocm") is TARGETS["gfx942"]
    with pytest.raises(XsplitError, match="unknown target 'tpu'"):
        target("tpu")


def test_cpu_flags_compile_a_small_matmul() -> None:
    assert compile_mlir(SMALL, "cpu")


@pytest.mark.gpu_compile
@pytest.mark.parametrize("name", GPU_TARGETS)
def test_gpu_flags_compile_a_small_matmul(name: str) -> None:
    assert compile_mlir(SMALL, name)
