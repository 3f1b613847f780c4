"""Reads the machine code of a configuration without a GPU: compiles an MLIR
file through an xsplit pipeline (which must end in export-dispatch for the
target) and prints, per kernel, registers, spills, the hot loop's instruction
mix, math per barrier, async copies, system-scope operations and
compare-and-swap loops. CUDA code is read as the sm_90 driver runs it
(`ptxas -arch=sm_90`, `nvdisasm`): `--target sm_80` builds for sm_80 (the
machine-code test's form), `--target sm_90` for sm_90 itself; gfx942 from
iree-compile's ISA dump.

    python bench/read_machine_code.py FILE.mlir --target sm_80
        --pipeline 'gemm-kernel{target=sm_80},...,export-dispatch{target=sm_80}'
    python bench/read_machine_code.py --matmul 123x456x51234 --element f16 --chunks 8

With `--matmul`, the own kernel's atomic merge is built for both sm_80 and
gfx942 (`--chunks` of K, `--options` added to gemm-kernel's).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from xsplit.api import rewrite
from xsplit.bench.machine_code import matmul, own_kernel_pipeline, read_machine_code
from xsplit.diagnostics import collect_remarks

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("file", nargs="?", help="an MLIR file (with --pipeline and --target)")
    p.add_argument("--pipeline", default="")
    p.add_argument("--target", choices=["sm_80", "sm_90", "gfx942"], action="append")
    p.add_argument("--matmul", help="MxNxK: the own kernel on this matmul")
    p.add_argument("--element", default="f32")
    p.add_argument("--chunks", type=int, default=4)
    p.add_argument("--options", default="", help="more gemm-kernel options, e.g. 'mma=none'")
    args = p.parse_args(argv)
    targets = args.target or ["sm_80", "gfx942"]
    if args.matmul:
        m, n, k = (int(x) for x in args.matmul.split("x"))
        source = matmul(m, n, k, args.element)
        pipelines = {t: own_kernel_pipeline(t, args.chunks, args.options) for t in targets}
    elif args.file and args.pipeline:
        source = Path(args.file).read_text()
        pipelines = dict.fromkeys(targets, args.pipeline)
    else:
        p.error("give FILE with --pipeline, or --matmul")
    for t, pipeline in pipelines.items():
        with collect_remarks(), tempfile.TemporaryDirectory() as work:
            try:
                out = rewrite(source, pipeline)
                kernels = read_machine_code(out, t, Path(work))
            except Exception as e:  # one line per failed configuration, then go on
                print(f"{t}: failed: {str(e).strip().splitlines()[-1]}")
                continue
        for kernel in kernels:
            print(kernel.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
