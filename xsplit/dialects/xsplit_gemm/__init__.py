"""xsplit's own GEMM kernel, in rocMLIR's three levels.

A GEMM starts as one gridwise op over whole memrefs and is lowered in
stages, each a pass (`xsplit/rewrites/reduce/lower_*_gemm.py`), each stage
printable and runnable in the simulator:

    xsplit_gemm.gridwise_gemm %a, %b, %c {chunks = 4 : i64, merge = "atomic",
        threads = array<i64: 16, 16>, tile = array<i64: 64, 64, 16>}
        : memref<100x999xf32>, memref<999x70xf32>, memref<100x70xf32>

- gridwise (`gridwise_gemm`, `merge_partials`, `pad_rows`): the whole problem;
  the launch is implied by the tile and the chunk count;
- blockwise (`blockwise_copy`, `blockwise_async_copy`, `blockwise_load` and
  `blockwise_store`, `blockwise_gemm`): what one workgroup's threads do
  together: stage a tile of A or B in workgroup memory (at once,
  asynchronously, or through registers in two halves), multiply the staged
  tiles into each thread's register tile;
- threadwise (`threadwise_fill`, `threadwise_read`, `threadwise_gemm`,
  `threadwise_write`): one thread's registers, held in a private memref whose
  indices are all constants once lowered, so that LLVM keeps it in registers.

The fused GEMM + reduction is the same kernel with a reduction epilogue:
`gridwise_gemm_reduce` and `merge_reduced` (gridwise), `blockwise_reduce`,
`threadwise_reduce` (FMA tiles only; no tensor-core epilogue yet).

A and B are f32, f16 or bf16, staged in workgroup memory as they are; the
registers, the accumulation and C are f32. Without `mma` each thread
extends its operands to f32 and multiplies with FMAs. With `mma` (f16 and
bf16 on sm_80/sm_90: `m16n8k16`) warps multiply on tensor cores: the blockwise
step is `blockwise_mma`, and the threadwise ops read fragments
(`threadwise_fragment`), issue the intrinsic (`threadwise_mma`) and write
the accumulator's fragments (`threadwise_write_fragments`); which element
each lane holds is the intrinsic's table in `fragments.py`.

One module per level (`gridwise`, `blockwise`, `threadwise`) and what they
share (`common`); this package holds the dialect and names every op and the
helpers other layers use.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from xsplit.dialects.xsplit_gemm.blockwise import (
    BlockwiseAsyncCopyOp,
    BlockwiseCopyOp,
    BlockwiseGatherOp,
    BlockwiseGemmOp,
    BlockwiseLoadOp,
    BlockwiseMmaOp,
    BlockwiseReduceOp,
    BlockwiseStoreOp,
    register_shape,
)
from xsplit.dialects.xsplit_gemm.common import (
    BATCH_DIM,
    MERGES,
    WAVE,
    aligned_length,
    async_width,
    front_pad,
    padded_a_length,
    chunk_count,
    chunk_size,
    memory_space,
    reduce_chunks,
    swizzle_fits,
    swizzled,
)
from xsplit.dialects.xsplit_gemm.gridwise import (
    GridwiseGemmOp,
    GridwiseGemmReduceOp,
    MergePartialsOp,
    MergeReducedOp,
    PadRowsOp,
)
from xsplit.dialects.xsplit_gemm.threadwise import (
    ThreadwiseFillOp,
    ThreadwiseFragmentOp,
    ThreadwiseGemmOp,
    ThreadwiseMmaOp,
    ThreadwiseReadOp,
    ThreadwiseReadTileOp,
    ThreadwiseReduceOp,
    ThreadwiseWriteFragmentsOp,
    ThreadwiseWriteOp,
)

XsplitGemm = Dialect(
    "xsplit_gemm",
    [
        GridwiseGemmOp,
        MergePartialsOp,
        PadRowsOp,
        BlockwiseCopyOp,
        BlockwiseAsyncCopyOp,
        BlockwiseLoadOp,
        BlockwiseStoreOp,
        BlockwiseGatherOp,
        BlockwiseGemmOp,
        BlockwiseMmaOp,
        ThreadwiseFillOp,
        ThreadwiseReadOp,
        ThreadwiseReadTileOp,
        ThreadwiseGemmOp,
        ThreadwiseWriteOp,
        ThreadwiseFragmentOp,
        ThreadwiseMmaOp,
        ThreadwiseWriteFragmentsOp,
        GridwiseGemmReduceOp,
        MergeReducedOp,
        BlockwiseReduceOp,
        ThreadwiseReduceOp,
    ],
)

__all__ = [
    "BATCH_DIM",
    "MERGES",
    "WAVE",
    "BlockwiseAsyncCopyOp",
    "BlockwiseCopyOp",
    "BlockwiseGatherOp",
    "BlockwiseGemmOp",
    "BlockwiseLoadOp",
    "BlockwiseMmaOp",
    "BlockwiseReduceOp",
    "BlockwiseStoreOp",
    "GridwiseGemmOp",
    "GridwiseGemmReduceOp",
    "MergePartialsOp",
    "PadRowsOp",
    "aligned_length",
    "MergeReducedOp",
    "ThreadwiseFillOp",
    "ThreadwiseFragmentOp",
    "ThreadwiseGemmOp",
    "ThreadwiseMmaOp",
    "ThreadwiseReadOp",
    "ThreadwiseReadTileOp",
    "ThreadwiseReduceOp",
    "ThreadwiseWriteFragmentsOp",
    "ThreadwiseWriteOp",
    "XsplitGemm",
    "async_width",
    "front_pad",
    "padded_a_length",
    "chunk_count",
    "chunk_size",
    "memory_space",
    "reduce_chunks",
    "register_shape",
    "swizzle_fits",
    "swizzled",
]
