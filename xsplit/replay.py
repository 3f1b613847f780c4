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

        reports = device_timing.run_saved_bench(
            directory, manifest, device, cpu, runs, progress,
            report=lambda r: out(device_timing.format_table(r)),
        )
        if json_out:
            write_output(json_out, device_timing.to_json(reports))
        if markdown_out:
            write_output(markdown_out, device_timing.markdown(reports))
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
    parser.add_argument("--json", metavar="OUT.json", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="OUT.md", help="write the results as Markdown")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_arg_parser().parse_args(argv)
    try:
        return replay(args.directory, args.device, args.runs, args.json, args.markdown)
    except XsplitError as e:
        print(f"python -m xsplit.replay: {e.diagnostic}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("python -m xsplit.replay: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
