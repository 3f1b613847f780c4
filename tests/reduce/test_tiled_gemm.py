"""The tiled fused GEMM: xsplit's staged GEMM kernel with a reduction
epilogue (xsplit/rewrites/reduce/fused_gemm.py, reductions along the batch
included), on llvm-cpu the same op with `workgroup_level`. For every
stage, sum and max, reduced along rows and columns, on shapes that are not multiples of the 64x64
tile or the K step of 16 (70x200x90, 33x45x61 and a batch of 2x37x50x29, as
MxNxK), the kernel is race-free in the simulator and gives numpy's results;
its barriers are proved by verify-sync with nothing left undecided; the CPU
forms run on llvm-cpu through IREE; the GPU forms compile for sm_80 and
gfx942 with shared memory and barriers in the K loop and what each stage
promises."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.fused_gemm import SUBGROUP, lower_fused, simulate_fused
from tests.helpers.gemm_kernel import ORDERS
from tests.helpers.kept import barriers_taken_out, parsed
from tests.reduce.cases import GemmCase
from xsplit.api import rewrite, rewrite_module
from xsplit.diagnostics import collect_remarks
from xsplit.simulator.run import pick_function, simulate

SHAPES = {
    "70x200x90": {"m": 70, "n": 200, "k": 90},
    "33x45x61": {"m": 33, "n": 45, "k": 61},
    "2x37x50x29": {"batch": 2, "m": 37, "n": 50, "k": 29},
}

ONE_ORDER = [f"--schedule={order}" for order in ORDERS]
"""`xsplit simulate` in one thread order: see tests/helpers/gemm_kernel.py."""


def _matrix():
    """stage x {sum, max} x {rows, columns}: each stage on both targets, both
    shapes of C's init (a returned argument, a constant fill) and both
    reductions (rock.reduce, linalg.reduce); the eight-workgroup 70x200x90
    only where it adds a case the small shapes do not, to keep the time down.
    The deterministic form takes each stage's epilogue in turn."""
    combos = [("sum", "rows", "sm_80"), ("sum", "columns", "gfx942"),
              ("max", "rows", "gfx942"), ("max", "columns", "sm_80")]  # fmt: skip
    det_stage = ["atomic", "lds", "subgroup", "subgroup"]
    big = {("lds", 0), ("subgroup", 3)}
    out = []
    for si, stage in enumerate(("atomic", "lds", "subgroup", "deterministic")):
        for j, (method, along, target) in enumerate(combos):
            i = si * 4 + j
            shape = "70x200x90" if (stage, j) in big else ("33x45x61", "2x37x50x29")[i % 2]
            real = det_stage[j] if stage == "deterministic" else stage
            name = f"{stage}{'-' + real if stage == 'deterministic' else ''}-{method}-{along}"
            det = stage == "deterministic"
            out.append(
                pytest.param(
                    real, det, method, along, target, shape, i, id=f"{name}-{target}-{shape}"
                )
            )
    return out


def _case(method: str, along: str, shape: str, i: int) -> GemmCase:
    returned = i % 3 != 0
    fill = 0.0 if i % 2 else -0.375
    return GemmCase(method, along, **SHAPES[shape], returned=returned, fill=fill, rock=i % 4 >= 2)


@pytest.mark.parametrize("stage,deterministic,method,along,target,shape,i", _matrix())
def test_simulated(stage, deterministic, method, along, target, shape, i) -> None:
    case = _case(method, along, shape, i)
    det = " deterministic=true" if deterministic else ""
    out = lower_fused(case, f"lower-reduce{{stage={stage} target={target}{det}}}")
    assert "linalg." not in out and "xsplit_gemm." not in out
    # A and B go through workgroup memory (the staged kernel keeps A
    # M-major); the epilogue adds what the stage says. A batch GEMM's
    # kernels take their batch's matrices as subviews.
    assert "%a_tile = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>" in out
    assert ("atomic_rmw" in out) != deterministic
    assert ("%red_tile" in out) == (stage == "lds")
    exchange = "gpu.subgroup_reduce" if target == "gfx942" else "gpu.shuffle xor"
    assert (exchange in out) == (stage == "subgroup")
    # In the staged kernel the 16 threads of a column are 16 lanes apart:
    # they span subgroups, whose partials meet in workgroup memory (case 3.2).
    spans = stage == "subgroup" and along == "columns"
    assert ("%wave_tile" in out) == spans
    assert ("memref.subview %a[%block_id_z, 0, 0]" in out) == bool(case.batch)
    simulate_fused(out, case, SUBGROUP[target])


@pytest.mark.parametrize("stage", ["atomic", "lds", "subgroup"])
def test_batch_axis(stage: str) -> None:
    """Reduced over the batch (the staged kernel, `dim` 2): each element of a
    tile is its own output, one atomic (or partial) per element whatever
    the stage."""
    case = GemmCase(
        "max", "batch", **SHAPES["2x37x50x29"], returned=stage == "lds", rock=stage != "lds"
    )
    out = lower_fused(
        case,
        f"lower-reduce{{stage={stage} target=gfx942 deterministic={str(stage == 'subgroup').lower()}}}",
    )
    simulate_fused(out, case, 64)


def test_each_barrier_is_needed() -> None:
    """insert-barriers places none too many: take any one out and verify-sync
    rejects the kernel, and the simulator sees the race."""
    from xsplit.diagnostics import XsplitError

    case = GemmCase("sum", "rows", **SHAPES["33x45x61"], returned=True)
    out = lower_fused(case, "lower-reduce{stage=lds target=sm_80}")
    assert sum(line.strip() == "gpu.barrier" for line in out.splitlines()) == 3
    broken_kernels = barriers_taken_out(parsed(out, "out.mlir"))
    assert len(broken_kernels) == 3
    for i, module in enumerate(broken_kernels):
        with pytest.raises(XsplitError, match="unsynchronized"):
            rewrite_module(module, "verify-sync")
        inputs = case.inputs(2)
        report = simulate(
            pick_function(module, None), reference=case.final_arguments(inputs), inputs=inputs,
            orders=ORDERS,  # the race is in the access log whatever the order
        )
        assert report.races, i


def test_cli_against_the_unfused_program(tmp_path: Path, capsys) -> None:
    """The done-when form: `xsplit simulate OUT --reference ORIGINAL`, with
    the unfused tensor program compiled by IREE as the reference."""
    from xsplit.tools.simulate import main as simulate_main

    for i, (pipeline, case) in enumerate(
        [
            ("lower-reduce{stage=lds target=sm_80}", GemmCase("sum", "columns", **SHAPES["33x45x61"], returned=True)),
            ("lower-reduce{stage=subgroup target=gfx942 deterministic=true}",
             GemmCase("max", "rows", **SHAPES["2x37x50x29"], fill=0.25, rock=True)),
        ]
    ):  # fmt: skip
        (tmp_path / f"out{i}.mlir").write_text(lower_fused(case, pipeline))
        (tmp_path / f"ref{i}.mlir").write_text(case.reference())
        extra = ["--subgroup-size", "64"] if "gfx942" in pipeline else []
        rc = simulate_main(
            [str(tmp_path / f"out{i}.mlir"), "--reference", str(tmp_path / f"ref{i}.mlir"), *extra, *ONE_ORDER]
        )
        captured = capsys.readouterr()
        assert rc == 0 and "clean: 0 racing op pairs, 0 mismatches" in captured.out, captured


def test_cpu_kernel_simulated() -> None:
    """llvm-cpu's form (one thread per workgroup looping over its tile) in
    the simulator too, on a shape small enough for its serial loops."""
    case = GemmCase("sum", "rows", m=35, n=3, k=2, returned=True)
    out = lower_fused(case, "lower-reduce{target=cpu}")
    assert "gpu.known_grid_size = array<i32: 1, 2, 1>" in out and "gpu.thread_id" not in out
    simulate_fused(out, case, 32)


F16 = """\
func.func @h(%a: tensor<33x61xf16>, %b: tensor<61x45xf16>, %o: tensor<45xf32>) -> tensor<45xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x45xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<33x45xf32>) -> tensor<33x45xf32>
  %x = linalg.matmul ins(%a, %b : tensor<33x61xf16>, tensor<61x45xf16>) outs(%c : tensor<33x45xf32>) -> tensor<33x45xf32>
  %r = linalg.reduce ins(%x : tensor<33x45xf32>) outs(%o : tensor<45xf32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %s = arith.maximumf %p, %q : f32
      linalg.yield %s : f32
    }
  return %r : tensor<45xf32>
}
"""


def test_f16_operands(tmp_path: Path, capsys) -> None:
    """f16 A and B accumulate in f32: the staged tiles stay f16 in workgroup
    memory and, without tensor cores (`mma=none`; with them:
    test_gemm_epilogue_mma.py), are extended where a thread reads its
    registers."""
    from xsplit.tools.simulate import main as simulate_main

    with collect_remarks() as said:
        out = rewrite(F16, "fuse-reduction,lower-reduce{stage=lds target=gfx942 mma=none},verify-sync")
    assert not [line for line in said if "warning" in line]
    assert "memref<64x16xf16, #gpu.address_space<workgroup>>" in out
    # four registers of A and four of B per K element, over the unrolled K tile of 16
    assert out.count("arith.extf") == 8 * 16
    (tmp_path / "out.mlir").write_text(out)
    (tmp_path / "ref.mlir").write_text(F16)
    rc = simulate_main([str(tmp_path / "out.mlir"), "--reference", str(tmp_path / "ref.mlir"), *ONE_ORDER])
    captured = capsys.readouterr()
    assert rc == 0, captured


def test_remarks_say_what_the_kernel_does() -> None:
    case = GemmCase("sum", "rows", **SHAPES["70x200x90"])
    with collect_remarks() as said:
        rewrite(case.program(), "fuse-reduction,lower-reduce{stage=lds target=gfx942}")
    text = "\n".join(said)
    assert "xsplit's staged kernel (xsplit_gemm.gridwise_gemm_reduce)" in text
    assert "64x64 C tiles, one per workgroup of 256 threads holding 4x4 each" in text
    assert "staged through workgroup memory 16 K elements at a time" in text
    assert "grid 4x2x1" in text
    assert "the 16 threads of a row meet in workgroup memory" in text
    with collect_remarks() as said:
        rewrite(case.program(), "fuse-reduction,lower-reduce{target=sm_80}")
    assert "stage subgroup (chosen for sm_80: the lanes that share an output" in "\n".join(said)
    columns = GemmCase("sum", "columns", **SHAPES["70x200x90"])
    with collect_remarks() as said:
        rewrite(columns.program(), "fuse-reduction,lower-reduce{stage=subgroup target=gfx942}")
    assert (
        "the 16 threads of a column are 16 apart: 4 lanes per subgroup combine with "
        "gpu.subgroup_reduce cluster(size = 4, stride = 16), then the 4 subgroups' partials meet "
        "in workgroup memory (case 3.2)" in "\n".join(said)
    )
    batch = GemmCase("sum", "rows", **SHAPES["2x37x50x29"])
    with collect_remarks() as said:
        rewrite(batch.program(), "fuse-reduction,lower-reduce{stage=lds target=sm_80}")
    assert "grid 1x1x2; the 16 threads of a row meet in workgroup memory" in "\n".join(said)
    along = GemmCase("max", "batch", **SHAPES["2x37x50x29"])
    with collect_remarks() as said:
        rewrite(along.program(), "fuse-reduction,lower-reduce{stage=lds target=sm_80}")
    assert (
        "grid 1x1x2; the batch axis is reduced across workgroups (grid z): every element of a "
        "tile is its own output, and its thread adds one maxnumf atomic per element"
        in "\n".join(said)
    )
    # A transposed C is the staged kernel's too: Cᵀ = Bᵀ Aᵀ, both read as they lie.
    with collect_remarks() as said:
        rewrite(TRANSPOSED_C, "fuse-reduction,lower-reduce{stage=lds target=sm_80}")
    text = "\n".join(said)
    assert "(C lies N x M: computed as Cᵀ = Bᵀ Aᵀ, B as the kernel's A and A as its B)" in text
    assert "grid 1x2x1; the 16 threads of a row meet in workgroup memory" in text


TRANSPOSED_C = """\
func.func @ct(%a: tensor<13x24xf32>, %b: tensor<24x70xf32>, %c: tensor<70x13xf32>, %o: tensor<70xf32>) -> tensor<70xf32> {
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<13x24xf32>, tensor<24x70xf32>) outs(%c : tensor<70x13xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<70x13xf32>
  %r = linalg.reduce ins(%mm : tensor<70x13xf32>) outs(%o : tensor<70xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<70xf32>
}
"""


# llvm-cpu ------------------------------------------------------------------


@pytest.mark.parametrize("deterministic", ["false", "true"])
@pytest.mark.parametrize("method", ["sum", "max"])
@pytest.mark.parametrize("along", ["rows", "columns"])
def test_cpu_runs(deterministic: str, method: str, along: str) -> None:
    from xsplit.iree.cpu_runner import run_on_cpu
    from xsplit.iree.iree_compile import compile_mlir

    shape = "70x200x90" if along == "rows" else "2x37x50x29"
    returned = method == "sum"
    case = GemmCase(
        method, along, **SHAPES[shape], returned=returned, fill=0.5, rock=deterministic == "true"
    )
    out = rewrite(
        case.program(),
        f"fuse-reduction,lower-reduce{{target=cpu deterministic={deterministic}}},export-dispatch{{target=cpu}}",
    )
    assert "gpu.thread_id" not in out
    inputs = case.inputs(5)
    got = run_on_cpu(compile_mlir(out, "cpu"), case.name, inputs)
    want = case.expected(inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(
            np.asarray(g), w, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(w).max())
        )


# sm_80 and gfx942 assembly ---------------------------------------------------


@pytest.mark.gpu_compile
@pytest.mark.parametrize("t", ["sm_80", "gfx942"])
@pytest.mark.parametrize("stage", ["atomic", "lds", "subgroup", "deterministic"])
def test_assembly(stage: str, t: str, tmp_path: Path) -> None:
    from tests.helpers.gpu_asm import ANY_ATOMIC, ATOMIC, BARRIER, EXCHANGE, SHARED, assembly

    det = stage == "deterministic"
    real = "lds" if det else stage
    case = GemmCase(
        "sum" if t == "sm_80" else "max",
        "rows" if stage != "lds" else "columns",
        **SHAPES["70x200x90"],
    )
    out = rewrite(
        case.program(),
        f"fuse-reduction,lower-reduce{{stage={real} target={t} deterministic={str(det).lower()}}},"
        f"export-dispatch{{target={t}}}",
    )
    asm = assembly(out, t, tmp_path)
    # The staged K loop: stores of the A and B tiles between two barriers,
    # then the multiply loop's loads from shared memory.
    assert re.search(SHARED[t], asm) and len(re.findall(BARRIER[t], asm)) >= 2
    loads = {"sm_80": r"\bld\.shared", "gfx942": r"\bds_read\w*"}[t]
    stores = {"sm_80": r"\bst\.shared", "gfx942": r"\bds_write\w*"}[t]
    assert re.search(loads, asm) and re.search(stores, asm)
    if det:
        assert not re.search(ANY_ATOMIC[t], asm)
    else:
        assert re.search(ATOMIC[t], asm)
    assert bool(re.search(EXCHANGE[t], asm)) == (stage == "subgroup")
