"""Pass pipelines by name: the registry's lookup, pipeline text to passes,
and running them. The only place below the tools and the API where
pipeline text is read: it sits above the passes, which compose the passes
they run as objects (`xsplit.rewrites.pass_pipeline`) and never come back
here; the passes themselves are reached through the `xsplit.passes` table,
by name, and never imported here."""

from __future__ import annotations

import re
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from xsplit.diagnostics import XsplitError
from xsplit.dialects import make_context
from xsplit.passes import XSPLIT_PASSES
from xsplit.reader import one_line
from xsplit.rewrites.pass_pipeline import PassPipeline


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """xDSL's passes, xsplit's, and any DSL pass loaded from a pattern file."""
    from xdsl.transforms import get_all_passes

    from xsplit.rewrites.dsl import PASSES

    loaded = {name: (lambda p=p: p.pass_class) for name, p in PASSES.items()}
    return {**get_all_passes(), **loaded, **XSPLIT_PASSES}


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
    verify_each: bool = False,
    verify: bool = True,
) -> None:
    """Applies the passes in order and verifies the result once, at the end,
    as mlir-opt does without `--verify-each` (xsplit-opt's default; the input
    was verified when it was parsed). `verify_each` verifies after every pass
    instead, which names the pass that broke the IR; `verify=False` verifies
    nothing (benchmarks of the passes alone)."""
    PassPipeline(passes, verify_each, verify).apply(ctx or make_context(), module)
