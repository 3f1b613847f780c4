"""The whole default pipelines on whole real modules: `split-k{factor=7},
materialize-late` and `auto{target=cpu}` over every dump of the corpus
(ONNX models imported with iree-import-onnx, dumped by iree-compile at
`input`, `global-optimization`, `dispatch-creation` and `flow`) and of
real_modules.py's models (ops with regions, symbolic sizes, random sizes; at
`input`, `dispatch-creation` and with IREE's dispatch regions formed).

For each dump and pipeline (issue 33):
- the pipeline runs, and iree-opt reads what it prints;
- where it made nothing (no split loop, no mmt4d), the program is unchanged;
- the module's own dispatches stay: no `flow.dispatch.region` or
  `flow.dispatch.workgroups` is lost (a split inside one leaves it one);
- an `input` dump whose model says so is split.
"""

from __future__ import annotations

import pytest

from tests.corpus.models import MODELS, PHASES, Model
from tests.corpus.real_modules import REAL_MODELS, REAL_PHASES
from tests.helpers.corpus import Corpus
from xsplit.api import rewrite
from xsplit.iree.roundtrip import generic_forms

PIPELINES = ("split-k{factor=7},materialize-late", "auto{target=cpu}")

MADE = ("#iree_linalg_ext.split_reduction_mapping", "linalg.mmt4d", "linalg.batch_mmt4d")
"""What a pipeline leaves where it splits or data-tiles something, in the
custom form xsplit prints and the generic form iree-opt prints alike."""

DISPATCHES = ('"flow.dispatch.region"', '"flow.dispatch.workgroups"')
"""The dispatch ops, as the generic form names them."""

CASES = [("corpus", m, p) for m in MODELS for p in PHASES] + [
    ("real", m, p) for m in REAL_MODELS for p in REAL_PHASES
]


def made(before: str, after: str) -> int:
    return sum(after.count(mark) - before.count(mark) for mark in MADE)


@pytest.mark.parametrize(
    ("where", "model", "phase"), CASES, ids=[f"{m.name}.{p}" for _, m, p in CASES]
)
def test_pipelines_keep_modules_valid(
    request: pytest.FixtureRequest, where: str, model: Model, phase: str
) -> None:
    dumps: Corpus = request.getfixturevalue("corpus" if where == "corpus" else "real_modules")
    dump = dumps.dump(model, phase)
    source = dump.text
    outputs = [rewrite(source, pipeline, dump.id) for pipeline in PIPELINES]
    before, *afters = generic_forms([source, *outputs])
    assert before is not None, f"iree-opt rejects the dump {dump.id}"
    for pipeline, out, after in zip(PIPELINES, outputs, afters, strict=True):
        assert after is not None, f"iree-opt rejects what {pipeline} made of {dump.id}"
        if made(before, after) == 0:
            assert after == before, f"{pipeline} changed {dump.id} without splitting anything"
        for op in DISPATCHES:
            assert after.count(op) >= before.count(op), f"{pipeline} lost a {op} of {dump.id}"
    if phase == "input" and "factor" in model.splits and where == "real":
        assert made(source, outputs[0]) > 0, f"{PIPELINES[0]} split nothing in {dump.id}"
