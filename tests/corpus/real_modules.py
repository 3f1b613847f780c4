"""More real modules for the whole-pipeline tests (test_real_modules.py):
ONNX models of ops that are not reductions xsplit splits but that its passes
meet in users' modules, and models of random shapes, generated from a seed.

- Ops with regions that read values from outside: a `Pad` whose value is a
  model input (a `tensor.pad` yielding a function argument), and the ops IREE
  imports as LinalgExt ops with regions (`ScatterElements` as
  `iree_linalg_ext.scatter`, `TopK` as `topk`, `CumSum` as `scan`).
- Dynamic sizes (a symbolic batch): IREE's dumps then carry `{%d}` sizes, and a
  dispatch that writes in place ties its result to an operand
  (`-> %arg{%d}`).
- Generated: matmuls, Gemms, reductions and pads before matmuls of random
  sizes, some with a symbolic batch, next to ops with regions.

The phases taken are `input` (graph level), `dispatch-creation` (every
dispatch a `flow.dispatch.workgroups`) and `regions`: the
`global-optimization` dump with IREE's own `flow.dispatch.region`s formed by
iree-opt, the form a module has when it reaches xsplit with dispatches
started but not isolated.
"""

from __future__ import annotations

import numpy as np
from onnx import ModelProto, TensorProto, helper

from tests.corpus.models import Model, _graph, _node

F, I64 = TensorProto.FLOAT, TensorProto.INT64

REAL_PHASES = ("input", "dispatch-creation", "regions")
"""`regions` is not an iree-compile phase: see the module's docstring."""

REGIONS_PIPELINE = "builtin.module(util.func(iree-dispatch-creation-form-dispatch-regions))"
"""The iree-opt pipeline that forms IREE's dispatch regions on a
`global-optimization` dump."""


def _ints(name: str, values: list[int]) -> TensorProto:
    return helper.make_tensor(name, I64, [len(values)], values)


def pad_value_matmul(rows: int | str = 8, k: int = 1000, n: int = 16) -> ModelProto:
    """A Pad whose value is an input (the tensor.pad's body yields it), then
    a MatMul over the padded K."""
    return _graph(
        [
            _node("Pad", ["a", "pads", "value"], ["padded"], mode="constant"),
            _node("MatMul", ["padded", "b"], ["c"]),
        ],
        "pad_value_matmul",
        [("a", F, [rows, k]), ("b", F, [k + 2, n]), ("value", F, [])],
        [("c", F, [rows, n])],
        [_ints("pads", [0, 1, 0, 1])],
    )


def scatter_add(rows: int | str = 8) -> ModelProto:
    """ScatterElements with add: `iree_linalg_ext.scatter`, whose region adds;
    with a symbolic `rows`, IREE's dispatch writes in place (a tied result)."""
    return _graph(
        [_node("ScatterElements", ["data", "index", "update"], ["y"], axis=0, reduction="add")],
        "scatter_add",
        [("data", F, [rows, 4]), ("index", I64, [3, 4]), ("update", F, [3, 4])],
        [("y", F, [rows, 4])],
    )


def top_k(columns: int = 300) -> ModelProto:
    """TopK: `iree_linalg_ext.topk`, whose region compares."""
    return _graph(
        [_node("TopK", ["x", "k"], ["values", "indices"], axis=1)],
        "top_k",
        [("x", F, [4, columns])],
        [("values", F, [4, 5]), ("indices", I64, [4, 5])],
        [_ints("k", [5])],
    )


def cumulative_sum(columns: int = 100) -> ModelProto:
    """CumSum: `iree_linalg_ext.scan`, whose region adds."""
    return _graph(
        [_node("CumSum", ["x", "axis"], ["y"])],
        "cumulative_sum",
        [("x", F, [4, columns])],
        [("y", F, [4, columns])],
        [helper.make_tensor("axis", I64, [], [1])],
    )


def matmul_relu(rows: int | str, k: int, n: int) -> ModelProto:
    return _graph(
        [_node("MatMul", ["a", "b"], ["c"]), _node("Relu", ["c"], ["y"])],
        "matmul_relu",
        [("a", F, [rows, k]), ("b", F, [k, n])],
        [("y", F, [rows, n])],
    )


def gemm_transposed(rows: int | str, k: int, n: int) -> ModelProto:
    return _graph(
        [_node("Gemm", ["a", "b", "c"], ["y"], transB=1)],
        "gemm_transposed",
        [("a", F, [rows, k]), ("b", F, [n, k]), ("c", F, [n])],
        [("y", F, [rows, n])],
    )


def row_reduction(op: str, rows: int | str, k: int) -> ModelProto:
    return _graph(
        [_node(op, ["x", "axes"], ["y"], keepdims=0)],
        f"row_{op.lower()}",
        [("x", F, [rows, k])],
        [("y", F, [rows])],
        [_ints("axes", [1])],
    )


def _generated(seed: int) -> Model:
    """A model of random kind and sizes: K from 200 to 4000, M and N small,
    M symbolic one time in three."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(200, 4000))
    n = int(rng.integers(2, 40))
    rows: int | str = "batch" if rng.integers(3) == 0 else int(rng.integers(1, 24))
    kind = ["matmul", "gemm", "sum", "max", "pad"][int(rng.integers(5))]
    build = {
        "matmul": lambda: matmul_relu(rows, k, n),
        "gemm": lambda: gemm_transposed(rows, k, n),
        "sum": lambda: row_reduction("ReduceSum", rows, k),
        "max": lambda: row_reduction("ReduceMax", rows, k),
        "pad": lambda: pad_value_matmul(rows, k, n),
    }[kind]
    name, what = f"generated_{seed}_{kind}", f"{kind}, {rows}x{k}x{n}"
    return Model(name, build, 7, what, splits=("factor",))


GENERATED_SEEDS = tuple(range(6))

REAL_MODELS: tuple[Model, ...] = (
    Model(
        "pad_value_matmul",
        pad_value_matmul,
        7,
        "pad with an input value, then matmul",
        splits=("factor",),
    ),
    Model("scatter_add", scatter_add, 7, "scatter-add", splits=()),
    Model("scatter_add_dynamic", lambda: scatter_add("rows"), 7, "scatter-add, N rows", splits=()),
    Model("top_k", top_k, 7, "top-5 of 300", splits=()),
    Model("cumulative_sum", cumulative_sum, 7, "prefix sums of 100", splits=()),
    *(_generated(seed) for seed in GENERATED_SEEDS),
)
"""`Model.splits` names `factor` for those whose `input` dump
`split-k{factor=7}` must split."""
