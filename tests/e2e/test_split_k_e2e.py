"""split-k + materialize-late end to end: the rewritten program must match the
unsplit one and numpy on the CPU, compile for CUDA and ROCm, and spread the
split over more workgroups than the unsplit dispatch had."""

from __future__ import annotations

import numpy as np
import pytest

from tests.e2e.cases import (
    CASES,
    OP_CASES,
    SAME_FORM_AS,
    Case,
    argmax,
    argmax_reference,
    util_func_matmul,
)
from tests.helpers.forms import program_form
from tests.helpers.kept_dumps import kept_run
from xsplit.api import parse_module
from xsplit.interop.check import entry_function, random_inputs
from xsplit.interop.e2e import E2EReport, run_e2e
from xsplit.targets.table import COMPILED_GPU_TARGETS

ALL_CASES = CASES + OP_CASES
BY_ID = {c.id: c for c in ALL_CASES}


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_cpu_numerics(case: Case) -> None:
    text, report = run_e2e(case.mlir, case.pipeline, case.dims, gpu_targets=())
    split = "split_reduction_mapping" in text or "tensor.expand_shape" in text
    assert split == case.splits
    assert report.numerics_pass, (report.max_abs_error, report.tolerances)

    # Against numpy too, so that a bug shared by both IREE programs still shows.
    inputs = random_inputs(entry_function(parse_module(case.mlir)), case.dims)
    from xsplit.iree.iree_compile import compile_mlir

    # The run run_e2e compared with the unsplit program's (same vmfb, same
    # inputs), kept, not run again.
    results = kept_run(compile_mlir(text, "cpu"), "main", inputs)
    wanted = case.reference(*inputs)
    if not isinstance(wanted, tuple):
        wanted = (wanted,)
    assert len(results) == len(wanted)
    for got, want in zip(results, wanted):
        if got.dtype.kind == "i":
            np.testing.assert_array_equal(got, want)
        else:
            scale = max(1.0, float(np.abs(want).max()))
            rtol = 1e-2 if "f16" in case.id or "bf16" in case.id else 1e-4
            assert float(np.abs(got - want).max()) <= rtol * scale
    if case.spreads_on_cpu:
        before, after = report.split_dispatch_workgroups("cpu")
        assert before is not None and after is not None and after > before


@pytest.mark.gpu_compile
@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_gpu_compiles_and_spreads(case: Case) -> None:
    from xsplit.api import build_pipeline, print_module, run_passes
    from xsplit.iree.iree_compile import IreeCompileError
    from xsplit.iree.workgroups import workgroup_counts

    def rewritten(case: Case) -> str:
        module = parse_module(case.mlir)
        run_passes(module, build_pipeline(case.pipeline))
        return print_module(module)

    text = rewritten(case)
    if case.id in SAME_FORM_AS:
        # Compiled as its representative, which spreads on every GPU target;
        # what is left to check is that this program still has that form.
        representative = BY_ID[SAME_FORM_AS[case.id]]
        assert program_form(text) == program_form(rewritten(representative)), (
            f"{case.id} no longer has {representative.id}'s form: compile it on its own"
        )
        return
    report = E2EReport()
    for target in COMPILED_GPU_TARGETS:
        report.counts_after[target] = workgroup_counts(text, target)
        if target in case.unsplit_fails_on:
            with pytest.raises(IreeCompileError):
                workgroup_counts(case.mlir, target)
            continue
        if not (case.static and case.splits):
            continue  # no spread to compare: the unsplit program's compile is IREE's alone
        report.counts_before[target] = workgroup_counts(case.mlir, target)
        before, after = report.split_dispatch_workgroups(target)
        assert before is not None and after is not None, (target, report)
        assert after > before, (target, report)


UTIL_FUNC_CASES = [
    ("matmul", util_func_matmul(16, 24, 1013), "factor=5", lambda a, b, c: a.astype(np.float64) @ b + c),
    (
        "argmax",
        argmax(8, 1000).replace("func.func @main", "util.func public @main").replace(
            "  return %0#0", "  util.return %0#0"
        ),
        "factor=4",
        argmax_reference(),
    ),
]


@pytest.mark.parametrize("name,mlir,options,reference", UTIL_FUNC_CASES, ids=[c[0] for c in UTIL_FUNC_CASES])
def test_util_func_cpu_numerics(name, mlir, options, reference) -> None:
    """A reduction inside IREE's util.func splits as one inside func.func does,
    and the split program matches the unsplit one and numpy."""
    from xsplit.api import build_pipeline, print_module, run_passes
    from xsplit.dialects.util import FuncOp as UtilFuncOp
    from xsplit.iree.cpu_runner import run_on_cpu
    from xsplit.iree.iree_compile import compile_mlir

    module = parse_module(mlir)
    run_passes(module, build_pipeline(f"split-k{{{options}}},materialize-late"))
    text = print_module(module)
    assert "split_reduction_mapping" in text and "util.func public @main" in text
    (f,) = [op for op in parse_module(mlir).ops if isinstance(op, UtilFuncOp)]
    inputs = random_inputs(f, [])  # type: ignore[arg-type]
    unsplit = run_on_cpu(compile_mlir(mlir, "cpu"), "main", inputs)
    split = run_on_cpu(compile_mlir(text, "cpu"), "main", inputs)
    wanted = reference(*inputs)
    wanted = wanted if isinstance(wanted, tuple) else (wanted,)
    for got, before, want in zip(split, unsplit, wanted):
        if got.dtype.kind == "i":
            np.testing.assert_array_equal(got, before)
            np.testing.assert_array_equal(got, want)
        else:
            scale = max(1.0, float(np.abs(want).max()))
            assert float(np.abs(got - before).max()) <= 1e-4 * scale
            assert float(np.abs(got - want).max()) <= 1e-4 * scale


@pytest.mark.gpu_compile
@pytest.mark.parametrize("name,mlir,options,reference", UTIL_FUNC_CASES, ids=[c[0] for c in UTIL_FUNC_CASES])
def test_util_func_gpu_compiles(name, mlir, options, reference) -> None:
    from xsplit.api import build_pipeline, print_module, run_passes
    from xsplit.iree.workgroups import workgroup_counts

    module = parse_module(mlir)
    run_passes(module, build_pipeline(f"split-k{{{options}}},materialize-late"))
    text = print_module(module)
    for target in COMPILED_GPU_TARGETS:
        assert workgroup_counts(text, target)


@pytest.mark.gpu_compile
def test_a_program_with_cpu_tiles_is_compiled_for_the_cpu_only() -> None:
    """IREE's GPU backends cannot build the CPU pipeline a chunk's
    `compilation_info` names, so e2e compiles such a program for the CPU
    only and says why; without the tiles every target is compiled."""
    from tests.e2e.cases import matmul
    from xsplit.interop.e2e import format_report

    source = matmul(16, 64, 4000)
    tiled, report = run_e2e(source, "split-k{factor=4 align=16 pad_m=8 cpu_tiles=true},materialize-late")
    assert "#iree_cpu.lowering_config" in tiled
    assert report.numerics_pass, (report.max_abs_error, report.tolerances)
    assert list(report.counts_after) == ["cpu"]
    assert "(the CPU only: the rewritten program carries IREE CPU tile sizes)" in format_report(report)

    plain, report = run_e2e(source, "split-k{factor=4 align=16 pad_m=8},materialize-late")
    assert "#iree_cpu" not in plain and report.cpu_only_reason is None
    assert list(report.counts_after) == ["cpu", *COMPILED_GPU_TARGETS]
