"""The model's choice of chunk count for a reduction on a target: the GPU
model for a contraction on a GPU with a fit, the generic model otherwise."""

from __future__ import annotations

from functools import lru_cache

from xsplit.analysis.cost_model.base import Choice, Problem
from xsplit.analysis.cost_model.cpu import choose_generic
from xsplit.analysis.cost_model.gpu import choose_gpu, gpu_modeled
from xsplit.targets.table import Target


@lru_cache(maxsize=1024)
def _choose(problem: Problem, target: Target, processors: int) -> Choice:
    if gpu_modeled(problem, target):
        return choose_gpu(problem, target)
    return choose_generic(problem, target)


def choose_split(problem: Problem, target: Target) -> Choice:
    """The model's choice of chunk count for `problem` on `target`."""
    return _choose(problem, target, target.processors)
