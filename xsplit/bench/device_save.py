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

import numpy as np

from xsplit.api import parse_module
from xsplit.bench.driver import encoded_factor, rewrite_recorded, auto_pipeline, matmul_flops, sweep_options
from xsplit.interop.check import compiler_version, entry_point, input_recipe, saved_program
from xsplit.interop.saved import Manifest, SavedModule, SavedProgram, store_module, write_manifest
from xsplit.iree.device import COMPILE_TARGET, MODEL_TARGET
from xsplit.iree.iree_compile import compile_mlir
from xsplit.target.targets import target

SPLIT_REDUCTION_FLAG = "--iree-dispatch-creation-enable-split-reduction"

GPU_SWEEP_ALIGN = 64
"""Chunks a multiple of 64 long, M padded to 64, where the target names no
alignment of its own: the static form that ran right and fast on the H200
(../shared/notes/gpu.md, third run), where dynamic chunks were wrong on some
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
    compile_target = COMPILE_TARGET[device]
    flags = list(target(compile_target).flags)
    saved: list[SavedProgram] = []
    for source, name in programs:
        module = parse_module(source, name)
        f = entry_point(module, function, name)
        recipe = input_recipe(f, dims, seed)
        configs: list[tuple[str, int | None, str | None, list[str], str]] = [
            ("iree-default", None, None, [], source),
            ("iree-split-reduction", None, None, [SPLIT_REDUCTION_FLAG], source),
        ]
        progress(f"{name}: rewrite auto")
        auto = rewrite_recorded(source, auto_pipeline(model_target), name)
        configs.append(("xsplit-auto", encoded_factor(auto), auto_pipeline(model_target), [], auto.text))
        for factor in sweep:
            pipeline = device_sweep_pipeline(factor, model_target)
            progress(f"{name}: rewrite x{factor}")
            text = source if factor == 1 else rewrite_recorded(source, pipeline, name).text
            configs.append((f"xsplit-x{factor}", factor, pipeline if factor > 1 else None, [], text))
        modules = []
        for config_name, factor, pipeline, extra, text in configs:
            progress(f"{name}: compile {config_name}")
            vmfb = compile_mlir(
                text, compile_target, extra, phase=f"compiling {name} ({config_name})"
            )
            modules.append(
                SavedModule(config_name, store_module(directory, vmfb), pipeline, [*flags, *extra], factor)
            )
        program = saved_program(source, f, recipe, name, directory, modules)
        # Empty arrays: the count needs only shapes and dtypes, not data.
        program.flops = matmul_flops(
            [np.empty(shape, dtype) for shape, dtype in zip(recipe.shapes, recipe.dtypes)]
        )
        program.extra = {"auto_remarks": auto.remarks, "auto_choice": _choice(auto.text, encoded_factor(auto))}
        saved.append(program)
    manifest = Manifest(
        "bench", device, compile_target, saved, tool,
        options={"runs": runs, "sweep": list(sweep), "model_target": model_target,
                 "min_time_s": min_time_s},
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
