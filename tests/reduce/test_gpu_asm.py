"""Through export-dispatch every stage compiles with iree-compile for sm_80
and gfx942 (not run: no GPU here), and the assembly holds what the stage
promises: global atomics; barriers and shared-memory accesses; warp shuffles
(shfl.sync) or DPP; no atomics at all in the deterministic form."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.gpu_asm import ANY_ATOMIC, ATOMIC, BARRIER, EXCHANGE, SHARED, assembly
from tests.reduce.cases import fused, standalone
from xsplit.api import rewrite

pytestmark = pytest.mark.gpu_compile

SYSTEM_OR_CAS = {
    "sm_80": r"\b(atom|red|fence|membar)\.[\w.]*\bsys\b",
    "gfx942": r"global_atomic_cmpswap",
}


def lowered(case, pipeline: str, t: str) -> str:
    return rewrite(case.program(), f"{pipeline},export-dispatch{{target={t}}}")


@pytest.mark.parametrize("t", ["sm_80", "gfx942"])
@pytest.mark.parametrize("kind", ["standalone", "fused"])
def test_atomic_stage(t: str, kind: str, tmp_path: Path) -> None:
    case = standalone("sum") if kind == "standalone" else fused("max")
    pre = "fuse-reduction," if kind == "fused" else ""
    asm = assembly(lowered(case, f"{pre}lower-reduce{{stage=atomic target={t}}}", t), t, tmp_path)
    assert re.search(ATOMIC[t], asm)
    if kind == "standalone":
        assert not re.search(BARRIER[t], asm)
        # The sum's adds are relaxed and device-scope: no system-scope
        # atomic (IREE's form of memref.atomic_rmw) and no CAS loop.
        assert not re.search(SYSTEM_OR_CAS[t], asm)
    else:
        # The tiled GEMM stages A and B through shared memory, between barriers.
        assert re.search(BARRIER[t], asm) and re.search(SHARED[t], asm)


@pytest.mark.parametrize("t", ["sm_80", "gfx942"])
@pytest.mark.parametrize("kind", ["standalone", "fused"])
def test_lds_stage(t: str, kind: str, tmp_path: Path) -> None:
    case = standalone("max") if kind == "standalone" else fused("sum")
    pre = "fuse-reduction," if kind == "fused" else ""
    asm = assembly(lowered(case, f"{pre}lower-reduce{{stage=lds target={t}}}", t), t, tmp_path)
    assert re.search(ATOMIC[t], asm)
    # Standalone, a tree over 256 threads: a barrier per level. Fused, the
    # tiled GEMM's staged K loop (two) and the rows' partials (one).
    assert len(re.findall(BARRIER[t], asm)) >= (7 if kind == "standalone" else 3)
    assert re.search(SHARED[t], asm)


@pytest.mark.parametrize("t", ["sm_80", "gfx942"])
@pytest.mark.parametrize("kind", ["standalone", "fused"])
def test_subgroup_stage(t: str, kind: str, tmp_path: Path) -> None:
    case = standalone("sum") if kind == "standalone" else fused("max")
    pre = "fuse-reduction," if kind == "fused" else ""
    asm = assembly(lowered(case, f"{pre}lower-reduce{{stage=subgroup target={t}}}", t), t, tmp_path)
    assert re.search(EXCHANGE[t], asm)
    assert re.search(ATOMIC[t], asm)
    # 256 threads are several subgroups: their partials meet in shared memory.
    assert re.search(BARRIER[t], asm) and re.search(SHARED[t], asm)


@pytest.mark.parametrize("t", ["sm_80", "gfx942"])
@pytest.mark.parametrize("stage", ["atomic", "lds", "subgroup"])
@pytest.mark.parametrize("kind", ["standalone", "fused"])
def test_deterministic_has_no_atomics(t: str, stage: str, kind: str, tmp_path: Path) -> None:
    case = standalone("sum") if kind == "standalone" else fused("max")
    pre = "fuse-reduction," if kind == "fused" else ""
    asm = assembly(
        lowered(case, f"{pre}lower-reduce{{stage={stage} target={t} deterministic=true}}", t),
        t,
        tmp_path,
    )
    assert not re.search(ANY_ATOMIC[t], asm)
    if stage == "subgroup":
        assert re.search(EXCHANGE[t], asm)
    if stage != "atomic":
        assert re.search(BARRIER[t], asm)
