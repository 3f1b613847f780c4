"""The GPU benchmark (issue 32's columns): the matmuls of
bench/shapes_gpu.txt in f32 and f16 (f16 inputs, f32 accumulation and
result), each as IREE alone, IREE's own split, xsplit through IREE's code
(`auto{target=sm_90}` and a static-chunk sweep,
`split-k{factor=F align=64 pad_m=64},materialize-late`), xsplit's own kernel
(`gemm-kernel{target=sm_80 ...}` with the tiles of xsplit/targets/gemm_tiles.py,
atomic and deterministic merges, three chunk counts) and cuBLAS where torch
is installed; the own kernel's tile sweep (gemm_tiles.CANDIDATES on a large
and a small output, per element type); and the fused GEMM + row sum
4096x4096x1024 (IREE alone, unfused; `fuse-reduction,lower-reduce` atomic and
deterministic; torch's matmul, then sum).

Compile here, run there (docs/benchmarks.md, "The GPU benchmark"):

    python bench/gpu.py --save .gpu-saved                  # here: compile for cuda
    bench/gpu_device_run.sh .gpu-saved .whl                # there: replay, time
    python bench/gpu.py --save DIR --device local-task --run --shapes 16x32x1000
                                                           # the same flow on this CPU

On local-task the own kernel (thread-level code, which llvm-cpu cannot run)
is compiled for sm_80 and counted, not saved; the fused kernel runs in its
workgroup-level form (`lower-reduce{target=cpu}`).

The device side needs only iree-base-runtime and numpy (`python -m
xsplit.replay`); its Markdown is what bench/RESULTS-gpu.md holds, and
`python bench/pick_gemm_tiles.py gpu.json` writes the sweep's best into the
table, and `python bench/fit_own_kernel.py gpu.json` fits the cost model's
own-kernel rate to the own kernel's times (xsplit/targets/own_kernel_terms.py).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
SHAPES = HERE / "shapes_gpu.txt"
DTYPES = ("f32", "f16")


def read_shapes(path: Path) -> list[tuple[int, int, int, str]]:
    """(M, N, K, comment) of each line `M N K  comment` ('#' lines skipped)."""
    shapes = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m, n, k, *rest = line.split(maxsplit=3)
        shapes.append((int(m), int(n), int(k), rest[0] if rest else ""))
    return shapes


def parse_shape(text: str) -> tuple[int, int, int, str]:
    found = re.fullmatch(r"(\d+)x(\d+)x(\d+)", text)
    if not found:
        raise argparse.ArgumentTypeError(f"expected MxNxK, got '{text}'")
    m, n, k = (int(g) for g in found.groups())
    return m, n, k, ""


def matmul(m: int, n: int, k: int, dtype: str) -> str:
    """A (M x K) @ B (K x N) of `dtype` into an f32 zero fill."""
    a, b, c = f"tensor<{m}x{k}x{dtype}>", f"tensor<{k}x{n}x{dtype}>", f"tensor<{m}x{n}xf32>"
    return f"""func.func @matmul(%a: {a}, %b: {b}) -> {c} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %f = linalg.fill ins(%z : f32) outs(%e : {c}) -> {c}
  %r = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}
  return %r : {c}
}}
"""


def dps_matmul(m: int, n: int, k: int, dtype: str) -> str:
    """C + A @ B with C an argument: the destination-passing form gemm-kernel
    takes (its inputs A and B are the plain matmul's: the same recipe draws
    them first)."""
    a, b, c = f"tensor<{m}x{k}x{dtype}>", f"tensor<{k}x{n}x{dtype}>", f"tensor<{m}x{n}xf32>"
    return f"""func.func @matmul(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %r = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %r : {c}
}}
"""


def matmul_rowsum(m: int, n: int, k: int, dtype: str) -> str:
    """O + the rows of A @ B summed (A @ B into an f32 zero fill): the fused
    GEMM + reduction fuse-reduction takes, and IREE compiles unfused."""
    a, b, c = f"tensor<{m}x{k}x{dtype}>", f"tensor<{k}x{n}x{dtype}>", f"tensor<{m}x{n}xf32>"
    o = f"tensor<{m}xf32>"
    return f"""func.func @matmul_rowsum(%a: {a}, %b: {b}, %o: {o}) -> {o} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %f = linalg.fill ins(%z : f32) outs(%e : {c}) -> {c}
  %x = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}
  %r = linalg.reduce ins(%x : {c}) outs(%o : {o}) dimensions = [1]
    (%p: f32, %q: f32) {{
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }}
  return %r : {o}
}}
"""


KERNEL_TARGET = "sm_80"
"""What the own kernel is compiled for: IREE 3.13 has no sm_90, and an
H100 or H200 runs sm_80 code."""
LOWER = "lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm"
TILE_SHAPES = {"large": (2048, 2048, 2048), "small": (128, 128, 262144)}
"""The outputs the tile sweep times each candidate on, one per shape class
of gemm_tiles (a power-of-two K, so that every candidate's copies are vectors)."""
FUSED_SHAPE = (4096, 4096, 1024)
SKINNY = (128, 100_000)
"""M and N at most the first, K at least the second: issue 32's skinny shapes."""


def own_pipeline(tiles, chunks: int, merge: str, kernel_target: str = KERNEL_TARGET) -> str:
    return (
        f"gemm-kernel{{target={kernel_target} chunks={chunks} merge={merge} {tiles.options}}},"
        f"{LOWER},export-dispatch{{target={kernel_target}}}"
    )


def try_rewrite(source: str, pipeline: str, name: str, left_out: dict[str, str], label: str):
    """The rewrite's text, or None with the one-line reason in `left_out`:
    a configuration the kernel refuses is left out of the call, not the
    call's end (the kernel's passes change under the benchmark)."""
    from xsplit.bench.driver import rewrite_recorded
    from xsplit.diagnostics import XsplitError

    try:
        return rewrite_recorded(source, pipeline, name).text
    except XsplitError as e:
        left_out[label] = e.message.splitlines()[0]
        print(f"{name}: {label} left out: {left_out[label]}", file=sys.stderr)
        return None


def own_chunks(k: int, chunks: int, step: int) -> int:
    """The chunk count gemm-kernel makes of `chunks` asked for."""
    from xsplit.dialects.xsplit_gemm import chunk_count

    return chunk_count(k, max(1, min(chunks, -(-k // step))), step)


def own_program(m: int, n: int, k: int, dtype: str, model_target: str, progress):
    """The own kernel on one shape: the table's tiles, the model's chunk
    count C, atomic and deterministic, and atomic at C / 4 and 4 C."""
    from xsplit.bench.device_save import BenchConfig, BenchProgram
    from xsplit.targets.gemm_tiles import default_chunks, gemm_tiles
    from xsplit.targets.table import target

    tgt = target(model_target)
    tiles = gemm_tiles(tgt, dtype, m, n, k)
    source, name = dps_matmul(m, n, k, dtype), f"{m}x{n}x{k} {dtype} own"
    base = own_chunks(k, default_chunks(tgt, m, n, k, tiles), tiles.tile[2])
    configs, seen, left_out = [], set(), {}
    for config, count, merge in (
        ("own-atomic", base, "atomic"),
        ("own-deterministic", base, "deterministic"),
        ("own-atomic-fewer", own_chunks(k, base // 4, tiles.tile[2]), "atomic"),
        ("own-atomic-more", own_chunks(k, base * 4, tiles.tile[2]), "atomic"),
    ):
        if (count, merge) in seen:
            continue
        seen.add((count, merge))
        if count == 1 and merge == "atomic":
            merge = "store"
        pipeline = own_pipeline(tiles, count, merge)
        progress(f"{name}: rewrite {config}")
        text = try_rewrite(source, pipeline, name, left_out, config)
        if text is not None:
            configs.append(BenchConfig(config, text, pipeline, count))
    return BenchProgram(source, name, configs, {
        "kind": "own", "group": f"{m}x{n}x{k} {dtype}", "element": dtype, "tiles": tiles.label,
        "cublas": False, "left_out": left_out,
        # What bench/fit_own_kernel.py fits the model's term to.
        "shape": [m, n, k], "target": model_target, "tile": list(tiles.tile),
    })


def tile_programs(dtypes: list[str], model_target: str, progress):
    """Every candidate of gemm_tiles.CANDIDATES the kernel can take, at the
    model's chunk count, on each shape class's output, per element type
    (those it refuses are named in the program's `left_out`)."""
    from xsplit.bench.device_save import BenchConfig, BenchProgram
    from xsplit.targets.gemm_tiles import CANDIDATES, can_take, default_chunks
    from xsplit.targets.table import target

    tgt = target(model_target)
    programs = []
    for dtype in dtypes:
        for cls, (m, n, k) in TILE_SHAPES.items():
            source, name = dps_matmul(m, n, k, dtype), f"tiles {dtype} {cls} {m}x{n}x{k}"
            configs, candidates, left_out = [], {}, {}
            for tiles in CANDIDATES:
                if (why := can_take(tiles, tgt, dtype)) is not None:
                    left_out[tiles.label] = why
                    continue
                count = own_chunks(k, default_chunks(tgt, m, n, k, tiles), tiles.tile[2])
                pipeline = own_pipeline(tiles, count, "atomic" if count > 1 else "store")
                progress(f"{name}: rewrite {tiles.label}")
                text = try_rewrite(source, pipeline, name, left_out, tiles.label)
                if text is None:
                    continue
                configs.append(BenchConfig(tiles.label, text, pipeline, count))
                candidates[tiles.label] = {
                    "tile": list(tiles.tile),
                    "threads": list(tiles.threads),
                    "stages": tiles.stages,
                }
            programs.append(BenchProgram(source, name, configs, {
                "kind": "tiles", "element": dtype, "class": cls, "target": model_target,
                "shape": [m, n, k], "candidates": candidates, "cublas": False,
                "left_out": left_out,
            }))
    return programs


def fused_programs(dtypes: list[str], device: str, progress):
    """The fused GEMM + row sum, IREE alone (unfused) and through
    fuse-reduction,lower-reduce in its atomic and deterministic forms."""
    from xsplit.bench.device_save import BenchConfig, BenchProgram
    from xsplit.bench.driver import rewrite_recorded

    kernel = {"cuda": KERNEL_TARGET, "hip": "gfx942"}.get(device, "cpu")
    m, n, k = FUSED_SHAPE
    programs = []
    for dtype in dtypes:
        source, name = matmul_rowsum(m, n, k, dtype), f"{m}x{n}x{k} {dtype} rowsum"
        configs = [BenchConfig("iree-default", source)]
        for stage, options in (("atomic", "stage=atomic"), ("deterministic", "deterministic=true")):
            pipeline = (
                f"fuse-reduction,lower-reduce{{target={kernel} {options}}},"
                f"export-dispatch{{target={kernel}}}"
            )
            progress(f"{name}: rewrite fused-{stage}")
            text = rewrite_recorded(source, pipeline, name).text
            configs.append(BenchConfig(f"fused-{stage}", text, pipeline))
        programs.append(BenchProgram(source, name, configs, {
            "kind": "fused", "element": dtype, "torch": "matmul_rowsum",
        }, flops=2.0 * m * n * k))
    return programs


def compile_only(programs, progress) -> tuple[int, int, float]:
    """Compiles every configuration for sm_80 without saving (the own kernel
    on a CPU dry run): (modules, bytes, seconds)."""
    import time

    from xsplit.iree.iree_compile import compile_mlir

    count = size = 0
    start = time.monotonic()
    for program in programs:
        for config in program.configs:
            progress(f"{program.name}: compile {config.name} for {KERNEL_TARGET} (not saved)")
            phase = f"compiling {program.name}"
            size += len(compile_mlir(config.text, KERNEL_TARGET, [], phase=phase))
            count += 1
    return count, size, time.monotonic() - start


def budget(directory: str, seconds: float, per_module_s: float) -> str:
    """The saved modules' count and size, the compile time, and the replay's
    estimated length on the device."""
    import json
    import os

    with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    paths = {m["path"] for p in manifest["programs"] for m in p["modules"]}
    size = sum(os.path.getsize(os.path.join(directory, p)) for p in paths)
    configs = sum(len(p["modules"]) for p in manifest["programs"])
    return (
        f"{len(manifest['programs'])} programs, {configs} configurations, {len(paths)} distinct "
        f"modules, {size / 1e6:.1f} MB, compiled in {seconds:.0f} s; replay on the device at "
        f"{per_module_s} s a module: about {len(paths) * per_module_s / 60:.1f} min"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--save", required=True, metavar="DIR", help="where the modules go")
    parser.add_argument("--device", default="cuda", choices=("cuda", "hip", "local-task"))
    parser.add_argument(
        "--shapes", type=parse_shape, nargs="*", metavar="MxNxK",
        help="these shapes instead of bench/shapes_gpu.txt",
    )
    parser.add_argument("--dtypes", default=",".join(DTYPES), help="f32,f16 (default)")
    parser.add_argument("--sweep", default="8,128", metavar="F,F,...",
                        help="the static-chunk sweep through IREE's code (default 8,128)")
    parser.add_argument("--parts", default="tiles,fused,gemm", metavar="P,P,...",
                        help="what to save, in this order: tiles (the own kernel's tile sweep), "
                        "fused (GEMM + row sum), gemm (the shapes)")
    parser.add_argument("--tile-shapes", type=parse_shape, nargs="*", metavar="MxNxK",
                        help="the tile sweep's large and small outputs instead of 2048^3 and "
                        "128x128x262144")
    parser.add_argument("--fused-shape", type=parse_shape, metavar="MxNxK",
                        help="the fused GEMM + row sum's shape instead of 4096x4096x1024")
    parser.add_argument("--runs", type=int, default=5, help="iree-benchmark-module repetitions")
    parser.add_argument("--min-time-s", type=float, default=0.05,
                        help="each repetition's least time (iree-benchmark-module)")
    parser.add_argument(
        "--target", help="the model's target (default: the device's, sm_90 for cuda)"
    )
    parser.add_argument("--per-module-s", type=float, default=1.2,
                        help="the device's replay time per module, for the estimate printed")
    parser.add_argument("--run", action="store_true", help="then replay it here, on --device")
    parser.add_argument("--markdown", metavar="OUT.md", help="with --run: the results table")
    parser.add_argument("--json", metavar="OUT.json", help="with --run: the full results")
    args = parser.parse_args()

    import time

    from xsplit.bench.device_save import bench_configs, save_programs
    from xsplit.diagnostics import XsplitError
    from xsplit.iree.device import MODEL_TARGET
    from xsplit.targets.table import target

    def progress(step: str) -> None:
        print(step, file=sys.stderr, flush=True)

    global FUSED_SHAPE
    if args.tile_shapes:
        TILE_SHAPES.update(zip(("large", "small"), (s[:3] for s in args.tile_shapes)))
    if args.fused_shape:
        FUSED_SHAPE = args.fused_shape[:3]
    shapes = args.shapes or read_shapes(SHAPES)
    dtypes = args.dtypes.split(",")
    model_target = args.target or MODEL_TARGET[args.device]
    peak = target(model_target).peak_flops
    # The own kernel is GPU code: on a CPU dry run it is shaped for sm_90 all the same.
    kernel_model = model_target if target(model_target).is_gpu else "sm_90"
    sweep = [int(f) for f in args.sweep.split(",") if f]
    start = time.monotonic()
    try:
        programs, own = [], []
        for part in args.parts.split(","):
            if part == "tiles":
                tiles = tile_programs(dtypes, kernel_model, progress)
                own += tiles
                if args.device == "cuda":
                    programs += tiles
            elif part == "fused":
                programs += fused_programs(dtypes, args.device, progress)
            elif part == "gemm":
                # f32 and f16 of a shape side by side: a call cut short has both.
                for m, n, k, _ in shapes:
                    for dtype in dtypes:
                        program = bench_configs(
                            matmul(m, n, k, dtype), f"{m}x{n}x{k} {dtype}", model_target, sweep,
                            progress,
                        )
                        program.extra.update({
                            "kind": "matmul", "group": program.name, "element": dtype,
                            "skinny": max(m, n) <= SKINNY[0] and k >= SKINNY[1],
                        })
                        mine = own_program(m, n, k, dtype, kernel_model, progress)
                        own.append(mine)
                        programs.append(program)
                        if args.device == "cuda":
                            programs.append(mine)
            else:
                parser.error(f"--parts: unknown part '{part}'")
        for program in programs:
            program.extra["peak_flops"] = peak.get(str(program.extra.get("element")))
        save_programs(
            programs, args.device, args.save, args.runs, args.min_time_s,
            {"sweep": sweep, "model_target": model_target}, progress=progress, tool="bench/gpu.py",
        )
        print(f"saved {len(programs)} programs to {args.save}", file=sys.stderr)
        print(budget(args.save, time.monotonic() - start, args.per_module_s), file=sys.stderr)
        if args.device != "cuda" and own:
            count, size, seconds = compile_only(own, progress)
            print(
                f"the own kernel (GPU only): {count} modules compiled for {KERNEL_TARGET}, "
                f"{size / 1e6:.1f} MB, in {seconds:.0f} s; not saved for {args.device}",
                file=sys.stderr,
            )
        if not args.run:
            return 0
        from xsplit.replay import replay

        return replay(args.save, args.device, json_out=args.json, markdown_out=args.markdown)
    except XsplitError as e:
        print(f"bench/gpu.py: {e.diagnostic}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
