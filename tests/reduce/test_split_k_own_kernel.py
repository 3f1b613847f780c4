"""xsplit's own split-K GEMM kernel reached from the pipelines users run:
`split-k{target=GPU kernel=own|auto|iree}` and `auto{target=GPU ...}`.

An ONNX MatMul imported with iree-import-onnx goes through auto's passes
with the own kernel forced: the host (the imported `util.func`, its ABI ops
kept) runs right in the simulator against numpy, and auto's output (the
kernel exported as a custom dispatch) compiles for sm_80. Generated
programs as users write them (fills or arguments as C, unaligned M and N,
prime K, func or util) run right in every merge. On gfx942 and sm_80, in
f32 and f16, split-k{kernel=own} runs right in the simulator and compiles
with what it promises (MFMA, mma.sync, FMAs). The model's choice between
the own kernel and IREE's code is checked on gpu.md's shapes for what the
data explains, with each target's terms (own_kernel_terms.py)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

import numpy as np
import pytest
from onnx import TensorProto, helper
from xdsl.dialects.builtin import ModuleOp

from tests.helpers.cost_model import MEASURED, Measured, ids, matmul as problem
from tests.helpers.gemm_kernel import ORDERS
from tests.helpers.kept import parsed, rewrite_kept
from tests.onnx_import import imported_input
from xsplit.analysis.cost_model import choose_kernel, choose_split, own_kernel_estimate
from xsplit.api import parse_module, print_module, rewrite, rewrite_module, run_passes
from xsplit.diagnostics import collect_remarks
from xsplit.dialects import make_context
from xsplit.rewrites.pipelines.auto import auto_pipeline
from xsplit.simulator.program import host_function, simulate_program
from xsplit.targets.own_kernel_terms import BOUNDED, SCALED
from xsplit.targets.own_kernel_terms import MEASURED as FITTED
from xsplit.targets.table import TARGETS, Target

H200 = TARGETS["sm_90"]


def _signature(text: str | ModuleOp, name: str) -> str:
    """The type of function `name` in `text`, or in a module already parsed
    (a rewritten kernel is thousands of ops: parsing it again for this cost
    more than the rest of a test)."""
    module = text if isinstance(text, ModuleOp) else parse_module(text, "sig.mlir", make_context())
    (fn,) = [op for op in module.walk() if op.name in ("func.func", "util.func") and op.sym_name.data == name]  # type: ignore[attr-defined]
    return str(fn.properties["function_type"])


# -- ONNX ------------------------------------------------------------------


def _onnx_matmul(m: int, k: int, n: int):
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["Y"])],
        "mm",
        [
            helper.make_tensor_value_info("X", TensorProto.FLOAT, [m, k]),
            helper.make_tensor_value_info("W", TensorProto.FLOAT, [k, n]),
        ],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _onnx_gemm(m: int, k: int, n: int):
    """ONNX Gemm with a bias: IREE imports the matmul into a fill of an
    empty that the bias's generic shares."""
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["X", "W", "B"], ["Y"], alpha=0.5, beta=1.0)],
        "gemm",
        [
            helper.make_tensor_value_info("X", TensorProto.FLOAT, [m, k]),
            helper.make_tensor_value_info("W", TensorProto.FLOAT, [k, n]),
            helper.make_tensor_value_info("B", TensorProto.FLOAT, [n]),
        ],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _before_export(text: str, target: str, kernel: str) -> ModuleOp:
    """`text` after auto's passes up to its split-k: the host the simulator
    runs (materialize-late, which follows, puts the own kernel's host in its
    dispatch form, as auto's closing export-dispatch would). The module the
    passes left, as the simulator tests take it (tests/helpers/kept.py)."""
    names = [p.name for p in auto_pipeline(target, kernel).passes]
    assert names[-2:] == ["materialize-late", "export-dispatch"], names
    module = parse_module(text)
    run_passes(module, auto_pipeline(target, kernel).passes[:-2])
    return module


def test_onnx_matmul_with_the_own_kernel_runs_right_in_the_simulator(tmp_path) -> None:
    m, k, n = 19, 331, 70  # M, N not tile multiples; K prime
    text = imported_input(_onnx_matmul(m, k, n), tmp_path)
    with collect_remarks() as said:
        module = _before_export(text, "sm_80", "own")
    assert any("kernel=own: own kernel" in line for line in said), said
    assert _signature(module, "mm$async") == _signature(text, "mm$async")
    host = host_function(module, "mm$async")
    assert host is not None
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    w = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    want = (x.astype(np.float64) @ w).astype(np.float32)
    report = simulate_program(module, host, [x, w, None, None, want], [x, w, None, None], orders=["shuffled"])
    assert not report.races and not report.mismatches, report.mismatches[:3]


@pytest.mark.gpu_compile
@pytest.mark.parametrize("model", [_onnx_matmul, _onnx_gemm], ids=["MatMul", "Gemm"])
def test_onnx_through_auto_with_the_own_kernel_compiles_for_sm_80(model, tmp_path) -> None:
    from xsplit.iree.iree_compile import compile_mlir

    text = imported_input(model(19, 331, 70), tmp_path)
    # The signature is read off the module the passes left: parsing auto's
    # printed output back cost more than the rest of the test but the compile.
    module = rewrite_module(parse_module(text), "auto{target=sm_80 kernel=own}")
    out = print_module(module)
    assert "hal.executable.source" in out and "xsplit.host" not in out
    name = f"{model(1, 1, 1).graph.name}$async"
    assert _signature(module, name) == _signature(text, name)
    # The kernel takes A, B and C: not the empty the Gemm's bias shares.
    assert re.search(r"func\.call @\S+_gemm\(%\w+, %\w+, %\w+\) :", out), out[-3000:]
    assert compile_mlir(out, "sm_80")


# -- generated programs, every merge ----------------------------------------


@dataclass(frozen=True)
class Program:
    m: int
    n: int
    k: int
    chunks: int
    host: str
    init: str
    """`fill` (a fill of 0.25) or `arg` (C is an argument)."""
    then: bool
    """Whether the result is added to C's argument before it is returned."""

    @property
    def name(self) -> str:
        return f"{self.host}-{self.init}-{self.m}x{self.n}x{self.k}-f{self.chunks}{'-then' if self.then else ''}"

    def text(self) -> str:
        m, n, k = self.m, self.n, self.k
        a, b, c = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
        fn, ret = ("util.func public", "util.return") if self.host == "util" else ("func.func", "return")
        lines = [f"{fn} @prog(%a: {a}, %b: {b}, %d: {c}) -> {c} {{"]
        if self.init == "fill":
            lines += [
                "  %v = arith.constant 2.500000e-01 : f32",
                f"  %e = tensor.empty() : {c}",
                f"  %c = linalg.fill ins(%v : f32) outs(%e : {c}) -> {c}",
            ]
        init = "%c" if self.init == "fill" else "%d"
        lines.append(f"  %x = linalg.matmul ins(%a, %b : {a}, {b}) outs({init} : {c}) -> {c}")
        result = "%x"
        if self.then:
            lines.append(f"  %y = arith.addf %x, %d : {c}")
            result = "%y"
        lines += [f"  {ret} {result} : {c}", "}"]
        return "\n".join(lines) + "\n"

    def expected(self, a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
        c = np.full_like(d, 0.25) if self.init == "fill" else d
        x = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        return (x + d if self.then else x).astype(np.float32)


PRIMES = (97, 211, 331, 509)


def generated(count: int, seed: int) -> list[Program]:
    rng = random.Random(seed)
    return [
        Program(
            rng.randint(1, 90), rng.randint(1, 90), rng.choice(PRIMES), rng.randint(2, 7),
            rng.choice(["func", "util"]), rng.choice(["fill", "arg"]), rng.random() < 0.5,
        )
        for _ in range(count)
    ]


def test_the_generated_programs_cover_the_forms() -> None:
    programs = generated(4, seed=32)
    assert {p.host for p in programs} == {"func", "util"}
    assert {p.init for p in programs} == {"fill", "arg"}
    assert any(p.m % 64 and p.n % 64 for p in programs)


@pytest.mark.parametrize("merge", ["atomic", "deterministic"])
@pytest.mark.parametrize("program", generated(4, seed=32), ids=lambda p: p.name)
def test_generated_programs_run_right_in_every_merge(program: Program, merge: str) -> None:
    source = program.text()
    # The module the passes left, unprinted (a skinny M's kernel is some
    # 30,000 ops): test_kernel_round_trip.py prints and reads back each form.
    with collect_remarks():
        module = rewrite_module(
            parse_module(source),
            f"split-k{{target=sm_80 kernel=own factor={program.chunks} merge={merge}}}",
        )
    names = {op.name for op in module.walk()}
    assert "linalg.matmul" not in names and not any(n.startswith("xsplit_gemm.") for n in names)
    assert _signature(module, "prog") == _signature(source, "prog")
    host = host_function(module, "prog")
    assert host is not None
    rng = np.random.default_rng(program.k)
    a = rng.uniform(-1, 1, (program.m, program.k)).astype(np.float32)
    b = rng.uniform(-1, 1, (program.k, program.n)).astype(np.float32)
    d = rng.uniform(-1, 1, (program.m, program.n)).astype(np.float32)
    want = [a, b, d, program.expected(a, b, d)]
    # Without atomics the merge must not depend on the thread order: two
    # orders, compared bit for bit by simulate_program.
    orders = ["shuffled"] if merge == "atomic" else ["forward", "shuffled"]
    report = simulate_program(module, host, want, [a, b, d], orders=orders)
    assert not report.races and not report.mismatches, report.mismatches[:3]


# -- the model's choice ------------------------------------------------------


def _choice(m: Measured, kernel: str = "auto"):
    p = problem(*m.shape, element=m.element)
    return choose_kernel(p, H200, choose_split(p, H200), kernel)


def test_the_own_kernel_term_reproduces_its_anchor() -> None:
    """The fused text kernel, whose 64x64x16 tiles are gemm-kernel's small
    entry, ran the GEMM of 4096x4096x1024 + a row sum in 2.32-2.44 ms on an
    H200 (gpu.md); the f32 term in one chunk on those tiles prices that
    GEMM within that."""
    e = own_kernel_estimate(problem(4096, 4096, 1024), H200, 1, tile=(64, 64, 16))
    assert e.factor == 1 and 2.2e-3 <= e.main <= 2.5e-3, e.main


def test_the_f16_term_is_bounded_by_iree_s_tensor_core_code() -> None:
    """Until timed, the f16 kernel (tensor cores) is credited with what
    IREE's tensor-core code measured on an H200: 2048^3 in 0.277 ms (gpu.md),
    on the 128x128 tiles gemm-kernel takes there; no more."""
    term = H200.own_kernel.term("f16")  # type: ignore[union-attr]
    assert term.basis == BOUNDED
    e = own_kernel_estimate(problem(2048, 2048, 2048, element="f16"), H200, 1)
    assert abs(e.seconds - 0.277e-3) <= 0.003e-3, e.seconds
    assert term.rate <= H200.gpu_fit.chunk_rate["f16"] * 1.01  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["sm_80", "sm_90", "gfx942"])
def test_every_term_says_where_it_comes_from(name: str) -> None:
    """CUDA targets take the H200's terms per SM (as the split model does);
    gfx942's are the H200's share of its per-SM peak, applied to the
    MI300X's per-CU peak, and marked SCALED."""
    tgt = TARGETS[name]
    assert tgt.own_kernel is not None
    for cls in ("f32", "f16"):
        term, ref = tgt.own_kernel.term(cls), H200.own_kernel.term(cls)  # type: ignore[union-attr]
        assert term.source
        if tgt.backend == "cuda":
            assert term.rate == ref.rate and term.basis == ref.basis
        else:
            assert term.basis == SCALED and "nothing of the kernel ran" in term.source
            share = term.rate / tgt.processor_flops(cls)
            assert share == pytest.approx(ref.rate / H200.processor_flops(cls))


@pytest.mark.parametrize("m", MEASURED, ids=ids)
def test_the_choice_on_gpu_md_s_shapes_follows_from_the_data(m: Measured) -> None:
    choice = _choice(m)
    fit, own = H200.gpu_fit, H200.own_kernel
    assert fit is not None and own is not None
    term = own.term(m.element)
    # On aligned tiles the own kernel's rate is no better than IREE's
    # staged chunks': f32 anchored at 144 against 163, f16 bounded by IREE's
    # own tensor-core code (530 against 529).
    assert term.rate <= fit.chunk_rate[m.element] * 1.01
    if m.shape[0] == 1:
        assert choice.kernel == "iree" and "decode" in choice.reason  # IREE's own split: 0.106 ms
    elif term.basis != FITTED:
        # Nothing unmeasured outranks a measured path.
        assert choice.kernel == "iree", choice.reason
        if choice.own is not None:
            assert choice.reason.startswith("own kernel not measured on sm_90"), choice.reason
    if choice.kernel == "own":
        assert choice.own is not None
        assert choice.own.seconds <= choice.iree.chosen.seconds * (1 - own.min_gain)
        # So it wins only where IREE's chunks are ragged: N a multiple of no
        # tile from 64 down to 16 (split-k pads M), which the seed measured
        # 4x slower a step; the own kernel masks. Elsewhere its atomics cost
        # more than the partials' traffic.
        n = m.shape[1]
        assert n > fit.chunk_tile[1] and n % 16, m.shape
        assert "never timed" in choice.reason
    # The remark gives both modeled times.
    if choice.own is not None:
        both = r"own kernel .* [0-9.]+ (us|ms) .*; IREE's .* [0-9.]+ (us|ms)"
        assert re.search(both, choice.reason), choice.reason


@pytest.mark.parametrize("m", MEASURED, ids=ids)
def test_auto_does_not_act_on_gfx942_s_scaled_terms(m: Measured) -> None:
    """gfx942's terms are scaled from the H200's by the datasheets: auto
    keeps IREE's code there, saying both modeled times; kernel=own takes them."""
    gfx942 = TARGETS["gfx942"]
    p = problem(*m.shape, element=m.element)
    choice = choose_kernel(p, gfx942, choose_split(p, gfx942))
    assert choice.kernel == "iree"
    if choice.own is not None:
        assert "own kernel not measured on gfx942" in choice.reason, choice.reason
        assert "scaled" in choice.reason, choice.reason
        assert re.search(r"[0-9.]+ (us|ms) \(merge", choice.reason), choice.reason
    forced = choose_kernel(p, gfx942, choose_split(p, gfx942), "own")
    assert forced.kernel == "own" and "scaled" in forced.reason


def _measured(target: Target) -> Target:
    """`target` with its own-kernel terms as if a device run had fitted them."""
    own = target.own_kernel
    assert own is not None
    terms = {cls: replace(t, basis=FITTED) for cls, t in own.terms.items()}
    return replace(target, own_kernel=replace(own, terms=terms))


@pytest.mark.parametrize("name", ["sm_80", "sm_90", "gfx942"])
def test_the_seeds_go_to_the_own_kernel_only_once_it_is_measured(name: str) -> None:
    """123x456x51234: IREE's 128 static chunks measured 2.27 ms in f32 (1.14
    with split-k's tiles) and 0.200 in f16; the own kernel, masking M and N
    at the same rate, is modeled faster in both. auto keeps IREE's chunks
    while the own kernel's terms are unmeasured, saying so, and takes the
    own kernel once they are fitted to a device run."""
    tgt = TARGETS[name]
    for element in ("f32", "f16"):
        seed = next(m for m in MEASURED if m.shape == (123, 456, 51234) and m.element == element)
        p = problem(*seed.shape, element=element)
        choice = choose_kernel(p, tgt, choose_split(p, tgt))
        assert choice.kernel == "iree" and choice.iree.factor > 1, choice.reason
        assert choice.reason.startswith(f"own kernel not measured on {name}: its {element} rate"), (
            choice.reason
        )
        assert "bench/fit_own_kernel.py" in choice.reason
        assert choice.own is not None and choice.own.seconds < choice.iree.chosen.seconds
        measured = _measured(tgt)
        choice = choose_kernel(p, measured, choose_split(p, measured))
        assert choice.kernel == "own" and choice.merge == "atomic", choice.reason
        assert "its rate fitted on a device run" in choice.reason, choice.reason
        assert "KiB in flight" in choice.reason, choice.reason
        if name == "sm_90":
            assert choice.own is not None and choice.own.seconds < seed.best_static * 1e-3


def test_a_measured_own_kernel_not_modeled_faster_keeps_iree_s_code() -> None:
    """An aligned f32 shape: IREE's staged chunks (163 GFLOP/s an SM) beat the
    own kernel's rate (144) and its atomics even with that rate measured."""
    measured = _measured(H200)
    p = problem(256, 256, 65536)
    choice = choose_kernel(p, measured, choose_split(p, measured))
    assert choice.kernel == "iree", choice.reason
    assert "the own kernel, its rate measured, is not modeled 5% faster" in choice.reason


@pytest.mark.parametrize("m", MEASURED, ids=ids)
def test_kernel_iree_forbids_and_kernel_own_forces(m: Measured) -> None:
    assert _choice(m, "iree").kernel == "iree"
    forced = _choice(m, "own")
    assert forced.kernel == "own" and forced.own is not None and "kernel=own" in forced.reason


def test_check_on_the_cpu_refuses_the_own_kernel_in_one_line() -> None:
    from xsplit.diagnostics import XsplitError
    from xsplit.interop.check import check_rewrite

    source = Program(20, 24, 97, 2, "func", "arg", False).text()
    with collect_remarks(), pytest.raises(XsplitError) as refused:
        check_rewrite(source, "auto{target=sm_80 kernel=own}", name="own.mlir")
    message = refused.value.message
    assert "\n" not in message and "which the CPU cannot run" in message and "kernel=iree" in message
    with collect_remarks():
        _, checks = check_rewrite(source, "auto{target=sm_80 kernel=iree}", name="own.mlir")
    assert checks


def test_f16_operands_accumulate_in_f32_in_the_simulator() -> None:
    m, n, k = 21, 40, 211
    a_t, b_t, c_t = f"tensor<{m}x{k}xf16>", f"tensor<{k}x{n}xf16>", f"tensor<{m}x{n}xf32>"
    source = f"""func.func @half(%a: {a_t}, %b: {b_t}) -> {c_t} {{
  %z = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : {c_t}
  %c = linalg.fill ins(%z : f32) outs(%e : {c_t}) -> {c_t}
  %x = linalg.matmul ins(%a, %b : {a_t}, {b_t}) outs(%c : {c_t}) -> {c_t}
  return %x : {c_t}
}}
"""
    with collect_remarks():
        out = rewrite_kept(source, "split-k{target=sm_80 kernel=own factor=3}")
    module = parsed(out, "half.mlir")
    host = host_function(module, "half")
    assert host is not None
    rng = np.random.default_rng(16)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    report = simulate_program(module, host, [a, b, want], [a, b], orders=["shuffled"])
    assert not report.races and not report.mismatches, report.mismatches[:3]


def test_xsplit_simulate_runs_split_k_s_output_against_the_original(tmp_path) -> None:
    from xsplit.tools.simulate import main as simulate

    program = Program(33, 70, 97, 3, "func", "fill", True)
    original = tmp_path / "original.mlir"
    original.write_text(program.text())
    out = tmp_path / "out.mlir"
    with collect_remarks():
        out.write_text(rewrite(program.text(), "split-k{target=sm_80 kernel=own factor=3}"))
    one = [f"--schedule={order}" for order in ORDERS]  # see tests/helpers/gemm_kernel.py
    assert simulate([str(out), "--reference", str(original), *one]) == 0
    # A host that fills C with another value is caught.
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(out.read_text().replace("2.500000e-01", "5.000000e-01"))
    assert wrong.read_text() != out.read_text()
    assert simulate([str(wrong), "--reference", str(original), *one]) != 0


# -- every target and element type, end to end -------------------------------


def _typed(program: Program, element: str) -> str:
    """`program` with A and B of `element` (C stays f32)."""
    m, n, k = program.m, program.n, program.k
    text = program.text()
    for shape in (f"{m}x{k}", f"{k}x{n}"):
        text = text.replace(f"tensor<{shape}xf32>", f"tensor<{shape}x{element}>")
    return text


@pytest.mark.parametrize("element", ["f32", "f16"])
@pytest.mark.parametrize("target", ["gfx942", "sm_80"])
def test_split_k_kernel_own_runs_right_on_every_target(target: str, element: str) -> None:
    """split-k{target=... kernel=own} on an unaligned M and N and a prime K,
    with the kernel's form for that target and element type (f16: MFMA on
    gfx942, mma.sync on sm_80), against numpy in the simulator."""
    program = Program(37, 45, 211, 3, "func", "fill", True)
    source = _typed(program, element)
    with collect_remarks() as said:
        out = rewrite_kept(source, f"split-k{{target={target} kernel=own factor=3}}")
    assert any(f"gemm-kernel: on {target}" in line for line in said), said
    tensor_cores = element == "f16"
    assert any("tensor cores" in line for line in said) == tensor_cores, said
    intrinsic = "amdgpu.mfma" if target == "gfx942" else "nvgpu.mma.sync"
    assert (intrinsic in out) == tensor_cores
    module = parsed(out, "prog.mlir")
    host = host_function(module, "prog")
    assert host is not None
    rng = np.random.default_rng(7)
    dtype = np.float16 if element == "f16" else np.float32
    a = rng.uniform(-1, 1, (program.m, program.k)).astype(dtype)
    b = rng.uniform(-1, 1, (program.k, program.n)).astype(dtype)
    d = rng.uniform(-1, 1, (program.m, program.n)).astype(np.float32)
    want = program.expected(a.astype(np.float32), b.astype(np.float32), d)
    report = simulate_program(module, host, [a, b, d, want], [a, b, d], orders=["shuffled"])
    assert not report.races and not report.mismatches, report.mismatches[:3]


@pytest.mark.gpu_compile
@pytest.mark.parametrize(
    ("target", "element", "promise"),
    [("gfx942", "f32", r"\bv_(pk_)?fma_f32\b"), ("gfx942", "f16", r"\bv_mfma_f32_16x16x16"),
     ("sm_80", "f16", r"\bmma\.sync\.aligned\.m16n8k16\b")],
)  # fmt: skip
def test_split_k_kernel_own_compiles_with_what_it_promises(
    target: str, element: str, promise: str, tmp_path
) -> None:
    """auto{target=... kernel=own} compiles with iree-compile for the
    target, and its assembly shows the kernel's arithmetic: FMAs for f32 on
    gfx942 (`v_fma_f32`, or `v_pk_fma_f32` where a thread's columns run in
    fours), MFMA and mma.sync tensor cores for f16."""
    from tests.gpu_assembly import dumped_assembly

    source = _typed(Program(37, 45, 211, 3, "func", "fill", False), element)
    with collect_remarks():
        out = rewrite(source, f"auto{{target={target} kernel=own}}")
    assert "hal.executable.source" in out and "xsplit.host" not in out
    assembly = "\n".join(dumped_assembly(out, target, tmp_path))
    assert re.search(promise, assembly), assembly[-2000:]
    if target == "gfx942":
        # export-dispatch makes the merge's f32 add a relaxed agent-scope
        # llvm.atomicrmw: a native add, not IREE's compare-and-swap loop.
        assert "global_atomic_add_f32" in assembly
        assert "global_atomic_cmpswap" not in assembly
