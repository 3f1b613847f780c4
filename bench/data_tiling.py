"""The CPU split-K benchmark: `xsplit bench` with encodings over every shape
in bench/shapes, written as bench/RESULTS.md (and each shape's JSON and plot
under bench/results/).

    python bench/data_tiling.py [--runs 7] [--sweep 1,2,4,...] [--calibrate] [--pages huge|small] [--out FILE]

For each shape, in a process of its own (so that no shape runs in the
memory an earlier one left behind), alternating, medians: IREE's three
configurations (default, data tiling, split reduction), xsplit's
`auto{target=cpu}`, the plain split sweep, the sweep with encodings
(`set-encoding,split-k{factor=N},materialize-late`) and numpy. Then the
criteria over the split-K set (M <= 640, K from 12k to 500k): auto's
geomean over numpy (goal 1.0x, none under 0.8x) and over IREE's best (goal
2.0x), auto within 10% of the best point of both sweeps, each shape's
GFLOP/s against the CPU's peak, and each product of few rows (M <= 16) read
against a read pass on every core over as many bytes, timed in the same
rounds (goal for a matvec, M <= 4: 90%), beside the share a loop reaches
whose FMAs at the peak add to its reads ("reads + FMAs") and the rate of
xsplit's own dispatch that prefetches B (`stream-prefetch{prefetch=on}`,
"prefetching"), where it takes the product. GPU rows are the workgroups of
auto's split, compiled (not run) for each GPU.

The peak is timed on this machine (cores x FMA lanes x clock,
`xsplit.bench.machine`), and so is its read bandwidth (the best of a read
pass on every core and numpy's matvec), once before the shapes; each
streamed shape's own read pass is its yardstick, as the machine's memory
(a virtual machine's) read from 45 to 80 GB/s from one hour to the next.

Run it on a quiet machine: the ratios are within one round-robin, but other
work on the cores makes the medians noisy.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

from xsplit.bench import driver as bench
from xsplit.bench.machine import copy_bandwidth, measure_peak, read_bandwidth
from xsplit.diagnostics import XsplitError
from xsplit.files import ensure_writable, write_output
from xsplit.targets.cpu_info import host_cpu

HERE = Path(__file__).parent
DEFAULT_SWEEP = "1,2,4,8,16,32,64,128"
MARKER = "<!-- end of bench/data_tiling.py's section -->\n"


SET_MAX_M = 640
SET_MIN_K = 12_000
SET_MAX_K = 500_009
"""The split-K set the summary is over: M from 1 to 640, K from 12k to 500k."""
MATVEC_MAX_M = 4
"""Shapes up to this M are matvecs (decode steps): their rate is a bandwidth."""
MATVEC_READ_GOAL = 0.9
"""The share of the read pass's rate a matvec must read its matrix at."""


def _shape(stem: str) -> tuple[int, int, int]:
    """M, N and K from a shape file's name (`seed_123x456x51234`)."""
    m, n, k = (int(d) for d in stem.rsplit("_", 1)[-1].split("x"))
    return m, n, k


def _blas() -> str:
    config = np.show_config(mode="dicts") or {}
    blas = config.get("Build Dependencies", {}).get("blas", {})
    return f"{blas.get('name', 'BLAS')} {blas.get('version', '')}".strip()


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def _ms(value: float | None) -> str:
    return "failed" if value is None else f"{value:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sweep", default=DEFAULT_SWEEP)
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    parser.add_argument(
        "--calibrate", action="store_true", help="run `xsplit bench --calibrate` first"
    )
    parser.add_argument("--no-gpu", action="store_true")
    parser.add_argument(
        "--pages",
        choices=("huge", "small"),
        default="huge",
        help="the pages of IREE's buffers (glibc's malloc); numpy's large arrays are huge already",
    )
    parser.add_argument("--one-shape", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("shapes", nargs="*", type=Path)
    args = parser.parse_args()
    if args.one_shape:
        return _bench_one(args)
    ensure_writable(str(args.out))
    command = " ".join(["python", "bench/data_tiling.py", *sys.argv[1:]])
    if args.calibrate:
        flops, bandwidth, path = bench.calibrate()
        print(f"calibrated {flops / 1e9:.1f} GFLOP/s per core, {bandwidth / 1e9:.1f} GB/s "
              f"({path})", file=sys.stderr)
    shapes = args.shapes or sorted((HERE / "shapes").glob("*.mlir"))
    args.results.mkdir(parents=True, exist_ok=True)

    peak = measure_peak()
    read = read_bandwidth()
    copy = copy_bandwidth()
    print(f"{peak.describe()}; {read.describe()}; copy {copy / 1e9:.1f} GB/s", file=sys.stderr)

    cpu_rows, gpu_rows, matvec_rows = [], [], []
    matvec_shares: list[tuple[float, str]] = []
    # Every product of up to STREAMED_MAX_ROWS rows: issue 39's goal for them all.
    streamed_shares: list[tuple[float, str]] = []
    over_best, over_numpy, quality, ceilings = [], [], [], []
    for path in shapes:
        print(f"benchmarking {path.name} ...", file=sys.stderr)
        worker = [sys.executable, __file__, "--one-shape", "--runs", str(args.runs),
                  "--sweep", args.sweep, "--results", str(args.results), str(path)]
        if subprocess.run(
            worker + (["--no-gpu"] if args.no_gpu else []), env=_worker_environment(args.pages)
        ).returncode:
            cpu_rows.append(f"| {path.stem} | failed: see the log |")
            continue
        report = bench.BenchReport.from_json(
            json.loads((args.results / f"{path.stem}.json").read_text())
        )
        ms = {c.name: c.median_ms for c in report.configs}
        best_iree = report.best_iree()
        auto = ms.get(bench.AUTO_CONFIG)
        numpy_ms = ms.get(bench.NUMPY_CONFIG)
        best_any = report.best_of_all_sweeps()
        m, n, k = _shape(path.stem)
        in_set = m <= SET_MAX_M and SET_MIN_K <= k <= SET_MAX_K
        if best_iree is None or auto is None or best_any is None or numpy_ms is None:
            errors = [c.error for c in report.configs if c.error]
            cpu_rows.append(f"| {path.stem} | failed: {errors} |")
            continue
        ratio = best_iree.median_ms / auto  # type: ignore[operator]
        # The roofline: no program runs faster than the peak's arithmetic or
        # than the machine reads its operands (f32): at the shape's own read
        # pass where one was timed beside it, else at the rate measured first.
        read_rate = report.read_rate(bench.READ_PASS_CONFIG) or read.best
        roofline_ms = 1e3 * max(2 * m * n * k / peak.flops, 4 * (m * k + k * n) / read_rate)
        ceiling = best_iree.median_ms / roofline_ms  # type: ignore[operator]
        vs_numpy = numpy_ms / auto
        q = auto / best_any.median_ms  # type: ignore[operator]
        if in_set:
            over_best.append((ratio, path.stem))
            over_numpy.append((vs_numpy, path.stem))
            quality.append((q, path.stem))
            ceilings.append(ceiling)
        rate = report.gflops(bench.AUTO_CONFIG) or float("nan")
        share = report.read_share(bench.AUTO_CONFIG)
        streamed = "-" if share is None else (
            f"{report.read_rate(bench.AUTO_CONFIG) / 1e9:.1f} ({share:.0%})"  # type: ignore[operator]
        )
        cpu_rows.append(
            f"| {path.stem}{'' if in_set else ' (outside the set)'} | {_ms(ms['iree-default'])} | "
            f"{_ms(ms['iree-data-tiling'])} | {_ms(ms['iree-split-reduction'])} | "
            f"{report.auto_choice} | **{auto:.1f}** | {numpy_ms:.1f} | {vs_numpy:.2f}x | "
            f"{ratio:.2f}x | {rate:.0f} ({rate * 1e9 / peak.flops:.0%}) | {streamed} | "
            f"{best_any.name} ({best_any.median_ms:.1f}) | {q:.2f} | {roofline_ms:.1f} | "
            f"{ceiling:.2f}x |"
        )
        pass_rate = report.read_rate(bench.READ_PASS_CONFIG)
        if pass_rate is not None:
            cells = []
            for name in (
                bench.AUTO_CONFIG, best_iree.name, bench.NUMPY_CONFIG, bench.PREFETCH_CONFIG
            ):
                got, of_pass = report.read_rate(name), report.read_share(name)
                cells.append(
                    "-" if got is None or of_pass is None else f"{got / 1e9:.1f} ({of_pass:.0%})"
                )
            # A streaming loop's FMAs add to its reads (STREAMED_FMAS_ADD in
            # the CPU model): the share of the read pass it can then reach.
            read_ms = report.config(bench.READ_PASS_CONFIG).median_ms
            bound = "-"
            if report.flops is not None and read_ms:
                bound = f"{read_ms / (read_ms + report.flops / peak.flops * 1e3):.0%}"
            matvec_rows.append(
                f"| {path.stem} | {pass_rate / 1e9:.1f} | {' | '.join(cells)} | {bound} | "
                f"{best_iree.name} |"
            )
            if m <= MATVEC_MAX_M and share is not None:
                matvec_shares.append((share, path.stem))
            if share is not None:
                streamed_shares.append((share, path.stem))
        for g in report.gpu:
            unsplit = bench.GpuFill.fill_of(g.unsplit_workgroups, g.processors)
            needed = unsplit is not None and unsplit < 0.10
            split = g.split_waves
            ok = "n/a" if not needed else ("yes" if split is not None and split >= 1 else "NO")
            gpu_rows.append(
                f"| {path.stem} | {g.target} | {g.unsplit_workgroups} | "
                f"{'-' if unsplit is None else f'{unsplit:.1%}'} | {g.split_factor} | "
                f"{g.split_workgroups} | {'-' if split is None else f'{split:.2f}'} | {ok} |"
            )

    cpu = host_cpu()
    worst_numpy = min(over_numpy, default=(float("nan"), "-"))
    lines = [
        "# CPU split-K: results",
        "",
        f"Produced on {platform.node() or 'this machine'} ({platform.processor() or cpu.name}; "
        f"{cpu.describe()}); {peak.describe()}; {read.describe()}, measured before the "
        f"shapes; numpy copy {copy / 1e9:.1f} GB/s "
        f"(read + write); {datetime.date.today()}, xsplit, xdsl 0.74, IREE 3.13, numpy "
        f"{np.__version__} ({_blas()}), by",
        "",
        "```sh",
        command,
        "```",
        "",
        "`xsplit` is `auto{target=cpu}` (set-encoding, split-k and materialize-late with the "
        "target model's per-op choice). IREE's best is the fastest of IREE default, "
        "`--iree-opt-data-tiling` and `--iree-dispatch-creation-enable-split-reduction`. "
        "numpy is `A @ B` (OpenBLAS, all cores). All are timed in one process, in turn, each "
        "call after a pause of "
        f"{bench.SETTLE_SECONDS * 1e3:.0f} ms, from a thread at niceness "
        f"{bench.CALLER_NICENESS} (so that it never holds a core IREE's pinned workers need), "
        "on inputs uploaded once "
        "(`iree.runtime.asdevicearray`, outside the timing); medians. "
        + (
            "IREE's buffers on 2 MiB pages (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`), as numpy's "
            "large arrays are. "
            if args.pages == "huge"
            else "IREE's buffers on glibc's 4 KiB pages, numpy's on 2 MiB ones. "
        )
        + "Sweeps: "
        f"`split-k{{{bench.sweep_options('N')}}}` and "
        "`set-encoding,split-k{factor=N},materialize-late` for N in "
        f"{args.sweep}. The split-K set is M <= {SET_MAX_M} and {SET_MIN_K} <= K <= {SET_MAX_K}; "
        "the summary is over it.",
        "",
        "## CPU",
        "",
        "| shape | IREE default ms | IREE data-tiling ms | IREE split ms | xsplit's choice |"
        " xsplit ms | numpy ms | xsplit over numpy | xsplit over IREE's best |"
        " xsplit GFLOP/s (of peak) | xsplit GB/s over B (of the read pass) |"
        " best of both sweeps (ms) | xsplit / best |"
        " roofline ms | IREE's best over the roofline |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *cpu_rows,
        "",
        f"- Over numpy: geomean **{geomean([r for r, _ in over_numpy]):.2f}x** (goal >= 1.0x); "
        f"worst {worst_numpy[1]} at {worst_numpy[0]:.2f}x (goal: none under 0.8x).",
        f"- Over IREE's best: geomean **{geomean([r for r, _ in over_best]):.2f}x** "
        "(goal >= 2.0x); worst "
        + (f"{min(over_best)[1]} at {min(over_best)[0]:.2f}x." if over_best else "-")
        + f" At the roofline (the peak's arithmetic or the read rate over the operands, "
        f"whichever takes longer) a program would reach {geomean(ceilings):.2f}x.",
        f"- xsplit within 10% of the best point of both sweeps: "
        f"{sum(q <= 1.10 for q, _ in quality)}/{len(quality)} shapes"
        + "".join(f"; {name} {q:.2f}" for q, name in quality if q > 1.10),
        "",
    ]
    if matvec_rows:
        met = [name for share, name in matvec_shares if share >= MATVEC_READ_GOAL]
        lines += [
            f"## Streamed products (M <= {bench.STREAMED_MAX_ROWS}): the matrix read against "
            "the read pass",
            "",
            "The largest operand's bytes (B) over each median time; in brackets, the share of "
            "the read pass's rate (a read-only pass on every core over as many bytes, timed in "
            "the same rounds): the median over the rounds of the pass's time over the "
            "program's in the same round, which leaves out the memory's drift from minute to "
            f"minute. Goal for a matvec (M <= {MATVEC_MAX_M}): {MATVEC_READ_GOAL:.0%}. "
            "Prefetching: `stream-prefetch{prefetch=on}`, xsplit's own dispatch that "
            "prefetches B (products of up to 16 rows against a row-major B; - where it does "
            "not take the product), which auto takes only where the CPU model measured it "
            "faster than split-k's tiles. "
            "Reads + FMAs: the share of the read pass a loop reaches whose FMAs at the "
            "measured peak add to its reads instead of hiding under them, as the streamed "
            "loops' times did (`STREAMED_FMAS_ADD` in the CPU model).",
            "",
            "| shape | read pass GB/s | xsplit GB/s | IREE's best GB/s | numpy GB/s |"
            " prefetching GB/s | reads + FMAs | IREE's best |",
            "|---|---|---|---|---|---|---|---|",
            *matvec_rows,
            "",
            f"- Matvecs at {MATVEC_READ_GOAL:.0%} of the read pass or more: {len(met)}/"
            f"{len(matvec_shares)}"
            + "".join(
                f"; {name} {share:.0%}" for share, name in matvec_shares
                if share < MATVEC_READ_GOAL
            ),
            f"- Products of up to {bench.STREAMED_MAX_ROWS} rows at {MATVEC_READ_GOAL:.0%} or "
            f"more: {sum(share >= MATVEC_READ_GOAL for share, _ in streamed_shares)}/"
            f"{len(streamed_shares)}"
            + "".join(
                f"; {name} {share:.0%}" for share, name in streamed_shares
                if share < MATVEC_READ_GOAL
            ),
            "",
        ]
    if gpu_rows:
        lines += [
            "## GPU, compiled (not run)",
            "",
            "| shape | GPU | unsplit workgroups | unsplit fill | chunks | split workgroups |"
            " split waves | under 10% -> one full wave |",
            "|---|---|---|---|---|---|---|---|",
            *gpu_rows,
            "",
        ]
    # The earlier sections (split choice) stay below this run's.
    earlier = args.out.read_text() if args.out.exists() else ""
    if MARKER in earlier:
        earlier = earlier.split(MARKER, 1)[1]
    write_output(str(args.out), "\n".join([*lines, MARKER, earlier.lstrip("\n")]))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _worker_environment(pages: str) -> dict[str, str]:
    """The shape worker's environment. numpy madvises its large arrays into
    transparent huge pages, so the read pass and numpy's product read 2 MiB
    pages; IREE's runtime allocates through glibc's malloc, 4 KiB pages unless
    glibc is told otherwise. With `huge`, every program in the round reads
    the same kind of page (RESULTS-matvec.md has the measurements)."""
    environment = dict(os.environ)
    if pages == "huge":
        tunables = [t for t in environment.get("GLIBC_TUNABLES", "").split(":") if t]
        tunables = [t for t in tunables if not t.startswith("glibc.malloc.hugetlb=")]
        environment["GLIBC_TUNABLES"] = ":".join([*tunables, "glibc.malloc.hugetlb=1"])
    return environment


def _bench_one(args: argparse.Namespace) -> int:
    """Benchmarks one shape and writes its JSON report and plot."""
    (path,) = args.shapes
    report = bench.run_bench(
        path.read_text(),
        path.name,
        sweep=[int(f) for f in args.sweep.split(",")],
        runs=args.runs,
        gpu_targets=() if args.no_gpu else bench.GPU_TARGETS,
    )
    bench.write_json(report, str(args.results / f"{path.stem}.json"))
    try:
        bench.plot(report, str(args.results / f"{path.stem}.png"))
    except Exception as e:  # noqa: BLE001 - a missing plot library loses only the plot
        print(f"no plot: {e}", file=sys.stderr)
    print(bench.format_table(report), file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except XsplitError as e:
        print(e.diagnostic, file=sys.stderr)
        sys.exit(1)
