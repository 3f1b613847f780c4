"""xsplit: checking, benchmarking and running end to end what xsplit's
pipelines do.

    xsplit check IN.mlir -p PIPELINE [--dim N ...] [--function F] [--seed S]
    xsplit bench IN.mlir [--sweep 1,2,4,...] [--runs N] [--json OUT] [--plot OUT.png]
    xsplit e2e IN.mlir -p PIPELINE [--dim N ...] [--no-gpu] [--print-ir]
    xsplit simulate IN.mlir [--grid X[,Y,Z]] [--block X[,Y,Z]] [--reference FILE]
    xsplit bench --calibrate
    xsplit check|e2e|bench IN.mlir ... --device cuda|hip|local-task [--save DIR]
    python -m xsplit.replay DIR [--device D]   (runs what --save wrote)

check and e2e exit 0 when every result matches within its tolerance, 1 when
one does not, and 2 on an error (bad input, bad options, a failed compile).
simulate exits 0 when the kernel has no race and its results match, 1 when
it races or differs, and 2 on an error.
bench exits 0 when it has timed every configuration it could compile, and 2
on an error.

A subcommand is one entry of SUBCOMMANDS: its options and what it runs.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.files import ensure_writable
from xsplit.targets.table import COMPILED_GPU_TARGETS, GPU_TARGETS, TARGETS
from xsplit.tools.args import (
    USAGE_ERROR,
    OneLineArgumentParser,
    add_device,
    add_input,
    add_load_patterns,
    add_no_gpu,
    add_pipeline,
    add_run_options,
    load_pattern_files,
    passes_epilog,
    positive_int,
)
from xsplit.tools.xsplit_opt import read_input

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, USAGE_ERROR


@dataclass(frozen=True)
class Subcommand:
    """One `xsplit NAME` command."""

    help: str
    """One line, for `xsplit --help`."""
    description: str
    configure: Callable[[argparse.ArgumentParser], None]
    """Adds the options besides the input file and --load-patterns."""
    run: Callable[[argparse.Namespace, str, str], int]
    """Runs it on the input's text and name; returns the exit code."""
    takes_pipeline: bool = False
    """Whether its help lists the passes."""
    input_optional: bool = False
    """Whether it may run without an input (`bench --calibrate`); stdin is the default."""


def _factors(text: str) -> list[int]:
    try:
        factors = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated chunk counts (integers >= 1), got '{text}'"
        ) from None
    if not factors or any(f < 1 for f in factors):
        raise argparse.ArgumentTypeError(
            f"expected comma-separated chunk counts (integers >= 1), got '{text}'"
        )
    return sorted(set(factors))


def _add_exact_pipeline(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exact-pipeline",
        action="store_true",
        help="run the pipeline as given, even when it leaves a graph-level loop that "
        "iree-compile 3.13 cannot take (by default materialize-late is added, with a remark)",
    )


# xsplit check


def _configure_check(parser: argparse.ArgumentParser) -> None:
    add_pipeline(parser, required=True, what="the pipeline to check")
    add_run_options(parser)
    _add_exact_pipeline(parser)
    add_device(parser, "run the original and the rewrite")


def _on_device(
    args: argparse.Namespace, save: Callable[[str], object], run: Callable[[str], int]
) -> int:
    """`--device`: compiles into --save's directory (or a temporary one) with
    `save`, then runs it with `run` (what `python -m xsplit.replay` runs).
    A device that is not usable here is an error of one line, before any
    compile, unless --save asks only to compile."""
    import shutil
    import tempfile

    from xsplit.iree.device import device_problem

    problem = device_problem(args.device)
    if problem is not None and not args.save:
        print(f"{args.tool_name}: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    directory = args.save or tempfile.mkdtemp(prefix="xsplit-device-")
    try:
        save(directory)
        if problem is not None:
            print(
                f"{args.tool_name}: saved to {directory}; {problem}: run "
                f"`python -m xsplit.replay {directory} --device {args.device}` where it is",
                file=sys.stderr,
            )
            return EXIT_PASS
        return run(directory)
    finally:
        if not args.save:
            shutil.rmtree(directory, ignore_errors=True)


def _replay(directory: str) -> int:
    from xsplit.replay import replay

    return replay(directory, progress=lambda step: None)


def _check_save_options(args: argparse.Namespace) -> None:
    if args.save and not args.device:
        raise XsplitError("--save needs --device: it saves what was compiled for a device")
    if args.save:
        import os

        if os.path.exists(args.save) and not os.path.isdir(args.save):
            raise XsplitError(f"cannot save to '{args.save}': it is not a directory")
        try:
            os.makedirs(args.save, exist_ok=True)
        except OSError as e:
            raise XsplitError(f"cannot save to '{args.save}': {e.strerror}") from None


def _run_check(args: argparse.Namespace, source: str, name: str) -> int:
    from xsplit.interop.check import check_rewrite, save_check

    _check_save_options(args)
    if args.device:
        return _on_device(
            args,
            lambda d: save_check(
                source, args.passes, args.device, d, args.dim, args.function, args.seed, name,
                tool=args.tool_name, complete=not args.exact_pipeline,
            ),
            _replay,
        )
    _, results = check_rewrite(
        source, args.passes, args.dim, args.function, args.seed, name,
        tool="xsplit check", complete=not args.exact_pipeline,
    )
    for result in results:
        print(result.describe())
    passed = all(r.passed for r in results)
    print("PASS" if passed else "FAIL")
    return EXIT_PASS if passed else EXIT_FAIL


# xsplit bench


def _configure_bench(parser: argparse.ArgumentParser) -> None:
    add_run_options(parser)
    parser.add_argument(
        "--sweep", type=_factors, default=[], metavar="1,2,4,...", help="chunk counts to time"
    )
    parser.add_argument(
        "--runs", type=positive_int, default=7, metavar="N",
        help="timed rounds; each configuration reports the median (default: 7)",
    )
    parser.add_argument(
        "--target",
        choices=list(TARGETS),
        help="the target whose cost model picks the timed split (default: cpu; with "
        "--device, the device's: sm_90 for cuda, gfx942 for hip); without --device it must "
        "run here",
    )
    parser.add_argument(
        "--strategy", default="forall", choices=["forall", "grouped"],
        help="split-k's strategy (default: forall)",
    )
    parser.add_argument("--json", metavar="OUT.json", help="write the full report as JSON")
    parser.add_argument(
        "--plot", metavar="OUT.png",
        help="plot speedup against chunk count (needs matplotlib: pip install -e '.[plot]')",
    )
    add_no_gpu(parser, "the GPU targets' workgroup counts")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--no-encodings",
        action="store_true",
        help="leave out auto{target=...} and the sweep with encodings (set-encoding first)",
    )
    add_device(parser, "time IREE alone, IREE's own split, auto and the sweep")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="measure this CPU's per-core FLOP/s and streaming bandwidth and save them "
        "for target=cpu (no program needed)",
    )


def _run_bench(args: argparse.Namespace, source: str, name: str) -> int:
    from tqdm import tqdm

    from xsplit.bench import driver as bench

    _check_save_options(args)
    if args.device:
        return _run_device_bench(args, source, name)
    if args.target and not TARGETS[args.target].runs_here:
        raise XsplitError(
            f"--target {args.target} picks splits for a machine that is not this one; "
            f"time them there with --device, or pick with --target cpu"
        )
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
            name,
            sweep=args.sweep,
            runs=args.runs,
            model_target=args.target or "cpu",
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


def _run_device_bench(args: argparse.Namespace, source: str, name: str) -> int:
    """`bench --device`: compile and save every configuration, then check and
    time them on the device (`xsplit.bench.device_timing`)."""
    from xsplit.bench.device_save import DEFAULT_DEVICE_SWEEP, save_bench
    from xsplit.iree.device import MODEL_TARGET

    for path in (args.json, args.plot):
        if path:
            ensure_writable(path, args.input_file)
    if args.plot:
        raise XsplitError("--plot does not apply to --device (the table and --json do)")
    model_target = args.target or MODEL_TARGET[args.device]

    def save(directory: str) -> None:
        manifest = save_bench(
            [(source, name)], args.device, directory,
            sweep=args.sweep or DEFAULT_DEVICE_SWEEP, runs=args.runs, model_target=model_target,
            dims=args.dim, function=args.function, seed=args.seed, tool=args.tool_name,
        )
        for remark in manifest.programs[0].extra.get("auto_remarks", []):
            print(remark, file=sys.stderr)

    def run(directory: str) -> int:
        from xsplit.replay import replay

        return replay(directory, json_out=args.json)

    return _on_device(args, save, run)


# xsplit e2e


def _configure_e2e(parser: argparse.ArgumentParser) -> None:
    add_pipeline(parser, required=True, what="the pipeline to run")
    add_run_options(parser)
    add_no_gpu(parser, f"the GPU compiles ({', '.join(COMPILED_GPU_TARGETS)}): CPU only")
    parser.add_argument("--print-ir", action="store_true", help="print the rewritten IR first")
    _add_exact_pipeline(parser)
    add_device(parser, "run the original and the rewrite")


def _run_e2e(args: argparse.Namespace, source: str, name: str) -> int:
    from xsplit.interop.e2e import format_report, run_e2e, save_e2e

    _check_save_options(args)
    if args.device:

        def save(directory: str) -> None:
            text = save_e2e(
                source, args.passes, args.device, directory, args.dim,
                gpu_targets=() if args.no_gpu else COMPILED_GPU_TARGETS,
                function=args.function, seed=args.seed, name=name, tool=args.tool_name,
                complete=not args.exact_pipeline,
            )
            if args.print_ir:
                print(text)

        return _on_device(args, save, _replay)
    text, report = run_e2e(
        source,
        args.passes,
        args.dim,
        gpu_targets=() if args.no_gpu else COMPILED_GPU_TARGETS,
        function=args.function,
        seed=args.seed,
        name=name,
        tool=args.tool_name,
        complete=not args.exact_pipeline,
    )
    if args.print_ir:
        print(text)
    print(format_report(report))
    return EXIT_PASS if report.numerics_pass else EXIT_FAIL


def run_calibrate() -> int:
    from xsplit.bench import driver as bench

    flops, bandwidth, path = bench.calibrate()
    print(
        f"calibrated: {flops / 1e9:.1f} GFLOP/s per core (f32, IREE data-tiled), "
        f"{bandwidth / 1e9:.1f} GB/s streaming; saved to {path}"
    )
    return EXIT_PASS


# xsplit simulate


def _configure_simulate(parser: argparse.ArgumentParser) -> None:
    from xsplit.tools import simulate

    simulate.add_options(parser)


def _run_simulate(args: argparse.Namespace, source: str, name: str) -> int:
    from xsplit.tools import simulate

    return simulate.run(args)


SUBCOMMANDS: dict[str, Subcommand] = {
    "check": Subcommand(
        "compare a program and its rewrite on the CPU",
        "Compiles the program and its rewrite for the CPU, runs both on the same seeded "
        "random inputs, and compares every result. Exits 0 on PASS, 1 on FAIL, 2 on an error.",
        _configure_check,
        _run_check,
        takes_pipeline=True,
    ),
    "bench": Subcommand(
        "time xsplit's split against IREE alone",
        "Times IREE default, data-tiling and split-reduction, xsplit with the cost model's "
        "choice and a sweep of chunk counts on this CPU, alternating, and reports each GPU "
        "target's waves.",
        _configure_bench,
        _run_bench,
        input_optional=True,
    ),
    "e2e": Subcommand(
        "rewrite, check on the CPU, and compare workgroups on every target",
        "Rewrites the program, compiles it and the original for the CPU, runs both on the same "
        "seeded random inputs and compares every result, then compiles both for each target "
        "and prints each dispatch's workgroup count. Exits 0 on PASS, 1 on FAIL, 2 on an error.",
        _configure_e2e,
        _run_e2e,
        takes_pipeline=True,
    ),
    "simulate": Subcommand(
        "run a GPU kernel in the SPMD simulator",
        "Runs every thread of the kernel, phase by phase between barriers, in several orders, "
        "reports each race, and compares the results with the program's sequential semantics. "
        "Exits 0 when clean and equal, 1 on a race or a mismatch, 2 on an error.",
        _configure_simulate,
        _run_simulate,
    ),
}
"""Every `xsplit` subcommand, by name, in the order `xsplit --help` lists them."""


def _configure(parser: argparse.ArgumentParser, command: Subcommand) -> None:
    add_input(parser, optional=command.input_optional)
    command.configure(parser)
    add_load_patterns(parser)
    if command.takes_pipeline:
        parser.epilog = passes_epilog()


def make_arg_parser() -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(prog="xsplit", description=__doc__.split("\n\nA subcommand")[0])
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=OneLineArgumentParser, metavar="COMMAND"
    )
    for name, command in SUBCOMMANDS.items():
        sub = commands.add_parser(
            name, help=command.help, description=textwrap.fill(command.description, 79)
        )
        _configure(sub, command)
    return parser


def _execute(
    parse: Callable[[], argparse.Namespace], argv: Sequence[str], tool_name: str | None
) -> int:
    """Loads the pattern files, parses, reads the input and runs the command,
    printing remarks and errors as one line each."""
    with collect_remarks() as remarks:
        try:
            try:
                load_pattern_files(argv)
            except XsplitError as e:
                print(e.diagnostic, file=sys.stderr)
                return EXIT_ERROR
            args = parse()
            args.tool_name = tool_name or f"xsplit {args.command}"
            if getattr(args, "calibrate", False):
                return run_calibrate()
            source, name = read_input(args.input_file)
            return SUBCOMMANDS[args.command].run(args, source, name)
        except XsplitError as e:
            _flush(remarks)
            print(e.diagnostic, file=sys.stderr)
            return EXIT_ERROR
        except KeyboardInterrupt:
            _flush(remarks)
            print(f"{tool_name or 'xsplit'}: interrupted", file=sys.stderr)
            return 130
        finally:
            _flush(remarks)


def _flush(remarks: list[str]) -> None:
    for line in remarks:
        print(line, file=sys.stderr)
    remarks.clear()


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    return _execute(lambda: make_arg_parser().parse_args(argv), argv, None)


def run_subcommand(name: str, argv: Sequence[str], prog: str) -> int:
    """One subcommand as a program of its own (`xsplit-e2e` is `xsplit e2e`)."""
    command = SUBCOMMANDS[name]

    def parse() -> argparse.Namespace:
        parser = OneLineArgumentParser(
            prog=prog, description=textwrap.fill(command.description, 79)
        )
        _configure(parser, command)
        args = parser.parse_args(argv)
        args.command = name
        return args

    return _execute(parse, argv, prog)


def console_main() -> None:
    sys.exit(main())


def e2e_console_main() -> None:
    """`xsplit-e2e`, the README's main command: `xsplit e2e` under its old name."""
    sys.exit(run_subcommand("e2e", sys.argv[1:], prog="xsplit-e2e"))
