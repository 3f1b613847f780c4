"""split-k's templates for rank-2 `linalg.generic` contractions
(`xsplit/rewrites/split/generic_chunks.py`): the split program, run on
IREE's CPU backend, against numpy, for the static chunks with a tail,
`strategy=expand` and `align=` with an aligned rest of K. The FileCheck test
`tests/filecheck/rewrites/split-k/generic-templates.mlir` checks that the
templates, not the builders, made these."""

from __future__ import annotations

import numpy as np
import pytest

from xsplit.api import parse_module, rewrite
from xsplit.interop.check import entry_function, random_inputs

M, N, K = 16, 24, 1000

FORMS = {
    "at-b": ("(d2, d0)", "(d2, d1)", (K, M), (K, N), lambda a, b: a.T @ b),
    "a-bt": ("(d0, d2)", "(d1, d2)", (M, K), (N, K), lambda a, b: a @ b.T),
}

OPTIONS = {
    "chunks-and-tail": "factor=3",
    "expand": "factor=4 strategy=expand",
    "aligned-and-tail": "factor=3 align=8",
}


def _module(a_map: str, b_map: str, a_shape: tuple[int, int], b_shape: tuple[int, int]) -> str:
    a = f"tensor<{a_shape[0]}x{a_shape[1]}xf32>"
    b = f"tensor<{b_shape[0]}x{b_shape[1]}xf32>"
    c = f"tensor<{M}x{N}xf32>"
    return f"""
func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> {a_map}>, affine_map<(d0, d1, d2) -> {b_map}>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %b : {a}, {b}) outs(%c : {c}) {{
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> {c}
  return %0 : {c}
}}"""


@pytest.mark.parametrize("options", list(OPTIONS), ids=list(OPTIONS))
@pytest.mark.parametrize("form", list(FORMS), ids=list(FORMS))
def test_split_generic_matches_numpy(form: str, options: str) -> None:
    from xsplit.iree.cpu_runner import run_on_cpu
    from xsplit.iree.iree_compile import compile_mlir

    a_map, b_map, a_shape, b_shape, product = FORMS[form]
    source = _module(a_map, b_map, a_shape, b_shape)
    text = rewrite(source, f"split-k{{{OPTIONS[options]}}},materialize-late")
    assert ("tensor.expand_shape" if "expand" in options else "split_reduction_mapping") in text
    inputs = random_inputs(entry_function(parse_module(source)), [])
    (got,) = run_on_cpu(compile_mlir(text, "cpu"), "main", inputs)
    a, b, c = (x.astype(np.float64) for x in inputs)
    want = product(a, b) + c
    assert float(np.abs(got - want).max()) <= 1e-4 * max(1.0, float(np.abs(want).max()))
