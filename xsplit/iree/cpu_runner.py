"""Running a compiled program on this machine's CPU with iree.runtime."""

from __future__ import annotations

from collections.abc import Sequence

import iree.runtime as rt
import numpy as np

from xsplit.diagnostics import XsplitError
from xsplit.iree.device import to_numpy

__all__ = ["run_on_cpu", "to_numpy"]


def run_on_cpu(
    vmfb: bytes, function: str, inputs: Sequence[np.ndarray], phase: str = "running the program"
) -> list[np.ndarray]:
    """Calls `function` of a CPU-compiled module; returns its results as arrays.
    A failure in the runtime is an XsplitError that says what was running."""
    config = rt.Config("local-task")
    try:
        context = rt.SystemContext(config=config)
        context.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
        return to_numpy(context.modules.module[function](*inputs))
    except (ValueError, RuntimeError) as e:
        first = next((line.strip() for line in str(e).splitlines() if line.strip()), type(e).__name__)
        raise XsplitError(f"the IREE runtime failed {phase} (@{function}) on the CPU: {first}") from None
