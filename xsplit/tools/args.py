"""Command-line pieces the xsplit tools share: a parser whose usage errors are
one line, and the options that name patterns and feed programs."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

USAGE_ERROR = 2


class OneLineArgumentParser(argparse.ArgumentParser):
    """Reports a usage error as `prog: error: ...` on one line and exits 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(USAGE_ERROR)


def add_load_patterns(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--load-patterns",
        action="append",
        default=[],
        metavar="FILE",
        help="a Python file of DSL patterns whose passes the pipeline may name",
    )


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """How a program is run: its dynamic sizes and which function."""
    parser.add_argument(
        "--dim",
        type=int,
        action="append",
        default=[],
        help="the size of the next dynamic dimension of the arguments, in order",
    )
    parser.add_argument("--function", help="the function to run (default: the first with a body)")
