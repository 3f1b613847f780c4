"""Vector-matrix contractions without an M loop (`linalg.vecmat`,
`linalg.matvec`, their `linalg.generic` forms, ONNX `MatMul` of a 1-D input):
the cost model prices them as the one-row matmul they are, and where split-k
fixes IREE CPU tiles on the chunks it cuts them as that matmul. Generated
cases check that the split computes the op (numpy, random inputs), that no
chunk is left in the vector form, and that the function's signature stays."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tests.helpers.forms import program_form
from tests.onnx_import import imported_input
from xsplit.analysis.cost_model import problem_of
from xsplit.analysis.reduction import match_reduction, vector_form
from xsplit.api import parse_module, rewrite
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir
from xsplit.rewrites.split.aligned_split import aligned_chunks

_WIDEN_THEN_MULTIPLY = """
  ^bb0(%m: f16, %v: f32, %acc: f32):
    %e = arith.extf %m : f16 to f32
    %p = arith.mulf %e, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32"""
"""An f16 matrix against an f32 vector: the body's arguments cannot swap."""

_SUBTRACT_THEN_SCALE = """
  ^bb0(%m: f32, %v: f32, %acc: f32):
    %d = arith.subf %m, %v : f32
    %p = arith.mulf %d, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32"""
"""acc + (m - v) * v: no multiply-accumulate, so no aligned chunks."""

KINDS = ("vecmat", "matvec", "generic-kn", "generic-nk", "generic-sub")


def _program(kind: str, n: int, k: int) -> tuple[str, object]:
    """A vector form over N x K and its numpy meaning on (inputs..., init)."""
    v, y = f"tensor<{k}xf32>", f"tensor<{n}xf32>"
    if kind == "vecmat":
        mat = f"tensor<{k}x{n}xf32>"
        op = f"linalg.vecmat ins(%x, %w : {v}, {mat}) outs(%y : {y}) -> {y}"
        args, ref = f"%x: {v}, %w: {mat}", lambda x, w, y0: x.astype(np.float64) @ w + y0
    elif kind == "matvec":
        mat = f"tensor<{n}x{k}xf32>"
        op = f"linalg.matvec ins(%w, %x : {mat}, {v}) outs(%y : {y}) -> {y}"
        args, ref = f"%w: {mat}, %x: {v}", lambda w, x, y0: w.astype(np.float64) @ x + y0
    else:
        # The matrix first, read as W[n, k] or W[k, n], the loops (k, n).
        transposed = kind != "generic-kn"
        element, body = ("f32", _SUBTRACT_THEN_SCALE) if kind == "generic-sub" else ("f16", _WIDEN_THEN_MULTIPLY)
        mat = f"tensor<{n}x{k}x{element}>" if transposed else f"tensor<{k}x{n}x{element}>"
        w_map = "(d1, d0)" if transposed else "(d0, d1)"
        maps = f"affine_map<(d0, d1) -> {w_map}>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>"
        op = (
            f'linalg.generic {{indexing_maps = [{maps}], iterator_types = ["reduction", "parallel"]}} '
            f"ins(%w, %x : {mat}, {v}) outs(%y : {y}) {{{body}\n  }} -> {y}"
        )
        args = f"%w: {mat}, %x: {v}"

        def ref(w, x, y0):  # type: ignore[no-untyped-def]
            wn = (w if transposed else w.T).astype(np.float64)
            terms = (wn - x) * x if kind == "generic-sub" else wn * x
            return terms.sum(axis=1) + y0

    text = f"""
func.func @main({args}, %y: {y}) -> {y} {{
  %0 = {op}
  return %0 : {y}
}}"""
    return text, ref


def _case(seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(1500 + seed)
    kind = rng.choice(KINDS)
    n, k, factor = rng.randint(1, 90), rng.randint(200, 3000), rng.randint(2, 9)
    return f"{kind}-{n}x{k}-x{factor}", kind, n, k, factor


CASES = [_case(s) for s in range(12)] + [
    # No multiply-accumulate: split in plain chunks, still in the vector form.
    ("generic-sub-33x1500-x4", "generic-sub", 33, 1500, 4),
    # A prime K, and N of one.
    ("vecmat-40x2999-x6", "vecmat", 40, 2999, 6),
    ("matvec-1x1021-x3", "matvec", 1, 1021, 3),
]


@pytest.mark.parametrize("case_id,kind,n,k,factor", CASES, ids=[c[0] for c in CASES])
def test_a_vector_form_split_with_cpu_tiles_is_cut_as_one_row(case_id, kind, n, k, factor) -> None:
    text, ref = _program(kind, n, k)
    out = _split(case_id)
    assert _signature(out) == _signature(text)
    assert "split_reduction_mapping" in out
    if kind != "generic-sub" and not isinstance(aligned_chunks(k, factor, 16), str):
        # The chunks are the one-row matmul, over (1, N, K).
        assert "linalg.vecmat" not in out and "linalg.matvec" not in out, out
        assert re.search(rf"tensor\.expand_shape %x\S* \[\[0(?: : i64)?, 1(?: : i64)?\]\] output_shape \[1, {k}\]", out), out
        assert re.search(r"%partial\w* = linalg\.generic .* outs\(%partial_init\w* : tensor<1x\d+xf32>\)", out), out
        assert re.search(rf"tensor\.collapse_shape %\w+ \[\[0(?: : i64)?, 1(?: : i64)?\]\] : tensor<1x{n}xf32> into tensor<{n}xf32>", out), out
    elif kind == "generic-sub":
        # No aligned chunks without a multiply-accumulate, so nothing to lift for.
        assert "tensor.expand_shape" not in out and "tensor.collapse_shape" not in out, out
    earlier = [c[0] for c in CASES[: [c[0] for c in CASES].index(case_id)]]
    if any(program_form(_split(e)) == program_form(out) for e in earlier):
        # An earlier generated case of this form, with other numbers, is
        # compiled and run: one compiled representative per form (issue 38
        # item 6); this one is checked on the IR above.
        return
    rng = np.random.default_rng(seed=n * 7919 + k)
    module = parse_module(text)
    func = next(op for op in module.walk() if op.name == "func.func")
    inputs = [
        rng.standard_normal(t.get_shape()).astype(np.float16 if "f16" in str(t) else np.float32)
        for t in func.function_type.inputs.data
    ]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", inputs)
    want = ref(*inputs)
    assert float(np.abs(np.asarray(got) - want).max()) <= 1e-4 * max(1.0, float(np.abs(want).max()))


@cache
def _split(case_id: str) -> str:
    """The split of generated case `case_id`, rewritten once per session."""
    (kind, n, k, factor) = next(c[1:] for c in CASES if c[0] == case_id)
    text, _ = _program(kind, n, k)
    return rewrite(text, f"split-k{{factor={factor} align=16 pad_m=8 cpu_tiles=true}},materialize-late")


def _signature(text: str):  # type: ignore[no-untyped-def]
    (func,) = [op for op in parse_module(text).walk() if op.name == "func.func"]
    return func.sym_name, func.function_type


def _only_reduction(text: str):  # type: ignore[no-untyped-def]
    module = parse_module(text)
    ops = [op for op in module.walk() if op.name.startswith("linalg.") and op.name not in ("linalg.fill", "linalg.yield")]
    assert len(ops) == 1
    return match_reduction(ops[0])


def _one_row(n: int, k: int, transposed: bool, b_element: str = "f32") -> str:
    """The same contraction as a 1 x K row against B, widening an f16 B."""
    b = f"tensor<{n}x{k}x{b_element}>" if transposed else f"tensor<{k}x{n}x{b_element}>"
    widen = "    %w = arith.extf %wb : f16 to f32\n" if b_element == "f16" else ""
    b_map = "(d1, d2)" if transposed else "(d2, d1)"
    maps = f"affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> {b_map}>, affine_map<(d0, d1, d2) -> (d0, d1)>"
    return f"""
func.func @main(%a: tensor<1x{k}xf32>, %b: {b}, %c: tensor<1x{n}xf32>) -> tensor<1x{n}xf32> {{
  %0 = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %b : tensor<1x{k}xf32>, {b}) outs(%c : tensor<1x{n}xf32>) {{
  ^bb0(%x: f32, %w{"b" if widen else ""}: {b_element}, %acc: f32):
{widen}    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> tensor<1x{n}xf32>
  return %0 : tensor<1x{n}xf32>
}}"""


def test_the_model_prices_a_vector_form_as_its_one_row_matmul() -> None:
    """One problem, one price: vecmat is the 1 x K by K x N matmul, matvec
    the 1 x K by (N x K)^T one, whatever the order of the generic's inputs
    and loops."""
    rng = random.Random(13115)
    for _ in range(60):
        n, k = rng.randint(1, 8192), rng.choice([rng.randint(16, 600_000), 30011, 65521, 500009])
        for kind in ("vecmat", "matvec", "generic-kn", "generic-nk", "generic-sub"):
            red = _only_reduction(_program(kind, n, k)[0])
            assert not isinstance(red, str)
            form = vector_form(red)
            transposed = kind not in ("vecmat", "generic-kn")
            assert form is not None and form.transposed == transposed
            element = "f16" if kind in ("generic-kn", "generic-nk") else "f32"
            one_row = _one_row(n, k, transposed, element)
            # `generic` is the op's form, not its problem: it only says whether
            # IREE 3.13 keeps a split_reduction attribute on it.
            assert replace(problem_of(red), generic=False) == replace(
                problem_of(_only_reduction(one_row)), generic=False
            )


def test_ops_with_an_m_loop_or_one_input_are_no_vector_form() -> None:
    for text in (
        _one_row(64, 300, False),
        """func.func @sum(%x: tensor<8x300xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.reduce ins(%x : tensor<8x300xf32>) outs(%y : tensor<8xf32>) dimensions = [1]
  (%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return %0 : tensor<8xf32>
}""",
    ):
        red = _only_reduction(text)
        assert not isinstance(red, str) and vector_form(red) is None


def _onnx_matmul(n: int, k: int, vector_first: bool, seed: int):  # type: ignore[no-untyped-def]
    """ONNX MatMul of a 1-D input and a weight initializer: x[K] @ W[K, N]
    (vector first) or W[N, K] @ x[K]."""
    rng = np.random.default_rng(seed)
    weight = rng.standard_normal((k, n) if vector_first else (n, k)).astype(np.float32)
    node = helper.make_node("MatMul", ["x", "W"] if vector_first else ["W", "x"], ["y"])
    graph = helper.make_graph(
        [node],
        "layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])],
        [numpy_helper.from_array(weight, "W")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(("n", "k", "vector_first"), [(48, 4099, True), (40, 3001, False)])
def test_onnx_matmul_of_a_vector_splits_as_one_row_and_matches_onnx(n, k, vector_first, tmp_path) -> None:
    model = _onnx_matmul(n, k, vector_first, seed=k)
    text = imported_input(model, tmp_path)
    assert ("linalg.vecmat" if vector_first else "linalg.matvec") in text  # the importer's form
    out = rewrite(text, "split-k{factor=5 align=16 pad_m=8 cpu_tiles=true},materialize-late")
    assert "split_reduction_mapping" in out and f"tensor<1x{k}xf32>" in out
    assert "linalg.vecmat" not in out and "linalg.matvec" not in out
    x = np.random.default_rng(n).standard_normal(k).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "layer", [x])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3, atol=2e-3)


def test_target_cpu_splits_a_long_vecmat_and_leaves_a_matvec_whole(monkeypatch) -> None:
    """On Zen 4, a 14336-long vecmat into 4096 splits, as the decode matmul
    of the same sizes does, and the matvec (B transposed) stays whole, as
    the transposed decode does; each says the same as its matmul form."""
    from xsplit.diagnostics import collect_remarks
    from xsplit.targets import cpu_info

    monkeypatch.setenv("XSPLIT_CPU", "znver4")
    cpu_info.forget_host()
    try:
        said: dict[str, list[str]] = {}
        outs: dict[str, str] = {}
        for kind in ("vecmat", "matvec"):
            for form, text in ((kind, _program(kind, 4096, 14336)[0]), (f"{kind}-row", _one_row(4096, 14336, kind == "matvec"))):
                with collect_remarks() as remarks:
                    outs[form] = rewrite(text, "split-k{target=cpu}")
                said[form] = [r.split(": ", 1)[1] for r in remarks]
    finally:
        monkeypatch.undo()
        cpu_info.forget_host()
    for kind in ("vecmat", "matvec"):
        assert said[kind] == said[f"{kind}-row"] and len(said[kind]) == 1, said
    assert said["vecmat"][0].startswith("remark: split-k: cpu chose")
    assert "compilation_info" in outs["vecmat"] and "linalg.vecmat" not in outs["vecmat"]
    assert said["matvec"][0].startswith("remark: not split")
    assert "linalg.matvec" in outs["matvec"] and "split_reduction_mapping" not in outs["matvec"]


def _named_case(seed: int):  # type: ignore[no-untyped-def]
    """linalg.dot, batch_matvec and batch_vecmat: random sizes and chunkings."""
    rng = random.Random(2600 + seed)
    kind = ("dot", "batch_matvec", "batch_vecmat")[seed % 3]
    b, rows, k = rng.randint(1, 4), rng.randint(1, 40), rng.randint(100, 5000)
    chunking = rng.choice(
        [f"factor={rng.randint(2, 12)}", f"tile={rng.randint(30, 900)}", f"factor={rng.randint(2, 9)} balanced=true",
         f"factor={rng.randint(2, 6)} align=16 pad_m=8 cpu_tiles=true"]
    )
    if kind == "dot":
        types = [f"tensor<{k}xf32>", f"tensor<{k}xf32>", "tensor<f32>"]
        ref = lambda a, x, c: a.astype(np.float64) @ x + c  # noqa: E731
    elif kind == "batch_matvec":
        types = [f"tensor<{b}x{rows}x{k}xf32>", f"tensor<{b}x{k}xf32>", f"tensor<{b}x{rows}xf32>"]
        ref = lambda a, x, c: np.einsum("bmk,bk->bm", a.astype(np.float64), x) + c  # noqa: E731
    else:
        types = [f"tensor<{b}x{k}xf32>", f"tensor<{b}x{k}x{rows}xf32>", f"tensor<{b}x{rows}xf32>"]
        ref = lambda x, a, c: np.einsum("bk,bkn->bn", x.astype(np.float64), a) + c  # noqa: E731
    text = f"""
func.func @main(%p: {types[0]}, %q: {types[1]}, %c: {types[2]}) -> {types[2]} {{
  %0 = linalg.{kind} ins(%p, %q : {types[0]}, {types[1]}) outs(%c : {types[2]}) -> {types[2]}
  return %0 : {types[2]}
}}"""
    return f"{kind}-b{b}-r{rows}-k{k}-{chunking.replace(' ', '-')}", text, ref, chunking


NAMED_CASES = [_named_case(s) for s in range(9)]


@pytest.mark.parametrize("case_id,text,ref,chunking", NAMED_CASES, ids=[c[0] for c in NAMED_CASES])
def test_dot_and_batched_vector_ops_split_and_compute_the_op(case_id, text, ref, chunking) -> None:
    out = rewrite(text, f"split-k{{{chunking}}},materialize-late")
    assert "split_reduction_mapping" in out
    assert _signature(out) == _signature(text)
    rng = np.random.default_rng(len(text))
    func = next(op for op in parse_module(text).walk() if op.name == "func.func")
    inputs = [rng.standard_normal(t.get_shape()).astype(np.float32) for t in func.function_type.inputs.data]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", inputs)
    want = ref(*inputs)
    assert float(np.abs(np.asarray(got) - want).max()) <= 1e-4 * max(1.0, float(np.abs(want).max()))


def _batched_one_row(kind: str, b: int, n: int, k: int) -> str:
    """batch_vecmat, or the same problem as a batch_matmul of one row."""
    if kind == "batch_vecmat":
        a, c = f"tensor<{b}x{k}xf32>", f"tensor<{b}x{n}xf32>"
    else:
        a, c = f"tensor<{b}x1x{k}xf32>", f"tensor<{b}x1x{n}xf32>"
    w = f"tensor<{b}x{k}x{n}xf32>"
    return f"""
func.func @main(%a: {a}, %w: {w}, %c: {c}) -> {c} {{
  %0 = linalg.{kind} ins(%a, %w : {a}, {w}) outs(%c : {c}) -> {c}
  return %0 : {c}
}}"""


def test_a_batch_of_rows_against_rows_shorter_than_a_page_is_left_whole() -> None:
    """batch_vecmat and a one-row batch_matmul are one problem; IREE's own
    kernel streams B whole where B's rows are shorter than a page (measured
    at 31-41 GB/s, every split slower), so the model leaves it whole there
    and may split where the rows are a page or longer, or B is transposed."""
    from xsplit.analysis.cost_model import choose_split
    from xsplit.targets import table as targets
    from xsplit.targets.cpu_info import NAMED_CPUS

    cpu = targets.cpu_target(NAMED_CPUS["znver4"])
    rng = random.Random(30011)
    for _ in range(25):
        b, k = rng.randint(2, 16), rng.randint(8_000, 120_000)
        n = rng.choice([16, 64, 128, 256, 512, 1000])
        problems = [problem_of(_only_reduction(_batched_one_row(kind, b, n, k))) for kind in ("batch_vecmat", "batch_matmul")]
        assert problems[0] == problems[1]
        problem = problems[0]
        assert not isinstance(problem, str) and (problem.batch, problem.m, problem.n) == (b, 1, n)
        assert choose_split(problem, cpu).factor == 1, (b, n, k)
    wide = problem_of(_only_reduction(_batched_one_row("batch_vecmat", 2, 1024, 30011)))
    assert not isinstance(wide, str) and choose_split(wide, cpu).factor > 1
