"""`xsplit bench`: xsplit's split against IREE alone, timed on this CPU, and
the split's workgroups against each GPU target's processors.

Every configuration is compiled for the CPU and loaded into one process; the
timed calls then alternate between configurations, round after round, each
round in a fresh (seeded) order, so that machine noise and what one call
leaves for the next fall on all of them alike, and each reports its median. Inputs
are seeded random arrays placed on the device once for all timed calls (their
values may change as results are written into them, their shapes do not).
Every configuration's results are checked against IREE default's, on fresh
copies of the inputs, before it is timed.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.attr_names import SPLIT_FACTOR as SPLIT_FACTOR_ATTR
from xsplit.bench.machine import ReadPass
from xsplit.bench.machine import read_bandwidth as read_bandwidth_probe
from xsplit.bench.programs import doubling_map, zero_init_matmul
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.files import write_output
from xsplit.interop.check import compare, entry_name, entry_point, magnitude_inputs, random_inputs
from xsplit.iree.cpu_runner import to_numpy
from xsplit.iree.iree_compile import compile_mlir
from xsplit.iree.workgroups import split_dispatch_pair, workgroup_counts
from xsplit.targets.table import GPU_TARGETS, reload_cpu_target, target

IREE_CONFIGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("iree-default", ()),
    ("iree-data-tiling", ("--iree-opt-data-tiling",)),
    ("iree-split-reduction", ("--iree-dispatch-creation-enable-split-reduction",)),
)
"""IREE alone, in the three configurations it offers for a large K."""

MODEL_CONFIG = "xsplit-model"

AUTO_CONFIG = "xsplit-auto"
"""`auto{target=cpu}`: the target model's choice of split, encode or both."""
ENCODED_SWEEP = "xsplit-enc-x"
"""Prefix of the encoded sweep: `set-encoding,split-k{factor=N},materialize-late`."""
NUMPY_CONFIG = "numpy"
READ_PASS_CONFIG = "read-pass"
"""A read-only pass on every core over as many bytes as the largest operand,
timed among the configurations of a product with few rows (a matvec, a
decode): the machine's read rate in the same minutes, which such a product,
reading its matrix once, can at best reach."""
PREFETCH_CONFIG = "xsplit-prefetch"
"""`stream-prefetch{prefetch=on}`: xsplit's own dispatch prefetching B, on
the products it takes (up to 16 rows against a row-major B)."""
STREAMED_MAX_ROWS = 16
"""Products of up to this many rows of A get a read pass beside them."""


def auto_pipeline(target_name: str) -> str:
    return f"auto{{target={target_name}}}"


def encoded_pipeline(factor: int) -> str:
    """The encoded sweep's pipeline: data tiling, split in `factor` chunks."""
    if factor == 1:
        return "set-encoding,materialize-late"
    return f"set-encoding,split-k{{factor={factor}}},materialize-late"


def sweep_options(factor: int | str) -> str:
    """split-k's options for one point of the CPU sweep (`factor`: a count, or a
    placeholder for the text of a report): the chunk count, in
    the form the CPU model's own split takes (aligned static chunks where the
    op allows, else balanced ones), so that the sweep is the model's rival."""
    cpu = target("cpu")
    aligned = f" align={cpu.split_align} pad_m={cpu.split_pad_m}" if cpu.split_align else ""
    if cpu.split_align and cpu.split_tiles:
        aligned += " cpu_tiles=true"
    return f"factor={factor} balanced=true{aligned}"


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
    same_as: str | None = None
    """The configuration that compiled to the same binary, byte for byte, and
    whose timings this one shares."""

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
    flops: float | None = None
    """Multiply-adds x 2 of the program's contractions (None: not a matmul)."""
    peak_gflops: float | None = None
    """This CPU's f32 peak, all threads (xsplit.targets.cpu_info)."""
    cpu: str = ""
    auto_choice: str = ""
    """What auto{target=cpu} did: whole, split N, encode, or split+encode N."""
    auto_remarks: list[str] = field(default_factory=list)
    streamed_bytes: int | None = None
    """The bytes of the largest operand, which `read-pass` reads, where one was timed."""

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

    def encoded_sweep(self) -> list[ConfigResult]:
        return [c for c in self.configs if c.name.startswith(ENCODED_SWEEP) and c.median_ms]

    def has(self, name: str) -> bool:
        return any(c.name == name for c in self.configs)

    def gflops(self, name: str) -> float | None:
        ms = self.config(name).median_ms if self.has(name) else None
        return None if ms is None or self.flops is None else self.flops / ms / 1e6

    def read_rate(self, name: str) -> float | None:
        """Bytes per second of the largest operand over `name`'s median
        time, where a read pass was timed."""
        ms = self.config(name).median_ms if self.has(name) else None
        if ms is None or self.streamed_bytes is None:
            return None
        return self.streamed_bytes / (ms / 1e3)

    def read_share(self, name: str) -> float | None:
        """`name`'s rate over the largest operand as a share of the read
        pass's: the median, over the rounds, of the pass's time over
        `name`'s in the same round. The machine's read rate drifts from
        minute to minute (a virtual machine's memory: the read passes of
        one run over the same 180 MB took 2.9 to 5.6 ms), and a ratio
        within a round leaves the drift out where a ratio of medians keeps
        it."""
        if not (self.has(name) and self.has(READ_PASS_CONFIG)):
            return None
        times = self.config(name).times_ms
        passes = self.config(READ_PASS_CONFIG).times_ms
        if not times or len(times) != len(passes) or self.streamed_bytes is None:
            return None
        return statistics.median(p / t for p, t in zip(passes, times))

    def roofline_ms(self) -> float | None:
        """The fastest any program could run: the peak's arithmetic, or the
        largest operand at the read pass's median rate, whichever is longer."""
        bounds = []
        if self.flops is not None and self.peak_gflops:
            bounds.append(self.flops / self.peak_gflops / 1e6)
        if self.has(READ_PASS_CONFIG) and (read_ms := self.config(READ_PASS_CONFIG).median_ms):
            bounds.append(read_ms)
        return max(bounds) if bounds else None

    def best_of_all_sweeps(self) -> ConfigResult | None:
        return min(
            [*self.sweep(), *self.encoded_sweep()],
            key=lambda c: c.median_ms,  # type: ignore[arg-type,return-value]
            default=None,
        )

    def best_sweep(self) -> ConfigResult | None:
        return min(self.sweep(), key=lambda c: c.median_ms, default=None)  # type: ignore[arg-type,return-value]

    @staticmethod
    def from_json(data: dict[str, Any]) -> BenchReport:
        """The report `to_json` wrote (its derived figures are recomputed)."""
        fields = {k: v for k, v in data.items() if k not in ("configs", "gpu", "summary")}
        configs = [
            ConfigResult(**{k: v for k, v in c.items() if k in _CONFIG_FIELDS})
            for c in data["configs"]
        ]
        gpu = [GpuFill(**{k: v for k, v in g.items() if k in _GPU_FIELDS}) for g in data["gpu"]]
        return BenchReport(**fields, configs=configs, gpu=gpu)

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
        auto = self.config(AUTO_CONFIG).median_ms if self.has(AUTO_CONFIG) else None
        best_any = self.best_of_all_sweeps()
        data["summary"] = {
            "cpu": self.cpu,
            "auto_over_best_iree": (
                best_iree.median_ms / auto if best_iree and auto else None  # type: ignore[operator]
            ),
            "auto_over_best_sweep": (
                auto / best_any.median_ms if best_any and auto else None  # type: ignore[operator]
            ),
            "best_sweep_config": best_any.name if best_any else None,
            "auto_gflops": self.gflops(AUTO_CONFIG),
            "best_iree_gflops": self.gflops(best_iree.name) if best_iree else None,
            "numpy_gflops": self.gflops(NUMPY_CONFIG),
            "read_pass_gbs": (rate / 1e9 if (rate := self.read_rate(READ_PASS_CONFIG)) else None),
            "auto_read_share": self.read_share(AUTO_CONFIG),
            "roofline_ms": self.roofline_ms(),
            "peak_gflops": self.peak_gflops,
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


_CONFIG_FIELDS = {"name", "factor", "flags", "times_ms", "max_rel_error", "error", "same_as"}
_GPU_FIELDS = {"target", "processors", "split_factor", "unsplit_workgroups", "split_workgroups", "error"}


@dataclass(frozen=True)
class Rewritten:
    text: str
    remarks: list[str]
    factor: int
    """The chunk count the cost model recorded on the first split, 1 if none."""


def rewrite_recorded(source: str, pipeline: str, name: str) -> Rewritten:
    with collect_remarks() as remarks:
        module = parse_module(source, name)
        run_passes(module, build_pipeline(pipeline))
    recorded = (op.attributes.get(SPLIT_FACTOR_ATTR) for op in module.walk())
    factor = next((a.value.data for a in recorded if isinstance(a, IntegerAttr)), 1)
    return Rewritten(print_module(module), list(remarks), factor)


Progress = Callable[[str], None]

SETTLE_SECONDS = 0.15
"""A pause before each timed call. OpenBLAS's threads spin for about 60 ms
after numpy's matmul returns, and IREE's workers after a call: timed right
after another configuration, a call shared the cores with those spinning
threads (1x4096x14336: IREE's medians 7-8 ms with 4.4 ms calls back to back;
the seed's shape with B transposed 48 ms after a 50 ms pause, 33 ms after
200 ms, numpy unchanged)."""

CALLER_NICENESS = 19
"""The niceness of the thread that makes the timed calls. IREE's workers are
pinned one to a core, and the caller's thread, waiting for a call to finish,
sometimes held a worker's core: single calls of one 1x4096x14336 program took
5.4 ms, or 8.0 ms when the caller ran 3 ms instead of 0.5 and the worker on
its core waited 2.5 ms, in streaks, so medians of 11 rounds landed on either
(7.0 and 8.0 ms for one program in one run). At niceness 19 the caller yields
the core: 15 calls of 2 to 128 chunks each, medians 5.44-5.52 ms, every third
quartile under 5.7 ms. numpy, whose calling thread computes, was unchanged
(5.46 and 5.55 ms)."""


def time_rounds(
    timed: Sequence[tuple[ConfigResult, Callable[[], Any]]],
    runs: int,
    seed: int,
    progress: Progress,
) -> None:
    """Times `runs` rounds of every call, on a thread of its own at
    CALLER_NICENESS (Linux sets a niceness per thread; the process and IREE's
    workers, created before, keep theirs)."""
    failure: list[BaseException] = []

    def rounds() -> None:
        try:
            if hasattr(os, "setpriority"):
                try:
                    os.setpriority(os.PRIO_PROCESS, 0, CALLER_NICENESS)
                except OSError:
                    pass
            # Each round takes the configurations in a fresh order: what one
            # call leaves (freed buffers, the allocator's state) slows the
            # next, and in a fixed order it always slows the same one (the
            # same program ran in 13.1 and 17.8 ms, as the model's pick and as
            # auto's, auto always after the 256-chunk split).
            order = random.Random(seed)
            for round_index in range(runs):
                progress(f"round {round_index + 1}/{runs}")
                for result, call in order.sample(list(timed), len(timed)):
                    time.sleep(SETTLE_SECONDS)
                    start = time.perf_counter()
                    call()
                    result.times_ms.append((time.perf_counter() - start) * 1e3)
        except BaseException as e:  # re-raised on the calling thread
            failure.append(e)

    worker = threading.Thread(target=rounds, name="xsplit-bench-timing")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]


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
    encodings: bool = True,
) -> BenchReport:
    """Compiles, checks and times every configuration; see the module doc.
    `progress` is called once per step (a compile, a round of timings)."""
    import iree.runtime as rt

    module = parse_module(source, name)
    f = entry_point(module, function, name)
    fn = entry_name(f)
    inputs = random_inputs(f, dims, seed)

    programs: list[tuple[ConfigResult, str]] = [
        (ConfigResult(config_name, None, list(flags)), source) for config_name, flags in IREE_CONFIGS
    ]
    model = rewrite_recorded(source, split_pipeline(f"target={model_target}", strategy), name)
    programs.append((ConfigResult(MODEL_CONFIG, model.factor, []), model.text))
    for factor in sweep:
        text = source if factor == 1 else rewrite_recorded(
            source, split_pipeline(sweep_options(factor), strategy), name
        ).text
        programs.append((ConfigResult(f"xsplit-x{factor}", factor, []), text))
    if model_target == "cpu":
        prefetching = rewrite_recorded(source, "stream-prefetch{prefetch=on}", name)
        if "memref.prefetch" in prefetching.text:
            programs.append((ConfigResult(PREFETCH_CONFIG, prefetching.factor, []), prefetching.text))
    auto_choice, auto_remarks = "", []
    if encodings:
        encoded_programs, auto_choice, auto_remarks = _encoded_programs(
            source, name, sweep, model_target
        )
        programs += encoded_programs

    config = rt.Config("local-task")
    device_inputs = [rt.asdevicearray(config.device, a) for a in inputs]
    loaded: list[tuple[ConfigResult, Callable[..., Any]]] = []
    # Configurations that compile to the same binary (auto's pick is usually
    # one sweep point, differing only in an attribute IREE drops) are timed
    # once: timed apart, one program measured 9.1 and 10.1 ms in one run, and
    # "auto within 10% of the sweep's best" compared noise with itself.
    binaries: dict[bytes, ConfigResult] = {}
    reference: list[np.ndarray] | None = None
    # The reference program on the inputs' absolute values: the scale of a
    # cancelling sum's rounding (see `tolerance`).
    magnitudes: list[np.ndarray | None] = []
    # A rewrite that changed nothing is IREE default's program, whatever
    # its text's source locations make of the binary's bytes: timed apart,
    # a transposed matvec left whole measured 6.6 against 6.5 ms.
    unchanged = print_module(parse_module(source, name))
    for result, text in programs:
        progress(f"compile {result.name}")
        if text == unchanged and not result.flags and result.name != IREE_CONFIGS[0][0]:
            result.same_as = IREE_CONFIGS[0][0]
            continue
        try:
            vmfb = compile_mlir(text, "cpu", result.flags, phase=f"compiling {result.name}")
            digest = hashlib.sha256(vmfb).digest()
            if digest in binaries:
                result.same_as = binaries[digest].name
                continue
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
            try:
                magnitudes = list(
                    to_numpy(call(*[rt.asdevicearray(config.device, a) for a in magnitude_inputs(inputs)]))
                )
            except (ValueError, RuntimeError):
                magnitudes = [None] * len(reference)
        checks = [
            compare(o, r, i, m) for i, (o, r, m) in enumerate(zip(outputs, reference, magnitudes))
        ]
        result.max_rel_error = max((c.max_rel_error for c in checks), default=0.0)
        if not all(c.passed for c in checks):
            result.error = f"wrong results (max rel error {result.max_rel_error:.3g})"
            continue
        loaded.append((result, call))
        binaries[digest] = result

    numpy_call = numpy_matmul(inputs) if encodings else None
    numpy_result = ConfigResult(NUMPY_CONFIG, None, [])
    if numpy_call is not None and reference is not None and len(reference) == 1:
        check = compare(
            np.asarray(numpy_call(), dtype=reference[0].dtype), reference[0], 0, magnitudes[0]
        )
        numpy_result.max_rel_error = check.max_rel_error
        if not check.passed:
            numpy_result.error = f"wrong results (max rel error {check.max_rel_error:.3g})"
            numpy_call = None
    elif numpy_call is not None:
        numpy_call = None
    timed: list[tuple[ConfigResult, Callable[[], Any]]] = [
        (result, functools.partial(lambda c: to_numpy(c(*device_inputs)), call))
        for result, call in loaded
    ]
    if numpy_call is not None:
        timed.append((numpy_result, numpy_call))
    read_result = ConfigResult(READ_PASS_CONFIG, None, [])
    read_pass = ReadPass.build(max(a.nbytes for a in inputs)) if _streams(inputs) else None
    if read_pass is not None:
        timed.append((read_result, read_pass))
    time_rounds(timed, runs, seed, progress)
    by_name = {r.name: r for r, _ in programs}
    for result, _ in programs:
        if result.same_as is not None:
            original = by_name[result.same_as]
            result.times_ms = list(original.times_ms)
            result.max_rel_error = original.max_rel_error

    gpu: list[GpuFill] = []
    for target_name in gpu_targets:
        progress(f"compile for {target_name}")
        t = target(target_name)
        # The fill of IREE's dispatches: xsplit's own kernel (which split-k
        # may choose on a GPU) is a custom dispatch whose grid its remark gives.
        split = rewrite_recorded(
            source, split_pipeline(f"target={t.name} kernel=iree", strategy), name
        )
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

    from xsplit.targets.cpu_info import host_cpu

    cpu = host_cpu()
    configs = [r for r, _ in programs] + [
        r for r in (numpy_result, read_result) if r.times_ms
    ]
    return BenchReport(
        name,
        fn,
        target("cpu").processors,
        runs,
        model_target,
        model.factor,
        model.remarks,
        configs,
        gpu,
        flops=matmul_flops(inputs),
        peak_gflops=peak_gflops(),
        cpu=cpu.describe(),
        auto_choice=auto_choice,
        auto_remarks=auto_remarks,
        streamed_bytes=None if read_pass is None else read_pass.nbytes,
    )


def _streams(inputs: Sequence[np.ndarray]) -> bool:
    """Whether the entry point is a product of few rows: a vector form, or a
    matmul of at most STREAMED_MAX_ROWS rows of A."""
    operands = _matmul_operands(inputs)
    if operands is not None:
        return operands[0].shape[0] <= STREAMED_MAX_ROWS
    return _vector_operands(inputs) is not None


@functools.lru_cache(maxsize=1)
def peak_gflops() -> float:
    """This machine's f32 peak, timed once per process (`xsplit.bench.machine`),
    or once per compile cache where XSPLIT_COMPILE_CACHE names one: the probe
    spins the CPU for seconds, and a test run's bench commands, on one machine,
    share its cache."""
    from xsplit.bench.machine import measure_peak
    from xsplit.iree.iree_compile import COMPILE_CACHE_VARIABLE

    directory = os.environ.get(COMPILE_CACHE_VARIABLE)
    path = os.path.join(directory, "peak-gflops") if directory else None
    if path is not None:
        try:
            with open(path) as f:
                return float(f.read())
        except (OSError, ValueError):
            pass
    peak = measure_peak().flops / 1e9
    if path is not None:
        try:
            write_output(path, f"{peak!r}\n")
        except XsplitError:
            pass  # only a cache: the next bench measures again
    return peak


def _encoded_programs(
    source: str, name: str, sweep: Sequence[int], model_target: str
) -> tuple[list[tuple[ConfigResult, str]], str, list[str]]:
    """`auto{target=...}` and, for each sweep factor, the encoded split; with
    what auto chose and its remarks."""
    import re

    auto = rewrite_recorded(source, auto_pipeline(model_target), name)
    factor = encoded_factor(auto)
    programs = [(ConfigResult(AUTO_CONFIG, factor, []), auto.text)]
    for f in sweep:
        text = rewrite_recorded(source, encoded_pipeline(f), name).text
        programs.append((ConfigResult(f"{ENCODED_SWEEP}{f}", f, []), text))
    if "linalg.batch_mmt4d" in auto.text:
        choice = f"split+encode {factor}"
    elif "linalg.mmt4d" in auto.text:
        choice = "encode"
    elif factor > 1:
        choice = f"split {factor}"
    elif "math.fma" in auto.text:
        # split-lanes' product: the only fma xsplit writes.
        # Its sums are N x L, or M x N x L for a few rows.
        lanes = re.search(r"-> tensor<(?:\d+x)+?(\d+)xf32> =", auto.text)
        choice = f"lanes {lanes.group(1)}" if lanes else "lanes"
    else:
        choice = "whole"
    return programs, choice, auto.remarks


def encoded_factor(rewritten: Rewritten) -> int:
    """The chunk count of a program `auto` produced: split-k's recorded factor,
    or the chunks of an encoded split (the batch_mmt4d's batch size)."""
    if rewritten.factor > 1:
        return rewritten.factor
    import re

    found = re.search(r"linalg\.batch_mmt4d ins\(%\S+, %\S+ : tensor<(\d+)x", rewritten.text)
    return int(found.group(1)) if found else 1


def _matmul_operands(inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...] | None:
    """The A, B (and C) of a matmul entry point, judged by shapes; B is
    returned as a K x N view where the entry point takes it transposed
    (N x K, as ONNX Gemm transB=1 and linear layers have it). numpy's result
    is checked against IREE's, so a wrong guess is reported, not timed."""
    if len(inputs) not in (2, 3) or inputs[0].ndim != 2 or inputs[1].ndim != 2:
        return None
    a, b = inputs[0], inputs[1]
    if a.dtype.kind != "f":
        return None
    if a.shape[1] != b.shape[0]:
        if a.shape[1] != b.shape[1]:
            return None
        b = b.T
    return (a, b, *inputs[2:])


def _vector_operands(
    inputs: Sequence[np.ndarray],
) -> tuple[np.ndarray, np.ndarray, bool, tuple[np.ndarray, ...]] | None:
    """The vector x, the matrix W, whether W is N x K (a matvec, `W @ x`)
    rather than K x N (a vecmat, `x @ W`), and the init if any, of a vector
    form's entry point (vecmat, matvec, their batched forms), judged by
    shapes and checked, like the matmul's guess, against IREE's result."""
    if len(inputs) not in (2, 3) or inputs[0].dtype.kind != "f":
        return None
    first, second = inputs[0], inputs[1]
    if first.ndim + 1 == second.ndim and first.ndim >= 1:
        x, w, transposed = first, second, False
        k_axis = -2
    elif first.ndim == second.ndim + 1 and second.ndim >= 1:
        x, w, transposed = second, first, True
        k_axis = -1
    else:
        return None
    if x.shape[:-1] != w.shape[:-2] or x.shape[-1] != w.shape[k_axis]:
        return None
    return x, w, transposed, tuple(inputs[2:])


def matmul_flops(inputs: Sequence[np.ndarray]) -> float | None:
    operands = _matmul_operands(inputs)
    if operands is not None:
        a, b = operands[0], operands[1]
        return 2.0 * a.shape[0] * a.shape[1] * b.shape[1]
    vector = _vector_operands(inputs)
    if vector is None:
        return None
    _, w, _, _ = vector
    return 2.0 * float(np.prod(w.shape))


def numpy_matmul(inputs: Sequence[np.ndarray]) -> Callable[[], Any] | None:
    """numpy's (OpenBLAS's) `A @ B + C` on the same inputs, for the same
    table; `x @ W` or `W @ x` for a vector form, batch by batch."""
    operands = _matmul_operands(inputs)
    if operands is not None:
        a, b = operands[0], operands[1]
        c = operands[2] if len(operands) == 3 else None
        return (lambda: a @ b + c) if c is not None else (lambda: a @ b)
    vector = _vector_operands(inputs)
    if vector is None:
        return None
    x, w, transposed, init = vector
    if x.ndim == 1:
        product = (lambda: w @ x) if transposed else (lambda: x @ w)
    elif transposed:
        product = lambda: np.matmul(w, x[..., None])[..., 0]  # noqa: E731
    else:
        product = lambda: np.matmul(x[..., None, :], w)[..., 0, :]  # noqa: E731
    if init:
        return lambda: product() + init[0]
    return product


def calibrate(seconds_per_measure: float = 2.0) -> tuple[float, float, str]:
    """Measures this CPU's per-core f32 FLOP/s on IREE's data-tiled matmul,
    its streaming bandwidth (an IREE elementwise map over 128 MiB) and its
    read bandwidth (`xsplit.bench.machine.read_bandwidth`), saves them in
    the per-user cache `target=cpu` reads, and returns the first two with
    the cache's path."""
    import iree.runtime as rt

    from xsplit.targets import cpu_info

    cpu = cpu_info.detect()
    config = rt.Config("local-task")

    def load(text: str, flags: Sequence[str] = ()) -> Callable[..., Any]:
        vmfb = compile_mlir(text, "cpu", flags)
        context = rt.SystemContext(config=config)
        context.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
        return context.modules.module["main"]

    def best_time(call: Callable[[], Any]) -> float:
        call()
        times, start = [], time.perf_counter()
        while time.perf_counter() - start < seconds_per_measure or len(times) < 3:
            t = time.perf_counter()
            call()
            times.append(time.perf_counter() - t)
        return min(times)

    n = 1024
    mm = load(zero_init_matmul(n), ("--iree-opt-data-tiling",))
    rng = np.random.default_rng(0)
    a = rt.asdevicearray(config.device, rng.standard_normal((n, n), dtype=np.float32))
    b = rt.asdevicearray(config.device, rng.standard_normal((n, n), dtype=np.float32))
    flops_per_core = 2.0 * n**3 / best_time(lambda: mm(a, b)) / cpu.cores

    size = 32 * 1024 * 1024  # 128 MiB in, 128 MiB out: well past the caches
    copy = load(doubling_map(size))
    x = rt.asdevicearray(config.device, np.ones(size, dtype=np.float32))
    bandwidth = 2.0 * size * 4 / best_time(lambda: copy(x))
    # Reading alone, from memory written before: what a split's operands
    # cost, and all a matvec costs. IREE's own sum over the rows of 128 MiB
    # (the measure until then) read 23-42 GB/s, best of 7, where a read pass
    # on both cores read 69-75 in the same minutes (Zen 5): the machine's
    # rate, not that reduction's code, bounds what a streamed split reads.
    read_bandwidth = read_bandwidth_probe().best
    path = cpu_info.save_calibration(cpu, flops_per_core, bandwidth, read_bandwidth=read_bandwidth)
    reload_cpu_target()
    return flops_per_core, bandwidth, str(path)


def steps(
    sweep: Sequence[int], runs: int, gpu_targets: Sequence[str], encodings: bool = True
) -> int:
    """How many times `run_bench` calls `progress`."""
    encoded = 1 + len(sweep) if encodings else 0
    return len(IREE_CONFIGS) + 1 + len(sweep) + encoded + runs + len(gpu_targets)


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
        shared = f"  (the binary of {c.same_as})" if c.same_as else ""
        lines.append(f"  {c.name:24s} {count:>6s} {c.median_ms:10.2f} {speedup:>26s}{shared}")
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
    lines += _encoding_lines(report)
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


def _encoding_lines(report: BenchReport) -> list[str]:
    """What `auto` and the encoded sweep add to the table."""
    lines: list[str] = []
    best_iree = report.best_iree()
    auto = report.config(AUTO_CONFIG).median_ms if report.has(AUTO_CONFIG) else None
    if best_iree and auto:
        lines.append(
            f"  xsplit auto over IREE's best ({best_iree.name}): "
            f"{best_iree.median_ms / auto:.2f}x"  # type: ignore[operator]
        )
    best = report.best_of_all_sweeps()
    if best and auto:
        lines.append(
            f"  best of both sweeps: {best.name}; auto takes {auto / best.median_ms:.2f}x its time"  # type: ignore[operator]
        )
    read = report.read_rate(READ_PASS_CONFIG)
    if read is not None:
        assert report.streamed_bytes is not None
        lines.append(
            f"  the largest operand ({report.streamed_bytes / 1e6:.0f} MB) read at "
            + ", ".join(
                f"{rate / 1e9:.1f} GB/s by {name} ({share:.0%} of the read pass)"
                for name in (AUTO_CONFIG, best_iree.name if best_iree else None, NUMPY_CONFIG)
                if name
                and (rate := report.read_rate(name)) is not None
                and (share := report.read_share(name)) is not None
            )
            + f"; the read pass on every core: {read / 1e9:.1f} GB/s"
        )
    if report.flops is not None and report.peak_gflops:
        for name in (AUTO_CONFIG, best_iree.name if best_iree else None, NUMPY_CONFIG):
            rate = report.gflops(name) if name else None
            if rate is not None:
                lines.append(
                    f"  {name}: {rate:.1f} GFLOP/s, {rate / report.peak_gflops:.0%} of the "
                    f"CPU's peak ({report.peak_gflops:.0f} GFLOP/s)"
                )
    return lines


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
    write_output(path, json.dumps(report.to_json(), indent=2) + "\n")


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
    encoded = sorted(report.encoded_sweep(), key=lambda c: c.factor or 0)
    if encoded:
        axes.plot(
            [c.factor for c in encoded],
            [report.speedup(c.name) for c in encoded],
            marker="s",
            label="xsplit, factor sweep with encodings",
        )
    auto = report.speedup(AUTO_CONFIG) if report.has(AUTO_CONFIG) else None
    if auto is not None:
        axes.plot(
            [report.config(AUTO_CONFIG).factor or 1],
            [auto],
            marker="P",
            markersize=14,
            linestyle="none",
            color="darkgreen",
            label="auto{target=cpu}",
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
    numpy_speedup = report.speedup(NUMPY_CONFIG) if report.has(NUMPY_CONFIG) else None
    if numpy_speedup is not None:
        axes.axhline(numpy_speedup, linestyle=":", color="navy", label="numpy")
    roofline = report.roofline_ms()
    base = report.config("iree-default").median_ms
    if roofline is not None and base:
        bound = "the peak" if report.read_rate(READ_PASS_CONFIG) is None else "the peak, the read pass"
        axes.axhline(base / roofline, color="black", linewidth=1, label=f"roofline ({bound})")
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
    write_output(path, image.getvalue())
