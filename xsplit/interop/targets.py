"""The iree-compile 3.13 flags for each target xsplit compiles for: the one
place they are written down."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    flags: tuple[str, ...]
    runs_here: bool
    """Whether this machine can run what the target compiles (the CPU only)."""


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "cpu",
            "llvm-cpu, this machine's CPU",
            (
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host",
            ),
            runs_here=True,
        ),
        # IREE 3.13 rejects sm_90 ("missing GPU target"); sm_80 is the newest
        # CUDA target it compiles for.
        Target(
            "cuda",
            "CUDA / NVPTX, sm_80 (A100)",
            ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"),
            runs_here=False,
        ),
        # The flag is --iree-rocm-target; --iree-hip-target does not exist.
        Target(
            "rocm",
            "ROCm / ROCDL, gfx942 (MI300X)",
            ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"),
            runs_here=False,
        ),
    )
}

GPU_TARGETS = tuple(name for name, t in TARGETS.items() if not t.runs_here)


def target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target '{name}', expected one of {', '.join(TARGETS)}") from None
