"""The README's "From an ONNX model", command by command: the shipped script's
model, imported and dumped at `input`, is left whole by IREE's own split
reduction, split by xsplit, checked by `xsplit check`, and run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.helpers.cli import assert_one_line_error
from tests.helpers.corpus import import_onnx
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir

SCRIPT = Path(__file__).parents[2] / "examples" / "onnx" / "matmul_prime_k.py"
PIPELINE = "split-k,materialize-late"


def _tool(module: str, main: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", f"from {module} import {main}; {main}()", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_onnx_matmul_with_prime_k(tmp_path: Path) -> None:
    onnx_path = tmp_path / "matmul_prime_k.onnx"
    subprocess.run(
        [sys.executable, str(SCRIPT), str(onnx_path), "--inputs", str(tmp_path)], check=True
    )
    imported = tmp_path / "matmul_prime_k.mlir"
    import_onnx(onnx_path, imported)
    source = compile_mlir(imported.read_text(), "cpu", compile_to="input").decode()
    dump = tmp_path / "matmul_prime_k.input.mlir"
    dump.write_text(source)

    # The premise: IREE 3.13 asked to split the reduction keeps it in one chunk.
    iree_split = compile_mlir(
        imported.read_text(),
        "cpu",
        ["--iree-dispatch-creation-enable-split-reduction"],
        compile_to="dispatch-creation",
    ).decode()
    assert "split_reduction = [8191 : index]" in iree_split

    split_path = tmp_path / "matmul_prime_k.split.mlir"
    opt = _tool(
        "xsplit.tools.xsplit_opt", "main", str(dump), "-p", PIPELINE, "-o", str(split_path)
    )
    assert opt.returncode == 0, opt.stderr
    split = split_path.read_text()
    # 7 chunks of 1171: 6 static ones in the loop, the last 1165 beside it.
    assert "scf.forall (%arg7) in (6)" in split and "tensor<32x64x6xf32>" in split
    assert "tensor<32x1165xf32>" in split and "?x" not in split
    assert "util.func public @matmul_prime_k(" in split

    check = _tool("xsplit.tools.xsplit_cli", "console_main", "check", str(dump), "-p", PIPELINE)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.splitlines()[-1] == "PASS"
    assert check.stdout.startswith("result 0 (32x64 float32): max abs error")

    refused = _tool(
        "xsplit.tools.xsplit_cli", "console_main", "check", str(dump), "-p", PIPELINE,
        "--function", "matmul_prime_k$async",
    )
    assert_one_line_error(refused, f"{dump}:2:3: error: @matmul_prime_k$async takes arguments")

    a, b = np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy")
    (c,) = run_on_cpu(compile_mlir(split, "cpu"), "matmul_prime_k", [a, b])
    want = a.astype(np.float64) @ b
    assert np.abs(c - want).max() <= 2e-4 * np.abs(want).max()
