"""Every stage of lower-reduce, fused and standalone, sum and max, run in the
SPMD simulator through `xsplit simulate OUT --reference ORIGINAL` with no grid
or block flags: no race, and the unfused tensor program's results (compiled
by IREE for the CPU) within the dtype's tolerance. Shapes are not multiples
of the block size. The deterministic form is also bitwise equal across the
simulator's thread orders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers.gemm_kernel import ORDERS
from tests.helpers.kept import parsed, rewrite_kept
from tests.reduce.cases import Case, fused, standalone
from xsplit.api import rewrite
from xsplit.simulator.program import host_function, run_program
from xsplit.tools.simulate import main as simulate_main

STAGES = ("atomic", "lds", "subgroup")
ONE_ORDER = [f"--schedule={order}" for order in ORDERS]


def _simulate(case: Case, pipeline: str, tmp_path: Path, capsys) -> str:
    # The command line reads the written text; a test that runs the output
    # again takes the module the passes left (`parsed`).
    out = rewrite_kept(case.program(), pipeline)
    (tmp_path / "out.mlir").write_text(out)
    (tmp_path / "ref.mlir").write_text(case.reference())
    # One thread order: see ORDERS in tests/helpers/gemm_kernel.py
    # (test_deterministic compares orders bit for bit itself).
    rc = simulate_main([str(tmp_path / "out.mlir"), "--reference", str(tmp_path / "ref.mlir"), *ONE_ORDER])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "clean: 0 racing op pairs, 0 mismatches" in text
    return out


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("method", ["sum", "max"])
@pytest.mark.parametrize("target", ["gfx942", "sm_80"])
def test_standalone(stage: str, method: str, target: str, tmp_path: Path, capsys) -> None:
    # 15 outputs of 300 elements: neither is a multiple of 256 threads or the chunk.
    case = standalone(method, rock=(target == "gfx942"), shape=(5, 300, 3), axis=1)
    out = _simulate(case, f"lower-reduce{{stage={stage} target={target}}},verify-sync", tmp_path, capsys)
    assert ("memref.atomic_rmw" in out) and "gpu.known_block_size" in out


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("method", ["sum", "max"])
def test_fused(stage: str, method: str, tmp_path: Path, capsys) -> None:
    target = "gfx942" if method == "sum" else "sm_80"
    case = fused(method, axis=1 if stage != "lds" else 0, returned=(stage != "atomic"))
    out = _simulate(
        case, f"fuse-reduction,lower-reduce{{stage={stage} target={target}}}", tmp_path, capsys
    )
    # One kernel: no linalg op left, the GEMM computed in the kernel's loops.
    assert "linalg." not in out and out.count("func.func") == 1


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("method", ["sum", "max"])
@pytest.mark.parametrize("kind", ["standalone", "fused"])
def test_deterministic(stage: str, method: str, kind: str, tmp_path: Path, capsys) -> None:
    case = standalone(method, shape=(5, 300, 3)) if kind == "standalone" else fused(method)
    target = "sm_80" if stage != "lds" else "gfx942"
    pipeline = ("fuse-reduction," if kind == "fused" else "") + (
        f"lower-reduce{{stage={stage} target={target} deterministic=true}},verify-sync"
    )
    out = _simulate(case, pipeline, tmp_path, capsys)
    assert "atomic_rmw" not in out
    # Bitwise equal across thread orders, and across seeds of the shuffled order.
    module = parsed(out, "out.mlir")
    host = host_function(module, None)
    assert host is not None
    inputs = case.inputs(3)
    runs = [run_program(module, host, inputs, order, seed, 32) for order in ("forward", "reverse", "shuffled") for seed in (1, 2)]
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert a.tobytes() == b.tobytes()


def test_generated_cases(tmp_path: Path, capsys) -> None:
    """Random shapes, axes, stages and methods: each lowered kernel is race-free and right."""
    rng = np.random.default_rng(11)
    for i in range(4):
        rank = int(rng.integers(2, 4))
        shape = [int(s) for s in rng.integers(2, 40, rank)]
        axis = int(rng.integers(0, rank))
        shape[axis] = int(rng.integers(33, 300))
        stage = STAGES[i % 3]
        method = ("sum", "max")[int(rng.integers(0, 2))]
        target = ("gfx942", "sm_80")[int(rng.integers(0, 2))]
        case = standalone(method, rock=bool(rng.integers(0, 2)), shape=shape, axis=axis)
        sub = tmp_path / str(i)
        sub.mkdir()
        _simulate(case, f"lower-reduce{{stage={stage} target={target}}}", sub, capsys)


@pytest.mark.parametrize("stage", ["lds", "subgroup"])
def test_each_barrier_is_needed(stage: str, tmp_path: Path, capsys) -> None:
    """Take any one barrier out of the lowered kernel: verify-sync rejects it and
    the simulator finds the race (or wrong results)."""
    from xsplit.diagnostics import XsplitError

    case = standalone("sum", shape=(5, 300, 3))
    out = rewrite(case.program(), f"lower-reduce{{stage={stage} target=sm_80}}")
    lines = out.splitlines()
    barriers = [i for i, line in enumerate(lines) if line.strip() == "gpu.barrier"]
    assert barriers
    (tmp_path / "ref.mlir").write_text(case.reference())
    for i in barriers[:3]:
        broken = "\n".join(lines[:i] + lines[i + 1 :])
        with pytest.raises(XsplitError, match="unsynchronized"):
            rewrite(broken, "verify-sync")
        (tmp_path / "broken.mlir").write_text(broken)
        rc = simulate_main([str(tmp_path / "broken.mlir"), "--reference", str(tmp_path / "ref.mlir"), *ONE_ORDER])
        assert rc == 1, capsys.readouterr().out
        capsys.readouterr()


INPUTS = Path(__file__).parent / "inputs"


@pytest.mark.parametrize("name", ["generic_transposed", "batch_matmul"])
@pytest.mark.parametrize("stage", STAGES)
def test_fused_contractions(name: str, stage: str, tmp_path: Path, capsys) -> None:
    """A contraction generic with transposed operands, and a batch_matmul whose
    output is reduced over the batch axis, fused and simulated."""
    source = (INPUTS / f"{name}.mlir").read_text()
    out = rewrite(source, f"fuse-reduction,lower-reduce{{stage={stage} target=sm_80}}")
    assert "linalg." not in out
    (tmp_path / "out.mlir").write_text(out)
    rc = simulate_main([str(tmp_path / "out.mlir"), "--reference", str(INPUTS / f"{name}.ref.mlir"), *ONE_ORDER])
    text = capsys.readouterr().out
    assert rc == 0, text


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("method", ["sum", "max"])
def test_memref_form(stage: str, method: str) -> None:
    """rocMLIR's own input, rock.reduce on memrefs with blockSize and gridSize:
    lowered with that launch, race-free, and numpy's answer."""
    from xsplit.dialects.rock import ReduceMethod, evaluate_reduce
    from xsplit.simulator.run import simulate

    source = f"""
func.func @k(%in: memref<3x77x10xf32>, %out: memref<3x1x10xf32>) {{
  rock.reduce {method} %in into %out {{axis = 1 : index, blockSize = 64 : i32, gridSize = 4 : i32}} : memref<3x77x10xf32> into memref<3x1x10xf32>
  func.return
}}
"""
    out = rewrite_kept(source, f"lower-reduce{{stage={stage} target=gfx942}},verify-sync")
    assert "gpu.known_block_size = array<i32: 64, 1, 1>" in out
    # gridSize caps the grid: 30 work items of lds/subgroup run cyclically on 4 blocks
    # (a barrier ahead of each item's stores into workgroup memory).
    grid = "3" if stage == "atomic" else "4"
    assert f"gpu.known_grid_size = array<i32: {grid}, 1, 1>" in out
    module = parsed(out, "out.mlir")
    fn = next(op for op in module.walk() if op.name == "func.func")
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (3, 77, 10)).astype(np.float32)
    o = rng.uniform(-1, 1, (3, 1, 10)).astype(np.float32)
    want = evaluate_reduce(ReduceMethod(method), 1, x, o)
    report = simulate(fn, reference=[x, want], inputs=[x, o], subgroup_size=64)
    assert report.clean, report.races + report.mismatches
