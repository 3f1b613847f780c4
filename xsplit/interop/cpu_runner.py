"""Running a compiled program on this machine's CPU with iree.runtime."""

from __future__ import annotations

from collections.abc import Sequence

import iree.runtime as rt
import numpy as np


def run_on_cpu(vmfb: bytes, function: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Calls `function` of a CPU-compiled module; returns its results as arrays."""
    config = rt.Config("local-task")
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
    results = context.modules.module[function](*inputs)
    if not isinstance(results, tuple | list):
        results = (results,)
    return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]
