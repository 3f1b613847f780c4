"""ONNX ReduceSum with keepdims=1, as iree-import-onnx gives it: a reduction
`linalg.generic` whose output map keeps the reduced dimension as a constant 0,
`(d0, d1) -> (d0, 0)`. split-k splits it, over a K no factor divides, and the
result matches onnx's reference evaluator."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tests.onnx_import import imported_input
from xsplit.api import rewrite
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir


def _reduce_model(op: str, rows: int, k: int, axis: int):
    axes = numpy_helper.from_array(np.array([axis], dtype=np.int64), "axes")
    shape = [rows, k] if axis == 1 else [k, rows]
    out = [rows, 1] if axis == 1 else [1, rows]
    graph = helper.make_graph(
        [helper.make_node(op, ["X", "axes"], ["Y"], keepdims=1)],
        "keepdims",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, out)],
        initializer=[axes],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize(
    ("rows", "k", "axis", "pipeline"),
    [
        (8, 50021, 1, "split-k{factor=7},materialize-late"),
        (8, 50021, 1, "split-k{factor=6 align=16},materialize-late"),
        (5, 3001, 0, "split-k{tile=400 balanced=true},materialize-late"),
    ],
)
def test_keepdims_sum_splits_and_matches_onnx(rows, k, axis, pipeline, tmp_path) -> None:
    model = _reduce_model("ReduceSum", rows, k, axis)
    text = imported_input(model, tmp_path)
    assert "-> (0, d1)>" in text or "-> (d0, 0)>" in text  # the importer's keepdims form
    out = rewrite(text, pipeline)
    assert "split_reduction_mapping" in out or "flow.dispatch" in out, "not split"
    x = np.random.default_rng(k).standard_normal([rows, k] if axis == 1 else [k, rows]).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"X": x})[0]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "keepdims", [x])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-3)
