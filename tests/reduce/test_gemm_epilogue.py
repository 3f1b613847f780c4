"""The fused GEMM + reduction as an epilogue of xsplit's staged GEMM kernel
(xsplit/rewrites/reduce/fused_gemm.py, `xsplit_gemm.gridwise_gemm_reduce`):
lower-reduce writes it for plain GEMMs on GPU targets. For every stage x
sum/max x rows/columns, atomic and deterministic, on a shape that is no
multiple of the 64x64 tile or the K step (2x2 workgroups, ragged in M, N
and K), the simulator runs it race-free and right against numpy, the
deterministic form free of atomics (race-free and atomic-free: bitwise
equal in every thread order, so one order runs); generated shapes too;
each barrier of the epilogue is needed; and the assembly for sm_80 and
gfx942 shows the staged kernel (FMAs, 128-bit loads, no spills) with what
each stage promises."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.fused_gemm import SUBGROUP, lower_fused, simulate_fused
from tests.helpers.kept import barriers_taken_out, parsed
from tests.reduce.cases import GemmCase
from xsplit.api import rewrite
from xsplit.diagnostics import collect_remarks
from xsplit.simulator.run import pick_function, simulate

SHAPE = {"m": 70, "n": 75, "k": 37}


def _cases():
    out = []
    i = 0
    for stage in ("atomic", "lds", "subgroup"):
        for method in ("sum", "max"):
            for along in ("rows", "columns"):
                # Both exchanges of the subgroup stage, both inits of C, both
                # kinds of reduction op, over the matrix.
                target = ("sm_80", "gfx942")[i % 2]
                out.append(pytest.param(stage, False, method, along, target, i, id=f"{stage}-{method}-{along}-{target}"))
                i += 1
        for det_method, det_along in (("sum", "columns"), ("max", "rows")):
            target = ("gfx942", "sm_80")[i % 2]
            out.append(
                pytest.param(
                    stage, True, det_method, det_along, target, i,
                    id=f"deterministic-{stage}-{det_method}-{det_along}-{target}",
                )
            )  # fmt: skip
            i += 1
    return out


def _case(method: str, along: str, i: int, **shape) -> GemmCase:
    return GemmCase(
        method, along, **(shape or SHAPE), returned=i % 3 != 0, fill=(-0.375, 0.0, 1.25)[i % 3],
        rock=i % 4 >= 2,
    )  # fmt: skip


@pytest.mark.parametrize("stage,deterministic,method,along,target,i", _cases())
def test_simulated(stage, deterministic, method, along, target, i) -> None:
    case = _case(method, along, i)
    det = str(deterministic).lower()
    out = lower_fused(case, f"lower-reduce{{stage={stage} target={target} deterministic={det}}}")
    # The staged kernel, lowered all the way: a private register tile, no xsplit_gemm op left.
    assert "xsplit_gemm." not in out
    assert "%acc = memref.alloca() : memref<4x4xf32, #gpu.address_space<private>>" in out
    assert ("atomic_rmw" in out) != deterministic
    simulate_fused(out, case, SUBGROUP[target])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generated_shapes(seed: int) -> None:
    """Random shapes (one to three tiles a side, any K), stage, combiner and axis."""
    rng = np.random.default_rng(seed)
    m, n = (int(x) for x in rng.integers(1, 150, 2))
    k = int(rng.integers(1, 80))
    stage = ("atomic", "lds", "subgroup")[seed % 3]
    method = ("sum", "max")[int(rng.integers(2))]
    along = ("rows", "columns")[int(rng.integers(2))]
    target = ("sm_80", "gfx942")[int(rng.integers(2))]
    det = bool(rng.integers(2))
    case = _case(method, along, seed, m=m, n=n, k=k)
    out = lower_fused(case, f"lower-reduce{{stage={stage} target={target} deterministic={str(det).lower()}}}")
    assert "xsplit_gemm." not in out
    simulate_fused(out, case, SUBGROUP[target], seed=seed + 3)


@pytest.mark.parametrize("stage,target", [("lds", "sm_80"), ("subgroup", "gfx942")])
def test_epilogue_barrier_is_needed(stage: str, target: str) -> None:
    """Take out the barrier between the epilogue's stores into workgroup
    memory and the combining thread's loads: the simulator sees the race."""
    case = GemmCase("sum", "columns", **SHAPE, returned=True)
    out = lower_fused(case, f"lower-reduce{{stage={stage} target={target}}}")
    # two in the K loop, one in the epilogue
    assert sum(line.strip() == "gpu.barrier" for line in out.splitlines()) == 3
    module = barriers_taken_out(parsed(out, "out.mlir"))[-1]
    inputs = case.inputs(2)
    report = simulate(
        pick_function(module, None), reference=case.final_arguments(inputs), inputs=inputs,
        subgroup_size=SUBGROUP[target],
    )  # fmt: skip
    assert report.races


@pytest.mark.parametrize("stage", ["atomic", "subgroup"])
@pytest.mark.parametrize("deterministic", [False, True])
def test_batch(stage: str, deterministic: bool) -> None:
    """A batch GEMM reduced along M or N: the batch on grid z (the merge's
    grid y), each workgroup's matrices subviews of its batch."""
    along = "columns" if deterministic else "rows"
    case = GemmCase("max", along, batch=3, m=37, n=50, k=29, returned=True, rock=stage == "atomic")
    det = str(deterministic).lower()
    out = lower_fused(case, f"lower-reduce{{stage={stage} target=sm_80 deterministic={det}}}")
    assert "gpu.known_grid_size = array<i32: 1, 1, 3>" in out
    assert "memref.subview %a[%block_id_z, 0, 0] [1, 37, 29] [1, 1, 1]" in out
    simulate_fused(out, case, 32)


def test_batch_axis_and_transposed_operands_are_staged() -> None:
    """A reduction along the batch and transposed A and B, which the tiled
    kernel wrote before, are the staged kernel's, and the remark says so
    (tests/reduce/test_fused_transposed.py simulates the transposed forms,
    test_tiled_gemm.py::test_batch_axis the batch)."""
    case = GemmCase("sum", "batch", batch=2, m=37, n=50, k=29)
    with collect_remarks() as said:
        out = rewrite(case.program(), "fuse-reduction,lower-reduce{stage=subgroup target=sm_80}")
    # The staged kernel's M-major A tile (the tiled kernel's was 16x64).
    assert "%a_tile = memref.alloc() : memref<64x16xf32" in out
    text = "\n".join(said)
    assert "does not take it yet" not in text
    assert "the batch axis is reduced across workgroups (grid z)" in text
    transposed = """\
func.func @t(%a: tensor<24x13xf32>, %b: tensor<70x24xf32>, %c: tensor<13x70xf32>, %o: tensor<1x70xf32>) -> tensor<1x70xf32> {
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<24x13xf32>, tensor<70x24xf32>) outs(%c : tensor<13x70xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x70xf32>
  %r = rock.reduce max %mm into %o {axis = 0 : index} : tensor<13x70xf32> into tensor<1x70xf32> -> tensor<1x70xf32>
  return %r : tensor<1x70xf32>
}
"""
    with collect_remarks() as said:
        rewrite(transposed, "fuse-reduction,lower-reduce{stage=lds target=gfx942}")
    assert "does not take it yet" not in "\n".join(said)
    assert "copied: A as it lies, K x M, into a K-major tile and B as it lies" in "\n".join(said)


# sm_80 and gfx942 assembly ---------------------------------------------------

FMA = {"sm_80": r"\bfma\.rn\.f32\b", "gfx942": r"\bv_(pk_)?fmac?_f32\b"}
VECTOR_LOAD = {"sm_80": r"\bld\.global(\.nc)?\.v4\.(b|f)32", "gfx942": r"\bglobal_load_dwordx4\b"}
SPILL = {"sm_80": r"\.local\b", "gfx942": r"private_segment_fixed_size:\s*[1-9]"}


@pytest.mark.gpu_compile
@pytest.mark.parametrize(
    "t,stage,along,det,batch",
    [("sm_80", "subgroup", "rows", False, 0), ("gfx942", "subgroup", "rows", False, 0),
     ("sm_80", "lds", "columns", True, 0), ("gfx942", "subgroup", "columns", False, 0),
     ("sm_80", "atomic", "rows", False, 2)],
)  # fmt: skip
def test_assembly(t: str, stage: str, along: str, det: bool, batch: int, tmp_path: Path) -> None:
    from tests.gpu_assembly import dumped_assembly
    from tests.helpers.gpu_asm import ANY_ATOMIC, ATOMIC, BARRIER, EXCHANGE

    # K and N whole vectors of 4: both copies load 128 bits at a time.
    # A batch's matrices are subviews: their rows stay whole vectors.
    case = GemmCase("sum" if t == "sm_80" else "max", along, m=100, n=72, k=96, batch=batch)
    with collect_remarks():
        out = rewrite(
            case.program(),
            f"fuse-reduction,lower-reduce{{stage={stage} target={t} deterministic={str(det).lower()}}},"
            f"export-dispatch{{target={t}}}",
        )
    asm = "\n".join(dumped_assembly(out, t, tmp_path))
    assert not re.search(SPILL[t], asm)
    assert len(re.findall(FMA[t], asm)) >= (8 if t == "gfx942" else 16)
    assert len(re.findall(VECTOR_LOAD[t], asm)) >= 2
    # The K loop's two barriers, and the epilogue's where threads meet in workgroup memory.
    assert len(re.findall(BARRIER[t], asm)) >= (3 if stage == "lds" or along == "columns" else 2)
    if det:
        assert not re.search(ANY_ATOMIC[t], asm)
    else:
        assert re.search(ATOMIC[t], asm)
    if stage == "subgroup" and along == "rows":
        assert re.search(EXCHANGE[t], asm)  # shfl.sync.bfly, or DPP for consecutive lanes
    if stage == "subgroup" and along == "columns" and t == "gfx942":
        # Lanes 16 apart: the strided cluster becomes swizzles or permutes, not DPP rows.
        assert re.search(r"\bds_(swizzle|bpermute)_b32\b", asm)
