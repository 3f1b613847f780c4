"""`xsplit`: checking and benchmarking what xsplit's pipelines do.

    xsplit check IN.mlir -p PIPELINE [--dim N ...] [--function F] [--seed S]
    xsplit bench IN.mlir [--sweep 1,2,4,...] [--runs N] [--json OUT] [--plot OUT.png]
    xsplit bench --calibrate

`check` exits 0 when every result matches within its tolerance, 1 when one
does not, and 2 on an error (bad input, bad options, a failed compile).
`bench` exits 0 when it has timed every configuration it could compile, and 2
on an error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xsplit.api import load_patterns
from xsplit.diagnostics import XsplitError
from xsplit.interop.targets import GPU_TARGETS, TARGETS
from xsplit.tools.args import (
    USAGE_ERROR,
    OneLineArgumentParser,
    add_load_patterns,
    add_run_options,
)
from xsplit.tools.files import ensure_writable
from xsplit.tools.xsplit_opt import read_input

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, USAGE_ERROR


def _factors(text: str) -> list[int]:
    try:
        factors = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got '{text}'")
    if not factors or any(f < 1 for f in factors):
        raise argparse.ArgumentTypeError(f"expected positive chunk counts, got '{text}'")
    return sorted(set(factors))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _add_program_options(parser: argparse.ArgumentParser, optional: bool = False) -> None:
    parser.add_argument("input_file", nargs="?" if optional else None, help="the MLIR program")
    add_run_options(parser)
    parser.add_argument("--seed", type=int, default=0, help="the random inputs' seed")
    add_load_patterns(parser)


def make_arg_parser() -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(prog="xsplit", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineArgumentParser)

    check = commands.add_parser(
        "check",
        help="compare a program and its rewrite on the CPU",
        description="Compiles the program and its rewrite for the CPU, runs both on the "
        "same seeded random inputs, and compares every result.",
    )
    _add_program_options(check)
    check.add_argument("-p", "--passes", required=True, help="the pipeline to check")

    bench = commands.add_parser(
        "bench",
        help="time xsplit's split against IREE alone",
        description="Times IREE default, data-tiling and split-reduction, xsplit with the "
        "cost model's choice and a sweep of factors on this CPU, alternating, and reports "
        "each GPU target's waves.",
    )
    _add_program_options(bench, optional=True)
    bench.add_argument(
        "--sweep", type=_factors, default=[], metavar="1,2,4,...", help="chunk counts to time"
    )
    bench.add_argument("--runs", type=_positive, default=7, help="timed rounds (median of these)")
    bench.add_argument(
        "--target",
        default="cpu",
        choices=[name for name, t in TARGETS.items() if t.runs_here],
        help="the target whose cost model picks the timed split",
    )
    bench.add_argument(
        "--strategy", default="forall", choices=["forall", "grouped"], help="split-k's strategy"
    )
    bench.add_argument("--json", metavar="OUT", help="write the full report as JSON")
    bench.add_argument("--plot", metavar="OUT.png", help="plot speedup against chunk count")
    bench.add_argument(
        "--no-gpu", action="store_true", help="skip the GPU targets' workgroup counts"
    )
    bench.add_argument("--no-progress", action="store_true", help="no progress bar")
    bench.add_argument(
        "--no-encodings",
        action="store_true",
        help="leave out auto{target=...} and the sweep with encodings (set-encoding first)",
    )
    bench.add_argument(
        "--calibrate",
        action="store_true",
        help="measure this CPU's per-core FLOP/s and streaming bandwidth and save them "
        "for target=cpu (no program needed)",
    )
    return parser


def run_calibrate() -> int:
    from xsplit.interop import bench

    flops, bandwidth, path = bench.calibrate()
    print(
        f"calibrated: {flops / 1e9:.1f} GFLOP/s per core (f32, IREE data-tiled), "
        f"{bandwidth / 1e9:.1f} GB/s streaming; saved to {path}"
    )
    return EXIT_PASS


def run_check(args: argparse.Namespace, source: str) -> int:
    from xsplit.interop.check import check_rewrite

    _, results = check_rewrite(
        source, args.passes, args.dim, args.function, args.seed, args.input_file
    )
    for result in results:
        print(result.describe())
    passed = all(r.passed for r in results)
    print("PASS" if passed else "FAIL")
    return EXIT_PASS if passed else EXIT_FAIL


def run_bench(args: argparse.Namespace, source: str) -> int:
    from tqdm import tqdm

    from xsplit.interop import bench

    for path in (args.json, args.plot):
        if path:
            ensure_writable(path, args.input_file)
    if args.plot:
        bench.require_matplotlib()
    gpu_targets = () if args.no_gpu else GPU_TARGETS
    total = bench.steps(args.sweep, args.runs, gpu_targets, not args.no_encodings)
    with tqdm(
        total=total, desc="xsplit bench", unit="step", disable=args.no_progress, leave=False
    ) as bar:

        def progress(step: str) -> None:
            bar.set_postfix_str(step, refresh=False)
            bar.update()

        report = bench.run_bench(
            source,
            args.input_file,
            sweep=args.sweep,
            runs=args.runs,
            model_target=args.target,
            gpu_targets=gpu_targets,
            dims=args.dim,
            function=args.function,
            seed=args.seed,
            strategy=args.strategy,
            progress=progress,
            encodings=not args.no_encodings,
        )
    for remark in report.model_remarks:
        print(remark, file=sys.stderr)
    print(bench.format_table(report))
    if args.json:
        bench.write_json(report, args.json)
    if args.plot:
        bench.plot(report, args.plot)
    return EXIT_PASS


def main(argv: Sequence[str] | None = None) -> int:
    args = make_arg_parser().parse_args(argv)
    try:
        for path in args.load_patterns:
            load_patterns(path)
        if args.command == "bench" and args.calibrate:
            return run_calibrate()
        if args.input_file is None:
            raise XsplitError(f"xsplit {args.command}: an input file is needed")
        source, _ = read_input(args.input_file)
        if args.command == "check":
            return run_check(args, source)
        return run_bench(args, source)
    except XsplitError as e:
        print(e.diagnostic, file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("xsplit: interrupted", file=sys.stderr)
        return 130


def console_main() -> None:
    sys.exit(main())
