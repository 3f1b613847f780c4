"""xsplit's passes, by name, for xsplit-opt and the xDSL universe. Each is a
DSL `Pass`, imported only when asked for."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

_PASS_MODULES = {
    "split-k": ("xsplit.rewrites.split.split_k", "SPLIT_K"),
    "split-lanes": ("xsplit.rewrites.split.split_lanes", "SPLIT_LANES"),
    "stream-prefetch": ("xsplit.rewrites.split.stream_prefetch", "STREAM_PREFETCH"),
    "materialize-late": ("xsplit.rewrites.encoding.materialize_late", "MATERIALIZE_LATE"),
    "materialize-early": ("xsplit.rewrites.encoding.materialize_early", "MATERIALIZE_EARLY"),
    "distribute": ("xsplit.rewrites.distribute.distribute", "DISTRIBUTE"),
    "export-dispatch": ("xsplit.rewrites.dispatch.export_dispatch", "EXPORT_DISPATCH"),
    "set-encoding": ("xsplit.rewrites.encoding.set_encoding", "SET_ENCODING"),
    "auto": ("xsplit.rewrites.pipelines.auto", "AUTO"),
    "form-dispatch-regions": ("xsplit.rewrites.dispatch.form_dispatch_regions", "FORM_DISPATCH_REGIONS"),
    "dispatch-regions-to-workgroups": (
        "xsplit.rewrites.dispatch.dispatch_regions_to_workgroups",
        "DISPATCH_REGIONS_TO_WORKGROUPS",
    ),
    "insert-barriers": ("xsplit.rewrites.distribute.insert_barriers", "INSERT_BARRIERS"),
    "verify-sync": ("xsplit.rewrites.distribute.verify_sync", "VERIFY_SYNC"),
    "lower-reduce": ("xsplit.rewrites.reduce.lower_reduce", "LOWER_REDUCE"),
    "fuse-reduction": ("xsplit.rewrites.reduce.fuse_reduction", "FUSE_REDUCTION"),
    "gemm-kernel": ("xsplit.rewrites.reduce.gemm_kernel", "GEMM_KERNEL"),
    "lower-gridwise-gemm": ("xsplit.rewrites.reduce.lower_gridwise_gemm", "LOWER_GRIDWISE_GEMM"),
    "lower-blockwise-gemm": ("xsplit.rewrites.reduce.lower_blockwise_gemm", "LOWER_BLOCKWISE_GEMM"),
    "lower-threadwise-gemm": ("xsplit.rewrites.reduce.lower_threadwise_gemm", "LOWER_THREADWISE_GEMM"),
}


def _loader(module: str, attribute: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(module), attribute).pass_class

    return load


XSPLIT_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    name: _loader(*where) for name, where in _PASS_MODULES.items()
}


def load_builtin_passes() -> None:
    """Imports every built-in pass, so that the DSL registry lists them all."""
    for module, _ in _PASS_MODULES.values():
        importlib.import_module(module)
