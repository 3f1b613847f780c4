"""`xsplit bench`: xsplit's split against IREE alone, timed on this CPU, and
the split's workgroups against each GPU target's processors.

Every configuration is compiled for the CPU and loaded into one process; the
timed calls then alternate between configurations, round after round, so that
machine noise falls on all of them alike, and each reports its median. Inputs
are seeded random arrays placed on the device once for all timed calls (their
values may change as results are written into them, their shapes do not).
Every configuration's results are checked against IREE default's, on fresh
copies of the inputs, before it is timed.
"""

from __future__ import annotations

import io
import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.interop.check import compare, entry_function, random_inputs
from xsplit.interop.cpu_runner import to_numpy
from xsplit.interop.iree_compile import compile_mlir
from xsplit.interop.targets import GPU_TARGETS, target
from xsplit.interop.workgroups import split_dispatch_pair, workgroup_counts
from xsplit.rewrites.split_k import SPLIT_FACTOR_ATTR
from xsplit.tools.files import write_atomically

IREE_CONFIGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("iree-default", ()),
    ("iree-data-tiling", ("--iree-opt-data-tiling",)),
    ("iree-split-reduction", ("--iree-dispatch-creation-enable-split-reduction",)),
)
"""IREE alone, in the three configurations it offers for a large K."""

MODEL_CONFIG = "xsplit-model"


def split_pipeline(choice: str, strategy: str = "forall") -> str:
    """The pipeline bench runs: split-k with `choice` (factor=N or target=NAME)."""
    return f"split-k{{{choice} strategy={strategy}}},materialize-late"


@dataclass
class ConfigResult:
    name: str
    factor: int | None
    """The chunk count of an xsplit configuration (1: left whole)."""
    flags: list[str]
    times_ms: list[float] = field(default_factory=list)
    max_rel_error: float | None = None
    error: str | None = None
    """Why the configuration could not be compiled or run."""

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None


@dataclass
class GpuFill:
    target: str
    processors: int
    split_factor: int
    unsplit_workgroups: int | None
    split_workgroups: int | None
    error: str | None = None

    @staticmethod
    def waves_of(workgroups: int | None, processors: int) -> float | None:
        return None if workgroups is None else workgroups / processors

    @property
    def unsplit_waves(self) -> float | None:
        return self.waves_of(self.unsplit_workgroups, self.processors)

    @property
    def split_waves(self) -> float | None:
        return self.waves_of(self.split_workgroups, self.processors)

    @staticmethod
    def fill_of(workgroups: int | None, processors: int) -> float | None:
        """Busy processors over all, averaged over the waves."""
        if workgroups is None:
            return None
        return workgroups / (math.ceil(workgroups / processors) * processors)


@dataclass
class BenchReport:
    input: str
    function: str
    threads: int
    runs: int
    model_target: str
    model_factor: int
    model_remarks: list[str]
    configs: list[ConfigResult]
    gpu: list[GpuFill]

    def config(self, name: str) -> ConfigResult:
        return next(c for c in self.configs if c.name == name)

    def speedup(self, name: str, over: str = "iree-default") -> float | None:
        a, b = self.config(name).median_ms, self.config(over).median_ms
        return None if a is None or b is None else b / a

    def best_iree(self) -> ConfigResult | None:
        timed = [self.config(n) for n, _ in IREE_CONFIGS if self.config(n).median_ms is not None]
        return min(timed, key=lambda c: c.median_ms) if timed else None  # type: ignore[arg-type,return-value]

    def sweep(self) -> list[ConfigResult]:
        return [c for c in self.configs if c.name.startswith("xsplit-x") and c.median_ms]

    def best_sweep(self) -> ConfigResult | None:
        return min(self.sweep(), key=lambda c: c.median_ms, default=None)  # type: ignore[arg-type,return-value]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for c, raw in zip(self.configs, data["configs"]):
            raw["median_ms"] = c.median_ms
            raw["speedup_over_iree_default"] = self.speedup(c.name)
        for g, raw in zip(self.gpu, data["gpu"]):
            raw["unsplit_waves"] = g.unsplit_waves
            raw["split_waves"] = g.split_waves
            raw["unsplit_fill"] = GpuFill.fill_of(g.unsplit_workgroups, g.processors)
            raw["split_fill"] = GpuFill.fill_of(g.split_workgroups, g.processors)
        best, best_iree = self.best_sweep(), self.best_iree()
        model = self.config(MODEL_CONFIG).median_ms
        data["summary"] = {
            "best_iree": best_iree.name if best_iree else None,
            "model_over_best_iree": (
                best_iree.median_ms / model if best_iree and model else None  # type: ignore[operator]
            ),
            "model_over_iree_default": self.speedup(MODEL_CONFIG),
            "best_sweep_factor": best.factor if best else None,
            "model_over_best_sweep": (
                best.median_ms / model if best and model else None  # type: ignore[operator]
            ),
        }
        return data


@dataclass(frozen=True)
class Rewritten:
    text: str
    remarks: list[str]
    factor: int
    """The chunk count the cost model recorded on the first split, 1 if none."""


def _rewrite(source: str, pipeline: str, name: str) -> Rewritten:
    with collect_remarks() as remarks:
        module = parse_module(source, name)
        run_passes(module, build_pipeline(pipeline))
    recorded = (op.attributes.get(SPLIT_FACTOR_ATTR) for op in module.walk())
    factor = next((a.value.data for a in recorded if isinstance(a, IntegerAttr)), 1)
    return Rewritten(print_module(module), list(remarks), factor)


Progress = Callable[[str], None]


def run_bench(
    source: str,
    name: str,
    sweep: Sequence[int] = (),
    runs: int = 7,
    model_target: str = "cpu",
    gpu_targets: Sequence[str] = GPU_TARGETS,
    dims: Sequence[int] = (),
    function: str | None = None,
    seed: int = 0,
    strategy: str = "forall",
    progress: Progress = lambda step: None,
) -> BenchReport:
    """Compiles, checks and times every configuration; see the module doc.
    `progress` is called once per step (a compile, a round of timings)."""
    import iree.runtime as rt

    module = parse_module(source, name)
    f = entry_function(module, function, name)
    fn = f.sym_name.data
    inputs = random_inputs(f, dims, seed)

    programs: list[tuple[ConfigResult, str]] = [
        (ConfigResult(config_name, None, list(flags)), source) for config_name, flags in IREE_CONFIGS
    ]
    model = _rewrite(source, split_pipeline(f"target={model_target}", strategy), name)
    programs.append((ConfigResult(MODEL_CONFIG, model.factor, []), model.text))
    for factor in sweep:
        text = source if factor == 1 else _rewrite(
            source, split_pipeline(f"factor={factor} balanced=true", strategy), name
        ).text
        programs.append((ConfigResult(f"xsplit-x{factor}", factor, []), text))

    config = rt.Config("local-task")
    device_inputs = [rt.asdevicearray(config.device, a) for a in inputs]
    loaded: list[tuple[ConfigResult, Callable[..., Any]]] = []
    reference: list[np.ndarray] | None = None
    for result, text in programs:
        progress(f"compile {result.name}")
        try:
            vmfb = compile_mlir(text, "cpu", result.flags, phase=f"compiling {result.name}")
            context = rt.SystemContext(config=config)
            context.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
            call = context.modules.module[fn]
            # Fresh inputs: IREE may write a result into an argument's buffer
            # (an `outs` init), so timed calls leave the shared ones changed.
            outputs = to_numpy(call(*[rt.asdevicearray(config.device, a) for a in inputs]))
        except XsplitError as e:
            result.error = e.message
            continue
        except (ValueError, RuntimeError) as e:  # the runtime's, on a program it cannot run
            result.error = f"the IREE runtime failed: {str(e).strip().splitlines()[0]}"
            continue
        if reference is None:
            reference = outputs
        checks = [compare(o, r, i) for i, (o, r) in enumerate(zip(outputs, reference))]
        result.max_rel_error = max((c.max_rel_error for c in checks), default=0.0)
        if not all(c.passed for c in checks):
            result.error = f"wrong results (max rel error {result.max_rel_error:.3g})"
            continue
        loaded.append((result, call))

    for round_index in range(runs):
        progress(f"round {round_index + 1}/{runs}")
        for result, call in loaded:
            start = time.perf_counter()
            to_numpy(call(*device_inputs))
            result.times_ms.append((time.perf_counter() - start) * 1e3)

    gpu: list[GpuFill] = []
    for target_name in gpu_targets:
        progress(f"compile for {target_name}")
        t = target(target_name)
        split = _rewrite(source, split_pipeline(f"target={t.name}", strategy), name)
        fill = GpuFill(t.name, t.processors, split.factor, None, None)
        try:
            fill.unsplit_workgroups, fill.split_workgroups = split_dispatch_pair(
                workgroup_counts(source, t.name, f"reading the workgroup counts of {name}"),
                workgroup_counts(
                    split.text, t.name, f"reading the workgroup counts of {name} split"
                ),
            )
        except XsplitError as e:
            fill.error = e.message
        gpu.append(fill)

    return BenchReport(
        name,
        fn,
        target("cpu").processors,
        runs,
        model_target,
        model.factor,
        model.remarks,
        [r for r, _ in programs],
        gpu,
    )


def steps(sweep: Sequence[int], runs: int, gpu_targets: Sequence[str]) -> int:
    """How many times `run_bench` calls `progress`."""
    return len(IREE_CONFIGS) + 1 + len(sweep) + runs + len(gpu_targets)


def format_table(report: BenchReport) -> str:
    base = report.config("iree-default").median_ms
    lines = [
        (
            f"{report.input} @{report.function}: CPU, {report.threads} threads, "
            f"median of {report.runs} alternating runs"
        ),
        f"  {'configuration':24s} {'chunks':>6s} {'median ms':>10s} {'speedup over IREE default':>26s}",
    ]
    for c in report.configs:
        count = "" if c.factor is None else str(c.factor)
        if c.median_ms is None:
            lines.append(f"  {c.name:24s} {count:>6s} {'-':>10s}  {c.error or 'not run'}")
            continue
        speedup = f"{base / c.median_ms:.2f}x" if base else "-"
        lines.append(f"  {c.name:24s} {count:>6s} {c.median_ms:10.2f} {speedup:>26s}")
    best_iree, model = report.best_iree(), report.config(MODEL_CONFIG).median_ms
    if best_iree and model:
        lines.append(
            "  "
            + _compare(
                f"xsplit with the model's {chunks(report.model_factor)}",
                f"IREE's best ({best_iree.name})",
                best_iree.median_ms / model,  # type: ignore[operator]
            )
        )
    best = report.best_sweep()
    if best and model:
        lines.append(
            f"  best of the sweep: {chunks(best.factor or 1)}; "
            + _compare("the model's pick", "that", best.median_ms / model)  # type: ignore[operator]
        )
    if report.gpu:
        lines.append("GPU targets (compiled): the split dispatch's workgroups over processors")
        for g in report.gpu:
            if g.error:
                lines.append(f"  {g.target:7s} {g.error}")
                continue
            lines.append(
                f"  {g.target:7s} {g.processors:4d} processors: unsplit "
                f"{_waves(g.unsplit_workgroups, g.processors)}; split in "
                f"{chunks(g.split_factor)}: "
                f"{_waves(g.split_workgroups, g.processors)}"
            )
    return "\n".join(lines)


def _waves(workgroups: int | None, processors: int) -> str:
    if workgroups is None:
        return "dynamic"
    fill = GpuFill.fill_of(workgroups, processors)
    waves = workgroups / processors
    return (
        f"{plural(workgroups, 'workgroup')}, {waves:.2f} {'wave' if waves == 1 else 'waves'}, "
        f"{fill:.0%} fill"
    )


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def chunks(n: int) -> str:
    return plural(n, "chunk")


def _compare(subject: str, other: str, ratio: float) -> str:
    """`subject` against `other` in plain English; `ratio` is the other's
    time over the subject's."""
    if abs(ratio - 1) < 0.005:
        return f"{subject} is as fast as {other}"
    if ratio > 1:
        return f"{subject} is {ratio:.2f}x as fast as {other}"
    return f"{subject} takes {1 / ratio:.2f}x as long as {other}"


def write_json(report: BenchReport, path: str) -> None:
    write_atomically(path, json.dumps(report.to_json(), indent=2) + "\n")


def require_matplotlib() -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        raise XsplitError("--plot needs matplotlib: pip install -e '.[plot]'") from None


def plot(report: BenchReport, path: str) -> None:
    """Speedup over IREE default against the chunk count, the model's pick marked."""
    require_matplotlib()
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter
    sweep = sorted(report.sweep(), key=lambda c: c.factor or 0)
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(
        [c.factor for c in sweep],
        [report.speedup(c.name) for c in sweep],
        marker="o",
        label="xsplit, factor sweep",
    )
    model = report.speedup(MODEL_CONFIG)
    if model is not None:
        axes.plot(
            [report.model_factor],
            [model],
            marker="*",
            markersize=16,
            linestyle="none",
            color="crimson",
            label=f"cost model's pick ({report.model_factor})",
        )
    for (name, _), style in zip(IREE_CONFIGS, (":", "--", "-.")):
        speedup = report.speedup(name)
        if speedup is not None:
            axes.axhline(speedup, linestyle=style, color="gray", label=name)
    axes.set_xscale("log", base=2)
    axes.xaxis.set_major_formatter(ScalarFormatter())
    axes.set_xlabel("chunks of K")
    axes.set_ylabel("speedup over IREE default")
    axes.set_title(f"{report.input} on the CPU ({report.threads} threads)")
    axes.legend(fontsize="small")
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format="png", dpi=120)
    plt.close(figure)
    write_atomically(path, image.getvalue())
