"""split-k + materialize-late end to end: the rewritten program must match the
unsplit one and numpy on the CPU, compile for CUDA and ROCm, and spread the
split over more workgroups than the unsplit dispatch had."""

from __future__ import annotations

import numpy as np
import pytest

from xsplit.api import parse_module
from xsplit.interop.check import entry_function, random_inputs
from xsplit.interop.e2e import E2EReport, run_e2e
from xsplit.interop.targets import COMPILED_GPU_TARGETS

from tests.e2e.cases import CASES, OP_CASES, Case

ALL_CASES = CASES + OP_CASES


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_cpu_numerics(case: Case) -> None:
    text, report = run_e2e(case.mlir, case.pipeline, case.dims, gpu_targets=())
    split = "split_reduction_mapping" in text or "tensor.expand_shape" in text
    assert split == case.splits
    assert report.numerics_pass, (report.max_abs_error, report.tolerances)

    # Against numpy too, so that a bug shared by both IREE programs still shows.
    inputs = random_inputs(entry_function(parse_module(case.mlir)), case.dims)
    from xsplit.interop.cpu_runner import run_on_cpu
    from xsplit.interop.iree_compile import compile_mlir

    results = run_on_cpu(compile_mlir(text, "cpu"), "main", inputs)
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
    from xsplit.interop.iree_compile import IreeCompileError
    from xsplit.interop.workgroups import workgroup_counts

    module = parse_module(case.mlir)
    run_passes(module, build_pipeline(case.pipeline))
    text = print_module(module)
    report = E2EReport()
    for target in COMPILED_GPU_TARGETS:
        report.counts_after[target] = workgroup_counts(text, target)
        if target in case.unsplit_fails_on:
            with pytest.raises(IreeCompileError):
                workgroup_counts(case.mlir, target)
            continue
        report.counts_before[target] = workgroup_counts(case.mlir, target)
        if case.static and case.splits:
            before, after = report.split_dispatch_workgroups(target)
            assert before is not None and after is not None, (target, report)
            assert after > before, (target, report)
