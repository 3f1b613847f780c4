"""xsplit on IR as its users get it: small ONNX models imported with
iree-import-onnx and dumped by iree-compile at every phase users dump.

- Pass-through, every dump: xsplit with no passes prints the same program
  (`iree-opt --mlir-print-op-generic` of both agree). 100% is required.
- `split-k,materialize-late` and `split-k{factor=N},materialize-late`, every
  dump: the pipeline runs; where it splits nothing, the program is unchanged;
  in the `input` dump it splits what the model says it must.
- Numerics, every model's `input` dump: the split programs and the unsplit one,
  compiled for the CPU, agree on the same seeded random inputs, and the
  unsplit one agrees with ONNX's reference evaluator (so that a wrong import
  or input order cannot hide behind two equal wrong answers).

The counts (pass-through N/N per phase, dumps split per pipeline) are printed
at the end of the session by tests/conftest.py.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx.reference import ReferenceEvaluator

from tests.corpus.models import MODELS, PHASES, Model
from tests.helpers.corpus import Corpus
from tests.helpers.forms import program_form
from xsplit.api import parse_module, rewrite
from xsplit.interop.check import compare, entry_name, entry_point, random_inputs
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir
from xsplit.iree.roundtrip import generic_form, program_difference
from xsplit.targets.table import COMPILED_GPU_TARGETS

DUMPS = [(m, p) for m in MODELS for p in PHASES]
DUMP_IDS = [f"{m.name}.{p}" for m, p in DUMPS]

SPLIT_MARK = "#iree_linalg_ext.split_reduction_mapping"
"""What split-k puts on each split loop; materialize-late keeps it."""


def pipeline(model: Model, which: str) -> str:
    split = "split-k" if which == "default" else f"split-k{{factor={model.factor}}}"
    return f"{split},materialize-late"


def split_loops(before: str, after: str) -> int:
    return after.count(SPLIT_MARK) - before.count(SPLIT_MARK)


@pytest.mark.parametrize(("model", "phase"), DUMPS, ids=DUMP_IDS)
def test_pass_through(corpus: Corpus, model: Model, phase: str) -> None:
    dump = corpus.dump(model, phase)
    source = dump.text
    printed = rewrite(source, "", dump.id)
    assert program_difference(source, printed, dump.id) == ""


@pytest.mark.parametrize("which", ["default", "factor"])
@pytest.mark.parametrize(("model", "phase"), DUMPS, ids=DUMP_IDS)
def test_split_k_pipeline(
    corpus: Corpus, model: Model, phase: str, which: str, record_property
) -> None:
    dump = corpus.dump(model, phase)
    source = dump.text
    out = rewrite(source, pipeline(model, which), dump.id)
    loops = split_loops(source, out)
    record_property("split_loops", loops)
    if loops == 0:
        # Valid IR that no pattern handles passes through unchanged.
        assert program_difference(source, out, dump.id) == ""
    else:
        generic_form(out, f"{dump.id} split")  # iree-opt reads and verifies it
    if phase == "input" and which in model.splits:
        assert loops > 0, f"{pipeline(model, which)} split nothing in {dump.id}"


def onnx_reference(corpus: Corpus, model: Model, inputs: list[np.ndarray]) -> list[np.ndarray]:
    proto = onnx.load(corpus.onnx_path(model))
    names = [i.name for i in proto.graph.input]
    return list(ReferenceEvaluator(proto).run(None, dict(zip(names, inputs, strict=True))))


@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_cpu_numerics(corpus: Corpus, model: Model, record_property) -> None:
    dump = corpus.dump(model, "input")
    source = dump.text
    entry = entry_point(parse_module(source, dump.id))
    assert entry_name(entry) == model.name  # the sync HAL-ABI entry, not the $async one
    inputs = random_inputs(entry, (), seed=7)
    assert all(np.ptp(x) > 0 for x in inputs)

    unsplit = run_on_cpu(compile_mlir(source, "cpu"), model.name, inputs)
    for want, got in zip(onnx_reference(corpus, model, inputs), unsplit, strict=True):
        check = compare(got, np.asarray(want), 0)
        assert check.passed, f"unsplit vs ONNX reference: {check.describe()}"

    checked = 0
    run_forms: set[str] = set()
    for which in ("default", "factor"):
        split = rewrite(source, pipeline(model, which), dump.id)
        if split_loops(source, split) == 0:
            assert which not in model.splits
            continue
        if program_form(split) in run_forms:
            # The other pipeline chose another factor for the same program:
            # one compiled representative per form (issue 38 item 6).
            continue
        run_forms.add(program_form(split))
        results = run_on_cpu(compile_mlir(split, "cpu"), model.name, inputs)
        for index, (got, want) in enumerate(zip(results, unsplit, strict=True)):
            check = compare(got, want, index)
            assert check.passed, f"{pipeline(model, which)}: {check.describe()}"
        checked += 1
    record_property("numerics_checked", checked)


FACTOR_SPLIT = [m for m in MODELS if "factor" in m.splits]


@pytest.mark.gpu_compile
@pytest.mark.parametrize("model", FACTOR_SPLIT, ids=[m.name for m in FACTOR_SPLIT])
def test_gpu_compiles(corpus: Corpus, model: Model) -> None:
    """The split `input` dumps compile for CUDA and ROCm (not run: no GPU here)."""
    dump = corpus.dump(model, "input")
    split = rewrite(dump.text, pipeline(model, "factor"), dump.id)
    assert split_loops(dump.text, split) > 0
    for target in COMPILED_GPU_TARGETS:
        assert compile_mlir(split, target)
