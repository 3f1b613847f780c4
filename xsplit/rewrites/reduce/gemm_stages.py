"""The GEMM kernel's lowering as one pipeline object: `lower-gridwise-gemm`,
`lower-blockwise-gemm`, `lower-threadwise-gemm`, rocMLIR's stages in order.

split-k's own kernel and lower-reduce's fused GEMM each build a gridwise op
in a kernel function of its own and apply this to the module that holds it,
in their pass's context, as an MLIR pass runs a pipeline on an op it owns:
the stages see the kernel and never the user's other ops."""

from __future__ import annotations

from xsplit.rewrites.pass_pipeline import PassPipeline
from xsplit.rewrites.reduce.gemm_kernel import GEMM_KERNEL
from xsplit.rewrites.reduce.lower_blockwise_gemm import LOWER_BLOCKWISE_GEMM
from xsplit.rewrites.reduce.lower_gridwise_gemm import LOWER_GRIDWISE_GEMM
from xsplit.rewrites.reduce.lower_threadwise_gemm import LOWER_THREADWISE_GEMM

GEMM_STAGES = PassPipeline(
    [
        LOWER_GRIDWISE_GEMM.pass_class(),
        LOWER_BLOCKWISE_GEMM.pass_class(),
        LOWER_THREADWISE_GEMM.pass_class(),
    ]
)



def staged_kernel(target: str, chunks: int, merge: str) -> PassPipeline:
    """`gemm-kernel{target chunks merge}` and the three stages: what split-k
    runs on a function that holds one matmul, whether the model chose the
    kernel (`kernel=own`) or `merge=` asked for it."""
    return PassPipeline(
        [GEMM_KERNEL.pass_class(target=target, chunks=chunks, merge=merge), GEMM_STAGES]
    )


__all__ = ["GEMM_STAGES", "staged_kernel"]
