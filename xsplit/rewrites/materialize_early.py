"""`materialize-early`: lowers each graph-level `linalg_ext.split_grouped_gemm`
to the graph-level `scf.forall` over its groups *before* dispatches form, the
seed's alternative to materializing inside the dispatch. `materialize-late`
then forms the dispatch around that loop as it does for `split-k`'s own."""

from __future__ import annotations

from xsplit.rewrites.dsl import Pass
from xsplit.rewrites.grouped import MATERIALIZE_GROUPED_EARLY

MATERIALIZE_EARLY = Pass(
    "materialize-early",
    "Lowers graph-level grouped GEMMs to scf.forall loops before dispatches form.",
    [MATERIALIZE_GROUPED_EARLY],
)
