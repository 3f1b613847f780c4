"""Encodings end to end: every contraction of the split-K e2e suite (each op
and dtype it covers, prime K included) encoded, split and materialized in
both orders, early and late, must match the unsplit program and numpy on the
CPU, run its partial products as batch_mmt4d on packed tiles, and compile for
CUDA and ROCm (where the encodings are dropped)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.e2e.cases import CASES, SAME_FORM_AS, Case
from tests.helpers.forms import program_form
from tests.helpers.kept_dumps import kept_run
from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.interop.check import check_rewrite, entry_function, random_inputs
from xsplit.iree.iree_compile import compile_mlir
from xsplit.targets.table import COMPILED_GPU_TARGETS

ENCODABLE = [
    c
    for c in CASES
    if c.static and c.splits and "reduce" not in c.id and "factor-exceeds" not in c.id
]
"""The static contractions the suite splits (linalg.reduce is not data-tiled)."""


def _split_options(case: Case) -> str:
    return case.options or "factor=4"


ORDERS = {
    "encode-then-split": "set-encoding,split-k{{{o}}},materialize-late",
    "split-then-encode": "split-k{{{o}}},set-encoding,materialize-late",
    "early": "set-encoding,split-k{{{o}}},materialize-early",
}


def _rewritten(case: Case, pipeline: str) -> str:
    module = parse_module(case.mlir)
    run_passes(module, build_pipeline(pipeline))
    return print_module(module)


def _check(case: Case, pipeline: str) -> str:
    text, checks = check_rewrite(case.mlir, pipeline, case.dims, None, 0)
    assert all(c.max_abs_error <= c.tolerance for c in checks), [
        (c.max_abs_error, c.tolerance) for c in checks
    ]
    inputs = random_inputs(entry_function(parse_module(case.mlir)), case.dims)
    # The run check_rewrite compared with the unsplit program's, kept.
    (got,) = kept_run(compile_mlir(text, "cpu"), "main", inputs)
    want = case.reference(*inputs)
    if got.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        scale = max(1.0, float(np.abs(want).max()))
        rtol = 1e-2 if "f16" in case.id or "bf16" in case.id else 1e-4
        assert float(np.abs(got - want).max()) <= rtol * scale
    return text


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", ENCODABLE, ids=[c.id for c in ENCODABLE])
def test_cpu_numerics_and_mmt4d(case: Case, order: str) -> None:
    if case.id in SAME_FORM_AS:
        # One compiled representative per form: the seed runs; a program of
        # its form with other numbers is checked on its IR (the form, and the
        # packs and dispatches below). The unencoded suite still runs each of
        # these numbers' split on the CPU.
        text = _rewritten(case, ORDERS[order].format(o=_split_options(case)))
        (representative,) = [c for c in ENCODABLE if c.id == SAME_FORM_AS[case.id]]
        seed = _rewritten(representative, ORDERS[order].format(o=_split_options(representative)))
        assert program_form(text) == program_form(seed), case.id
    else:
        text = _check(case, ORDERS[order].format(o=_split_options(case)))
    assert "iree_encoding" not in text
    assert re.search(r"linalg\.batch_mmt4d", text), "the partial products are not a batch_mmt4d"
    assert "linalg.pack" in text and "linalg.unpack" in text
    if order != "early":
        # One dispatch per pack and one for the mmt4d, which unpacks its
        # result itself when nothing merges it packed.
        for body in text.split("flow.dispatch.workgroups")[1:]:
            body = body.split("flow.return")[0]
            kinds = re.findall(r"linalg\.(pack|unpack|batch_mmt4d|mmt4d)\b", body)
            assert kinds in ([], ["pack"], ["unpack"], ["mmt4d"], ["batch_mmt4d"],
                             ["mmt4d", "unpack"], ["batch_mmt4d", "unpack"]), kinds


@pytest.mark.gpu_compile
@pytest.mark.parametrize("gpu", COMPILED_GPU_TARGETS)
@pytest.mark.parametrize("case", ENCODABLE[:6], ids=[c.id for c in ENCODABLE[:6]])
def test_gpu_compiles_without_encodings(case: Case, gpu: str) -> None:
    def rewritten(case: Case) -> str:
        options = _split_options(case)
        return _rewritten(case, f"set-encoding,split-k{{{options}}},materialize-late{{target={gpu}}}")

    text = rewritten(case)
    assert "iree_encoding" not in text and "linalg.pack" not in text
    if case.id in SAME_FORM_AS:
        # The seed, of this form, is compiled for this target; this program
        # must still be that form with other numbers.
        (representative,) = [c for c in ENCODABLE if c.id == SAME_FORM_AS[case.id]]
        assert program_form(text) == program_form(rewritten(representative)), case.id
        return
    compile_mlir(text, gpu)


AUTO_CASES = [c for c in ENCODABLE if c.id.startswith(("seed", "batch", "matvec-i8", "matmul-f16"))]


@pytest.mark.parametrize("case", AUTO_CASES, ids=[c.id for c in AUTO_CASES])
def test_auto_runs_right_on_the_cpu(case: Case) -> None:
    text = _check(case, "auto{target=cpu}")
    assert "iree_encoding" not in text


@pytest.mark.gpu_compile
@pytest.mark.parametrize("gpu", COMPILED_GPU_TARGETS)
@pytest.mark.parametrize("kernel", ["auto", "iree"])
def test_auto_compiles_for_gpus(gpu: str, kernel: str) -> None:
    """Whatever auto chooses compiles; with IREE's code it is a distributed
    split (the seed on sm_80 and sm_90 goes to xsplit's own kernel by
    default: a custom dispatch)."""
    case = AUTO_CASES[0]
    module = parse_module(case.mlir)
    run_passes(module, build_pipeline(f"auto{{target={gpu} kernel={kernel}}}"))
    text = print_module(module)
    assert "iree_encoding" not in text
    assert "split_reduction_mapping" in text or (
        kernel == "auto" and "hal.executable.source" in text
    )
    compile_mlir(text, gpu)
