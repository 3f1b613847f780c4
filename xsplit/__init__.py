"""xsplit: split-K (reduction splitting) and the staged rewrites around it, on
MLIR, for IREE. See `xsplit.api` for the Python API and `xsplit-opt` for the
command line."""

from xsplit.api import parse_module, print_module, rewrite, rewrite_module
from xsplit.diagnostics import XsplitError

__all__ = ["XsplitError", "parse_module", "print_module", "rewrite", "rewrite_module"]
