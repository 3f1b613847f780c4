"""`xsplit bench --device D` and its replay: the saved configurations of each
program checked and timed on a device, with numpy and IREE's runtime alone
(no xDSL, no iree-compile; see `xsplit.interop.saved`).

Per program: its inputs are made from the recipe; every distinct module runs
once on fresh device copies and its results are held to the reference
(numpy's float64 `A @ B (+ C)`, or the original on the CPU); then each is
timed by `iree-benchmark-module` on the device, with the inputs uploaded
once and resident through the timed loop, as the median of its repetitions.
A configuration with wrong results is timed too, and marked: the sweep's
best and the ratios leave it out. Where torch is importable and the device
is cuda, cuBLAS (`torch.matmul`, TF32 off) is timed on the same inputs with
CUDA events, as the median of single calls."""

from __future__ import annotations

import json
import math
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from xsplit.diagnostics import XsplitError
from xsplit.interop.saved import Manifest, SavedProgram, read_module, reference_for
from xsplit.iree.device import Device, benchmark, save_inputs

IREE_ALONE = "iree-default"
IREE_SPLIT = "iree-split-reduction"
AUTO = "xsplit-auto"
SWEEP_PREFIX = "xsplit-x"
CUBLAS = "cublas"

Progress = Callable[[str], None]


@dataclass
class DeviceConfig:
    name: str
    factor: int | None
    pipeline: str | None
    flags: list[str]
    module: str
    times_ms: list[float] = field(default_factory=list)
    max_rel_error: float | None = None
    passed: bool | None = None
    error: str | None = None
    same_as: str | None = None
    """The configuration whose binary this one is, byte for byte, and whose
    numbers it shares."""

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    @property
    def usable(self) -> bool:
        """Timed and right: what the best-of comparisons take."""
        return self.median_ms is not None and bool(self.passed)


@dataclass
class DeviceBenchReport:
    program: str
    function: str
    device: str
    compiled_for: str
    runs: int
    reference: str
    configs: list[DeviceConfig]
    flops: float | None = None
    auto_choice: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    """The compile side's notes on the program (its kind, its group, the peak)."""

    def config(self, name: str) -> DeviceConfig | None:
        return next((c for c in self.configs if c.name == name), None)

    def ms(self, name: str) -> float | None:
        c = self.config(name)
        return c.median_ms if c is not None and c.usable else None

    def best_iree(self) -> DeviceConfig | None:
        timed = [c for c in (self.config(IREE_ALONE), self.config(IREE_SPLIT)) if c and c.usable]
        return min(timed, key=lambda c: c.median_ms or math.inf, default=None)

    def best_sweep(self) -> DeviceConfig | None:
        timed = [c for c in self.configs if c.name.startswith(SWEEP_PREFIX) and c.usable]
        return min(timed, key=lambda c: c.median_ms or math.inf, default=None)

    def summary(self) -> dict[str, Any]:
        auto, best_iree, best = self.ms(AUTO), self.best_iree(), self.best_sweep()
        return {
            "iree_alone_ms": self.ms(IREE_ALONE),
            "iree_split_ms": self.ms(IREE_SPLIT),
            "auto_ms": auto,
            "auto_chunks": self.config(AUTO).factor if self.config(AUTO) else None,
            "best_iree": best_iree.name if best_iree else None,
            "best_sweep": best.name if best else None,
            "best_sweep_ms": best.median_ms if best else None,
            "cublas_ms": self.ms(CUBLAS),
            "auto_over_best_iree": _ratio(best_iree.median_ms if best_iree else None, auto),
            "auto_over_best_sweep": _ratio(best.median_ms if best else None, auto),
            "wrong": [c.name for c in self.configs if c.passed is False],
        }

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for c, raw in zip(self.configs, data["configs"]):
            raw["median_ms"] = c.median_ms
        data["summary"] = self.summary()
        return data


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator and denominator else None


def run_saved_bench(
    directory: str,
    manifest: Manifest,
    device: Device,
    cpu: Device | None,
    runs: int | None = None,
    progress: Progress = lambda step: None,
    report: Callable[[DeviceBenchReport], None] = lambda r: None,
    only: Sequence[str] = (),
    deadline_s: float | None = None,
    skipped: list[str] | None = None,
) -> list[DeviceBenchReport]:
    """Checks and times every program of a saved bench on `device` (those
    whose names contain one of `only`, if given); calls `report` as each
    program is done. Past `deadline_s` seconds no program is started: their
    names go to `skipped`, so that a device call of fixed length ends with
    what it measured written out."""
    skipped = skipped if skipped is not None else []
    runs = runs or int(manifest.options.get("runs", 5))
    min_time = float(manifest.options.get("min_time_s", 0.1))
    reports = []
    start = time.monotonic()
    for program in manifest.programs:
        if only and not any(part in program.name for part in only):
            continue
        if deadline_s is not None and time.monotonic() - start > deadline_s:
            skipped.append(program.name)
            continue
        result = bench_program(directory, manifest, program, device, cpu, runs, min_time, progress)
        report(result)
        reports.append(result)
    return reports


def bench_program(
    directory: str,
    manifest: Manifest,
    program: SavedProgram,
    device: Device,
    cpu: Device | None,
    runs: int,
    min_time_s: float,
    progress: Progress,
) -> DeviceBenchReport:
    progress(f"{program.name}: inputs and reference")
    inputs = program.recipe.make()
    reference = reference_for(directory, program, inputs, cpu)
    configs = [
        DeviceConfig(m.name, m.factor, m.pipeline, list(m.flags), m.path) for m in program.modules
    ]
    by_module: dict[str, DeviceConfig] = {}
    for config in configs:
        if config.module in by_module:
            config.same_as = by_module[config.module].name
            continue
        by_module[config.module] = config
        progress(f"{program.name}: {config.name} results")
        try:
            results = device.call(
                read_module(directory, config.module), program.function, inputs,
                f"running {program.name} ({config.name})",
            )
            checks = reference.check(results)
        except XsplitError as e:
            config.error = e.message
            continue
        config.max_rel_error = max((c.max_rel_error for c in checks), default=0.0)
        config.passed = all(c.passed for c in checks)
    scratch = tempfile.mkdtemp(prefix="xsplit-bench-inputs-")
    try:
        paths = save_inputs(inputs, scratch)
        timed = [c for c in by_module.values() if c.error is None]
        # A seeded order, so that what one configuration leaves behind (a
        # warm cache, a clock) does not always favour the same next one.
        for config in random.Random(0).sample(timed, len(timed)):
            progress(f"{program.name}: time {config.name}")
            try:
                config.times_ms = benchmark(
                    f"{directory}/{config.module}", program.function, paths, device.name,
                    runs, min_time_s,
                )
            except XsplitError as e:
                config.error = e.message
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for config in configs:
        if config.same_as is not None:
            original = by_module[config.module]
            config.times_ms, config.passed = list(original.times_ms), original.passed
            config.max_rel_error, config.error = original.max_rel_error, original.error
    cublas = cublas_config(program, inputs, reference, device.name, runs, progress)
    if cublas is not None:
        configs.append(cublas)
    return DeviceBenchReport(
        program.name, program.function, device.description, manifest.compiled_for, runs,
        reference.what, configs, program.flops, str(program.extra.get("auto_choice", "")),
        dict(program.extra),
    )


def cublas_config(
    program: SavedProgram,
    inputs: Sequence[np.ndarray],
    reference: Any,
    device: str,
    runs: int,
    progress: Progress,
) -> DeviceConfig | None:
    """cuBLAS through torch on the same inputs, where torch is importable,
    CUDA is available to it and the program is a matmul (or, where its
    extra names the form `matmul_rowsum`, a matmul whose rows are summed
    into an output); else None."""
    rowsum = program.extra.get("torch") == "matmul_rowsum"
    if device != "cuda" or program.extra.get("cublas") is False:
        return None
    if program.reference is None and not rowsum:
        return None
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    progress(f"{program.name}: cuBLAS")
    form = program.reference
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    def upload(index: int | None) -> Any:
        if index is None:
            return None
        return torch.from_numpy(np.ascontiguousarray(inputs[index])).cuda()

    if rowsum:
        # (A, B, O) -> O + the rows of A @ B summed, in f32 whatever A and B are.
        a, b, c = upload(0), upload(1), upload(2)

        def call() -> Any:
            return c + torch.matmul(a, b).sum(dim=1, dtype=torch.float32)

        what = "torch.matmul, then .sum(dim=1); TF32 off"
    else:
        a, b, c = upload(form.a), upload(form.b), upload(form.c)

        def call() -> Any:
            product = torch.matmul(a, b)
            return product + c if c is not None else product

        what = "torch.matmul, TF32 off"
    config = DeviceConfig(CUBLAS, None, None, [what], "")
    # In torch's own result type: an f16 matmul's result is f16 (rounded, and
    # held to f16's tolerance), where IREE's program returns f32.
    result = call().cpu().numpy()
    checks = reference.check([result])
    config.max_rel_error = max(ch.max_rel_error for ch in checks)
    config.passed = all(ch.passed for ch in checks)
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    samples = max(runs, 1) * 10
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        end.synchronize()
        config.times_ms.append(start.elapsed_time(end))
    return config


def format_table(report: DeviceBenchReport) -> str:
    """One program's configurations: median, ratio to IREE's best, and the
    error against the reference."""
    best_iree = report.best_iree()
    base = best_iree.median_ms if best_iree else None
    lines = [
        f"{report.program} @{report.function} on {report.device}, compiled for "
        f"{report.compiled_for}: median of {report.runs} repetitions (iree-benchmark-module, "
        f"inputs resident); errors against {report.reference}",
        f"  {'configuration':24s} {'chunks':>6s} {'median ms':>10s} {'over IREE best':>15s} "
        f"{'rel error':>10s}",
    ]
    for c in report.configs:
        count = "" if c.factor is None else str(c.factor)
        error = "-" if c.max_rel_error is None else f"{c.max_rel_error:.2g}"
        if c.median_ms is None:
            lines.append(f"  {c.name:24s} {count:>6s} {'-':>10s} {'':>15s} {error:>10s}  "
                         f"{c.error or 'not run'}")
            continue
        ratio = f"{base / c.median_ms:.2f}x" if base else "-"
        notes = []
        if c.passed is False:
            notes.append("WRONG")
        if c.same_as:
            notes.append(f"the binary of {c.same_as}")
        note = f"  ({'; '.join(notes)})" if notes else ""
        lines.append(
            f"  {c.name:24s} {count:>6s} {c.median_ms:10.3f} {ratio:>15s} {error:>10s}{note}"
        )
    summary = report.summary()
    if summary["auto_over_best_iree"] is not None:
        lines.append(
            f"  xsplit auto ({report.auto_choice or 'its pick'}) over IREE's best "
            f"({summary['best_iree']}): {summary['auto_over_best_iree']:.2f}x"
        )
    if summary["auto_over_best_sweep"] is not None:
        lines.append(
            f"  best of the sweep: {summary['best_sweep']} ({summary['best_sweep_ms']:.3f} ms); "
            f"auto is {summary['auto_over_best_sweep']:.2f}x as fast"
        )
    if summary["wrong"]:
        lines.append(f"  wrong results: {', '.join(summary['wrong'])}")
    return "\n".join(lines)


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def markdown(
    reports: Sequence[DeviceBenchReport], title: str = "", skipped: Sequence[str] = ()
) -> str:
    """The programs side by side, ms and ratios, as RESULTS-gpu.md has them
    (`gpu_markdown`'s layout where the programs are the GPU benchmark's)."""
    if any("kind" in r.extra for r in reports):
        return gpu_markdown(reports, title, skipped)
    device = reports[0].device if reports else ""
    lines = [
        title or f"Timed on {device}",
        "",
        "| program | IREE alone | IREE's split | xsplit auto (chunks) | sweep's best (chunks) | "
        "cuBLAS | auto's speedup over IREE's best | over the sweep's best | wrong |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        s = summary = r.summary()
        best = r.best_sweep()
        lines.append(
            f"| {r.program} | {_ms(s['iree_alone_ms'])} | {_ms(s['iree_split_ms'])} | "
            f"{_ms(s['auto_ms'])} ({summary['auto_chunks'] or '-'}) | "
            f"{_ms(s['best_sweep_ms'])} ({best.factor if best else '-'}) | {_ms(s['cublas_ms'])} | "
            f"{_x(s['auto_over_best_iree'])} | {_x(s['auto_over_best_sweep'])} | "
            f"{', '.join(s['wrong']) or 'none'} |"
        )
    lines += [
        "",
        "Times in ms: medians of iree-benchmark-module's repetitions (inputs resident on the "
        "device), cuBLAS of single calls timed with CUDA events. A speedup over 1 means auto is "
        "faster. `wrong`: configurations whose results missed the reference's tolerance (left "
        "out of the best-ofs).",
    ]
    geo = [s for s in (r.summary()["auto_over_best_iree"] for r in reports) if s]
    if geo:
        mean = math.exp(sum(math.log(v) for v in geo) / len(geo))
        lines.append(f"\nauto over IREE's best: geomean {mean:.2f}x, worst {min(geo):.2f}x "
                     f"over {len(geo)} programs.")
    if skipped:
        lines.append(f"\nNot run (past the time allowed): {', '.join(skipped)}.")
    return "\n".join(lines) + "\n"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def to_json(reports: Sequence[DeviceBenchReport]) -> str:
    return json.dumps([r.to_json() for r in reports], indent=1) + "\n"


# The GPU benchmark's layout (bench/gpu.py): programs of four kinds, named
# in their `extra`, grouped into one row per shape and element type.
OWN_ATOMIC, OWN_DETERMINISTIC = "own-atomic", "own-deterministic"
FUSED_PREFIX = "fused-"


def _best(report: DeviceBenchReport | None, prefix: str = "") -> DeviceConfig | None:
    if report is None:
        return None
    timed = [
        c for c in report.configs if c.name.startswith(prefix) and c.name != CUBLAS and c.usable
    ]
    return min(timed, key=lambda c: c.median_ms or math.inf, default=None)


def _tflops(report: DeviceBenchReport, ms: float | None) -> str:
    if not ms or not report.flops:
        return "-"
    rate = report.flops / (ms * 1e-3)
    peak = report.extra.get("peak_flops")
    share = f" ({100 * rate / peak:.0f}%)" if peak else ""
    return f"{rate / 1e12:.1f}{share}"


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def gpu_markdown(
    reports: Sequence[DeviceBenchReport], title: str = "", skipped: Sequence[str] = ()
) -> str:
    """The GPU benchmark's tables: per shape and element type, IREE alone,
    IREE's split, xsplit through IREE's code (auto, the sweep's best),
    xsplit's own kernel (atomic and deterministic merges, and the best of
    its chunk counts) and cuBLAS, with ratios to cuBLAS and the peak; the
    own kernel's tile sweep; the fused GEMM + row sum against torch."""
    device = reports[0].device if reports else ""
    by_kind: dict[str, list[DeviceBenchReport]] = {}
    for r in reports:
        by_kind.setdefault(str(r.extra.get("kind", "matmul")), []).append(r)
    own = {r.extra.get("group"): r for r in by_kind.get("own", [])}
    lines = [title or f"Timed on {device}", ""]
    gemm = by_kind.get("matmul", [])
    if gemm:
        lines += [
            "## Split-K GEMMs",
            "",
            "| program | IREE alone | IREE's split | xsplit auto (chunks) | sweep's best (chunks) | "
            "own, atomic (tiles, chunks) | own, deterministic | own's best (chunks) | cuBLAS | "
            "auto / cuBLAS | own's best / cuBLAS | own TFLOP/s (% of peak) | cuBLAS TFLOP/s (% of peak) "
            "| wrong |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        ratios: dict[str, dict[str, list[float]]] = {}
        for r in gemm:
            s, o = r.summary(), own.get(r.extra.get("group", r.program))
            best = r.best_sweep()
            cublas = s["cublas_ms"]
            atomic = o.config(OWN_ATOMIC) if o else None
            own_best = _best(o)
            own_ms = own_best.median_ms if own_best else None
            wrong = s["wrong"] + ([c.name for c in o.configs if c.passed is False] if o else [])
            errors = [f"{c.name} not run" for c in (o.configs if o else []) if c.error]
            auto_ratio, own_ratio = _ratio(s["auto_ms"], cublas), _ratio(own_ms, cublas)
            dtype = str(r.extra.get("element", ""))
            for key, value in (("auto", auto_ratio), ("own", own_ratio)):
                if value:
                    ratios.setdefault(dtype, {}).setdefault(key, []).append(value)
                    if r.extra.get("skinny"):
                        ratios.setdefault(f"{dtype} skinny", {}).setdefault(key, []).append(value)
            lines.append(
                f"| {r.program} | {_ms(s['iree_alone_ms'])} | {_ms(s['iree_split_ms'])} | "
                f"{_ms(s['auto_ms'])} ({s['auto_chunks'] or '-'}) | "
                f"{_ms(s['best_sweep_ms'])} ({best.factor if best else '-'}) | "
                f"{_ms(o.ms(OWN_ATOMIC) if o else None)} "
                f"({(o.extra.get('tiles', '') + ', ') if o else ''}{atomic.factor if atomic else '-'}) | "
                f"{_ms(o.ms(OWN_DETERMINISTIC) if o else None)} | "
                f"{_ms(own_ms)} ({own_best.factor if own_best else '-'}) | {_ms(cublas)} | "
                f"{_x(auto_ratio)} | {_x(own_ratio)} | {_tflops(r, own_ms)} | {_tflops(r, cublas)} | "
                f"{', '.join(wrong + errors) or 'none'} |"
            )
        lines += [
            "",
            "Times in ms: medians of iree-benchmark-module's repetitions (inputs resident on the "
            "device), cuBLAS (torch) of single calls timed with CUDA events. `x / cuBLAS` is x's time "
            "over cuBLAS's: above 1, slower than cuBLAS. The own kernel's programs take C as a third "
            "input (C + A @ B, the form gemm-kernel takes): the atomic merge adds into it. "
            "`wrong`: configurations whose results missed the reference's tolerance (left out of "
            "the best-ofs).",
            "",
        ]
        for group in sorted(ratios):
            parts = [
                f"{key} {_geomean(v):.2f}x (worst {max(v):.2f}x, {len(v)} shapes)"
                for key, v in sorted(ratios[group].items())
            ]
            lines.append(f"- {group}, time over cuBLAS, geomean: {'; '.join(parts)}")
        if ratios:
            lines.append("")
    tiles = by_kind.get("tiles", [])
    if tiles:
        lines += ["## The own kernel's tile sweep", ""]
        for r in tiles:
            best = _best(r)
            lines += [
                f"### {r.program} ({r.extra.get('element')}, {r.extra.get('class')} outputs)",
                "",
                "| tiles | chunks | ms | TFLOP/s (% of peak) | error | |",
                "|---|---|---|---|---|---|",
            ]
            for c in r.configs:
                mark = "WRONG" if c.passed is False else c.error or ""
                mark = "**best**" if c is best else mark
                error = "-" if c.max_rel_error is None else f"{c.max_rel_error:.2g}"
                lines.append(
                    f"| {c.name} | {c.factor or '-'} | {_ms(c.median_ms)} | "
                    f"{_tflops(r, c.median_ms)} | {error} | {mark} |"
                )
            for label, why in r.extra.get("left_out", {}).items():
                lines.append(f"| {label} | | | | | left out: {why} |")
            lines.append("")
        lines.append(
            "`python bench/pick_gemm_tiles.py gpu.json` writes each sweep's best into "
            "xsplit/targets/gemm_tiles.py.\n"
        )
    fused = by_kind.get("fused", [])
    if fused:
        lines += [
            "## Fused GEMM + row sum",
            "",
            "| program | IREE alone (unfused) | fused, atomic | fused, deterministic | torch (matmul, "
            "then sum) | fused's best / torch | IREE / torch | wrong |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in fused:
            best = _best(r, FUSED_PREFIX)
            torch_ms = r.ms(CUBLAS)
            wrong = [c.name for c in r.configs if c.passed is False]
            lines.append(
                f"| {r.program} | {_ms(r.ms(IREE_ALONE))} | {_ms(r.ms(FUSED_PREFIX + 'atomic'))} | "
                f"{_ms(r.ms(FUSED_PREFIX + 'deterministic'))} | {_ms(torch_ms)} | "
                f"{_x(_ratio(best.median_ms if best else None, torch_ms))} | "
                f"{_x(_ratio(r.ms(IREE_ALONE), torch_ms))} | {', '.join(wrong) or 'none'} |"
            )
        lines.append("")
    if skipped:
        lines.append(f"Not run (past the time allowed): {', '.join(skipped)}.")
    return "\n".join(lines).rstrip("\n") + "\n"
