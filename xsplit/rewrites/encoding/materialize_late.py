"""`materialize-late`: takes what graph-level passes such as `split-k` left and
puts it in the form iree-compile 3.13 accepts and really parallelizes.

Today that form is a `flow.dispatch.workgroups` holding the split loop with
`#iree_linalg_ext.split_reduction_mapping`: IREE then spreads the chunks over
workgroups (123x456x51234 in 77 chunks: 24 -> 1848 workgroups on the CPU).
The merge stays outside, for IREE to form its own dispatch.

The pass is the patterns of its stages run together: a region the first stage
forms is a new op the second stage then converts. A grouped GEMM is put in a
dispatch first and materialized into the split loop inside it; `rock.reduce`
becomes a `linalg.reduce`. An encoded contraction (from `set-encoding`) gets
a dispatch for each pack, its mmt4d and its unpack, and its encodings are
materialized inside them with the data tiles of `target=` (dropped where the
target does not data-tile; see materialize_encodings.py).

Split-k's own kernel (`split-k{target=GPU kernel=auto|own}`) leaves a host
function calling kernels on memrefs: the host and its kernels are put in
the custom-dispatch form iree-compile takes, for the target each kernel was
lowered for, as `export-dispatch{target=T called=true}` would
(`dispatch/export_own_kernel.py`), so that `split-k{target=T},materialize-late`
compiles whichever kernel split-k picked.

Only what xsplit's passes made gets a dispatch: split loops, grouped GEMMs,
encoded contractions at graph level, and the own kernel's hosts. Only the regions this forms become
workgroups. Everything else passes through as it is: a module's own
`flow.dispatch.region`s and `flow.dispatch.workgroups` (and what is in them,
and in executables), ops with regions, merges, the tails and pads of the
aligned split, which IREE puts in dispatches of its own.
"""

from __future__ import annotations

from xsplit.rewrites.dispatch.dispatch_regions_to_workgroups import (
    FORMED_REGIONS_TO_WORKGROUPS_PATTERNS,
)
from xsplit.rewrites.dispatch.export_own_kernel import EXPORT_OWN_KERNEL
from xsplit.rewrites.dispatch.form_dispatch_regions import FORM_DISPATCH_REGIONS_PATTERNS
from xsplit.rewrites.dsl import Pass, Pattern, Remark
from xsplit.rewrites.encoding.materialize_contractions import (
    DROP_TEMPLATES,
    LATE_TEMPLATES as CONTRACTION_TEMPLATES,
)
from xsplit.rewrites.encoding.materialize_vector_contractions import (
    LATE_TEMPLATES as VECTOR_TEMPLATES,
)
from xsplit.rewrites.encoding.materialize_encoded_split import (
    DROP_SPLIT_ENCODINGS,
    MATERIALIZE_PACKED_SPLIT_LATE,
)
from xsplit.rewrites.encoding.materialize_encodings import (
    DROP_ENCODINGS,
    FOLD_ENCODING_PAIR,
    FOLD_UNPACK_PACK,
    MATERIALIZE_ENCODING_LATE,
    MATERIALIZE_FILLED_MATMUL_LATE,
    MATERIALIZE_MATMUL_LATE,
    MATERIALIZE_MERGED_LATE,
    TARGET_OPTION,
)
from xsplit.rewrites.encoding.lower_rock_reduce import LOWER_ROCK_REDUCE
from xsplit.rewrites.encoding.materialize_grouped import IN_DISPATCH_TEMPLATES, IN_REGION_TEMPLATES
from xsplit.rewrites.split.grouped import MATERIALIZE_GROUPED_IN_DISPATCH, WRAP_GROUPED_GEMM

MATERIALIZATIONS: list[Pattern | Remark] = [
    FOLD_ENCODING_PAIR,
    MATERIALIZE_PACKED_SPLIT_LATE,
    DROP_SPLIT_ENCODINGS,
    MATERIALIZE_MERGED_LATE,
    MATERIALIZE_MATMUL_LATE,
    MATERIALIZE_FILLED_MATMUL_LATE,
    *DROP_ENCODINGS,
    *CONTRACTION_TEMPLATES,
    *VECTOR_TEMPLATES,
    *DROP_TEMPLATES,
    MATERIALIZE_ENCODING_LATE,
    FOLD_UNPACK_PACK,
    *IN_REGION_TEMPLATES,
    WRAP_GROUPED_GEMM,
    *IN_DISPATCH_TEMPLATES,
    MATERIALIZE_GROUPED_IN_DISPATCH,
    LOWER_ROCK_REDUCE,
    *FORM_DISPATCH_REGIONS_PATTERNS,
    *FORMED_REGIONS_TO_WORKGROUPS_PATTERNS,
    EXPORT_OWN_KERNEL,
]
"""The patterns of late materialization, in the order they are tried."""

MATERIALIZE_LATE = Pass(
    "materialize-late",
    "Forms IREE dispatches around split reductions, in the form IREE distributes.",
    MATERIALIZATIONS,
    [TARGET_OPTION],
)
