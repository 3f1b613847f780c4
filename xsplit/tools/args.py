"""The command-line conventions every xsplit tool shares (xsplit-opt, xsplit
check, bench and e2e, xsplit-e2e): a parser whose usage errors are one line,
the same options under the same names with the same help, and pattern files
loaded before anything else, so that the passes they declare are listed in
--help and accepted in pipelines."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import NoReturn

USAGE_ERROR = 2

PIPELINE_EXAMPLE = "'split-k{factor=77},materialize-late'"


class OneLineArgumentParser(argparse.ArgumentParser):
    """Reports a usage error as `prog: error: ...` on one line and exits 2.
    Its help keeps the line breaks of its description and epilog. An epilog
    given as `epilog_from`, a function, is made only when the help is."""

    def __init__(  # type: ignore[no-untyped-def]
        self, *args, epilog_from: Callable[[], str] | None = None, **kwargs
    ):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self.epilog_from = epilog_from

    def format_help(self) -> str:
        if self.epilog_from is not None:
            self.epilog, self.epilog_from = self.epilog_from(), None
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(USAGE_ERROR)


def pattern_files(argv: Sequence[str]) -> list[str]:
    """The files `--load-patterns` names in `argv`, read before the full parse
    (whose --help lists the passes they declare)."""
    files: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--load-patterns" and i + 1 < len(argv):
            files.append(argv[i + 1])
        elif arg.startswith("--load-patterns="):
            files.append(arg.split("=", 1)[1])
    return files


def load_pattern_files(argv: Sequence[str]) -> None:
    """Loads every pattern file `argv` names; raises XsplitError naming the file."""
    from xsplit.api import load_patterns

    for path in pattern_files(argv):
        load_patterns(path)


def pass_summaries() -> list[tuple[str, str]]:
    """xsplit's passes and the loaded ones, each with its one-line doc."""
    from xsplit.api import xsplit_pass_names
    from xsplit.passes import load_builtin_passes

    load_builtin_passes()
    return [(name, pass_doc(name)) for name in xsplit_pass_names()]


def pass_doc(name: str) -> str:
    """A pass's one-line doc: the DSL's, or the first line of a plain
    ModulePass's docstring (`auto` is a pipeline alias, not a DSL pass)."""
    from xsplit.api import available_passes
    from xsplit.rewrites.dsl import PASSES

    if name in PASSES:
        return PASSES[name].doc
    doc = available_passes()[name]().__doc__ or ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    return first[:1].upper() + first[1:] if first else "(no description)"


def passes_epilog(help_pass: str = "xsplit-opt --help-pass NAME") -> str:
    """The help's list of passes a pipeline may name."""
    rows = pass_summaries()
    width = max(len(name) for name, _ in rows)
    lines = ["passes (-p), with --load-patterns files' passes:"]
    lines += [f"  {name:<{width}}  {doc}" for name, doc in rows]
    lines.append("")
    lines.append(
        textwrap.fill(
            f"Pass options go in braces, separated by spaces: {PIPELINE_EXAMPLE}. "
            f"{help_pass} lists a pass's options. xDSL's own passes are accepted too.",
            79,
        )
    )
    return "\n".join(lines)


def describe_pass(name: str) -> str:
    """`--help-pass NAME`: a pass's doc and each option's name, type, default
    and meaning; xDSL's passes as xDSL declares them."""
    from xdsl.passes import get_pass_option_infos

    from xsplit.api import available_passes, xsplit_pass_names
    from xsplit.diagnostics import XsplitError
    from xsplit.passes import load_builtin_passes
    from xsplit.rewrites.dsl import PASSES

    load_builtin_passes()
    if name in PASSES:
        return PASSES[name].help()
    passes = available_passes()
    if name not in passes:
        raise XsplitError(
            f"unknown pass '{name}'; xsplit's passes are {', '.join(xsplit_pass_names())} "
            "(xDSL's own passes are accepted too)"
        )
    cls = passes[name]()
    doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    lines = [f"{name}: {doc or 'an xDSL pass'}"]
    infos = get_pass_option_infos(cls)
    if not infos:
        lines.append("  It takes no options.")
    meanings: dict[str, str] = getattr(cls, "OPTION_MEANINGS", {})
    for info in infos:
        default = "not set" if info.default_value in (None, "none") else info.default_value
        # xDSL gives the annotation as quoted Python ('str'); say it as xsplit's own passes do.
        kind = info.expected_type.strip("\"'")
        kind = {"str": "string", "int": "integer"}.get(kind, kind)
        lines.append(f"  {info.name}={kind}  (default: {default})")
        if info.name in meanings:
            lines.extend(
                textwrap.wrap(meanings[info.name], 78, initial_indent=" " * 6, subsequent_indent=" " * 6)
            )
    return "\n".join(lines) + "\n"


def add_input(parser: argparse.ArgumentParser, optional: bool = False) -> None:
    if optional:
        parser.add_argument(
            "input_file",
            nargs="?",
            default="-",
            metavar="IN.mlir",
            help="the MLIR program, or - for stdin (default)",
        )
    else:
        parser.add_argument("input_file", metavar="IN.mlir", help="the MLIR program, or - for stdin")


def add_pipeline(parser: argparse.ArgumentParser, required: bool, what: str) -> None:
    parser.add_argument(
        "-p",
        "--passes",
        required=required,
        default="",
        metavar="PIPELINE",
        help=f"{what}: comma-separated passes, e.g. {PIPELINE_EXAMPLE} (listed below)",
    )


def add_load_patterns(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--load-patterns",
        action="append",
        default=[],
        metavar="FILE",
        help="a Python file of DSL patterns whose passes the pipeline may name (repeatable)",
    )


def _int_at_least(minimum: int, kind: str) -> Callable[[str], int]:
    """An argparse type for integers >= `minimum`, named in errors as `kind`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind}, got '{text}'") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {value}")
        return value

    return parse


_size = _int_at_least(0, "a size (an integer >= 0)")
positive_int = _int_at_least(1, "an integer >= 1")
_seed = _int_at_least(0, "an integer >= 0")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """How a program is run: its dynamic sizes, which function, which inputs."""
    parser.add_argument(
        "--dim",
        type=_size,
        action="append",
        default=[],
        metavar="N",
        help="the size of the next dynamic dimension of the arguments, in order "
        "(one --dim per '?'; sizes of one loop must be equal)",
    )
    parser.add_argument(
        "--function", metavar="NAME", help="the function to run (default: the first with a body)"
    )
    parser.add_argument(
        "--seed", type=_seed, default=0, help="the seed of the random inputs (default: 0)"
    )


def add_no_gpu(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--no-gpu", action="store_true", help=f"skip {what}")


def add_device(parser: argparse.ArgumentParser, what: str) -> None:
    """`--device` and `--save`: run on a device, and keep what was compiled
    for it so that another machine can run it (`python -m xsplit.replay`)."""
    from xsplit.iree.device import DEVICES

    parser.add_argument(
        "--device",
        choices=DEVICES,
        help=f"compile for this device and {what} on it (cuda: sm_80, hip: gfx942, "
        "local-task: this CPU); results are also held to numpy's float64 reference",
    )
    parser.add_argument(
        "--save",
        metavar="DIR",
        help="with --device: write the compiled modules, the inputs' recipe and a manifest to "
        "DIR, for python -m xsplit.replay DIR on a machine with only iree-base-runtime and "
        "numpy; where the device is not usable here, only compile and save",
    )
