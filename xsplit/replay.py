"""Replays a directory that `xsplit check|e2e|bench --device D --save DIR`
wrote, on a machine with only IREE's runtime (`iree-base-runtime`), numpy and
xsplit's pure-Python code: no xDSL, no iree-compile.

    python -m xsplit.replay DIR [--device cuda|hip|local-task] [--runs N]
                                [--json OUT.json] [--markdown OUT.md]

It prints what the direct run prints (check and e2e: the comparisons and
PASS or FAIL; bench: each program's table), and exits as they do: 0 on PASS
(bench: when it has run), 1 on FAIL, 2 on an error, in one line.

Nothing here may import xDSL or iree.compiler, directly or through what it
imports (tests/interop/test_replay.py runs it with both blocked).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence

from xsplit.diagnostics import XsplitError
from xsplit.files import write_output
from xsplit.iree.device import COMPILE_TARGET, DEVICES, Device, open_device

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2

Printer = Callable[[str], None]


def replay(
    directory: str,
    device_name: str | None = None,
    runs: int | None = None,
    json_out: str | None = None,
    markdown_out: str | None = None,
    out: Printer = print,
    progress: Callable[[str], None] = lambda step: None,
    only: Sequence[str] = (),
    deadline_s: float | None = None,
) -> int:
    """Runs a saved directory on a device (default: the one it was compiled
    for); prints the report through `out`; returns the exit code."""
    from xsplit.interop.saved import read_manifest

    manifest = read_manifest(directory)
    name = device_name or manifest.device
    if COMPILE_TARGET.get(name) != manifest.compiled_for:
        raise XsplitError(
            f"{directory} holds modules compiled for {manifest.compiled_for} "
            f"(device '{manifest.device}'); they cannot run on '{name}'"
        )
    device = open_device(name)
    needs_cpu = any(p.reference is None for p in manifest.programs)
    cpu: Device | None = open_device("local-task") if needs_cpu else None
    if manifest.kind in ("check", "e2e"):
        from xsplit.interop.saved import run_check

        run = run_check(directory, manifest, device, cpu)
        for line in run.lines:
            out(line)
        if json_out:
            write_output(json_out, json.dumps(
                {"device": device.description, "passed": run.passed, "results": run.results},
                indent=1,
            ) + "\n")
        if markdown_out:
            write_output(markdown_out, "```\n" + "\n".join(run.lines) + "\n```\n")
        return EXIT_PASS if run.passed else EXIT_FAIL
    if manifest.kind == "bench":
        from xsplit.bench import device_timing

        skipped: list[str] = []
        done: list[device_timing.DeviceBenchReport] = []
        title = (
            f"Timed on {device.description}, modules compiled for {manifest.compiled_for} "
            f"by {manifest.compiler or 'iree-compile'}"
        )

        def write() -> None:
            if json_out:
                write_output(json_out, device_timing.to_json(done))
            if markdown_out:
                write_output(markdown_out, device_timing.markdown(done, title, skipped))

        def report(r: device_timing.DeviceBenchReport) -> None:
            out(device_timing.format_table(r))
            done.append(r)
            # Written after each program: a device call cut short keeps what it measured.
            write()

        device_timing.run_saved_bench(
            directory, manifest, device, cpu, runs, progress, report=report,
            only=only, deadline_s=deadline_s, skipped=skipped,
        )
        if skipped:
            out(f"not run (past --deadline-s): {', '.join(skipped)}")
        write()
        return EXIT_PASS
    raise XsplitError(f"{directory}: unknown kind of run '{manifest.kind}'")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[no-untyped-def]
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(EXIT_ERROR)


def make_arg_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m xsplit.replay",
        description="Run, on a device, what `xsplit check|e2e|bench --device D --save DIR` "
        "compiled; needs only iree-base-runtime and numpy.",
    )
    parser.add_argument("directory", metavar="DIR", help="the directory --save wrote")
    parser.add_argument(
        "--device", choices=DEVICES,
        help="the device to run on (default: the one DIR was compiled for)",
    )
    parser.add_argument("--runs", type=int, metavar="N", help="bench: timed repetitions")
    parser.add_argument(
        "--only", action="append", default=[], metavar="TEXT",
        help="bench: only the programs whose names contain TEXT (repeatable)",
    )
    parser.add_argument(
        "--deadline-s", type=float, metavar="S",
        help="bench: start no program after S seconds (the rest are listed as not run)",
    )
    parser.add_argument("--json", metavar="OUT.json", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="OUT.md", help="write the results as Markdown")
    parser.add_argument("-v", "--verbose", action="store_true", help="say each step on stderr")
    return parser


def _progress(step: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {step}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = make_arg_parser().parse_args(argv)
    try:
        return replay(
            args.directory, args.device, args.runs, args.json, args.markdown,
            progress=_progress if args.verbose else lambda step: None,
            only=args.only, deadline_s=args.deadline_s,
        )
    except XsplitError as e:
        print(f"python -m xsplit.replay: {e.diagnostic}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("python -m xsplit.replay: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
