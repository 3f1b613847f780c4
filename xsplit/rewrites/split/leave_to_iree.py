"""split-k on a one-row contraction (a decode) on a GPU, written as the IR
it produces: the op as it was, with the split-reduction chunk IREE's own
split would pick on it, `iree_linalg_ext.split_reduction = [C : index]`,
for IREE to form the split dispatch (4x faster than static chunks: the
cost model's `choose_split` has the numbers).

    %r = linalg.matmul ins(%a, %b : 1x14336, 14336x4096) outs(%c : 1x4096)

becomes

    %r = linalg.matmul {iree_linalg_ext.split_reduction = [112 : index]} ins(%a, %b ...) outs(%c ...)
"""

from __future__ import annotations

from xsplit.analysis.cost_model import choose_split, problem_of
from xsplit.analysis.devices import modeled
from xsplit.diagnostics import remark
from xsplit.dialects.iree_linalg_ext import split_reduction_sizes
from xsplit.rewrites.dsl import Match, where
from xsplit.rewrites.dsl.clone import CloningTemplate


def _capture_iree_chunk(m: Match) -> bool | str:
    """Whether the model leaves the op to IREE's own split (a decode on a
    GPU), and that split's chunk; where it does, says so (the rewrite
    follows at once). Says nothing where it does not: the split patterns
    tried next remark on the model's choice."""
    o = m.options
    if o["target"] is None or o["merge"] or o["factor"] or o["tile"]:
        return "the chunk count is not the model's"
    placed = modeled(m.root, o["target"])
    assert placed is not None
    if not placed.target.is_gpu:
        return "the target is no GPU"
    problem = problem_of(m["red"])
    if isinstance(problem, str):
        return problem
    choice = choose_split(problem, placed.target)
    if choice.iree_chunk is None:
        return "the model does not leave it to IREE's own split"
    m.captures["iree_chunk"] = choice.iree_chunk
    remark(m.root, f"{placed.prefix()}split-k: {choice.reason}")
    return True


LEAVE_TO_IREE = CloningTemplate(
    "%r:$result_count = $clone $results[0] -> ($results.type) "
    "with {iree_linalg_ext.split_reduction = $iree_chunks}",
    result_count=lambda m: len(m["results"]),
    iree_chunks=lambda m: split_reduction_sizes([m["iree_chunk"]]),
)
"""The op as it was, with IREE's chunk on it: IREE forms the split dispatch
(`iree-dispatch-creation-form-split-reduction-dispatches`) and its merge as
under its flag. A chunk that divides K keeps IREE's chunks static. The copy
takes the op's place as MLIR's `modifyOpInPlace` leaves it, so no pattern
tries it again."""


the_model_leaves_it_to_iree = where("the model leaves it to IREE's own split", _capture_iree_chunk)
