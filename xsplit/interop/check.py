"""`xsplit check`: does a pipeline keep a program's numerics? The original and
the rewritten module are compiled for the CPU and run on the same seeded random
inputs; each result's error is held against a dtype-aware tolerance. The
pieces (entry function, random inputs, tolerance) serve `xsplit-e2e` and
`xsplit bench` too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, BFloat16Type, ModuleOp, TensorType
from xdsl.ir import Attribute

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.diagnostics import XsplitError
from xsplit.interop.cpu_runner import run_on_cpu
from xsplit.interop.iree_compile import compile_mlir
from xsplit.reference import numpy_dtype as reference_dtype


def numpy_dtype(element: Attribute) -> np.dtype:
    """The numpy type of an argument's elements. The runtime takes no bf16
    arrays, so a bf16 argument is refused rather than fed as f32."""
    if isinstance(element, BFloat16Type):
        raise XsplitError("bf16 arguments cannot be fed from numpy; take f32 and truncate")
    try:
        return reference_dtype(element)
    except NotImplementedError:
        raise XsplitError(f"no numpy type for {element} arguments") from None


def entry_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    for f in functions:
        if name is None or f.sym_name.data == name:
            return f
    raise XsplitError(f"no function {'@' + name if name else ''} with a body to run")


def random_inputs(f: func.FuncOp, dims: Sequence[int], seed: int = 0) -> list[np.ndarray]:
    """Seeded random arguments: floats in [-1, 1), small signed integers.
    Dynamic dimensions take the values of `dims`, in order of appearance."""
    rng = np.random.default_rng(seed)
    pending = list(dims)
    inputs: list[np.ndarray] = []
    for t in f.function_type.inputs.data:
        if not isinstance(t, TensorType):
            raise XsplitError(f"@{f.sym_name.data} takes {t}; only tensors can be fed")
        shape = []
        for d in t.get_shape():
            if d == DYNAMIC_INDEX:
                if not pending:
                    raise XsplitError(
                        f"@{f.sym_name.data} has more dynamic dimensions than the "
                        f"{len(dims)} given with --dim"
                    )
                d = pending.pop(0)
            shape.append(d)
        dtype = numpy_dtype(t.element_type)
        if dtype.kind == "f":
            inputs.append(rng.uniform(-1, 1, shape).astype(dtype))
        else:
            inputs.append(rng.integers(-8, 8, shape).astype(dtype))
    return inputs


RELATIVE_TOLERANCE = {"float64": 1e-10, "float32": 2e-4, "float16": 2e-2}
"""Allowed error relative to the largest result, per result dtype. Splitting
re-associates the sum: for f32 and K = 51234 the two orders differ by about
4e-5 of the largest result."""


def tolerance(result: np.ndarray, reference: np.ndarray) -> float:
    """The largest error a re-association of the reduction may cause."""
    if result.dtype.kind in "iub":
        return 0.0
    scale = float(np.max(np.abs(reference))) if reference.size else 0.0
    return RELATIVE_TOLERANCE[result.dtype.name] * max(1.0, scale)


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


def check_rewrite(
    source: str,
    pipeline: str,
    dims: Sequence[int] = (),
    function: str | None = None,
    seed: int = 0,
    name: str = "<string>",
) -> tuple[str, list[ResultCheck]]:
    """Runs `source` and its rewrite by `pipeline` on the CPU and compares each
    result; returns the rewritten IR too."""
    original = parse_module(source, name)
    f = entry_function(original, function)
    inputs = random_inputs(f, dims, seed)
    rewritten = parse_module(source, name)
    run_passes(rewritten, build_pipeline(pipeline))
    rewritten_text = print_module(rewritten)
    fn = f.sym_name.data
    expected = run_on_cpu(compile_mlir(source, "cpu"), fn, inputs)
    actual = run_on_cpu(compile_mlir(rewritten_text, "cpu"), fn, inputs)
    checks = [compare(a, e, i) for i, (a, e) in enumerate(zip(actual, expected, strict=True))]
    return rewritten_text, checks
