"""xsplit: split-K (reduction splitting) and the staged rewrites around it, on
MLIR, for IREE. See `xsplit.api` for the Python API and `xsplit-opt` for the
command line."""

from xsplit.api import (
    PatternInfo,
    load_patterns,
    parse_module,
    patterns,
    print_module,
    rewrite,
    rewrite_module,
)
from xsplit.diagnostics import XsplitError

__all__ = [
    "PatternInfo",
    "XsplitError",
    "load_patterns",
    "parse_module",
    "patterns",
    "print_module",
    "rewrite",
    "rewrite_module",
]
