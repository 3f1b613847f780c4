"""The command-line path a GPU user takes with xsplit's own GEMM kernel
(`auto{target=sm_80 kernel=own}`), run here where no GPU is: `check` and
`bench` with `--device cuda` stop at the device in one line (exit 2);
`--save` compiles the kernel for sm_80 and the replay of that directory on
the CPU says in one line that it cannot run it; a device that cannot run
the kernel (the CPU, or AMD's GPU for a kernel of NVIDIA's intrinsics), or a
kernel the pipeline left un-exported, is refused in one line before
iree-compile fails on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import SMALL, assert_one_line_error, replay_blocked, xsplit
from xsplit.iree.device import device_problem

ROOT = Path(__file__).parents[2]

NO_CUDA = pytest.mark.skipif(device_problem("cuda") is None, reason="a cuda device is usable here")
OWN = "auto{target=sm_80 kernel=own}"


def program(tmp_path: Path, element: str = "f32") -> Path:
    """37x45x101 (unaligned M and N, prime K) into a zero fill, as users write it."""
    a, b = f"tensor<37x101x{element}>", f"tensor<101x45x{element}>"
    c = "tensor<37x45xf32>"
    path = tmp_path / f"mm_{element}.mlir"
    path.write_text(f"""func.func @mm(%a: {a}, %b: {b}) -> {c} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %f = linalg.fill ins(%z : f32) outs(%e : {c}) -> {c}
  %x = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}
  return %x : {c}
}}
""")
    return path


@NO_CUDA
@pytest.mark.parametrize("command", ["check", "bench"])
def test_device_cuda_stops_at_the_device(tmp_path: Path, command: str) -> None:
    args = [command, str(program(tmp_path)), "--device", "cuda"]
    if command == "check":
        args += ["-p", OWN]
    proc = xsplit(*args)
    assert proc.returncode == 2
    assert_one_line_error(proc, f"xsplit {command}: error: device 'cuda' is not usable here: ")
    assert proc.stdout == ""


@NO_CUDA
@pytest.mark.gpu_compile
def test_saved_own_kernel_replays_only_on_cuda(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    proc = xsplit(
        "check", str(program(tmp_path)), "-p", OWN, "--device", "cuda", "--save", str(saved)
    )
    assert proc.returncode == 0, proc.stderr
    assert "chose xsplit's own kernel" in proc.stderr or "kernel=own: own kernel" in proc.stderr
    assert f"python -m xsplit.replay {saved} --device cuda" in proc.stderr
    manifest = json.loads((saved / "manifest.json").read_text())
    rewrite = next(m for m in manifest["programs"][0]["modules"] if m["name"] == "rewrite")
    assert rewrite["pipeline"] == OWN and "--iree-cuda-target=sm_80" in rewrite["flags"]
    proc = replay_blocked(str(saved), "--device", "local-task")
    assert proc.returncode == 2
    assert_one_line_error(proc, "sm_80 (device 'cuda'); they cannot run on 'local-task'")
    proc = replay_blocked(str(saved))
    assert proc.returncode == 2
    assert_one_line_error(proc, "device 'cuda' is not usable here")


@pytest.mark.parametrize(
    ("device", "pipeline", "element", "expected"),
    [
        # local-task is the CPU: before, iree-compile failed on the kernel's
        # private memory space ("conversion of memref memory space").
        ("local-task", OWN, "f32", "the CPU cannot run (--device local-task runs on the CPU)"),
        # NVIDIA's mma.sync on AMD's GPU, and MFMA on NVIDIA's.
        ("hip", OWN, "f16", "for sm_80 (nvgpu ops), which --device hip (gfx942) cannot run"),
        (
            "cuda", "split-k{target=gfx942 kernel=own},export-dispatch{target=gfx942}", "f16",
            "written for gfx942 (amdgpu ops), which --device cuda (sm_80) cannot run",
        ),
        # split-k alone leaves the kernel a function: iree-compile failed on
        # its index arithmetic ("'vm.mul.i64' op operand #0 must be ...").
        ("cuda", "split-k{target=sm_80 kernel=own}", "f32", "that is not a dispatch"),
        (None, "split-k{target=sm_80 kernel=own}", "f32", "end the pipeline with export-dispatch"),
        # split-k's merged kernel, likewise ("failed to legalize operation
        # 'util.initializer'" before).
        (None, "split-k{target=sm_80 merge=atomic factor=2}", "dps", "(@mm, thread-level code)"),
    ],
)  # fmt: skip
def test_a_device_that_cannot_run_the_kernel_is_one_line(
    tmp_path: Path, device: str | None, pipeline: str, element: str, expected: str
) -> None:
    source = SMALL if element == "dps" else program(tmp_path, element)  # dps: C an argument
    args = ["check", str(source), "-p", pipeline]
    if device is not None:
        args += ["--device", device, "--save", str(tmp_path / "saved")]
    proc = xsplit(*args)
    assert proc.returncode == 2
    assert_one_line_error(proc, expected)
    assert not (tmp_path / "saved" / "manifest.json").exists()


def test_bench_on_the_cpu_with_a_gpu_model_compiles_iree_s_chunks_with_cpu_tiles(
    tmp_path: Path,
) -> None:
    """`bench --device local-task --target sm_80`'s compile and save step:
    auto keeps IREE's static chunks for the seed's shape while the own
    kernel's terms are unmeasured; their GPU tiles name a pipeline the CPU
    cannot build, so the CPU compiles the same program with IREE's own
    tiles, as xsplit check runs it (iree-compile failed to build the pass
    pipeline before). What is checked is the choice and the compiles: the
    replay that follows on local-task (the seed unsplit, one serial
    dispatch, some 15 s a run under load, and IREE's own split, for each
    configuration) is the command line's path that
    tests/interop/test_device.py runs and checks on a small program. The own
    kernel on the CPU is refused in one line
    (test_a_device_that_cannot_run_the_kernel_is_one_line)."""
    from xsplit.bench.device_save import save_bench

    source = (ROOT / "examples" / "matmul_123x456x51234.mlir").read_text()
    # What `_run_device_bench` saves for `--sweep 8 --runs 1 --target sm_80`.
    saved = save_bench(
        [(source, "seed.mlir")], "local-task", str(tmp_path / "saved"),
        sweep=[8], runs=1, model_target="sm_80",
    )  # fmt: skip
    remarks = "\n".join(saved.programs[0].extra.get("auto_remarks", []))
    assert "own kernel not measured on sm_80" in remarks, remarks
    manifest = json.loads((tmp_path / "saved" / "manifest.json").read_text())
    assert manifest["programs"][0]["modules"], manifest
