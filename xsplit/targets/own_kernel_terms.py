"""The rate of xsplit's own split-K GEMM kernel (`gemm-kernel`) per target
and element class: the one term of its cost model (`OwnKernelFit`,
`cost_model.own_kernel_estimate`) that differs between its forms, written
down as data with where each figure comes from and how far to trust it.

Every entry has a basis:

- MEASURED: this kernel, timed on the device by bench/gpu.py and fitted by
  bench/fit_own_kernel.py, which rewrites the table between its marker lines;
- ANCHORED: a kernel with the same tiles that did run (the fused GEMM +
  reduction text kernel), not gemm-kernel itself;
- BOUNDED: no faster than IREE's own code measured on the same GPU and
  element type: the most the kernel is credited with until it is timed;
- SCALED: another target's term scaled by the two GPUs' published peaks.

The table holds what was written for a target (sm_90 is the H200, where
everything measured ran). A target it has no entry for takes sm_90's entry,
per processor as `GpuFit` does on CUDA and scaled by the peaks elsewhere
(`targets.own_kernel_fit`). `auto` weighs the own kernel only on terms that
are not SCALED: a guess from datasheets is shown in the remark, not acted on.
"""

from __future__ import annotations

from dataclasses import dataclass

GIGA = 1e9

MEASURED, ANCHORED, BOUNDED, SCALED = "measured", "anchored", "bounded", "scaled"
BASES = (MEASURED, ANCHORED, BOUNDED, SCALED)

REFERENCE = "sm_90"
"""The target whose entries the others are derived from."""


@dataclass(frozen=True)
class OwnKernelTerm:
    """One processor's rate (FLOP/s at saturation, `GpuFit`'s formula) for
    one element class, how far it is to be trusted, and where it is from."""

    rate: float
    basis: str
    source: str
    atomic_rate: float | None = None
    """f32 atomic adds per second per processor, where a device run fitted
    them; None: the target's `OwnKernelFit.atomic_rate`."""

    def __post_init__(self) -> None:
        assert self.basis in BASES, self.basis
        assert self.rate > 0, self.rate


# bench/fit_own_kernel.py rewrites the entries between the two marker lines.
# own-kernel terms: begin
OWN_KERNEL_TERMS: dict[tuple[str, str], OwnKernelTerm] = {
    ("sm_90", "f32"): OwnKernelTerm(
        144 * GIGA,
        ANCHORED,
        "the fused GEMM + reduction text kernel (64x64 / 4x4 / K 16 tiles, no double buffering, "
        "scalar loads) ran 4096x4096x1024 with a row sum in 2.32-2.44 ms on an H200: 14.7 "
        "TFLOP/s, 111 GFLOP/s an SM at K = 1024, 144 with the 300 steps of fixed cost. "
        "gemm-kernel's 128-bit loads, 8x8 registers and cp.async are not priced until timed",
    ),
    ("sm_90", "f16"): OwnKernelTerm(
        530 * GIGA,
        BOUNDED,
        "mma=auto runs f16 on tensor cores (nvgpu.mma.sync m16n8k16), never timed; credited "
        "with what IREE's own tensor-core code measured on an H200, 2048^3 f16 in 0.277 ms "
        "(62 TFLOP/s): the rate at which this model gives the kernel's 128x128 tiles that "
        "time (IREE's f16 chunks: 529)",
    ),
}
# own-kernel terms: end
