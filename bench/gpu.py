"""The GPU benchmark: the matmuls of bench/shapes_gpu.txt in f32 and f16 (f16
inputs, f32 accumulation and result), each as IREE alone, IREE's own split,
xsplit's pick (`auto{target=sm_90}`) and the static-chunk sweep
(`split-k{factor=F align=64 pad_m=64},materialize-late`, F = 8 ... 256),
with cuBLAS beside them where torch is installed.

Compile here, run there (docs/benchmarks.md, "The GPU benchmark"):

    python bench/gpu.py --save .gpu-saved                  # here: compile for cuda
    bench/gpu_device_run.sh .gpu-saved .whl                # there: replay, time
    python bench/gpu.py --save DIR --device local-task --run --shapes 16x32x1000
                                                           # the same flow on this CPU

The device side needs only iree-base-runtime and numpy (`python -m
xsplit.replay`); its Markdown is what bench/RESULTS-gpu.md holds.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--save", required=True, metavar="DIR", help="where the modules go")
    parser.add_argument("--device", default="cuda", choices=("cuda", "hip", "local-task"))
    parser.add_argument(
        "--shapes", type=parse_shape, nargs="*", metavar="MxNxK",
        help="these shapes instead of bench/shapes_gpu.txt",
    )
    parser.add_argument("--dtypes", default=",".join(DTYPES), help="f32,f16 (default)")
    parser.add_argument("--sweep", default="8,16,32,64,128,256", metavar="F,F,...")
    parser.add_argument("--runs", type=int, default=5, help="iree-benchmark-module repetitions")
    parser.add_argument("--min-time-s", type=float, default=0.05,
                        help="each repetition's least time (iree-benchmark-module)")
    parser.add_argument("--target", help="the model's target (default: the device's, sm_90 for cuda)")
    parser.add_argument("--run", action="store_true", help="then replay it here, on --device")
    parser.add_argument("--markdown", metavar="OUT.md", help="with --run: the results table")
    parser.add_argument("--json", metavar="OUT.json", help="with --run: the full results")
    args = parser.parse_args()

    from xsplit.bench.device_save import save_bench
    from xsplit.diagnostics import XsplitError

    shapes = args.shapes or read_shapes(SHAPES)
    programs = [
        (matmul(m, n, k, dtype), f"{m}x{n}x{k} {dtype}")
        for dtype in args.dtypes.split(",")
        for m, n, k, _ in shapes
    ]
    try:
        save_bench(
            programs, args.device, args.save,
            sweep=[int(f) for f in args.sweep.split(",")], runs=args.runs,
            model_target=args.target, min_time_s=args.min_time_s,
            progress=lambda step: print(step, file=sys.stderr, flush=True),
            tool="bench/gpu.py",
        )
        print(f"saved {len(programs)} programs to {args.save}", file=sys.stderr)
        if not args.run:
            return 0
        from xsplit.replay import replay

        return replay(args.save, args.device, json_out=args.json, markdown_out=args.markdown)
    except XsplitError as e:
        print(f"bench/gpu.py: {e.diagnostic}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
