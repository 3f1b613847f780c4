"""`xsplit check`: does a pipeline keep a program's numerics? The original and
the rewritten module are compiled for the CPU and run on the same seeded random
inputs; each result's error is held against a dtype-aware tolerance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.interop.cpu_runner import run_on_cpu
from xsplit.interop.e2e import entry_function, random_inputs, tolerance
from xsplit.interop.iree_compile import compile_mlir


@dataclass(frozen=True)
class ResultCheck:
    index: int
    shape: tuple[int, ...]
    dtype: str
    max_abs_error: float
    max_rel_error: float
    """The largest error over the largest |reference| (normwise, so that
    results near zero do not blow it up)."""
    tolerance: float

    @property
    def passed(self) -> bool:
        return self.max_abs_error <= self.tolerance

    def describe(self) -> str:
        shape = "x".join(map(str, self.shape)) or "scalar"
        verdict = "PASS" if self.passed else "FAIL"
        return (
            f"result {self.index} ({shape} {self.dtype}): max abs error {self.max_abs_error:.3g}, "
            f"max rel error {self.max_rel_error:.3g}, tolerance {self.tolerance:.3g}: {verdict}"
        )


def compare(actual: np.ndarray, expected: np.ndarray, index: int) -> ResultCheck:
    diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = float(np.max(np.abs(expected.astype(np.float64)))) if expected.size else 0.0
    max_rel = max_abs / scale if scale > 0 else max_abs
    return ResultCheck(
        index,
        tuple(expected.shape),
        expected.dtype.name,
        max_abs,
        max_rel,
        tolerance(actual, expected),
    )


def check_pipeline(
    source: str,
    pipeline: str,
    dims: Sequence[int] = (),
    function: str | None = None,
    seed: int = 0,
    name: str = "<stdin>",
) -> list[ResultCheck]:
    """Runs `source` and its rewrite by `pipeline` on the CPU; compares each result."""
    original = parse_module(source, name)
    f = entry_function(original, function)
    inputs = random_inputs(f, dims, seed)
    rewritten = parse_module(source, name)
    run_passes(rewritten, build_pipeline(pipeline))
    fn = f.sym_name.data
    expected = run_on_cpu(compile_mlir(source, "cpu"), fn, inputs)
    actual = run_on_cpu(compile_mlir(print_module(rewritten), "cpu"), fn, inputs)
    return [compare(a, e, i) for i, (a, e) in enumerate(zip(actual, expected, strict=True))]
