"""Running compiled modules on a device (`--device cuda|hip|local-task`) with
IREE's runtime alone: no iree-compile, no xDSL, so that `python -m
xsplit.replay` runs where only `iree-base-runtime` and numpy are installed.

A device that the runtime lacks, or that it has but cannot open (no driver
library, no GPU), is an XsplitError of one line that names it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xsplit.diagnostics import XsplitError

DEVICES = ("cuda", "hip", "local-task")
"""The devices `--device` takes, by IREE runtime driver name."""

COMPILE_TARGET = {"cuda": "sm_80", "hip": "gfx942", "local-task": "cpu"}
"""The entry of xsplit's target table (`xsplit.targets.table`) each device's
modules are compiled for: IREE 3.13 has no sm_90, and an H100 or H200 runs
sm_80 code (its driver JIT-compiles the PTX)."""

MODEL_TARGET = {"cuda": "sm_90", "hip": "gfx942", "local-task": "cpu"}
"""The target whose model picks xsplit's split for a device by default."""


class DeviceError(XsplitError):
    """A device that cannot be used here."""


def device_problem(name: str) -> str | None:
    """Why `name` cannot run modules here, or None when it can."""
    try:
        _open(name)
    except DeviceError as e:
        return e.message
    return None


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    line = next((part.strip() for part in text.splitlines() if part.strip()), type(error).__name__)
    # The runtime prefixes its C source location: the cause is what follows.
    line = line.split("; ", 1)[-1] if "UNAVAILABLE" in line or ".c:" in line else line
    return line.rstrip(":").strip()


_OPEN: dict[str, Any] = {}


def _open(name: str) -> Any:
    """The runtime's HAL device for `name`, created once per process."""
    if name in _OPEN:
        return _OPEN[name]
    if name not in DEVICES:
        raise DeviceError(f"unknown device '{name}', expected one of {', '.join(DEVICES)}")
    try:
        import iree.runtime as rt
    except ImportError as e:
        raise DeviceError(
            f"device '{name}' is not usable here: the IREE runtime is not installed "
            f"(pip install iree-base-runtime==3.13.0): {e}"
        ) from None
    drivers = rt.query_available_drivers()
    if name not in drivers:
        raise DeviceError(
            f"device '{name}' is not usable here: this IREE runtime has no '{name}' driver "
            f"(it has {', '.join(drivers)})"
        )
    try:
        device = rt.get_device(name)
    except (RuntimeError, ValueError) as e:
        raise DeviceError(f"device '{name}' is not usable here: {_first_line(e)}") from None
    _OPEN[name] = device
    return device


@dataclass
class Device:
    """One opened device and the VM instance its modules load into."""

    name: str
    config: Any
    description: str

    def load(self, vmfb: bytes, function: str) -> Any:
        """The callable `function` of a module compiled for this device."""
        import iree.runtime as rt

        context = rt.SystemContext(config=self.config)
        context.add_vm_module(rt.VmModule.copy_buffer(self.config.vm_instance, vmfb))
        return context.modules.module[function]

    def upload(self, arrays: Sequence[np.ndarray]) -> list[Any]:
        import iree.runtime as rt

        return [rt.asdevicearray(self.config.device, a) for a in arrays]

    def call(
        self, vmfb: bytes, function: str, inputs: Sequence[np.ndarray], phase: str
    ) -> list[np.ndarray]:
        """Runs `function` once on fresh device copies of `inputs`; the
        results as host arrays. A runtime failure is one line naming `phase`."""
        try:
            return to_numpy(self.load(vmfb, function)(*self.upload(inputs)))
        except (ValueError, RuntimeError) as e:
            raise XsplitError(
                f"the IREE runtime failed {phase} (@{function}) on {self.name}: {_first_line(e)}"
            ) from None


def open_device(name: str) -> Device:
    """Opens `name` (one of DEVICES); a DeviceError says why it cannot be."""
    import iree.runtime as rt

    hal = _open(name)
    description = name
    try:
        found = rt.get_driver(name).query_available_devices()
        names = [d.get("name") for d in found if d.get("name") and d.get("name") != "default"]
        if names:
            description = f"{name} ({names[0]})"
    except (RuntimeError, ValueError):
        pass
    return Device(name, rt.Config(device=hal), description)


def to_numpy(results: Any) -> list[np.ndarray]:
    """A call's result or results as host arrays of their own."""
    if not isinstance(results, tuple | list):
        results = (results,)
    # Copies: a host view of a result's buffer changes when the runtime reuses it.
    return [np.array(r.to_host() if hasattr(r, "to_host") else r, copy=True) for r in results]


def benchmark(
    module_path: str,
    function: str,
    input_paths: Sequence[str],
    device: str,
    repetitions: int,
    min_time_s: float = 0.1,
    timeout_s: float | None = 600,
) -> list[float]:
    """Times `function` with IREE's `iree-benchmark-module` (shipped in the
    runtime wheel) on `device`: the inputs (.npy files) are uploaded once,
    before the timed loop, and stay resident. Returns each repetition's mean
    milliseconds per call."""
    import iree.runtime as rt
    from iree.runtime.benchmark import BenchmarkTimeoutError, BenchmarkToolError

    try:
        rows = rt.benchmark_module(
            module_path,
            function,
            inputs=[f"@{p}" for p in input_paths],
            timeout=timeout_s,
            device=device,
            benchmark_repetitions=repetitions,
            benchmark_min_time=f"{min_time_s}s",
        )
    except (BenchmarkToolError, BenchmarkTimeoutError) as e:
        message = getattr(e, "message", str(e))
        line = next(
            (ln.strip() for ln in message.splitlines() if ln.strip() and ln.strip() != "stderr:"),
            "failed",
        )
        raise XsplitError(f"iree-benchmark-module failed on {device}: {line}") from None
    times = []
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    for row in rows:
        report = row.report
        if report.get("run_type", "iteration") != "iteration":
            continue  # mean, median, stddev: recomputed from the repetitions
        times.append(float(report["real_time"]) * scale[report["time_unit"]])
    if not times:
        raise XsplitError(f"iree-benchmark-module reported no timings for @{function} on {device}")
    return times


def save_inputs(inputs: Sequence[np.ndarray], directory: str | None = None) -> list[str]:
    """Writes the inputs as .npy files for iree-benchmark-module; their paths."""
    directory = directory or tempfile.mkdtemp(prefix="xsplit-inputs-")
    paths = []
    for i, array in enumerate(inputs):
        path = os.path.join(directory, f"input{i}.npy")
        np.save(path, array)
        paths.append(path)
    return paths
