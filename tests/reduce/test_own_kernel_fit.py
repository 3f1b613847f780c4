"""bench/fit_own_kernel.py: the own kernel's cost terms fitted to a device
call's times. On a made-up gpu.json whose times the model makes with known
terms (a rate and an atomic rate), the fit finds those terms, writes them
into the table marked MEASURED, and the model with the written table
reproduces every time it was given; wrong runs are not fitted, and the
entries it had no runs for stay as they were."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from xsplit.analysis.cost_model import matmul_problem, own_kernel_estimate
from xsplit.bench.device_timing import DeviceBenchReport, DeviceConfig, to_json
from xsplit.targets.own_kernel_terms import MEASURED, OWN_KERNEL_TERMS, OwnKernelTerm
from xsplit.targets.table import TARGETS, own_kernel_fit

ROOT = Path(__file__).parent.parent.parent
H200 = TARGETS["sm_90"]
GIGA = 1e9
RATE, ATOMICS = 311.5 * GIGA, 0.83 * GIGA
"""The made-up device's terms: neither is the table's."""
SHAPES = [((123, 456, 51234), (64, 64, 16)), ((256, 256, 65536), (128, 128, 8)),
          ((64, 96, 200003), (64, 64, 16))]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    finally:
        del sys.modules[name]
    return module


def _with(terms: dict[str, OwnKernelTerm]):
    assert H200.own_kernel is not None
    own = replace(H200.own_kernel, terms={**H200.own_kernel.terms, **terms})
    return replace(H200, own_kernel=own)


def _made_up(element: str) -> tuple[list[DeviceBenchReport], list[tuple]]:
    """The own programs of bench/gpu.py on SHAPES, timed by the model with
    RATE and ATOMICS (3 repetitions around the model's time), and a wrong
    run far off that the fit must not take."""
    device = _with({element: OwnKernelTerm(RATE, MEASURED, "made up", ATOMICS)})
    reports, given = [], []
    for shape, tile in SHAPES:
        configs = []
        for name, chunks, merge in (("own-atomic", 32, "atomic"), ("own-deterministic", 32,
                                    "deterministic"), ("own-atomic-more", 128, "atomic")):
            e = own_kernel_estimate(matmul_problem(*shape, element), device, chunks, merge, tile)
            ms = e.seconds * 1e3
            pipeline = f"gemm-kernel{{target=sm_80 chunks={chunks} merge={merge}}},lower-..."
            configs.append(DeviceConfig(name, e.factor, pipeline, [], f"m/{name}",
                                        [ms * 1.01, ms, ms * 0.98], 1e-7, True))
            given.append((shape, tile, e.factor, merge, e.seconds))
        configs.append(DeviceConfig("own-atomic-fewer", 8, "gemm-kernel{chunks=8 merge=atomic}",
                                    [], "m/x", [0.001], 0.4, False))
        m, n, k = shape
        reports.append(DeviceBenchReport(
            f"{m}x{n}x{k} {element} own", "prog", "cuda (NVIDIA H200)", "sm_80", 3, "numpy",
            configs, 2.0 * m * n * k,
            extra={"kind": "own", "group": f"{m}x{n}x{k} {element}", "element": element,
                   "shape": list(shape), "target": "sm_90", "tile": list(tile)},
        ))  # fmt: skip
    return reports, given


@pytest.mark.parametrize("element", ["f32", "f16"])
def test_the_fit_reproduces_the_times_it_was_given(element: str, tmp_path: Path) -> None:
    fitter = _load("fit_own_kernel", ROOT / "bench" / "fit_own_kernel.py")
    reports, given = _made_up(element)
    gpu_json = tmp_path / "gpu.json"
    gpu_json.write_text(to_json(reports))
    (found,) = fitter.fit(fitter.runs_of(json.loads(gpu_json.read_text())))
    assert found.rate == pytest.approx(RATE, rel=1e-9)
    assert found.atomic_rate == pytest.approx(ATOMICS, rel=1e-9)
    assert len(found.runs) == 3 * len(SHAPES) and found.worst < 1e-9

    entries = fitter.entries_of([found], ["sm_80"])
    written = tmp_path / "own_kernel_terms_written.py"
    table_source = (ROOT / "xsplit" / "targets" / "own_kernel_terms.py").read_text()
    written.write_text(fitter.rewrite_table(table_source, entries))
    table = _load("own_kernel_terms_written", written).OWN_KERNEL_TERMS
    for name in ("sm_90", "sm_80"):
        term = table[(name, element)]
        assert term.basis == MEASURED and term.source.startswith("measured on cuda (NVIDIA H200)")
    # The model with the written table gives back every time.
    term = table[("sm_90", element)]
    model = _with({element: OwnKernelTerm(term.rate, term.basis, term.source, term.atomic_rate)})
    for shape, tile, chunks, merge, seconds in given:
        e = own_kernel_estimate(matmul_problem(*shape, element), model, chunks, merge, tile)
        assert e.seconds == pytest.approx(seconds, rel=1e-9), (shape, merge)
    # What it had no runs for is as it was.
    other = "f16" if element == "f32" else "f32"
    assert vars(table[("sm_90", other)]) == vars(OWN_KERNEL_TERMS[("sm_90", other)])
    assert set(OWN_KERNEL_TERMS) <= set(table)


def test_a_measured_reference_term_carries_to_the_targets_derived_from_it() -> None:
    """sm_80 takes sm_90's measured term per SM; gfx942 stays SCALED from it."""
    measured = OwnKernelTerm(RATE, MEASURED, "made up")
    table = {**OWN_KERNEL_TERMS, ("sm_90", "f32"): measured}
    from xsplit.targets import table as targets

    saved = dict(targets.OWN_KERNEL_TERMS)
    targets.OWN_KERNEL_TERMS.update(table)
    try:
        sm_80 = own_kernel_fit(TARGETS["sm_80"], H200).term("f32")
        gfx942 = own_kernel_fit(TARGETS["gfx942"], H200).term("f32")
    finally:
        targets.OWN_KERNEL_TERMS.clear()
        targets.OWN_KERNEL_TERMS.update(saved)
    assert sm_80.rate == RATE and sm_80.basis == MEASURED
    assert gfx942.basis == "scaled" and "measured" in gfx942.source
    assert gfx942.rate == pytest.approx(RATE / H200.processor_flops("f32")
                                        * TARGETS["gfx942"].processor_flops("f32"))
