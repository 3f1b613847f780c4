"""xsplit's Python rewrite API: text in, text out, or xDSL modules in place.

Every failure raises `XsplitError`, whose `diagnostic` is the one line the
command line prints (`file:line:col: error: ...` where there is a location).
"""

from __future__ import annotations

import importlib.util
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from xsplit.diagnostics import XsplitError
from xsplit.dialects import make_context
from xsplit.passes import XSPLIT_PASSES
from xsplit.reader import one_line, print_carried, read_module, verify_module, was_carried


_COMMENT = re.compile(r"//[^\n]*")


def parse_module(
    source: str, filename: str = "<string>", ctx: Context | None = None, first_line: int = 1
) -> ModuleOp:
    """Parses and verifies MLIR text; `first_line` numbers its first line.

    Whatever iree-opt 3.13 reads is read: see `xsplit.reader`."""
    if not _COMMENT.sub("", source).strip():
        # mlir-opt reads an empty input (or one of only comments) as an empty
        # module; xDSL 0.74's parser rejects it.
        return ModuleOp([])
    return read_module(source, filename, ctx, first_line)


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """xDSL's passes, xsplit's, and any DSL pass loaded from a pattern file."""
    from xdsl.transforms import get_all_passes

    from xsplit.rewrites.dsl import PASSES

    loaded = {name: (lambda p=p: p.pass_class) for name, p in PASSES.items()}
    return {**get_all_passes(), **loaded, **XSPLIT_PASSES}


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


def build_pipeline(pipeline: str) -> list[ModulePass]:
    """The passes of a pipeline such as `split-k{factor=4},materialize-late`."""
    if not isinstance(pipeline, str):
        raise XsplitError(f"a pass pipeline is text, not {type(pipeline).__name__}")
    passes = available_passes()
    if (comma := _comma_between_options(pipeline)) is not None:
        raise _pipeline_error(
            pipeline, comma, "pass options are separated by spaces, not commas"
        )
    try:
        specs = list(parse_pipeline(pipeline))
    except ArgSpecParseError as e:
        # xDSL keeps neither the token nor the reason: read them off its text,
        # `pass-pipeline:1:COL`, the line, a caret, then the reason.
        lines = [line for line in str(e).splitlines() if line.strip()]
        where = next((line for line in lines if line.startswith("pass-pipeline:")), ":0")
        column = where.rsplit(":", 1)[-1]
        reason = lines[-1].strip().lstrip("^").strip() if lines else "malformed"
        offset = int(column) - 1 if column.isdigit() else len(pipeline)
        raise _pipeline_error(pipeline, offset, reason.replace("`", "'")) from None
    built: list[ModulePass] = []
    for spec in specs:
        if spec.name not in passes:
            raise XsplitError(
                f"unknown pass '{spec.name}'; xsplit's passes are "
                f"{', '.join(xsplit_pass_names())} (xDSL's own passes are accepted too)"
            )
        try:
            built.append(passes[spec.name]().from_pass_spec(spec))
        except XsplitError:
            raise
        except Exception as e:
            raise XsplitError(f"bad options for pass '{spec.name}': {one_line(str(e))}") from None
    return built


def xsplit_pass_names() -> list[str]:
    """xsplit's own passes, then those loaded from pattern files, sorted."""
    from xsplit.rewrites.dsl import PASSES

    loaded = sorted(name for name in PASSES if name not in XSPLIT_PASSES)
    return sorted(XSPLIT_PASSES) + loaded


def _pipeline_error(pipeline: str, offset: int, reason: str) -> XsplitError:
    column = min(offset, len(pipeline)) + 1
    at = f"'{pipeline[offset]}'" if offset < len(pipeline) else "the end"
    return XsplitError(f"bad pass pipeline '{pipeline}' at column {column} ({at}): {reason}")


_OPTION_AFTER_COMMA = re.compile(r",\s*[A-Za-z_][A-Za-z0-9_-]*\s*=")


def _comma_between_options(pipeline: str) -> int | None:
    """Where a comma separates two options inside `{...}` (`{factor=3,tile=4}`).

    xDSL reads `3,tile` as a list value and then trips on the `=` after it;
    the mistake is the comma, so that is what the error points at."""
    depth = 0
    for i, char in enumerate(pipeline):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif char == "," and depth and _OPTION_AFTER_COMMA.match(pipeline, i):
            return i
    return None


def run_passes(
    module: ModuleOp,
    passes: list[ModulePass],
    ctx: Context | None = None,
    verify_each: bool = True,
) -> None:
    """Applies the passes in order, verifying after each unless told not to."""
    ctx = ctx or make_context()
    for p in passes:
        try:
            PassPipeline((p,)).apply(ctx, module)
        except XsplitError:
            raise
        except Exception as e:
            raise XsplitError(f"internal error in pass '{p.name}': {one_line(repr(e))}") from e
        if not verify_each:
            continue
        try:
            verify_module(module)
        except XsplitError as e:
            raise XsplitError(f"pass '{p.name}' produced invalid IR: {e.diagnostic}") from None


def print_module(module: Operation, generic: bool = False) -> str:
    """The module's text. One read through iree-opt is printed through it
    again, so that what xsplit carried reads as iree-opt prints it."""
    if isinstance(module, ModuleOp) and was_carried(module):
        return print_carried(module, generic)
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    out.write("\n")
    return out.getvalue()


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
