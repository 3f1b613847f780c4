"""The compile side of `xsplit bench --device D`: every configuration of each
program compiled for the device and saved with its inputs' recipe (see
`xsplit.interop.saved`); `xsplit.bench.device_timing` checks and times them,
here or, through `python -m xsplit.replay`, on another machine.

The configurations: IREE alone; IREE's own split
(`--iree-dispatch-creation-enable-split-reduction`); xsplit's pick,
`auto{target=T}` with T the device's model target (sm_90 for cuda); and the
sweep, split-k at each chunk count in static chunks (`device_sweep_options`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xsplit.api import parse_module, print_module
from xsplit.bench.driver import encoded_factor, rewrite_recorded, auto_pipeline, matmul_flops, sweep_options
from xsplit.interop.check import (
    compiler_version,
    entry_point,
    input_recipe,
    refuse_gpu_kernels,
    saved_program,
)
from xsplit.interop.saved import Manifest, SavedModule, SavedProgram, store_module, write_manifest
from xsplit.iree.device import COMPILE_TARGET, MODEL_TARGET
from xsplit.iree.iree_compile import compile_mlir
from xsplit.targets.gpu_tiles import carries_gpu_tiles, drop_gpu_tiles
from xsplit.targets.table import target

SPLIT_REDUCTION_FLAG = "--iree-dispatch-creation-enable-split-reduction"

GPU_SWEEP_ALIGN = 64
"""Chunks a multiple of 64 long, M padded to 64, where the target names no
alignment of its own: the static form that ran right and fast on the H200
(docs/gpu-notes.md, third run), where dynamic chunks were wrong on some
shapes and slow on all."""

DEFAULT_DEVICE_SWEEP = (8, 16, 32, 64, 128, 256)


def device_sweep_options(factor: int | str, model_target: str) -> str:
    """split-k's options for one sweep point on a device: the CPU's own form
    (`sweep_options`) for the CPU, else static chunks aligned as the target
    asks (`split_align`, `split_pad_m`) or by GPU_SWEEP_ALIGN."""
    t = target(model_target)
    if not t.is_gpu:
        return sweep_options(factor)
    align = t.split_align or GPU_SWEEP_ALIGN
    pad_m = t.split_pad_m or GPU_SWEEP_ALIGN
    return f"factor={factor} align={align} pad_m={pad_m}"


def device_sweep_pipeline(factor: int | str, model_target: str) -> str:
    return f"split-k{{{device_sweep_options(factor, model_target)}}},materialize-late"


@dataclass
class BenchConfig:
    """One configuration of a program: the text iree-compile takes, and what
    made it (the xsplit pipeline, extra iree-compile flags, the chunk count)."""

    name: str
    text: str
    pipeline: str | None = None
    factor: int | None = None
    flags: list[str] = field(default_factory=list)


@dataclass
class BenchProgram:
    """A program and its configurations, all called with the same inputs."""

    source: str
    name: str
    configs: list[BenchConfig]
    extra: dict[str, Any] = field(default_factory=dict)
    """What a report shows or groups by (auto's choice, the program's kind)."""
    flops: float | None = None
    """None: 2 M N K of the matmul its inputs make, where they make one."""


def bench_configs(
    source: str,
    name: str,
    model_target: str,
    sweep: Sequence[int] = DEFAULT_DEVICE_SWEEP,
    progress: Callable[[str], None] = lambda step: None,
) -> BenchProgram:
    """`xsplit bench --device`'s configurations of a program: IREE alone,
    IREE's own split, auto{target=model_target} and the sweep."""
    configs = [
        BenchConfig("iree-default", source),
        BenchConfig("iree-split-reduction", source, flags=[SPLIT_REDUCTION_FLAG]),
    ]
    progress(f"{name}: rewrite auto")
    auto = rewrite_recorded(source, auto_pipeline(model_target), name)
    configs.append(
        BenchConfig("xsplit-auto", auto.text, auto_pipeline(model_target), encoded_factor(auto))
    )
    for factor in sweep:
        pipeline = device_sweep_pipeline(factor, model_target)
        progress(f"{name}: rewrite x{factor}")
        text = source if factor == 1 else rewrite_recorded(source, pipeline, name).text
        configs.append(
            BenchConfig(f"xsplit-x{factor}", text, pipeline if factor > 1 else None, factor)
        )
    extra = {"auto_remarks": auto.remarks, "auto_choice": _choice(auto.text, encoded_factor(auto))}
    return BenchProgram(source, name, configs, extra)


def save_bench(
    programs: Sequence[tuple[str, str]],
    device: str,
    directory: str,
    sweep: Sequence[int] = DEFAULT_DEVICE_SWEEP,
    runs: int = 5,
    model_target: str | None = None,
    dims: Sequence[int] = (),
    function: str | None = None,
    seed: int = 0,
    min_time_s: float = 0.1,
    progress: Callable[[str], None] = lambda step: None,
    tool: str = "xsplit bench",
) -> Manifest:
    """Compiles every configuration of each (source, name) for `device` and
    writes them with the manifest to `directory`."""
    model_target = model_target or MODEL_TARGET[device]
    return save_programs(
        [bench_configs(source, name, model_target, sweep, progress) for source, name in programs],
        device, directory, runs, min_time_s,
        {"sweep": list(sweep), "model_target": model_target},
        dims, function, seed, progress, tool,
    )


def save_programs(
    programs: Sequence[BenchProgram],
    device: str,
    directory: str,
    runs: int = 5,
    min_time_s: float = 0.1,
    options: dict[str, Any] | None = None,
    dims: Sequence[int] = (),
    function: str | None = None,
    seed: int = 0,
    progress: Callable[[str], None] = lambda step: None,
    tool: str = "xsplit bench",
) -> Manifest:
    """Compiles every configuration of each program for `device` and writes
    them, with each program's inputs' recipe and reference, and the
    manifest (kind `bench`, `options` added to its options), to `directory`."""
    compile_target = COMPILE_TARGET[device]
    flags = list(target(compile_target).flags)
    saved: list[SavedProgram] = []
    for program in programs:
        module = parse_module(program.source, program.name)
        f = entry_point(module, function, program.name)
        recipe = input_recipe(f, dims, seed)
        modules = []
        for config in program.configs:
            if config.pipeline and "gpu.thread_id" in config.text:
                # xsplit's own kernel (auto{target=sm_80} may pick it) on a
                # device that cannot run it: one line, not iree-compile's.
                refuse_gpu_kernels(
                    parse_module(config.text, program.name), program.name, config.pipeline, tool,
                    device,
                )
            text = config.text
            if config.pipeline and not target(compile_target).is_gpu:
                # GPU tiles (auto{target=sm_80}'s static chunks) name a
                # pipeline the CPU cannot build: the CPU compiles the same
                # program with IREE's own tiles, as xsplit check runs it.
                module_of = parse_module(text, program.name)
                if carries_gpu_tiles(module_of):
                    drop_gpu_tiles(module_of)
                    text = print_module(module_of)
            progress(f"{program.name}: compile {config.name}")
            vmfb = compile_mlir(
                text, compile_target, config.flags,
                phase=f"compiling {program.name} ({config.name})",
            )
            modules.append(
                SavedModule(
                    config.name, store_module(directory, vmfb), config.pipeline,
                    [*flags, *config.flags], config.factor,
                )
            )
        entry = saved_program(program.source, f, recipe, program.name, directory, modules)
        # Empty arrays: the count needs only shapes and dtypes, not data.
        entry.flops = program.flops or matmul_flops(
            [np.empty(shape, dtype) for shape, dtype in zip(recipe.shapes, recipe.dtypes)]
        )
        entry.extra = dict(program.extra)
        saved.append(entry)
    manifest = Manifest(
        "bench", device, compile_target, saved, tool,
        options={"runs": runs, "min_time_s": min_time_s, **(options or {})},
        compiler=compiler_version(),
    )
    write_manifest(directory, manifest)
    return manifest


def _choice(text: str, factor: int) -> str:
    if "linalg.batch_mmt4d" in text:
        return f"split+encode {factor}"
    if "linalg.mmt4d" in text:
        return "encode"
    return f"split {factor}" if factor > 1 else "whole"
