"""`xsplit-opt`: xsplit's passes on MLIR text, in xdsl-opt's conventions.

    xsplit-opt [FILE|-] -p PIPELINE [-o OUT] [--split-input-file]
               [--print-op-generic] [--verify-diagnostics]
               [--load-patterns FILE] [--help-pass NAME] [--list-patterns]
               [--xsplit-stats] [--xsplit-explain] [--verify-each]

The module is verified after parsing and once after the last pass;
--verify-each verifies after every pass, naming the pass that produced invalid
IR. Errors print one line, `file:line:col: error: ...` where there is a
location, and exit 1 (2 for bad command-line usage). The input is only read. An output
file is written whole or not at all (xsplit.files); a device, a named pipe or
/dev/stdout is written in place.
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from xsplit.api import (
    build_pipeline,
    parse_module,
    patterns,
    print_module,
    run_passes,
)
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.dialects import make_context
from xsplit.files import write_output
from xsplit.rewrites.dsl import PASSES, engine_settings
from xsplit.tools.args import (
    OneLineArgumentParser,
    add_input,
    add_load_patterns,
    add_pipeline,
    describe_pass,
    load_pattern_files,
    passes_epilog,
)

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.MULTILINE)


def make_arg_parser() -> argparse.ArgumentParser:
    """The parser; its --help lists the passes, those of pattern files loaded
    beforehand included."""
    # Listing the passes imports every one of them, which a run that names
    # none has no need of: the list is made when --help prints it. Pattern
    # files that declared passes have it made here, as it always was, so that
    # one named as a built-in pass is refused before anything runs.
    declared = bool(PASSES)
    parser = OneLineArgumentParser(
        prog="xsplit-opt",
        description="Split reductions (split-K) and form IREE dispatches on MLIR.",
        epilog=passes_epilog() if declared else None,
        epilog_from=None if declared else passes_epilog,
    )
    add_input(parser, optional=True)
    add_pipeline(parser, required=False, what="the passes to run")
    parser.add_argument("-o", "--output-file", metavar="OUT", help="output file (default: stdout)")
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="treat '// -----' lines as boundaries between independent inputs",
    )
    parser.add_argument("--print-op-generic", action="store_true", help="print ops in generic form")
    add_load_patterns(parser)
    parser.add_argument(
        "--help-pass",
        metavar="NAME",
        help="print a pass's options (name, type, default, meaning) and exit",
    )
    parser.add_argument(
        "--list-patterns",
        action="store_true",
        help="print every pattern (name, root op, pass, doc) and exit",
    )
    parser.add_argument(
        "--xsplit-stats", action="store_true", help="report which patterns fired, on stderr"
    )
    parser.add_argument(
        "--xsplit-explain",
        action="store_true",
        help="say, for each op tried, why each pattern did not match",
    )
    parser.add_argument(
        "--verify-each",
        action="store_true",
        help="verify the IR after every pass, not only after the last one "
        "(names the pass that produced invalid IR)",
    )
    parser.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="print errors to stdout and go on with the next input chunk",
    )
    return parser


def read_input(path: str) -> tuple[str, str]:
    """The text to rewrite and the name diagnostics give it."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except IsADirectoryError:
        raise XsplitError(f"cannot read '{path}': it is a directory") from None
    except OSError as e:
        raise XsplitError(f"cannot read '{path}': {e.strerror}") from None
    except UnicodeDecodeError:
        raise XsplitError(f"cannot read '{path}': it is not UTF-8 text") from None


def split_chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """The input's chunks, each with the line number it starts on."""
    if not split:
        return [(text, 1)]
    chunks: list[tuple[str, int]] = []
    start, line = 0, 1
    for marker in SPLIT_MARKER.finditer(text):
        chunks.append((text[start : marker.start()], line))
        line += text.count("\n", start, marker.end()) + 1
        start = marker.end() + 1
    chunks.append((text[start:], line))
    return chunks


def list_patterns() -> str:
    rows = [(p.name, ", ".join(p.root), p.pass_name, p.doc) for p in patterns()]
    widths = [max(len(r[i]) for r in rows + [HEADER]) for i in range(3)]
    return "".join(
        f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}\n"
        for a, b, c, d in [HEADER, *rows]
    )


HEADER = ("pattern", "root", "pass", "doc")


def format_stats(stats: dict[str, dict[str, int]]) -> list[str]:
    return [
        f"xsplit-stats: {pass_name}: {pattern}: {count}"
        for pass_name, counts in stats.items()
        for pattern, count in counts.items()
    ]


def run(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        # Before the full parse: --help lists the passes these files declare.
        load_pattern_files(argv)
    except XsplitError as e:
        print(e.diagnostic, file=sys.stderr)
        return 1
    args = make_arg_parser().parse_args(argv)
    with (
        collect_remarks() as remarks,
        engine_settings(explain=args.xsplit_explain, stats=args.xsplit_stats) as settings,
    ):
        try:
            if args.help_pass is not None:
                sys.stdout.write(describe_pass(args.help_pass))
                return 0
            if args.list_patterns:
                sys.stdout.write(list_patterns())
                return 0
            passes = build_pipeline(args.passes)
            text, name = read_input(args.input_file)
            ctx = make_context()
            outputs: list[str] = []
            for chunk, first_line in split_chunks(text, args.split_input_file):
                try:
                    module = parse_module(chunk, name, ctx, first_line)
                    run_passes(module, passes, ctx, verify_each=args.verify_each)
                    outputs.append(print_module(module, args.print_op_generic))
                except XsplitError as e:
                    if not args.verify_diagnostics:
                        raise
                    outputs.append(e.diagnostic + "\n")
            _flush(remarks)
            if settings.stats is not None:
                for line in format_stats(settings.stats):
                    print(line, file=sys.stderr)
            write_output(args.output_file, "// -----\n".join(outputs), args.input_file)
        except XsplitError as e:
            _flush(remarks)
            print(e.diagnostic, file=sys.stderr)
            return 1
        finally:
            _flush(remarks)
    return 0


def _flush(remarks: list[str]) -> None:
    for line in remarks:
        print(line, file=sys.stderr)
    remarks.clear()


def main() -> NoReturn:
    # A run allocates millions of objects that live to its end; the cyclic
    # collector would rescan them again and again, and once more at exit (a
    # second or more for a large module), to free little: the ops a pass
    # erases. The process ends anyway, so it is off, and what is left at the
    # end is left to the operating system.
    gc.disable()
    try:
        code = run()
    except KeyboardInterrupt:
        print("xsplit-opt: error: interrupted", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        code = 1
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    main()
