"""ONNX `Gemm transB=1`, the form linear layers export to, as iree-import-onnx
and `iree-compile --compile-to=input` give it: a `linalg.transpose` of the
weight, then a row-major `linalg.matmul` on the copy. split-k reads the weight
itself (IREE fuses the transpose into the whole op, but not into chunks cut
from the copy), and the result matches onnx's reference evaluator."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from tests.onnx_import import imported_input
from xsplit.api import rewrite
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir


def _linear_model(m: int, n: int, k: int, bias: bool, trans_a: int = 0):
    inputs = [
        helper.make_tensor_value_info("X", TensorProto.FLOAT, [k, m] if trans_a else [m, k]),
        helper.make_tensor_value_info("W", TensorProto.FLOAT, [n, k]),
    ]
    if bias:
        inputs.append(helper.make_tensor_value_info("B", TensorProto.FLOAT, [n]))
    node = helper.make_node(
        "Gemm", ["X", "W", "B"] if bias else ["X", "W"], ["Y"], transA=trans_a, transB=1, alpha=0.5
    )
    graph = helper.make_graph(
        [node], "linear", inputs, [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    ("m", "n", "k", "bias", "trans_a", "pipeline"),
    [
        (6, 40, 4099, False, 0, "split-k{factor=5},materialize-late"),
        (6, 40, 4099, True, 0, "split-k{factor=4 align=16 pad_m=8 cpu_tiles=true},materialize-late"),
        (24, 96, 20011, True, 0, "split-k{target=cpu},materialize-late"),
        # Both operands transposed: A is read as A[k, m] in place too.
        (5, 12, 3001, True, 1, "split-k{factor=3},materialize-late"),
    ],
)
def test_linear_splits_the_weight_in_place_and_matches_onnx(
    m, n, k, bias, trans_a, pipeline, tmp_path
) -> None:
    model = _linear_model(m, n, k, bias, trans_a)
    text = imported_input(model, tmp_path)
    assert "linalg.transpose" in text  # the importer's form
    out = rewrite(text, pipeline)
    assert "split_reduction_mapping" in out, "not split"
    assert "linalg.transpose" not in out, "a chunk still reads the transposed copy"
    rng = np.random.default_rng(k + m)
    feeds = {
        "X": rng.standard_normal((k, m) if trans_a else (m, k)).astype(np.float32),
        "W": rng.standard_normal((n, k)).astype(np.float32),
    }
    if bias:
        feeds["B"] = rng.standard_normal(n).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, feeds)[0]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "linear", list(feeds.values()))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3, atol=2e-3)


def test_a_decode_linear_is_left_to_iree_whole(tmp_path, monkeypatch) -> None:
    """8 rows against a 4096x11008 weight: priced as the weight lies (a stream
    of B transposed), the op is left whole, transpose and all, for IREE to fuse."""
    monkeypatch.setenv("XSPLIT_CPU", "znver4")
    from xsplit.targets import cpu_info

    cpu_info.forget_host()
    try:
        text = imported_input(_linear_model(8, 4096, 11008, False), tmp_path)
        out = rewrite(text, "split-k{target=cpu},materialize-late")
    finally:
        monkeypatch.undo()
        cpu_info.forget_host()
    assert "split_reduction_mapping" not in out
    assert "linalg.transpose" in out and "linalg.matmul" in out
