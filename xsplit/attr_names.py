"""The discardable `xsplit.*` attributes that passes leave on ops for later
passes, the simulator and the benchmarks to read. Each is spelled here once;
the meaning of each is said where it is set."""

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
