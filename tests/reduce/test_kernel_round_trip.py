"""The GEMM kernels the simulator tests run are the modules the passes left
(tests/helpers/kept.py), not their printed text parsed back. Here each form
of kernel the lowerings write is printed, parsed and printed again: the text
reads back, verifies, and prints the same, so the printed kernel is the IR
the other tests simulate."""

from __future__ import annotations

import pytest

from tests.helpers.fused_gemm import lower_fused
from tests.helpers.gemm_kernel import LOWER, matmul
from tests.helpers.kept import reads_back
from tests.reduce.cases import GemmCase
from xsplit.api import rewrite
from xsplit.diagnostics import collect_remarks

SMALL = "tile=16,16,8 threads=4,4"
MMA = "tile=32,32,16 warps=1,2"
MFMA = "tile=32,32,16 warps=2,1"

GEMM_KERNELS = [
    # FMA register tiles; an atomic and a deterministic merge.
    ("sm_80-f32-atomic", 37, 21, 101, "f32", f"target=sm_80 chunks=4 merge=atomic {SMALL}"),
    ("sm_80-f32-cp-async", 37, 20, 101, "f32", f"target=sm_80 chunks=3 merge=deterministic stages=2 {SMALL}"),
    ("gfx942-f32-prefetch", 37, 20, 101, "f32", f"target=gfx942 chunks=3 stages=2 {SMALL}"),
    ("gfx942-f32-lds", 37, 20, 101, "f32", "target=gfx942 chunks=3 stages=2 prefetch=lds tile=16,16,8 threads=8,8"),
    # Fewer than 8 rows: B streamed into registers (split-k's own kernel takes it there).
    ("sm_80-f32-stream-b", 3, 45, 77, "f32", "target=sm_80 chunks=3 merge=atomic stream_b=on tile=4,32,8 threads=1,8"),
    # Tensor cores, MFMA, and the host program of pad_rows kernels and the GEMM.
    ("sm_80-f16-mma", 37, 24, 200, "f16", f"target=sm_80 chunks=3 merge=atomic stages=2 {MMA}"),
    ("sm_80-bf16-padded", 37, 19, 96, "bf16", f"target=sm_80 chunks=1 merge=store {MMA}"),
    ("gfx942-f16-mfma", 37, 24, 203, "f16", f"target=gfx942 chunks=3 stages=2 {MFMA}"),
    ("gfx942-f16-mfma-lds", 37, 24, 100, "f16", f"target=gfx942 chunks=3 stages=2 prefetch=lds {MFMA}"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("m", "n", "k", "element", "options"),
    [case[1:] for case in GEMM_KERNELS],
    ids=[case[0] for case in GEMM_KERNELS],
)
def test_gemm_kernel_reads_back(m: int, n: int, k: int, element: str, options: str) -> None:
    with collect_remarks():
        text = rewrite(matmul(m, n, k, element), f"gemm-kernel{{{options}}},{LOWER}")
    reads_back(text)


@pytest.mark.parametrize(
    ("stage", "target", "element"),
    [
        ("atomic", "sm_80", "f32"), ("lds", "gfx942", "f32"), ("subgroup", "sm_80", "f32"),
        ("deterministic", "gfx942", "f32"), ("atomic", "sm_80", "f16"), ("subgroup", "gfx942", "f16"),
    ],
)  # fmt: skip
def test_fused_kernel_reads_back(stage: str, target: str, element: str) -> None:
    """The fused GEMM + reduction (lower-reduce's staged kernel and its epilogue)."""
    deterministic = stage == "deterministic"
    case = GemmCase("sum", "rows", m=70, n=75, k=37, returned=True, rock=True, element=element)
    stage = "atomic" if deterministic else stage
    options = f"stage={stage} target={target} deterministic={str(deterministic).lower()}"
    reads_back(lower_fused(case, f"lower-reduce{{{options}}}"))


@pytest.mark.parametrize(
    ("target", "element", "merge"),
    [("sm_80", "f32", "atomic"), ("sm_80", "f16", "deterministic"), ("gfx942", "f16", "atomic")],
)
def test_split_k_own_kernel_reads_back(target: str, element: str, merge: str) -> None:
    """split-k's own kernel: the host program and the kernels it launches."""
    with collect_remarks():
        text = rewrite(
            matmul(37, 45, 101, element), f"split-k{{target={target} kernel=own factor=3 merge={merge}}}"
        )
    assert "xsplit_gemm." not in text
    reads_back(text)
