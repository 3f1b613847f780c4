"""The fused GEMM + reduction on tensor cores (fused_gemm.py with `mma`):
f16 A and B on sm_80 (`nvgpu.mma.sync` m16n8k16, `nvgpu.ldmatrix`) and
gfx942 (`amdgpu.mfma` 16x16x16). The warps' C fragments go to a
workgroup-memory C tile, and after a barrier each thread reads back the FMA
epilogue's register tile, whose stages then run unchanged.

For every stage (atomic, lds, subgroup, deterministic) x sum/max x
rows/columns on both targets, on a shape that is no multiple of the tile
or the K step, the simulator runs it race-free and right against numpy
(verify-sync proves its barriers) in one thread order, the deterministic
form free of atomics (so bitwise equal in every order); the C tile's barrier is needed; the C tile's
stores and reads have the bank conflicts `c_tile_pad` promises; the
assembly shows the intrinsic and each stage's atomics or exchange."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.fused_gemm import SUBGROUP, lower_fused, simulate_fused
from tests.helpers.kept import barriers_taken_out, parsed
from tests.reduce.cases import GemmCase
from xsplit.api import rewrite, rewrite_module
from xsplit.diagnostics import collect_remarks
from xsplit.simulator.machine import Launch, Machine, lockstep
from xsplit.simulator.run import launch_sizes, pick_function, simulate

SHAPE = {"m": 70, "n": 75, "k": 37}
"""2x2 workgroups of 64x64, ragged in M and N; K is one step of 32 and a short one."""

MMA = {"sm_80": "nvgpu.mma.sync", "gfx942": "amdgpu.mfma"}
EPILOGUE_REGS = {"sm_80": "8x4", "gfx942": "4x4"}
"""The epilogue's register tile: 128 threads (four warps) in rows of 16 on
sm_80, 256 (four wavefronts) on gfx942."""


def _cases():
    out = []
    for stage in ("atomic", "lds", "subgroup", "deterministic"):
        for method in ("sum", "max"):
            for along in ("rows", "columns"):
                for target in ("sm_80", "gfx942"):
                    name = f"{stage}-{method}-{along}-{target}"
                    out.append(pytest.param(stage, method, along, target, id=name))
    return out


def _case(method: str, along: str, i: int, **shape) -> GemmCase:
    return GemmCase(
        method, along, **(shape or SHAPE), returned=i % 3 != 0, fill=(-0.375, 0.0, 1.25)[i % 3],
        rock=i % 4 >= 2, element="f16",
    )  # fmt: skip


def _options(stage: str, target: str, i: int) -> str:
    if stage != "deterministic":
        return f"stage={stage} target={target}"
    # The deterministic form over each exchange in turn.
    return f"stage={('atomic', 'lds', 'subgroup')[i % 3]} target={target} deterministic=true"


@pytest.mark.parametrize("stage,method,along,target", _cases())
def test_simulated(stage: str, method: str, along: str, target: str) -> None:
    i = ["atomic", "lds", "subgroup", "deterministic"].index(stage) * 4 + (method == "max") * 2 + (
        along == "columns"
    )
    case = _case(method, along, i)
    pipeline = f"lower-reduce{{{_options(stage, target, i)}}}"
    # verify-sync proves the barriers of every stage's epilogue on gfx942 and
    # of the ldmatrix K loop once on sm_80 (its reads are 8 accesses a lane,
    # slow to pair); the simulator checks every case for races.
    if target == "gfx942" or (stage, method) == ("atomic", "sum"):
        out = lower_fused(case, pipeline)
    else:
        with collect_remarks():
            out = rewrite(case.program(), f"fuse-reduction,{pipeline}")
    assert "xsplit_gemm." not in out
    assert MMA[target] in out and "arith.mulf" not in out  # no FMA in the K loop
    assert "%c_tile = memref.alloc() : memref<64x68xf32, #gpu.address_space<workgroup>>" in out
    regs = EPILOGUE_REGS[target]
    assert f"%regs = memref.alloca() : memref<{regs}xf32, #gpu.address_space<private>>" in out
    assert ("atomic_rmw" in out) == (stage != "deterministic")
    simulate_fused(out, case, SUBGROUP[target], seed=i)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generated_shapes(seed: int) -> None:
    """Random shapes (one to three tiles a side, any K), stage, combiner, axis and target."""
    rng = np.random.default_rng(seed + 10)
    m, n = (int(x) for x in rng.integers(1, 150, 2))
    k = int(rng.integers(1, 80))
    stage = ("atomic", "lds", "subgroup")[seed % 3]
    method = ("sum", "max")[int(rng.integers(2))]
    along = ("rows", "columns")[int(rng.integers(2))]
    target = ("sm_80", "gfx942")[int(rng.integers(2))]
    det = str(bool(rng.integers(2))).lower()
    case = _case(method, along, seed, m=m, n=n, k=k)
    out = lower_fused(case, f"lower-reduce{{stage={stage} target={target} deterministic={det}}}")
    assert MMA[target] in out
    simulate_fused(out, case, SUBGROUP[target], seed=seed + 3)


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_each_barrier_is_needed(target: str) -> None:
    """Take out any barrier and verify-sync rejects the kernel: the K loop's
    two (the copies against the fragment reads, `nvgpu.ldmatrix` on sm_80,
    within a step and across steps) and the one between the fragments'
    stores into the C tile and the threads' reads of their register tiles,
    whose race the simulator sees too (the warps' fragments are not the
    threads' registers)."""
    from xsplit.diagnostics import XsplitError

    case = _case("sum", "rows", 1)
    out = lower_fused(case, f"lower-reduce{{stage=atomic target={target}}}")
    # two in the K loop, one after the C tile's stores
    assert sum(line.strip() == "gpu.barrier" for line in out.splitlines()) == 3
    broken_kernels = barriers_taken_out(parsed(out, "out.mlir"))
    assert len(broken_kernels) == 3
    for module in broken_kernels:
        with pytest.raises(XsplitError, match="unsynchronized"):
            rewrite_module(module, "verify-sync")
    module = broken_kernels[-1]
    inputs = case.inputs(2)
    report = simulate(
        pick_function(module, None), reference=case.final_arguments(inputs), inputs=inputs,
        subgroup_size=SUBGROUP[target], orders=["lockstep"],
    )  # fmt: skip
    assert report.races


def test_fma_tiles_without_tensor_cores() -> None:
    """`mma=none` keeps the FMA register tiles in f16 (extended per read),
    and f32 operands never take tensor cores."""
    case = _case("max", "columns", 1)
    out = lower_fused(case, "lower-reduce{stage=lds target=sm_80 mma=none}")
    assert "nvgpu.mma.sync" not in out and "c_tile" not in out and "arith.extf" in out
    f32 = GemmCase("sum", "rows", **SHAPE)
    assert "amdgpu.mfma" not in lower_fused(f32, "lower-reduce{stage=lds target=gfx942}")


def test_remark_says_tensor_cores() -> None:
    case = _case("sum", "rows", 1, m=70, n=200, k=90)
    with collect_remarks() as said:
        rewrite(case.program(), "fuse-reduction,lower-reduce{stage=subgroup target=sm_80}")
    text = "\n".join(said)
    assert "64x64 C tiles, one per workgroup of 128 threads holding 8x4 each" in text
    assert "32 K elements at a time" in text
    assert "multiplied on tensor cores (nvgpu.mma.sync m16n8k16, 2x2 warps of 32 lanes)" in text
    assert "grid 4x2x1" in text


class _CTileConflicts(Machine):
    """The worst bank conflict of the C tile's stores and loads, per 32
    lanes (a warp, or half a wavefront) of one access: the most distinct
    4-byte words one of the 32 banks gets. Lockstep order."""

    def __init__(self, launch: Launch) -> None:
        super().__init__(launch, lockstep, log=False)
        self.worst = {"memref.store": 0, "memref.load": 0}
        self._wrapped: dict[int, object] = {}

    def fn(self, op):
        f = super().fn(op)
        at = 1 if op.name == "memref.store" else 0
        if op.name not in self.worst or op.operands[at].name_hint != "c_tile":
            return f
        if id(op) not in self._wrapped:
            row_length = op.operands[at].type.get_shape()[1]

            def wrapped(fr, chunked, f=f, op=op, at=at) -> None:
                r, c = (
                    np.broadcast_to(self.arr(fr, self.slots[v]), (fr.n,))
                    for v in op.operands[at + 1 :]
                )
                words = r * row_length + c
                group = fr.lanes // 32
                for g in np.unique(group):
                    mine = np.unique(words[group == g])
                    worst = int(np.bincount(mine % 32).max())
                    self.worst[op.name] = max(self.worst[op.name], worst)
                f(fr, chunked)

            self._wrapped[id(op)] = wrapped
        return self._wrapped[id(op)]


@pytest.mark.parametrize("target,stores", [("sm_80", 2), ("gfx942", 1)])
def test_c_tile_bank_conflicts(target: str, stores: int) -> None:
    """The C tile's rows are padded by 4 words (`c_tile_pad`): the threads'
    reads of 16 consecutive words, two rows a warp, are 2-way (rows 68
    words apart), the fragment stores 2-way on sm_80 (its C fragment puts
    8 rows x 4 even columns in a warp: at best 16 banks), conflict-free
    on gfx942; unpadded (64) the sm_80 stores would be 8-way."""
    from xsplit.dialects.fragments import INTRINSICS
    from xsplit.rewrites.reduce.lower_gridwise_gemm import c_tile_pad, fragment_conflict

    case = _case("sum", "rows", 1, m=64, n=64, k=32)
    out = lower_fused(case, f"lower-reduce{{stage=atomic target={target}}}")
    fn = pick_function(parsed(out, "out.mlir"), None)
    grid, block = launch_sizes(fn, None, None)
    machine = _CTileConflicts(Launch(grid, block, SUBGROUP[target]))
    machine.run(fn, case.inputs(0))
    assert machine.worst == {"memref.store": stores, "memref.load": 2}
    intr = INTRINSICS["m16n8k16" if target == "sm_80" else "mfma_f32_16x16x16"]
    assert c_tile_pad(intr.c, intr.lanes, 16, 64) == 4
    assert fragment_conflict(intr.c, intr.lanes, 64, 4) == (8 if target == "sm_80" else 2)


# sm_80 and gfx942 assembly ---------------------------------------------------

INTRINSIC_ASM = {
    "sm_80": r"\bmma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32\b",
    "gfx942": r"\bv_mfma_f32_16x16x16_?f16\b",
}
FMA = {"sm_80": r"\bfma\.rn\.f32\b", "gfx942": r"\bv_(pk_)?fmac?_f32\b"}
SPILL = {"sm_80": r"\.local\b", "gfx942": r"private_segment_fixed_size:\s*[1-9]"}


@pytest.mark.gpu_compile
@pytest.mark.parametrize(
    "t,stage,along,det",
    [("sm_80", "subgroup", "rows", False), ("gfx942", "subgroup", "columns", False),
     ("sm_80", "atomic", "columns", False), ("gfx942", "lds", "rows", True)],
)  # fmt: skip
def test_assembly(t: str, stage: str, along: str, det: bool, tmp_path: Path) -> None:
    from tests.gpu_assembly import dumped_assembly
    from tests.helpers.gpu_asm import ANY_ATOMIC, ATOMIC, BARRIER, EXCHANGE

    # K and N whole vectors of 8 halves: A and B load 128 bits at a time.
    case = GemmCase("sum" if t == "sm_80" else "max", along, m=100, n=72, k=96, element="f16")
    with collect_remarks():
        out = rewrite(
            case.program(),
            f"fuse-reduction,lower-reduce{{stage={stage} target={t} deterministic={str(det).lower()}}},"
            f"export-dispatch{{target={t}}}",
        )
    asm = "\n".join(dumped_assembly(out, t, tmp_path))
    assert not re.search(SPILL[t], asm)
    # 32x32 warp tiles, K steps of 32: 16 m16n8k16 or 8 16x16x16 a step.
    assert len(re.findall(INTRINSIC_ASM[t], asm)) >= (16 if t == "sm_80" else 8)
    assert not re.search(FMA[t], asm)
    if t == "sm_80":
        assert re.search(r"\bldmatrix\.sync\.aligned\.m8n8\.x4\b", asm)
    # The K loop's two barriers, the C tile's, and the stage's where threads meet.
    meet = stage == "lds" or (stage == "subgroup" and along == "columns")
    assert len(re.findall(BARRIER[t], asm)) >= (4 if meet else 3)
    if det:
        assert not re.search(ANY_ATOMIC[t], asm)
    else:
        assert re.search(ATOMIC[t], asm)
    if stage == "subgroup" and along == "rows":
        assert re.search(EXCHANGE[t], asm)
    if stage == "subgroup" and along == "columns" and t == "gfx942":
        assert re.search(r"\bds_(swizzle|bpermute)_b32\b", asm)
