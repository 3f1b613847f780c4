"""The discardable `xsplit.*` attributes that passes leave on ops for later
passes, the simulator and the benchmarks to read. Each is spelled here once;
the meaning of each is said where it is set."""

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

SPLIT_FACTOR = "xsplit.split_factor"
"""On the op that computes a split's partials when the cost model chose the
chunk count (`split-k{target=...}`), so that the choice can be read off the
output."""

SPLIT_CHUNKS = "xsplit.split_chunks"
"""On the encoded contraction that computes a split's partial products."""

FUSED_PRODUCER = "xsplit.fused_producer"
"""Set by `fuse-reduction` on a reduction whose GEMM producer it fuses."""

HOST = "xsplit.host"
"""On a function that runs on the host and launches kernels (the
deterministic `lower-reduce` stage writes one); `export-dispatch` leaves it
for `export_host`, and the simulator runs it as the host would."""

KERNEL_TARGET = "xsplit.kernel_target"
"""On each kernel split-k's own-kernel path writes (`split-k{kernel=...}`):
the GPU target it was lowered for, so that `materialize-late` puts it in
its dispatch form for that target (as `export-dispatch{target=...}` does)
without being told the target again."""

SPLIT_PART = "xsplit.split_part"
"""On the graph-level ops a split makes besides its loop (which carries
`#iree_linalg_ext.split_reduction_mapping`), naming what each is for, so
that later passes (materialize-late) can tell them from the program's own:
`"tail"` (the op on the static rest of K past the loop's chunks, its init,
its operands' slices and pads, and where it is written into the partials),
`"pad"` (operands padded for IREE's tiles: M to `pad_m`) and `"merge"` (the
op that merges the partials, and its own inits)."""

SPLIT_PARTS = ("tail", "pad", "merge")


def mark_split_part(op: Operation, part: str) -> None:
    """Marks `op` as the `part` (one of `SPLIT_PARTS`) of a split."""
    assert part in SPLIT_PARTS
    op.attributes[SPLIT_PART] = StringAttr(part)
