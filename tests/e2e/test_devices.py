"""Programs on several devices (issue 19): each device gets its own layout
from xsplit, iree-compile 3.13 takes the output, and the llvm-cpu + VMVX one
runs right on two local-task devices, where IREE's own late data tiling
gives a wrong answer."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.targets.cpu_info import read_flags

HERE = Path(__file__).resolve().parents[1]
DEVICES_MLIR = HERE / "filecheck/rewrites/materialize-late/devices.mlir"

pytestmark = pytest.mark.skipif(
    shutil.which("iree-compile") is None or shutil.which("iree-run-module") is None,
    reason="needs iree-compile and iree-run-module",
)


def _host_features() -> str:
    """The widest x86 SIMD this machine runs, as a cpu_features string: the
    llvm-cpu device must run here."""
    flags = read_flags()[1]
    if "avx512f" in flags:
        return "+avx,+avx2,+fma,+avx512f"
    if "avx2" in flags:
        return "+avx,+avx2,+fma"
    return "+sse4.2"


def _llvm_cpu(features: str) -> str:
    return (
        '#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", '
        f'cpu_features = "{features}", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-'
        'i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = '
        "#iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, "
        'native_vector_size = 32 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>'
    )


VMVX = (
    '#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = '
    '#iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>'
)


def two_device_module(a: str, b: str, m: int = 64, k: int = 4001, n: int = 32) -> str:
    """One matmul on each device, both added on the first: the issue's module."""
    lhs, rhs, out = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    return f"""
module attributes {{stream.affinity.default = #hal.device.affinity<@dev_a>}} {{
  util.global private @dev_a = {a} : !hal.device
  util.global private @dev_b = {b} : !hal.device
  func.func @two(%a: {lhs}, %b: {rhs}) -> {out} {{
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : {out}
    %f0 = linalg.fill ins(%zero : f32) outs(%e0 : {out}) -> {out}
    %on_a = linalg.matmul ins(%a, %b : {lhs}, {rhs}) outs(%f0 : {out}) -> {out}
    %ta = flow.tensor.transfer %a : {lhs} to #hal.device.affinity<@dev_b>
    %tb = flow.tensor.transfer %b : {rhs} to #hal.device.affinity<@dev_b>
    %e1 = tensor.empty() : {out}
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : {out}) -> {out}
    %on_b = linalg.matmul ins(%ta, %tb : {lhs}, {rhs}) outs(%f1 : {out}) -> {out}
    %back = flow.tensor.transfer %on_b : {out} to #hal.device.affinity<@dev_a>
    %sum = arith.addf %on_a, %back : {out}
    return %sum : {out}
  }}
}}
"""


def _device(target: str) -> str:
    return f'#hal.device.target<"local", [{target}]>'


def _xsplit(source: str, pipeline: str) -> str:
    module = parse_module(source)
    run_passes(module, build_pipeline(pipeline))
    return print_module(module)


def _compile(source: str, tmp: Path, *flags: str) -> Path:
    src, out = tmp / "in.mlir", tmp / "out.vmfb"
    src.write_text(source)
    done = subprocess.run(
        ["iree-compile", str(src), "-o", str(out), *flags], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _run_two_local(vmfb: Path, tmp: Path, *inputs: np.ndarray) -> subprocess.CompletedProcess:
    args = ["iree-run-module", f"--module={vmfb}", "--device=local-task", "--device=local-task",
            "--function=two", f"--output=@{tmp / 'out.npy'}"]
    for i, x in enumerate(inputs):
        np.save(tmp / f"in{i}.npy", x)
        args.append(f"--input=@{tmp / f'in{i}.npy'}")
    return subprocess.run(args, capture_output=True, text=True)


def _result(done: subprocess.CompletedProcess, tmp: Path) -> np.ndarray:
    assert done.returncode == 0, done.stderr[-3000:]
    return np.load(tmp / "out.npy")


CPU_VMVX = two_device_module(_device(_llvm_cpu(_host_features())), _device(VMVX))


@pytest.mark.parametrize("pipeline", ["set-encoding,materialize-late", "auto"])
def test_cpu_and_vmvx_match_numpy(pipeline: str, tmp_path: Path) -> None:
    out = _xsplit(CPU_VMVX, pipeline)
    if pipeline.startswith("set-encoding"):
        # Each device its own layout: VMVX's 8x4 LHS tiles beside the CPU's.
        assert "static_inner_tiles = array<i64: 8, 4>" in out
        lanes = {"+sse4.2": "4, 1"}.get(_host_features(), "16, 1" if "512" in _host_features() else "8, 1")
        assert f"static_inner_tiles = array<i64: {lanes}>" in out
    vmfb = _compile(out, tmp_path)
    rng = np.random.default_rng(19)
    a = rng.standard_normal((64, 4001), dtype=np.float32)
    b = rng.standard_normal((4001, 32), dtype=np.float32)
    got = _result(_run_two_local(vmfb, tmp_path, a, b), tmp_path)
    want = 2 * (a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-2)


def test_iree_late_data_tiling_is_wrong_on_two_devices(tmp_path: Path) -> None:
    """Records an upstream bug: IREE 3.13's own late data tiling gives
    8000 / 7998 where 8002 is right on all-ones 64x4001 and 4001x32 inputs
    (the same module without data tiling, and xsplit's, are right)."""
    vmfb = _compile(CPU_VMVX, tmp_path, "--iree-dispatch-creation-data-tiling")
    ones_a, ones_b = np.ones((64, 4001), np.float32), np.ones((4001, 32), np.float32)
    got = _result(_run_two_local(vmfb, tmp_path, ones_a, ones_b), tmp_path)
    assert not np.all(got == 8002), (
        "IREE's --iree-dispatch-creation-data-tiling is now right on two devices: "
        "the upstream bug is fixed; update this test, the README and docs/encodings.md"
    )
    fixed = _compile(_xsplit(CPU_VMVX, "set-encoding,materialize-late"), tmp_path)
    assert np.all(_result(_run_two_local(fixed, tmp_path, ones_a, ones_b), tmp_path) == 8002)


def test_two_llvm_cpu_variants_compile_but_do_not_run(tmp_path: Path) -> None:
    """Two llvm-cpu devices with different features get their own layouts
    and compile; IREE 3.13's runtime cannot run two llvm-cpu variants of one
    format on two local devices ("export ... not found in library")."""
    source = two_device_module(
        _device(_llvm_cpu("+sse4.2")), _device(_llvm_cpu(_host_features())), 16, 300, 16
    )
    out = _xsplit(source, "set-encoding,materialize-late")
    assert "static_inner_tiles = array<i64: 4, 1>" in out  # SSE: 4x8x1
    vmfb = _compile(out, tmp_path)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 300), dtype=np.float32)
    b = rng.standard_normal((300, 16), dtype=np.float32)
    done = _run_two_local(vmfb, tmp_path, a, b)
    if done.returncode == 0:
        pytest.fail("IREE now runs two llvm-cpu variants of one format: update the README")
    assert "not found in library" in done.stderr


GPUS = {
    "sm_80": '#hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", '
    '{iree_codegen.target_info = #iree_gpu.target<arch = "sm_80", features = "+ptx76", wgp = '
    "<compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = "
    "shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, "
    "<NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_WMMA_F32_16x16x16_F16>, "
    "<NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = "
    "[1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = "
    "166912, max_workgroup_counts = [2147483647, 65535, 65535]>>}>]>",
}


@pytest.mark.gpu_compile
@pytest.mark.parametrize("gpu", ["--iree-cuda-target=sm_80", "--iree-rocm-target=gfx942"])
def test_cpu_and_gpu_compile(gpu: str, tmp_path: Path) -> None:
    """The GPU device's global is printed by iree-compile itself (its
    target attribute is long), then the module goes through xsplit."""
    device = "cuda" if "cuda" in gpu else "hip"
    probe = subprocess.run(
        ["iree-compile", "-", "--compile-to=flow", f"--iree-hal-target-device={device}", gpu],
        input="func.func @f() { return }", capture_output=True, text=True,
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    line = next(ln for ln in probe.stdout.splitlines() if "util.global private @__device_0" in ln)
    gpu_device = line.split("=", 1)[1].rsplit(":", 1)[0].strip()
    source = two_device_module(_device(_llvm_cpu(_host_features())), gpu_device, 64, 1000, 64)
    out = _xsplit(source, "set-encoding,materialize-late")
    assert "linalg.mmt4d" in out  # the CPU's matmul is data-tiled, the GPU's is not
    assert out.count("linalg.mmt4d") == 1
    _compile(out, tmp_path, f"--iree-hal-target-device={device}")
