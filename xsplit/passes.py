"""xsplit's passes, by name, for xsplit-opt and the xDSL universe."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _split_k() -> type[ModulePass]:
    from xsplit.rewrites.split_k import SplitKPass

    return SplitKPass


def _materialize_late() -> type[ModulePass]:
    from xsplit.rewrites.materialize_late import MaterializeLatePass

    return MaterializeLatePass


def _form_dispatch_regions() -> type[ModulePass]:
    from xsplit.rewrites.form_dispatch_regions import FormDispatchRegionsPass

    return FormDispatchRegionsPass


def _dispatch_regions_to_workgroups() -> type[ModulePass]:
    from xsplit.rewrites.dispatch_regions_to_workgroups import (
        DispatchRegionsToWorkgroupsPass,
    )

    return DispatchRegionsToWorkgroupsPass


XSPLIT_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "split-k": _split_k,
    "materialize-late": _materialize_late,
    "form-dispatch-regions": _form_dispatch_regions,
    "dispatch-regions-to-workgroups": _dispatch_regions_to_workgroups,
}
