"""xsplit's Python rewrite API: text in, text out, or xDSL modules in place.

Every failure raises `XsplitError`, whose `diagnostic` is the one line the
command line prints (`file:line:col: error: ...` where there is a location).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from types import ModuleType

from xdsl.dialects.builtin import ModuleOp

from xsplit.diagnostics import XsplitError
from xsplit.pipeline import available_passes, build_pipeline, run_passes, xsplit_pass_names
from xsplit.reader import one_line, parse_module, print_module
from xsplit.rewrites.pass_pipeline import PassPipeline

# The names below are the public API; these come from the layers beneath it.
__all__ = [
    "PassPipeline",
    "PatternInfo",
    "available_passes",
    "build_pipeline",
    "load_patterns",
    "parse_module",
    "patterns",
    "print_module",
    "rewrite",
    "rewrite_module",
    "run_passes",
    "xsplit_pass_names",
]


@dataclass(frozen=True)
class PatternInfo:
    """One registered pattern, as `--list-patterns` shows it."""

    name: str
    root: tuple[str, ...]
    pass_name: str
    doc: str
    kind: str
    """`rewrite` or `remark`."""


def patterns() -> list[PatternInfo]:
    """Every registered pattern: xsplit's own and those loaded from files."""
    from xsplit.passes import load_builtin_passes
    from xsplit.rewrites.dsl import PASSES, Remark

    load_builtin_passes()
    seen: dict[str, PatternInfo] = {}
    for pass_name, p in PASSES.items():
        for pattern in p.patterns:
            kind = "remark" if isinstance(pattern, Remark) else "rewrite"
            info = PatternInfo(pattern.name, pattern.root, pass_name, pattern.doc, kind)
            seen.setdefault(f"{pass_name}/{pattern.name}", info)
    return list(seen.values())


def load_patterns(path: str) -> ModuleType:
    """Runs a Python file of DSL patterns; the passes it declares register
    themselves and can then be named in pipelines."""
    if not isinstance(path, str | os.PathLike):
        raise XsplitError(f"load_patterns takes a file path, not {type(path).__name__}")
    path = os.fspath(path)
    key = os.path.realpath(path)
    if key in _LOADED_PATTERN_FILES:
        return _LOADED_PATTERN_FILES[key]
    name = f"xsplit_user_patterns_{len(_LOADED_PATTERN_FILES)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise XsplitError(f"cannot load patterns from '{path}': not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        raise XsplitError(f"cannot load patterns from '{path}': no such file") from None
    except XsplitError as e:
        raise XsplitError(f"cannot load patterns from '{path}': {e.message}") from None
    except Exception as e:
        raise XsplitError(
            f"cannot load patterns from '{path}': {type(e).__name__}: {one_line(str(e))}"
        ) from None
    _LOADED_PATTERN_FILES[key] = module
    return module


_LOADED_PATTERN_FILES: dict[str, ModuleType] = {}
"""Pattern files already run, by real path: loading one twice is a no-op."""


def rewrite_module(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Runs `pipeline` on `module` in place and returns it."""
    if not isinstance(module, ModuleOp):
        raise XsplitError(f"rewrite_module takes an xDSL ModuleOp, not {type(module).__name__}")
    run_passes(module, build_pipeline(pipeline))
    return module


def rewrite(source: str, pipeline: str, filename: str = "<string>") -> str:
    """Parses `source`, runs `pipeline` on it and prints the result."""
    for what, value in (("source", source), ("filename", filename)):
        if not isinstance(value, str):
            raise XsplitError(f"rewrite's {what} is text, not {type(value).__name__}")
    passes = build_pipeline(pipeline)
    module = parse_module(source, filename)
    run_passes(module, passes)
    return print_module(module)
