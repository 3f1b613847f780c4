"""`materialize-late`: takes what graph-level passes such as `split-k` left and
puts it in the form iree-compile 3.13 accepts and really parallelizes.

Today that form is a `flow.dispatch.workgroups` holding the split loop with
`#iree_linalg_ext.split_reduction_mapping`: IREE then spreads the chunks over
workgroups (123x456x51234 in 77 chunks: 24 -> 1848 workgroups on the CPU).
The merge stays outside, for IREE to form its own dispatch.

Each materialization is one stage in `MATERIALIZATIONS`, run in order; later
ops (grouped GEMM, `rock.reduce`, encodings) add their stages there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xsplit.rewrites.dispatch_regions_to_workgroups import (
    DispatchRegionsToWorkgroupsPass,
)
from xsplit.rewrites.form_dispatch_regions import FormDispatchRegionsPass

Stage = Callable[[Context, ModuleOp], None]

MATERIALIZATIONS: list[tuple[str, Stage]] = [
    ("form-dispatch-regions", FormDispatchRegionsPass().apply),
    ("dispatch-regions-to-workgroups", DispatchRegionsToWorkgroupsPass().apply),
]
"""The stages of late materialization, by name, in the order they run."""


@dataclass(frozen=True)
class MaterializeLatePass(ModulePass):
    """Forms IREE dispatches around split reductions, in the form IREE distributes."""

    name = "materialize-late"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for _, stage in MATERIALIZATIONS:
            stage(ctx, op)
