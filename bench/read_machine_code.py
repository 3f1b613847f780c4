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

    python bench/read_machine_code.py --sweep 3737 --late [--only 'f16']

With `--sweep SEED`, a seeded sample of held-out shapes (`held_out_sample`)
is read against issue 37's done-when on sm_90 and gfx942, a markdown row a
shape and target: what each misses, and with `--late` whether
`split-k{target=T},materialize-late` compiles as it is.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from xsplit.api import rewrite
from xsplit.bench.machine_code import matmul, own_kernel_pipeline, read_machine_code
from xsplit.diagnostics import collect_remarks


def _prime_near(x: int) -> int:
    def prime(n: int) -> bool:
        return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))

    while not prime(x):
        x += 1
    return x


def held_out_sample(seed: int = 3737) -> list[tuple[int, int, int, str]]:
    """A seeded sample of held-out shapes aimed at the corners a matrix of
    random M and N in 1..2048 rarely draws: M or N in 1..8, odd N, one row
    with a wide N, both edges near 2048 with a prime K, f32 with N under 8,
    bf16, K under 64 and over 100k. The same shapes every run."""
    import numpy as np

    rng = np.random.default_rng(seed)

    def r(lo: int, hi: int) -> int:
        return int(rng.integers(lo, hi + 1))

    def k_of(kind: str) -> int:
        if kind == "odd":
            return 2 * r(300, 4000) + 1
        if kind == "prime":
            return _prime_near(r(600, 8000))
        return 64 * r(8, 96)

    kinds = ("odd", "prime", "aligned")
    out: list[tuple[int, int, int, str]] = []
    for i in range(6):  # M in 1..8
        out.append((r(1, 8), r(9, 2048), k_of(kinds[i % 3]), ("f16", "f32")[i % 2]))
    for i in range(6):  # N in 1..8 (f32 with N under 8 among them)
        out.append((r(1, 2048), r(1, 8), k_of(kinds[i % 3]), ("f32", "f16")[i % 2]))
    for i in range(4):  # odd N
        out.append((r(1, 2048), 2 * r(4, 1023) + 1, k_of(kinds[i % 3]), ("f16", "f32")[i % 2]))
    for element in ("f16", "f32"):  # one row, a wide N
        out.append((1, r(1536, 2048), k_of(kinds[r(0, 2)]), element))
    for i in range(4):  # both edges near 2048, prime K
        out.append((r(1900, 2048), r(1900, 2048), k_of("prime"), ("f16", "f32")[i % 2]))
    for i in range(4):  # bf16
        out.append((r(1, 2048), r(1, 2048), k_of(kinds[i % 3]), "bf16"))
    for i in range(4):  # K under 64
        out.append((r(1, 2048), r(1, 2048), r(1, 63), ("f16", "f32")[i % 2]))
    for i in range(4):  # K over 100k (memory-bound edges mostly)
        big = (r(100_001, 600_000) | 1) if i % 2 else _prime_near(r(100_001, 600_000))
        out.append((r(1, 256), r(1, 256), big, ("f32", "f16")[i % 2]))
    for i in range(6):  # anything
        out.append((r(1, 2048), r(1, 2048), k_of(kinds[i % 3]), ("f16", "f32", "bf16")[i % 3]))
    return out


MATH_GOALS = {
    (False, True): ("FFMA", 0.70, 256),
    (False, False): ("HMMA", 0.35, 32),
    (True, True): ("FMA", 0.60, 256),
    (True, False): ("MFMA", 0.20, 16),
}
"""Issue 37's math clauses by (gfx942, on the FMA path): the op, its least
share of the hot loop, and its least count a barrier (sm_90's after ptxas)."""


def done_when(kernels, target: str, element: str) -> list[str]:
    """Issue 37's done-when clauses a configuration's kernels miss (the
    machine-code test's checks), as short words; empty where all hold."""
    misses: list[str] = []
    for x in kernels:
        if x.spill_bytes:
            misses.append(f"spills {x.spill_bytes}B ({x.name})")
        if x.system_scope:
            misses.append("system-scope")
        if x.cmpswap:
            misses.append("cmpswap")
    gemms = [x for x in kernels if not x.name.startswith("mm_pad_")]
    if len(gemms) != 1:
        return misses + [f"{len(gemms)} GEMM kernels"]
    (k,) = gemms
    mix, total = k.loop_mix, max(k.loop_instructions, 1)
    per = k.math_per_barrier
    if target == "gfx942":
        if not (mix.get("GLOBAL_LOAD_X4") or k.async_copies):
            misses.append("no 16-byte load in loop")
        on_fma = element == "f32" and not mix.get("MFMA")
    else:
        if not mix.get("LDGSTS"):
            misses.append("no cp.async in loop")
        on_fma = element == "f32"
    op, share, at_least = MATH_GOALS[(target == "gfx942", on_fma)]
    if mix.get(op, 0) < share * total:
        misses.append(f"{op} {100 * mix.get(op, 0) / total:.0f}%")
    if per is None or per < at_least:
        misses.append(f"{per} {op}/barrier")
    return misses


def sweep(shapes, targets: list[str], chunks: int, late: bool) -> None:
    """One markdown row per shape and target: the own kernel's loop (two
    chunks, as the machine-code test builds it) against the done-when, and
    whether `split-k{target=T},materialize-late` compiles as it is."""
    from xsplit.iree.iree_compile import compile_mlir

    print("| shape | target | reg. | loop | math % | per barrier | misses | split-k late |")
    print("|---|---|---|---|---|---|---|---|")
    for m, n, k, element in shapes:
        source = matmul(m, n, k, element)
        for t in targets:
            build = "sm_80" if t == "sm_90" else t
            with collect_remarks(), tempfile.TemporaryDirectory() as work:
                try:
                    out = rewrite(source, own_kernel_pipeline(build, chunks))
                    kernels = read_machine_code(out, build, Path(work))
                    misses = done_when(kernels, t, element)
                    (g,) = [x for x in kernels if not x.name.startswith("mm_pad_")] or [None]
                except Exception as e:
                    kernels, g = [], None
                    misses = [f"failed: {str(e).strip().splitlines()[-1][:80]}"]
            compiles = "-"
            if late:
                try:
                    with collect_remarks():
                        split = rewrite(source, f"split-k{{target={t}}},materialize-late")
                    compiles = "yes" if compile_mlir(split, t) else "no"
                except Exception as e:
                    compiles = f"no: {str(e).strip().splitlines()[-1][:60]}"
            if g is not None:
                share = 100 * g.math / g.loop_instructions if g.loop_instructions else 0
                per = "-" if g.math_per_barrier is None else f"{g.math_per_barrier:.0f}"
                cells = f"{g.registers} | {g.loop_instructions} | {share:.0f} | {per}"
            else:
                cells = "- | - | - | -"
            verdict = "; ".join(misses) or "ok"
            print(f"| {m}x{n}x{k} {element} | {t} | {cells} | {verdict} | {compiles} |", flush=True)


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
    p.add_argument("--sweep", type=int, metavar="SEED", help="held_out_sample(SEED) against the done-when")
    p.add_argument("--late", action="store_true", help="with --sweep: split-k{target=T},materialize-late compiles")
    p.add_argument("--only", help="with --sweep: shapes whose 'MxNxK element' contains this")
    args = p.parse_args(argv)
    targets = args.target or ["sm_80", "gfx942"]
    if args.sweep is not None:
        shapes = held_out_sample(args.sweep)
        if args.only:
            shapes = [s for s in shapes if args.only in f"{s[0]}x{s[1]}x{s[2]} {s[3]}"]
        sweep(shapes, args.target or ["sm_90", "gfx942"], args.chunks, args.late)
        return 0
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
