"""xsplit: split-K (reduction splitting) and the staged rewrites around it, on
MLIR, for IREE. See `xsplit.api` for the Python API and `xsplit-opt` for the
command line."""

from typing import TYPE_CHECKING, Any

from xsplit.diagnostics import XsplitError

if TYPE_CHECKING:
    from xsplit.api import (
        PatternInfo,
        load_patterns,
        parse_module,
        patterns,
        print_module,
        rewrite,
        rewrite_module,
    )

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


def __getattr__(name: str) -> Any:
    # The API is loaded on first use, not on `import xsplit`: the replay
    # (`python -m xsplit.replay`) runs where xDSL is not installed.
    if name in __all__:
        import xsplit.api

        return getattr(xsplit.api, name)
    raise AttributeError(f"module 'xsplit' has no attribute {name!r}")
