"""fuse-reduction + lower-reduce on programs as users write them (inits from
fills, results flowing on, generic keepdims reductions, util.func), and on
an ONNX MatMul -> ReduceSum / ReduceMax model imported with iree-import-onnx:
the output compiles with iree-compile, and the workgroup-level stages run on
llvm-cpu and match numpy (or onnx's reference evaluator)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tests.helpers.gemm_kernel import ORDERS
from tests.onnx_import import imported_input
from tests.reduce.ordinary import UserProgram, generated
from xsplit.api import rewrite
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir

CPU_STAGES = ["lower-reduce{stage=atomic target=cpu}", "lower-reduce{stage=atomic target=cpu deterministic=true}"]


def _check_on_cpu(program: UserProgram, lowering: str, seed: int) -> None:
    out = rewrite(program.program(), f"fuse-reduction,{lowering},export-dispatch{{target=cpu}}")
    assert "flow.dispatch" in out, "nothing was lowered"
    inputs = program.inputs(seed)
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), program.name, inputs)
    want = program.expected(inputs)
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-3, atol=2e-3 * max(1.0, float(np.abs(want).max())))


@pytest.mark.parametrize("lowering", CPU_STAGES, ids=["atomic", "deterministic"])
@pytest.mark.parametrize("program", generated(6, seed=2026), ids=lambda p: p.name)
def test_generated_user_programs_run_right(program: UserProgram, lowering: str) -> None:
    _check_on_cpu(program, lowering, seed=hash(program.name) % 1000)


@pytest.mark.parametrize("lowering", CPU_STAGES, ids=["atomic", "deterministic"])
@pytest.mark.parametrize("program", generated(2, seed=7, element="f16"), ids=lambda p: p.name)
def test_f16_operands_accumulate_in_f32(program: UserProgram, lowering: str) -> None:
    _check_on_cpu(program, lowering, seed=5)


def test_the_generated_programs_cover_the_forms() -> None:
    programs = generated(6, seed=2026)
    # Without this the generator could drift to one corner of the space.
    assert {p.method for p in programs} == {"sum", "max"}
    assert {p.axis for p in programs} == {0, 1}
    assert len({p.form for p in programs}) >= 2 and len({p.init for p in programs}) >= 2


def test_the_host_keeps_the_signature_and_fills_before_the_kernel() -> None:
    program = UserProgram("rows", "max", 1, 33, 45, 61, init="value", then=True)
    lowered = rewrite(program.program(), "fuse-reduction,lower-reduce{stage=atomic target=sm_80}")
    host = lowered[lowered.index("func.func @rows(") :]
    assert host.startswith(f"func.func @rows(%a: {_t(33, 45)}, %b: {_t(45, 61)}) -> tensor<33xf32>")
    fill, call = host.index("linalg.fill"), host.index("func.call @rows_fused")
    assert fill < call < host.index("bufferization.to_tensor") < host.index("arith.addf")


def _t(*shape: int) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


def test_a_gemm_read_after_the_reduction_is_written_by_the_kernel() -> None:
    text = UserProgram("both", "sum", 1, 9, 20, 13).program().replace(
        "return %r : tensor<9xf32>",
        "%back = linalg.reduce ins(%mm : tensor<9x13xf32>) outs(%rf : tensor<9xf32>) dimensions = [1]\n"
        "    (%p2: f32, %q2: f32) {\n      %s2 = arith.maximumf %p2, %q2 : f32\n      linalg.yield %s2 : f32\n    }\n"
        "  return %r : tensor<9xf32>",
    )
    out = rewrite(text, "fuse-reduction")
    # The GEMM has a second reader: not fused, and the remark is the reason.
    assert "xsplit.fused_producer" not in out


# -- ONNX ------------------------------------------------------------------


def _onnx_model(reduce: str, m: int, k: int, n: int, seed: int) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    weight = numpy_helper.from_array(rng.uniform(-1, 1, (k, n)).astype(np.float32), "W")
    axes = numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")
    nodes = [
        helper.make_node("MatMul", ["X", "W"], ["Y"]),
        helper.make_node(reduce, ["Y", "axes"], ["Z"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "matmul_reduce",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("Z", TensorProto.FLOAT, [m, 1])],
        initializer=[weight, axes],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("reduce", ["ReduceSum", "ReduceMax"])
def test_onnx_matmul_reduce_fuses_and_runs(reduce: str, tmp_path) -> None:
    model = _onnx_model(reduce, 8, 64, 48, seed=3)
    text = imported_input(model, tmp_path)
    fused = rewrite(text, "fuse-reduction")
    assert "xsplit.fused_producer" in fused
    x = np.random.default_rng(11).standard_normal((8, 64)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"X": x})[0]
    for lowering in CPU_STAGES:
        out = rewrite(text, f"fuse-reduction,{lowering},export-dispatch{{target=cpu}}")
        assert "linalg.matmul" not in out  # the GEMM went into the kernel
        (got,) = run_on_cpu(compile_mlir(out, "cpu"), "matmul_reduce", [x])
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


@pytest.mark.gpu_compile
@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_onnx_matmul_reduce_compiles_for_gpus(target: str, tmp_path) -> None:
    text = imported_input(_onnx_model("ReduceSum", 8, 64, 48, seed=3), tmp_path)
    for stage in ("atomic", "lds", "subgroup"):
        out = rewrite(text, f"fuse-reduction,lower-reduce{{stage={stage} target={target}}},export-dispatch{{target={target}}}")
        compile_mlir(out, target)


@pytest.mark.gpu_compile
@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_user_programs_compile_for_gpus(target: str) -> None:
    program = UserProgram("cols", "sum", 0, 37, 50, 29, form="keepdims", host="util", init="value", then=True)
    for stage in ("atomic", "lds", "subgroup", "atomic deterministic=true"):
        lowering = f"lower-reduce{{stage={stage} target={target}}}"
        out = rewrite(program.program(), f"fuse-reduction,{lowering},export-dispatch{{target={target}}}")
        compile_mlir(out, target)


# -- the simulator runs the program as it is --------------------------------


@pytest.mark.parametrize("axis", [0, 1], ids=["columns", "rows"])
@pytest.mark.parametrize("method", ["sum", "max"])
@pytest.mark.parametrize(
    ("stage", "target"),
    [("atomic", "sm_80"), ("lds", "gfx942"), ("subgroup", "sm_80"), ("subgroup", "gfx942"),
     ("atomic deterministic=true", "gfx942")],
)
def test_simulate_takes_the_output_as_it_is(stage, target, method, axis, tmp_path) -> None:
    from xsplit.tools.simulate import main as simulate

    program = UserProgram("prog", method, axis, 70, 45, 61, init="value", then=True)
    original = tmp_path / "original.mlir"
    original.write_text(program.program())
    out = tmp_path / "out.mlir"
    out.write_text(rewrite(program.program(), f"fuse-reduction,lower-reduce{{stage={stage} target={target}}}"))
    one = [f"--schedule={order}" for order in ORDERS]  # see tests/helpers/gemm_kernel.py
    assert simulate([str(out), "--reference", str(original), *one]) == 0


def test_simulate_catches_a_wrong_host(tmp_path) -> None:
    from xsplit.tools.simulate import main as simulate

    program = UserProgram("prog", "sum", 1, 20, 30, 10, init="value")
    original = tmp_path / "original.mlir"
    original.write_text(program.program())
    lowered = rewrite(program.program(), "fuse-reduction,lower-reduce{stage=lds target=sm_80}")
    wrong = tmp_path / "wrong.mlir"
    # The host fills the output with the identity rather than the program's 0.5.
    wrong.write_text(lowered.replace("%iv = arith.constant 5.000000e-01", "%iv = arith.constant 0.000000e+00"))
    assert wrong.read_text() != lowered
    one = [f"--schedule={order}" for order in ORDERS]  # see tests/helpers/gemm_kernel.py
    assert simulate([str(wrong), "--reference", str(original), *one]) != 0
