"""`xsplit bench` on the module a user brings from ONNX: a HAL-ABI `util.func`
(buffer views in and out, the tensors read by `hal.tensor.import`), timed
like a `func.func`, with numpy's matmul on the same inputs."""

from __future__ import annotations

from pathlib import Path

from onnx import TensorProto, helper

from tests.onnx_import import imported_input
from xsplit.bench import driver as bench


def test_bench_runs_an_imported_linear_layer(tmp_path: Path) -> None:
    m, n, k = 6, 40, 4099
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["X", "W"], ["Y"], transB=1)],
        "linear",
        [
            helper.make_tensor_value_info("X", TensorProto.FLOAT, [m, k]),
            helper.make_tensor_value_info("W", TensorProto.FLOAT, [n, k]),
        ],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    text = imported_input(model, tmp_path)
    assert "util.func public @linear(" in text and "!hal.buffer_view" in text
    report = bench.run_bench(text, "linear.mlir", sweep=[1, 3], runs=2, gpu_targets=())
    assert report.function == "linear"
    for c in report.configs:
        assert c.error is None, (c.name, c.error)
        assert len(c.times_ms) == 2, c.name
    assert report.has(bench.NUMPY_CONFIG)
    assert report.flops == 2.0 * m * n * k
    # The three-chunk split read W in place and matched IREE default's result.
    split = report.config("xsplit-x3")
    assert split.max_rel_error is not None and split.max_rel_error < 1e-3
