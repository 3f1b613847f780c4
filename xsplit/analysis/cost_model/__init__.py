"""The split cost model behind `split-k{target=NAME}`: how many chunks of K
make a reduction fastest on a target, or that none do.

A reduction's output is cut into `tiles` workgroup tiles of the target's tile
shape (`Target.tile`, clipped to the output). Splitting K into S chunks of
kc = ceil(K/S) makes tiles x S workgroups, each reducing kc steps, and a merge.
The model estimates, for each S:

- **waves and tile quantization**: the workgroups run `processors` at a time,
  so a split costs ceil(tiles x S / processors) waves of one workgroup's time.
  A GPU with 8 tiles and 304 CUs gains up to 38x from the split; a CPU whose
  tiles already outnumber its cores gains nothing here.
- **a workgroup's time**: the larger of its arithmetic (at the target's peak
  share per processor) and its operand traffic, plus a fixed overhead. The
  traffic is the workgroup's operand panels (its tile's rows of A and columns
  of B over kc). On a CPU, panels that fit the per-processor cache are read
  from memory once, at a fair share of the bandwidth; panels that do not are
  re-streamed once per register tile at the much lower re-read bandwidth. This
  is where a CPU gains from a split: short chunks keep the panels resident.
  On split-k's streaming tiles (a row-major B past up to 16 rows) the
  arithmetic adds to the traffic instead (`cpu.STREAMED_FMAS_ADD`: the
  streamed products ran in the sum); the chunk count is chosen on the rest.
- **partial-buffer traffic**: the S partial outputs are written (first touch:
  page faults on a CPU) and read back.
- **the merge**: one more dispatch that reads the partials and the init and
  writes the result.

The chosen S is the cheapest by this sum; among splits within 1% of the
cheapest, the fewest chunks. A split is taken only if the model has it at least
`MIN_GAIN` faster than the unsplit op, so it never picks a split that its own
estimate makes slower.

A contraction on a GPU has a model of its own (`gpu_estimate`, `GpuFit` in
the target table), fitted on an H200: IREE's own configuration of the whole
op against `split-k{factor=F align=64 pad_m=64}`'s static chunks with GPU
tiles, for F among the counts measured (8, 32, 128) (any count that fills the
machine where none of those does), each dispatch priced by
its busiest SM's resident workgroups against the number that saturates it.
A one-row contraction (a decode) is left to IREE's own split, which ran it
4x faster than static chunks: split-k sets the chunk IREE's flag would pick
on the op (`iree_split_chunk`), and the model prices that split.
docs/split-k.md has the fit and its measurements; the CPU model above is
untouched by it.

The package, by backend: `base` (the problem, an estimate, a choice),
`cpu` (the generic model above, the CPU's), `gpu` (the GPU model and IREE's
own split), `own_kernel` (xsplit's own kernel against IREE's code), `choose`
(which model chooses) and `tiling` (data tiling). Its API is what this
module exports.
"""

from __future__ import annotations

from xsplit.analysis.cost_model.base import (
    Choice,
    Estimate,
    MAX_FACTOR,
    MIN_GAIN,
    NEAR_TIE,
    Problem,
    matmul_problem,
    padded_rows,
    problem_of,
)
from xsplit.analysis.cost_model.cpu import (
    TAIL_WORTH,
    estimate,
    partial_tile,
    streams_b,
    tile_of,
)
from xsplit.analysis.cost_model.gpu import (
    chunk_tiles_of,
    gpu_chunks,
    iree_split_chunk,
    iree_split_estimate,
)
from xsplit.analysis.cost_model.own_kernel import (
    KernelChoice,
    choose_kernel,
    own_kernel_estimate,
    own_kernel_parts,
)
from xsplit.analysis.cost_model.choose import (
    choose_split,
)
from xsplit.analysis.cost_model.tiling import (
    ENCODE_MARGIN,
    ENCODE_MARGIN_MAX_M,
    TilingDecision,
    choose_tiling,
    encoded_seconds,
)

__all__ = [
    "Choice",
    "Estimate",
    "MAX_FACTOR",
    "MIN_GAIN",
    "NEAR_TIE",
    "Problem",
    "matmul_problem",
    "padded_rows",
    "problem_of",
    "TAIL_WORTH",
    "estimate",
    "partial_tile",
    "streams_b",
    "tile_of",
    "chunk_tiles_of",
    "gpu_chunks",
    "iree_split_chunk",
    "iree_split_estimate",
    "KernelChoice",
    "choose_kernel",
    "own_kernel_estimate",
    "own_kernel_parts",
    "choose_split",
    "ENCODE_MARGIN",
    "ENCODE_MARGIN_MAX_M",
    "TilingDecision",
    "choose_tiling",
    "encoded_seconds",
]
