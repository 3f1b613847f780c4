"""`xsplit check` and `xsplit bench`: exit codes, one-line errors, and what
they write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import SMALL, WRONG_PATTERN, assert_one_line_error, xsplit

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_check_passes_a_right_split() -> None:
    proc = xsplit("check", str(SMALL), "-p", "split-k{factor=7},materialize-late")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("result 0 (16x32 float32): max abs error ")
    assert lines[0].endswith(": PASS")
    assert lines[-1] == "PASS"


def test_check_fails_a_wrong_rewrite(tmp_path: Path) -> None:
    patterns = tmp_path / "wrong.py"
    patterns.write_text(WRONG_PATTERN)
    proc = xsplit("check", str(SMALL), "-p", "drop-init", "--load-patterns", str(patterns))
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[-1] == "FAIL"
    assert ": FAIL" in proc.stdout.splitlines()[0]


def test_check_takes_dynamic_dimensions_from_dim(tmp_path: Path) -> None:
    source = EXAMPLES.parent / "tests" / "filecheck" / "rewrites" / "split-k" / "dynamic.mlir"
    path = tmp_path / "dynamic.mlir"
    path.write_text(source.read_text().split("// -----")[0])
    pipeline = "split-k{factor=3},materialize-late"
    missing = xsplit("check", str(path), "-p", pipeline)
    assert missing.returncode == 2
    assert_one_line_error(missing, "@dynamic_k has 2 dynamic dimensions, but --dim gave 0 sizes")
    given = xsplit("check", str(path), "-p", pipeline, "--dim", "100", "--dim", "100")
    assert given.returncode == 0, given.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["check", "/no/such.mlir", "-p", "split-k"], "cannot read '/no/such.mlir'"),
        (["check", str(SMALL), "-p", "split-k{factor=0}"], "factor must be an integer >= 1"),
        (["check", str(SMALL), "-p", "no-such-pass"], "unknown pass 'no-such-pass'"),
        (["check", str(SMALL)], "the following arguments are required: -p/--passes"),
        (["bench", str(SMALL), "--sweep", "1,x"], "expected comma-separated chunk counts"),
        (["bench", str(SMALL), "--runs", "0"], "expected an integer >= 1, got 0"),
        (["bench", str(SMALL), "--json", "/no/dir/out.json"], "cannot write '/no/dir/out.json'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(args: list[str], expected: str) -> None:
    proc = xsplit(*args)
    assert proc.returncode == 2
    assert_one_line_error(proc, expected)


def test_check_reports_malformed_ir_with_its_location(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = foo.bar %a\n}\n")
    proc = xsplit("check", str(bad), "-p", "split-k")
    assert proc.returncode == 2
    assert_one_line_error(proc, f"{bad}:2:")


def test_bench_writes_a_table_json_and_plot(tmp_path: Path) -> None:
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    proc = xsplit(
        "bench", str(SMALL), "--sweep", "1,2,4", "--runs", "3", "--no-gpu",
        "--json", str(out_json), "--plot", str(out_png), "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for name in ("iree-default", "iree-data-tiling", "iree-split-reduction", "xsplit-model",
                 "xsplit-x1", "xsplit-x2", "xsplit-x4"):
        assert name in proc.stdout
    report = json.loads(out_json.read_text())
    configs = {c["name"]: c for c in report["configs"]}
    assert len(configs["xsplit-x2"]["times_ms"]) == 3
    assert configs["xsplit-x4"]["factor"] == 4
    # Every timed program computed what IREE default computes; beside a
    # product of 16 rows, the read pass (which computes nothing) is timed too.
    read_pass = configs.pop("read-pass")
    assert len(read_pass["times_ms"]) == 3 and read_pass["max_rel_error"] is None
    assert report["summary"]["read_pass_gbs"] > 0
    for c in configs.values():
        assert c["error"] is None, c
        assert c["max_rel_error"] < 1e-3
    assert configs["iree-default"]["speedup_over_iree_default"] == 1.0
    assert report["model_factor"] == configs["xsplit-model"]["factor"]
    assert set(report["summary"]) >= {"model_over_best_iree", "best_sweep_factor"}
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".xsplit-")]


@pytest.mark.gpu_compile
def test_bench_reports_gpu_waves(tmp_path: Path) -> None:
    # The seed's shape with K = 8539 (51234's prime factor) in place of 51234:
    # the GPU targets' workgroups depend on M and N, and each still splits and
    # fills its waves, while the CPU configurations bench must run and time
    # first (IREE's unsplit ones take seconds a call at K = 51234) run 6x faster.
    seed = (EXAMPLES / "matmul_123x456x51234.mlir").read_text().splitlines(keepends=True)
    code = "".join(line for line in seed if not line.startswith("//"))
    program = tmp_path / "matmul_123x456x8539.mlir"
    program.write_text(code.replace("51234", "8539"))
    out_json = tmp_path / "r.json"
    # The GPU fills do not depend on the CPU configurations: auto and the
    # encoded sweep (a compile, and runs of K = 8539) are left out.
    proc = xsplit(
        "bench", str(program), "--runs", "1", "--json", str(out_json), "--no-progress",
        "--no-encodings",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    gpu = {g["target"]: g for g in json.loads(out_json.read_text())["gpu"]}
    assert set(gpu) == {"sm_80", "sm_90", "gfx942"}
    for g in gpu.values():
        assert g["split_workgroups"] > g["unsplit_workgroups"], g
        # Where the seed starves a GPU (under 10% busy), the GPU model splits
        # it in at least 8 chunks (its fewest), each with the op's tiles.
        if g["unsplit_fill"] < 0.1:
            assert g["split_factor"] >= 8, g
            assert g["split_workgroups"] >= 8 * g["unsplit_workgroups"], g
    assert gpu["gfx942"]["unsplit_fill"] < 0.1
    assert "waves" in proc.stdout
