"""End to end: rewrite a program, compile it and the original with iree-compile,
run both on the CPU on the same random inputs, compile for the GPU targets, and
compare each target's workgroup counts.

    xsplit-e2e IN.mlir -p 'split-k{factor=77},materialize-late' [--dim N ...]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, BFloat16Type, ModuleOp, TensorType
from xdsl.ir import Attribute

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.diagnostics import XsplitError
from xsplit.interop.cpu_runner import run_on_cpu
from xsplit.interop.iree_compile import compile_mlir
from xsplit.interop.targets import COMPILED_GPU_TARGETS
from xsplit.interop.workgroups import DispatchCount, workgroup_counts
from xsplit.reference import numpy_dtype as reference_dtype
from xsplit.tools.args import add_run_options


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


@dataclass
class E2EReport:
    max_abs_error: list[float] = field(default_factory=list)
    tolerances: list[float] = field(default_factory=list)
    counts_before: dict[str, list[DispatchCount]] = field(default_factory=dict)
    counts_after: dict[str, list[DispatchCount]] = field(default_factory=dict)

    @property
    def numerics_pass(self) -> bool:
        return all(e <= t for e, t in zip(self.max_abs_error, self.tolerances))

    def split_dispatch_workgroups(self, target: str) -> tuple[int | None, int | None]:
        """Workgroups of the reduction's dispatch, unsplit and split.

        IREE numbers dispatches in program order and names each after its root
        op. The unsplit reduction is the first dispatch not named elementwise;
        what comes before it is the same in both programs, so the split loop's
        dispatch has the same number (its merge comes after it)."""
        before, after = self.counts_before[target], self.counts_after[target]
        index = next((i for i, c in enumerate(before) if "_elementwise_" not in c.dispatch), 0)
        if index >= len(before) or index >= len(after):
            return None, None
        return before[index].total, after[index].total


def run_e2e(
    source: str,
    pipeline: str,
    dims: Sequence[int] = (),
    gpu_targets: Sequence[str] = COMPILED_GPU_TARGETS,
    function: str | None = None,
    seed: int = 0,
) -> tuple[str, E2EReport]:
    """Rewrites `source` and checks the result against it; returns the IR and a report."""
    original = parse_module(source)
    f = entry_function(original, function)
    name = f.sym_name.data
    inputs = random_inputs(f, dims, seed)
    rewritten = parse_module(source)
    run_passes(rewritten, build_pipeline(pipeline))
    rewritten_text = print_module(rewritten)

    report = E2EReport()
    expected = run_on_cpu(compile_mlir(source, "cpu"), name, inputs)
    actual = run_on_cpu(compile_mlir(rewritten_text, "cpu"), name, inputs)
    for got, want in zip(actual, expected, strict=True):
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        report.max_abs_error.append(float(diff.max()) if diff.size else 0.0)
        report.tolerances.append(tolerance(got, want))
    for target_name in ("cpu", *gpu_targets):
        report.counts_before[target_name] = workgroup_counts(source, target_name)
        report.counts_after[target_name] = workgroup_counts(rewritten_text, target_name)
    return rewritten_text, report


def format_report(report: E2EReport) -> str:
    lines = []
    for i, (err, tol) in enumerate(zip(report.max_abs_error, report.tolerances)):
        verdict = "PASS" if err <= tol else "FAIL"
        lines.append(
            f"result {i}: max |split - unsplit| = {err:.3g} (tolerance {tol:.3g}): {verdict}"
        )
    lines.append("workgroups per dispatch, in program order (all targets compiled):")
    for target_name in report.counts_after:
        before = ", ".join(_describe(c) for c in report.counts_before[target_name])
        after = ", ".join(_describe(c) for c in report.counts_after[target_name])
        lines.append(f"  {target_name:6s} unsplit [{before}]  split [{after}]")
    return "\n".join(lines)


def _describe(count: DispatchCount) -> str:
    return "dynamic" if count.total is None else str(count.total)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xsplit-e2e", description=__doc__.split("\n\n")[0])
    parser.add_argument("input_file")
    parser.add_argument("-p", "--passes", required=True)
    add_run_options(parser)
    parser.add_argument("--print-ir", action="store_true", help="print the rewritten IR")
    args = parser.parse_args(argv)
    try:
        with open(args.input_file, encoding="utf-8") as f:
            source = f.read()
        text, report = run_e2e(source, args.passes, args.dim, function=args.function)
    except OSError as e:
        print(f"xsplit-e2e: error: cannot read '{args.input_file}': {e.strerror}", file=sys.stderr)
        return 1
    except XsplitError as e:
        print(e.diagnostic, file=sys.stderr)
        return 1
    if args.print_ir:
        print(text)
    print(format_report(report))
    return 0 if report.numerics_pass else 1


def console_main() -> None:
    sys.exit(main())
