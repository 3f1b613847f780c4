"""`--device` on xsplit check, e2e and bench, `--save DIR`, and the replay
(`python -m xsplit.replay DIR`) on a machine with only IREE's runtime and
numpy: run here with xDSL and iree.compiler blocked, on `local-task`, the CPU
path CI can run. The tests that need a GPU skip, saying why, where none is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.cli import (
    BLOCKED_REPLAY,
    SMALL,
    WRONG_PATTERN,
    assert_one_line_error,
    replay_blocked,
    xsplit,
)
from xsplit.iree.device import device_problem

ROOT = Path(__file__).parents[2]
PLUS_C = ROOT / "examples" / "matmul_plus_c.mlir"


def _gpu_reason(name: str) -> str | None:
    problem = device_problem(name)
    return None if problem is None else f"no usable {name} device: {problem}"


def test_the_blocker_blocks() -> None:
    """The replay test means something only if the blocker really blocks."""
    code = BLOCKED_REPLAY.split("sys.argv")[0] + "import xdsl.ir\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "not installed on the device machine" in proc.stderr


def test_check_on_local_task_replays_without_xdsl_or_compiler(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    direct = xsplit("check", str(SMALL), "-p", "split-k{factor=4},materialize-late",
                    "--device", "local-task", "--save", str(saved), "--seed", "3")
    assert direct.returncode == 0, direct.stderr
    lines = direct.stdout.splitlines()
    assert lines[-1] == "PASS"
    assert "reference: numpy float64 (A @ B + C)" in lines[0]
    assert [line.split(":")[0] for line in lines[1:4]] == [
        "rewrite vs original", "original vs reference", "rewrite vs reference"
    ]
    manifest = json.loads((saved / "manifest.json").read_text())
    assert manifest["device"] == "local-task" and manifest["compiled_for"] == "cpu"
    assert manifest["programs"][0]["inputs"]["seed"] == 3
    assert not list(saved.rglob("*.npy")), "the inputs are a recipe, not data"

    out = tmp_path / "results.json"
    replayed = replay_blocked(str(saved), "--device", "local-task", "--json", str(out),
                              "--markdown", str(tmp_path / "results.md"))
    assert replayed.returncode == 0, replayed.stderr
    # Same inputs, same modules, same device: the same numbers, line for line.
    assert replayed.stdout == direct.stdout
    results = json.loads(out.read_text())
    assert results["passed"] and len(results["results"]) == 3
    assert "PASS" in (tmp_path / "results.md").read_text()


def test_a_wrong_rewrite_fails_on_the_device(tmp_path: Path) -> None:
    patterns = tmp_path / "wrong.py"
    patterns.write_text(WRONG_PATTERN)
    proc = xsplit("check", str(SMALL), "-p", "drop-init", "--load-patterns", str(patterns),
                  "--device", "local-task", "--save", str(tmp_path / "saved"))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "FAIL"
    assert any(line.startswith("rewrite vs original") and line.endswith("FAIL") for line in lines)
    assert any(line.startswith("original vs reference") and line.endswith("PASS") for line in lines)
    replayed = replay_blocked(str(tmp_path / "saved"))
    assert replayed.returncode == 1 and replayed.stdout == proc.stdout


def test_a_program_numpy_cannot_express_is_held_to_the_cpu_original(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    proc = xsplit("e2e", str(PLUS_C), "-p", "split-k{factor=2},materialize-late", "--no-gpu",
                  "--device", "local-task", "--save", str(saved))
    assert proc.returncode == 0, proc.stderr
    assert "reference: the original on the CPU" in proc.stdout
    assert "workgroups per dispatch" in proc.stdout
    manifest = json.loads((saved / "manifest.json").read_text())
    reference = manifest["programs"][0]["reference"]
    assert reference["kind"] == "cpu" and (saved / reference["module"]).is_file()
    replayed = replay_blocked(str(saved))
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == proc.stdout


def test_bench_on_local_task_replays_without_xdsl_or_compiler(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    report = tmp_path / "bench.json"
    proc = xsplit("bench", str(SMALL), "--device", "local-task", "--sweep", "2,4", "--runs", "2",
                  "--save", str(saved), "--json", str(report))
    assert proc.returncode == 0, proc.stderr
    assert "iree-benchmark-module, inputs resident" in proc.stdout
    (direct,) = json.loads(report.read_text())
    names = [c["name"] for c in direct["configs"]]
    assert names == ["iree-default", "iree-split-reduction", "xsplit-auto", "xsplit-x2", "xsplit-x4"]
    for config in direct["configs"]:
        assert config["passed"], config
        assert config["median_ms"] > 0 and len(config["times_ms"]) == 2
    assert direct["summary"]["auto_over_best_iree"] > 0

    replayed_json = tmp_path / "replayed.json"
    replayed = replay_blocked(str(saved), "--runs", "1", "--json", str(replayed_json),
                              "--markdown", str(tmp_path / "r.md"))
    assert replayed.returncode == 0, replayed.stderr
    (again,) = json.loads(replayed_json.read_text())
    assert [c["name"] for c in again["configs"]] == names
    # Numerics are deterministic on the CPU: the same errors; timings are not.
    assert [c["max_rel_error"] for c in again["configs"]] == [
        c["max_rel_error"] for c in direct["configs"]
    ]
    assert f"| {SMALL} |" in (tmp_path / "r.md").read_text()


def test_device_bogus_is_a_usage_error() -> None:
    for command in ("check", "e2e", "bench"):
        args = [command, str(SMALL), "--device", "bogus"]
        if command != "bench":
            args += ["-p", "split-k"]
        proc = xsplit(*args)
        assert proc.returncode == 2
        assert_one_line_error(proc, "argument --device: invalid choice: 'bogus'")


@pytest.mark.skipif(device_problem("cuda") is None, reason="a cuda device is usable here")
def test_an_unusable_device_is_one_line_naming_it() -> None:
    proc = xsplit("check", str(SMALL), "-p", "split-k", "--device", "cuda")
    assert proc.returncode == 2
    assert_one_line_error(proc, "xsplit check: error: device 'cuda' is not usable here: ")
    assert proc.stdout == ""


def test_replay_refuses_another_device_in_one_line(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    assert xsplit("check", str(SMALL), "-p", "split-k{factor=2},materialize-late",
                  "--device", "local-task", "--save", str(saved)).returncode == 0
    proc = replay_blocked(str(saved), "--device", "cuda")
    assert_one_line_error(proc, "compiled for cpu (device 'local-task'); they cannot run on 'cuda'")
    proc = replay_blocked(str(tmp_path / "nothing"))
    assert_one_line_error(proc, "cannot read")


@pytest.mark.gpu_compile
@pytest.mark.skipif(device_problem("cuda") is None, reason="a cuda device is usable here")
def test_save_for_cuda_where_there_is_none_compiles_and_says_where_to_run(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    proc = xsplit("check", str(SMALL), "-p", "split-k{factor=2},materialize-late",
                  "--device", "cuda", "--save", str(saved))
    assert proc.returncode == 0, proc.stderr
    assert f"python -m xsplit.replay {saved} --device cuda" in proc.stderr
    manifest = json.loads((saved / "manifest.json").read_text())
    assert manifest["compiled_for"] == "sm_80"
    assert "--iree-cuda-target=sm_80" in manifest["programs"][0]["modules"][0]["flags"]
    proc = replay_blocked(str(saved))
    assert_one_line_error(proc, "device 'cuda' is not usable here")


def test_the_recipe_makes_the_inputs_check_makes() -> None:
    from xsplit.api import parse_module
    from xsplit.interop.check import entry_point, input_recipe, random_inputs
    from xsplit.interop.numerics import InputRecipe

    f = entry_point(parse_module(SMALL.read_text()))
    recipe = InputRecipe.from_json(json.loads(json.dumps(input_recipe(f, (), 7).to_json())))
    for made, expected in zip(recipe.make(), random_inputs(f, (), 7), strict=True):
        assert made.dtype == expected.dtype and np.array_equal(made, expected)
    assert not np.array_equal(recipe.make()[0], InputRecipe(recipe.shapes, recipe.dtypes, 8).make()[0])


@pytest.mark.skipif(_gpu_reason("cuda") is not None, reason=str(_gpu_reason("cuda")))
def test_check_and_bench_on_cuda(tmp_path: Path) -> None:
    proc = xsplit("check", str(SMALL), "-p", "split-k{factor=4},materialize-late", "--device", "cuda")
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "PASS", proc.stdout + proc.stderr
    proc = xsplit("bench", str(SMALL), "--device", "cuda", "--sweep", "2", "--runs", "2")
    assert proc.returncode == 0, proc.stderr
    assert "WRONG" not in proc.stdout


@pytest.mark.skipif(_gpu_reason("hip") is not None, reason=str(_gpu_reason("hip")))
def test_check_on_hip() -> None:
    proc = xsplit("check", str(SMALL), "-p", "split-k{factor=4},materialize-late", "--device", "hip")
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "PASS", proc.stdout + proc.stderr


def test_a_wrong_configuration_is_marked_and_left_out_of_the_best_ofs() -> None:
    from xsplit.bench.device_timing import DeviceBenchReport, DeviceConfig, format_table, markdown

    def config(name: str, factor: int | None, ms: float, passed: bool) -> DeviceConfig:
        return DeviceConfig(name, factor, None, [], f"modules/{name}", [ms, ms + 1, ms + 2],
                            1e-7 if passed else 0.2, passed)

    report = DeviceBenchReport(
        "seed f32", "matmul", "cuda (NVIDIA H200)", "sm_80", 3, "numpy float64 (A @ B)",
        [
            config("iree-default", None, 97.0, True),
            config("iree-split-reduction", None, 58.0, True),
            config("xsplit-auto", 33, 4.0, True),
            config("xsplit-x8", 8, 1.0, False),
            config("xsplit-x128", 128, 2.0, True),
        ],
    )
    summary = report.summary()
    assert summary["best_iree"] == "iree-split-reduction"
    assert summary["best_sweep"] == "xsplit-x128" and summary["wrong"] == ["xsplit-x8"]
    assert summary["auto_over_best_iree"] == pytest.approx(59.0 / 5.0)
    table = format_table(report)
    assert "(WRONG)" in next(line for line in table.splitlines() if "xsplit-x8 " in line)
    row = markdown([report]).splitlines()[4]
    assert row.startswith("| seed f32 | 98.00 | 59.00 | 5.00 (33) | 3.00 (128) | - | 11.80x |")
    assert row.endswith("| xsplit-x8 |")
