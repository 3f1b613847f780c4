"""Passes composed as objects: a `PassPipeline` is a list of pass instances,
itself a pass, as MLIR's `OpPassManager` holds passes and xDSL applies pass
instances with `ModulePass.apply(ctx, op)`.

A pass that runs other passes (`auto`, split-k's own kernel, `lower-reduce`)
holds them, built with typed options (`SPLIT_K.pass_class(target="sm_80")`),
and applies them with the context it was given; what they decide travels
back as IR and Python values, what they say goes to the same diagnostics.
Pipeline text is read only where users write it: the command line and the
API (`xsplit.pipeline.build_pipeline`), which build one of these.

Verification follows the outermost pipeline, as the dynamic pipelines an
MLIR pass runs share its pass manager's verifier: the outermost verifies
its module once, at its end, or after each pass under `verify_each`; a
pipeline run inside one of its passes verifies after each of its own passes
under `verify_each` (naming the inner pass at fault), else leaves it to the
outer one, whose module holds what the inner passes made by the time it
verifies.
"""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xsplit.diagnostics import XsplitError
from xsplit.reader import one_line, verify_module

_VERIFY_EACH: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "xsplit_pipeline_verify_each", default=None
)
"""Inside a pipeline's pass: whether nested pipelines verify after each of
their passes. None outside any pipeline."""


@dataclass(frozen=True)
class PassPipeline(ModulePass):
    """Passes applied in order to one module, in one context."""

    name: ClassVar[str] = "pass-pipeline"

    passes: Sequence[ModulePass] = ()
    verify_each: bool = False
    """Verify after every pass, which names the pass that broke the IR
    (`--verify-each`), rather than once at the end (mlir-opt's default)."""
    verify: bool = True
    """False verifies nothing (benchmarks of the passes alone)."""

    def __post_init__(self) -> None:
        # A list reads best where pipelines are written; the pass keeps a tuple.
        object.__setattr__(self, "passes", tuple(self.passes))
        for p in self.passes:
            if not isinstance(p, ModulePass):
                raise XsplitError(f"a pass pipeline holds pass instances, not {type(p).__name__}")

    @property
    def text(self) -> str:
        """The pipeline as `xsplit-opt -p` reads it: for remarks and docs;
        nothing in the passes parses it back."""
        return ",".join(
            p.text if isinstance(p, PassPipeline) else str(p.pipeline_pass_spec())
            for p in self.passes
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        outer = _VERIFY_EACH.get()
        if outer is None:
            each, at_end = self.verify and self.verify_each, self.verify and not self.verify_each
        else:
            each, at_end = outer, False
        token = _VERIFY_EACH.set(each)
        try:
            for p in self.passes:
                _apply_one(p, ctx, op)
                if each:
                    _verify_after(op, [p])
        finally:
            _VERIFY_EACH.reset(token)
        if at_end and self.passes:
            _verify_after(op, self.passes)


def _apply_one(p: ModulePass, ctx: Context, op: ModuleOp) -> None:
    try:
        p.apply(ctx, op)
    except XsplitError:
        raise
    except Exception as e:
        raise XsplitError(f"internal error in pass '{p.name}': {one_line(repr(e))}") from e


def _verify_after(module: ModuleOp, ran: Sequence[ModulePass]) -> None:
    """Verifies `module`, blaming the passes that ran since it was last valid."""
    try:
        verify_module(module)
    except XsplitError as e:
        if len(ran) == 1:
            blame = f"pass '{ran[0].name}' produced invalid IR"
        else:
            blame = (
                f"invalid IR after pass '{ran[-1].name}', the last of {len(ran)} "
                "(--verify-each verifies after each pass and names the one at fault)"
            )
        error = XsplitError(f"{blame}: {e.message}")
        error.location = e.location
        error.args = (error.diagnostic,)
        raise error from None


__all__ = ["PassPipeline"]
