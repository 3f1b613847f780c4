"""`materialize-early`: lowers what graph-level passes left into physical ops
*before* dispatches form, the alternative to materializing inside them:

- each graph-level `linalg_ext.split_grouped_gemm` becomes the graph-level
  `scf.forall` over its groups; `materialize-late` then forms the dispatch
  around that loop as it does for `split-k`'s own;
- each encoded contraction (from `set-encoding`) becomes `linalg.pack`,
  `linalg.mmt4d` (`batch_mmt4d`) and `linalg.unpack` with the data tiles of
  `target=` from the target table, or loses its encodings on a target that
  does not data-tile; encodings that cancel fold away.
"""

from __future__ import annotations

from xsplit.rewrites.dsl import Pass
from xsplit.rewrites.encoding.materialize_contractions import (
    DROP_TEMPLATES,
    EARLY_TEMPLATES as CONTRACTION_TEMPLATES,
)
from xsplit.rewrites.encoding.materialize_vector_contractions import (
    EARLY_TEMPLATES as VECTOR_TEMPLATES,
)
from xsplit.rewrites.encoding.materialize_encoded_split import (
    DROP_SPLIT_ENCODINGS,
    MATERIALIZE_PACKED_SPLIT_EARLY,
)
from xsplit.rewrites.encoding.materialize_encodings import (
    DROP_ENCODINGS,
    FOLD_ENCODING_PAIR,
    FOLD_UNPACK_PACK,
    MATERIALIZE_ENCODING_EARLY,
    MATERIALIZE_FILLED_MATMUL_EARLY,
    MATERIALIZE_MATMUL_EARLY,
    MATERIALIZE_MERGED_EARLY,
    TARGET_OPTION,
)
from xsplit.rewrites.encoding.materialize_grouped import EARLY_TEMPLATES
from xsplit.rewrites.split.grouped import MATERIALIZE_GROUPED_EARLY

MATERIALIZE_EARLY = Pass(
    "materialize-early",
    "Lowers graph-level grouped GEMMs to scf.forall loops and encodings to "
    "pack/mmt4d/unpack before dispatches form.",
    [
        *EARLY_TEMPLATES,
        MATERIALIZE_GROUPED_EARLY,
        FOLD_ENCODING_PAIR,
        MATERIALIZE_PACKED_SPLIT_EARLY,
        DROP_SPLIT_ENCODINGS,
        MATERIALIZE_MERGED_EARLY,
        MATERIALIZE_MATMUL_EARLY,
        MATERIALIZE_FILLED_MATMUL_EARLY,
        *DROP_ENCODINGS,
        *CONTRACTION_TEMPLATES,
        *VECTOR_TEMPLATES,
        *DROP_TEMPLATES,
        MATERIALIZE_ENCODING_EARLY,
        FOLD_UNPACK_PACK,
    ],
    [TARGET_OPTION],
)
