"""The split-choice benchmark: `xsplit bench` over every shape in bench/shapes,
then the issue's three criteria, as a Markdown summary on stdout.

    python bench/split_choice.py [--runs 7] [--sweep 1,2,4,...] [--out DIR]

Each shape's full report is written to DIR/<shape>.json and its plot to
DIR/<shape>.png. Timings are ratios within one run of one process; see
bench/RESULTS.md for what was measured and how to read it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from xsplit.bench import driver as bench
from xsplit.targets.table import GPU_TARGETS

HERE = Path(__file__).parent
DEFAULT_SWEEP = "1,2,4,8,16,32,64,128,256"


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sweep", default=DEFAULT_SWEEP)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--gpu-only", action="store_true", help="only the GPU workgroup counts, no CPU timings"
    )
    parser.add_argument("shapes", nargs="*", type=Path)
    args = parser.parse_args()
    sweep = [int(f) for f in args.sweep.split(",")]
    shapes = args.shapes or sorted((HERE / "shapes").glob("*.mlir"))
    args.out.mkdir(parents=True, exist_ok=True)

    rows, over_best_iree, model_quality, gpu_rows = [], [], [], []
    never_slower = True
    for path in shapes:
        print(f"benchmarking {path.name} ...", file=sys.stderr)
        if args.gpu_only:
            report = bench.run_bench(path.read_text(), path.name, runs=0)
            gpu_rows += _gpu_rows(path, report)
            continue
        report = bench.run_bench(path.read_text(), path.name, sweep=sweep, runs=args.runs)
        bench.write_json(report, str(args.out / f"{path.stem}.json"))
        bench.plot(report, str(args.out / f"{path.stem}.png"))
        print(bench.format_table(report), file=sys.stderr)
        summary = report.to_json()["summary"]
        ms = {c.name: c.median_ms for c in report.configs}
        best_iree = report.best_iree()
        best = report.best_sweep()
        model = ms[bench.MODEL_CONFIG]
        assert best_iree is not None and best is not None and model is not None
        over_best_iree.append(summary["model_over_best_iree"])
        quality = model / best.median_ms  # type: ignore[operator]
        model_quality.append(quality)
        never_slower &= summary["model_over_iree_default"] >= 1.0
        rows.append(
            f"| {path.stem} | {ms['iree-default']:.1f} | {_ms(ms['iree-data-tiling'])} | "
            f"{_ms(ms['iree-split-reduction'])} | {report.model_factor} | {model:.1f} | "
            f"{summary['model_over_best_iree']:.2f}x | {summary['model_over_iree_default']:.2f}x | "
            f"{best.factor} ({best.median_ms:.1f}) | {quality:.2f} |"
        )
        gpu_rows += _gpu_rows(path, report)

    if not args.gpu_only:
        _print_cpu_summary(rows, over_best_iree, never_slower, model_quality)
    print("| shape | GPU | unsplit workgroups | unsplit fill | chunks | split workgroups |"
          " split waves | under 10% -> one full wave |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(gpu_rows))
    print(f"\nGPU targets: {', '.join(GPU_TARGETS)}", file=sys.stderr)
    return 0


def _gpu_rows(path: Path, report: bench.BenchReport) -> list[str]:
    rows = []
    for g in report.gpu:
        unsplit = bench.GpuFill.fill_of(g.unsplit_workgroups, g.processors)
        split = g.split_waves
        needed = unsplit is not None and unsplit < 0.10
        ok = "n/a" if not needed else ("yes" if split is not None and split >= 1 else "NO")
        rows.append(
            f"| {path.stem} | {g.target} | {g.unsplit_workgroups} | "
            f"{_pct(unsplit)} | {g.split_factor} | {g.split_workgroups} | "
            f"{_num(split)} | {ok} |"
        )
    return rows


def _print_cpu_summary(
    rows: list[str], over_best_iree: list[float], never_slower: bool, model_quality: list[float]
) -> None:
    print("| shape | IREE default ms | IREE data-tiling ms | IREE split ms | model chunks |"
          " xsplit ms | over IREE's best | over IREE default | sweep best (ms) |"
          " model / best |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print(f"- geomean of xsplit over IREE's best configuration: {geomean(over_best_iree):.2f}x")
    print(f"- never slower than IREE default: {'yes' if never_slower else 'NO'}")
    print(
        f"- model's pick within 10% of the sweep's best: "
        f"{sum(q <= 1.10 for q in model_quality)}/{len(model_quality)} shapes "
        f"(worst {max(model_quality):.2f})"
    )
    print()


def _ms(value: float | None) -> str:
    return "failed" if value is None else f"{value:.1f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
