"""The corpus: small ONNX models of the reductions xsplit's users split.

Each model is built here with the `onnx` package, the way a user exports one,
small enough for CI but with reductions long enough for split-K to matter,
among them lengths IREE 3.13 cannot split (a prime, or one a factor does not
divide). Weights are model inputs, so that the compiled program cannot fold
them, except where a model has a small random initializer on purpose (that is
how exporters ship weights, and it puts a dense constant into the IR).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from onnx import ModelProto, NodeProto, TensorProto, checker, helper, numpy_helper

OPSET = 18
"""ONNX opset the models are written in: ReduceMax takes its axes as an input from 18 on."""


@dataclass(frozen=True)
class Model:
    name: str
    build: Callable[[], ModelProto]
    factor: int
    """The chunk count of the `split-k{factor=N}` run, chosen not to divide
    the length of the reduction it splits."""
    reduction: str
    """The reduction the model exists for, as the report names it."""
    splits: tuple[str, ...] = ("default", "factor")
    """The pipelines (`split-k` by its default rule, `split-k{factor=N}`) that
    must split something in the model's `input`-phase dump."""


def _graph(
    nodes: Sequence[NodeProto],
    name: str,
    inputs: Sequence[tuple[str, int, Sequence[int]]],
    outputs: Sequence[tuple[str, int, Sequence[int]]],
    initializers: Sequence[TensorProto] = (),
) -> ModelProto:
    graph = helper.make_graph(
        list(nodes),
        name,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers),
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    checker.check_model(model, full_check=True)
    return model


def _initializer(name: str, shape: Sequence[int], seed: int) -> TensorProto:
    values = np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)
    return numpy_helper.from_array(values, name)


def _node(op: str, inputs: Sequence[str], outputs: Sequence[str], **attrs: object) -> NodeProto:
    return helper.make_node(op, list(inputs), list(outputs), **attrs)


def matmul_prime_k() -> ModelProto:
    """C = A·B with K = 4099, a prime: IREE 3.13 leaves it whole."""
    f = TensorProto.FLOAT
    return _graph(
        [_node("MatMul", ["a", "b"], ["c"])],
        "matmul_prime_k",
        [("a", f, [8, 4099]), ("b", f, [4099, 16])],
        [("c", f, [8, 16])],
    )


def gemm_transposed_b() -> ModelProto:
    """Y = 0.5·A·Bᵀ + C, K = 6000: Gemm with transB, as exporters write linear layers."""
    f = TensorProto.FLOAT
    return _graph(
        [_node("Gemm", ["a", "b", "c"], ["y"], alpha=0.5, beta=1.0, transB=1)],
        "gemm_transposed_b",
        [("a", f, [8, 6000]), ("b", f, [24, 6000]), ("c", f, [24])],
        [("y", f, [8, 24])],
    )


def batched_matmul() -> ModelProto:
    """A batch of 3 matmuls with K = 3001 (prime)."""
    f = TensorProto.FLOAT
    return _graph(
        [_node("MatMul", ["a", "b"], ["c"])],
        "batched_matmul",
        [("a", f, [3, 8, 3001]), ("b", f, [3, 3001, 16])],
        [("c", f, [3, 8, 16])],
    )


def conv() -> ModelProto:
    """A 3x3 NCHW convolution over 300 input channels, stride 1, with a bias."""
    f = TensorProto.FLOAT
    return _graph(
        [_node("Conv", ["x", "w", "bias"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
        "conv",
        [("x", f, [1, 300, 6, 6]), ("w", f, [8, 300, 3, 3]), ("bias", f, [8])],
        [("y", f, [1, 8, 6, 6])],
    )


def reduce_sum() -> ModelProto:
    """Row sums over 5003 (prime) elements."""
    f, i = TensorProto.FLOAT, TensorProto.INT64

    axes = helper.make_tensor("axes", i, [1], [1])
    return _graph(
        [_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
        "reduce_sum",
        [("x", f, [8, 5003])],
        [("y", f, [8])],
        [axes],
    )


def reduce_max() -> ModelProto:
    """Row maxima over 5003 (prime) elements."""
    f, i = TensorProto.FLOAT, TensorProto.INT64

    axes = helper.make_tensor("axes", i, [1], [1])
    return _graph(
        [_node("ReduceMax", ["x", "axes"], ["y"], keepdims=0)],
        "reduce_max",
        [("x", f, [8, 5003])],
        [("y", f, [8])],
        [axes],
    )


def argmax() -> ModelProto:
    """The index of each row's maximum over 5003 elements: a value-and-index reduction."""
    f, i = TensorProto.FLOAT, TensorProto.INT64
    return _graph(
        [_node("ArgMax", ["x"], ["y"], axis=1, keepdims=0)],
        "argmax",
        [("x", f, [8, 5003])],
        [("y", i, [8])],
    )


def softmax() -> ModelProto:
    """Softmax over rows of 4099: a max and a sum reduction around an exp."""
    f = TensorProto.FLOAT
    return _graph(
        [_node("Softmax", ["x"], ["y"], axis=-1)],
        "softmax",
        [("x", f, [4, 4099])],
        [("y", f, [4, 4099])],
    )


def attention() -> ModelProto:
    """softmax(Q·Kᵀ/√d)·V over 2 heads with 2053 (prime) keys: the second matmul
    reduces over the keys."""
    f = TensorProto.FLOAT

    scale = helper.make_tensor("scale", f, [], [1.0 / np.sqrt(32.0)])
    return _graph(
        [
            _node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
            _node("MatMul", ["q", "kt"], ["scores"]),
            _node("Mul", ["scores", "scale"], ["scaled"]),
            _node("Softmax", ["scaled"], ["p"], axis=-1),
            _node("MatMul", ["p", "v"], ["out"]),
        ],
        "attention",
        [("q", f, [1, 2, 4, 32]), ("k", f, [1, 2, 2053, 32]), ("v", f, [1, 2, 2053, 32])],
        [("out", f, [1, 2, 4, 32])],
        [scale],
    )


def mlp() -> ModelProto:
    """Gemm, Relu, Gemm: a 4096-wide input layer, then a hidden layer whose
    weights and bias are small random initializers."""
    f = TensorProto.FLOAT
    return _graph(
        [
            _node("Gemm", ["x", "w1", "b1"], ["h"]),
            _node("Relu", ["h"], ["r"]),
            _node("Gemm", ["r", "w2", "b2"], ["y"]),
        ],
        "mlp",
        [("x", f, [4, 4096]), ("w1", f, [4096, 32]), ("b1", f, [32])],
        [("y", f, [4, 8])],
        [_initializer("w2", [32, 8], seed=1), _initializer("b2", [8], seed=2)],
    )


MODELS: tuple[Model, ...] = (
    Model("matmul_prime_k", matmul_prime_k, 5, "matmul, K = 4099 (prime)"),
    Model("gemm_transposed_b", gemm_transposed_b, 7, "Gemm with transB, K = 6000"),
    Model("batched_matmul", batched_matmul, 4, "batched matmul, K = 3001 (prime)"),
    # 300 channels is under the default rule's 2048: only the factor splits it.
    Model("conv", conv, 7, "conv 3x3 over 300 channels", splits=("factor",)),
    Model("reduce_sum", reduce_sum, 6, "sum over 5003 (prime)"),
    Model("reduce_max", reduce_max, 6, "max over 5003 (prime)"),
    # IREE 3.13 imports ArgMax as iree_linalg_ext.arg_compare, not as a
    # linalg.generic arg-reduction, and split-k does not know it.
    Model("argmax", argmax, 6, "argmax over 5003 (prime)", splits=()),
    Model("softmax", softmax, 4, "max and sum over 4099 (prime)"),
    Model("attention", attention, 3, "P·V over 2053 keys (prime)"),
    Model("mlp", mlp, 3, "Gemm, K = 4096"),
)

PHASES = ("input", "global-optimization", "dispatch-creation", "flow")
"""The `iree-compile --compile-to=` phases users dump."""
