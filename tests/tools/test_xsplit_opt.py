"""xsplit-opt on bad input: one line `file:line:col: error: ...` (where there is
a location), a non-zero exit, no traceback, the input untouched, and no output
file left behind."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.cases import matmul
from tests.helpers.cli import assert_one_line_error, xsplit_opt
from xsplit.passes import XSPLIT_PASSES

SEED = Path(__file__).parents[2] / "examples" / "matmul_123x456x51234.mlir"


BAD_INPUTS = {
    "malformed": (
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = linalg.matmul ins(%a\n}\n",
        "{path}:2:28: error: expected ':'",
    ),
    "unknown-op": (
        "func.func @f() {\n  %0 = foo.bar() : () -> i32\n  func.return\n}\n",
        "{path}:2:15: error: Operation foo.bar is not registered",
    ),
    "verifier": (
        "func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {\n"
        "  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>\n"
        "  func.return %0 : tensor<4x3xf32>\n}\n",
        "{path}:2:3: error: 'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 8, but found 7",
    ),
    "use-before-def": (
        "func.func @f(%a: f32) -> f32 {\n"
        "  %0 = arith.addf %1, %a : f32\n"
        "  %1 = arith.mulf %a, %a : f32\n"
        "  func.return %0 : f32\n}\n",
        "{path}:2:3: error: operand #0 of 'arith.addf' does not dominate this use",
    ),
    "nested-use-before-def": (
        "func.func @f(%a: f32) -> f32 {\n"
        "  %0 = scf.execute_region -> f32 {\n"
        "    scf.yield %1 : f32\n"
        "  }\n"
        "  %1 = arith.mulf %a, %a : f32\n"
        "  func.return %0 : f32\n}\n",
        "{path}:3:5: error: operand #0 of 'scf.yield' does not dominate this use",
    ),
    "rejected-by-iree-opt-only": (
        "util.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  util.return %a, %a : tensor<4xf32>, tensor<4xf32>\n}\n",
        "{path}:2:3: error: 'util.return' op has 2 operands, but enclosing function-like op returns 1",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_leaves_files_alone(name: str, tmp_path: Path) -> None:
    text, expected = BAD_INPUTS[name]
    src = tmp_path / "in.mlir"
    src.write_text(text)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    out = tmp_path / "out.mlir"
    proc = xsplit_opt(str(src), "-p", "split-k{factor=4},materialize-late", "-o", str(out))
    assert_one_line_error(proc, expected.format(path=src))
    assert hashlib.sha256(src.read_bytes()).hexdigest() == digest
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["in.mlir"]


BAD_PIPELINES = {
    "split-k{factor=0}": "error: split-k: factor must be an integer >= 1, got '0'",
    "split-k{factor=four}": "error: split-k: factor must be an integer >= 1, got 'four'",
    "split-k{factor=2.5}": "error: split-k: factor must be an integer >= 1, got '2.5'",
    "split-k{factor=4 tile=8}": (
        "error: split-k: give one of factor=, tile= and target=, not factor and tile"
    ),
    "split-k{strategy=loops}": (
        "error: split-k: strategy must be one of forall, expand, grouped, got 'loops'"
    ),
    "split-k{balanced=maybe}": "error: split-k: balanced must be true or false, got 'maybe'",
    "split-k{target=h100}": (
        "error: split-k: target must be one of cpu, sm_80, sm_90, gfx942, cuda, rocm, device, got 'h100'"
    ),
    "split-k{colour=red}": (
        "error: split-k: unknown option 'colour'; its options are factor, tile, strategy, "
        "balanced, align, pad_m, cpu_tiles, merge, kernel, target"
    ),
    "split-k{factor=3,tile=4}": (
        "error: bad pass pipeline 'split-k{factor=3,tile=4}' at column 17 (','): pass options "
        "are separated by spaces, not commas"
    ),
    "split-k{": "error: bad pass pipeline 'split-k{' at column 9 (the end): Expected argument "
    "name here",
    "split-k{factor=3}}": "error: bad pass pipeline 'split-k{factor=3}}' at column 18 ('}'): "
    "Expected a comma after pass argument dict here",
    "no-such-pass": (
        "error: unknown pass 'no-such-pass'; xsplit's passes are "
        + ", ".join(sorted(XSPLIT_PASSES))
        + " (xDSL's own passes are accepted too)"
    ),
}


@pytest.mark.parametrize("pipeline", sorted(BAD_PIPELINES))
def test_bad_pipeline(pipeline: str, tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    proc = xsplit_opt(str(SEED), "-p", pipeline, "-o", str(out))
    assert proc.returncode == 1
    assert proc.stderr == BAD_PIPELINES[pipeline] + "\n"
    assert not out.exists()


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert_one_line_error(xsplit_opt(str(tmp_path / "nope.mlir")), "error: cannot read")
    assert_one_line_error(xsplit_opt(str(tmp_path)), "it is a directory")
    assert_one_line_error(
        xsplit_opt(str(SEED), "-o", str(tmp_path / "no" / "dir" / "x.mlir")),
        "error: cannot write",
    )
    assert_one_line_error(xsplit_opt(str(SEED), "-o", str(tmp_path)), "it is a directory")


def test_refuses_to_overwrite_input(tmp_path: Path) -> None:
    src = tmp_path / "in.mlir"
    src.write_text(SEED.read_text())
    proc = xsplit_opt(str(src), "-p", "split-k{factor=4}", "-o", str(src))
    assert_one_line_error(proc, "refusing to overwrite the input file")
    assert src.read_text() == SEED.read_text()


def test_bad_command_line_flag() -> None:
    proc = xsplit_opt("--bogus")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "unrecognized arguments: --bogus" in proc.stderr


def test_output_file_and_stdin(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    proc = xsplit_opt("-", "-p", "split-k{factor=4}", "-o", str(out), stdin=matmul(4, 4, 64))
    assert proc.returncode == 0, proc.stderr
    assert "scf.forall" in out.read_text()
    assert sorted(os.listdir(tmp_path)) == ["out.mlir"]


def test_valid_ir_without_reductions_passes_through() -> None:
    text = (
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %a : tensor<4xf32>\n}\n"
    )
    plain = xsplit_opt("-", stdin=text)
    split = xsplit_opt("-", "-p", "split-k{factor=4},materialize-late", stdin=text)
    assert split.returncode == 0 and split.stdout == plain.stdout and not split.stderr


def test_rewrite_is_deterministic() -> None:
    runs = {
        xsplit_opt(str(SEED), "-p", "split-k{factor=77},materialize-late").stdout for _ in range(2)
    }
    assert len(runs) == 1


def test_xdsl_opt_sees_xsplit_through_the_universe() -> None:
    proc = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "xdsl-opt"),
            str(SEED),
            "-p",
            "split-k{factor=77},materialize-late",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "flow.dispatch.workgroups" in proc.stdout
    # And it reads xsplit's output back, scf.forall and flow ops included.
    back = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "xdsl-opt")],
        input=proc.stdout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert back.returncode == 0, back.stderr


# --- verification: after parsing and after the last pass, or after each -----

BREAKS_TYPES = '''
from xdsl.dialects import arith
from xdsl.dialects.builtin import i64

from xsplit.rewrites.dsl import Pass, Pattern, operand


def widen(m, ir):
    """An i32 add rebuilt with an i64 result: invalid IR."""
    x = m["x"]
    return [ir.b.insert(arith.AddiOp.create(operands=[x, x], result_types=[i64])).results[0]]


Pass(
    "test-break-types",
    "rebuilds i32 adds with an i64 result",
    [Pattern(name="widen", doc="invalid on purpose", root="arith.addi",
             where=operand(0).capture("x"), rewrite=widen)],
)
'''

ADD = "func.func @f(%x: i32) -> i32 {\n  %y = arith.addi %x, %x : i32\n  func.return %y : i32\n}\n"


@pytest.mark.parametrize(
    ("pipeline", "flags", "expected"),
    [
        # The pass at fault, named by --verify-each, also when others follow it.
        (
            "test-break-types,split-k{factor=2}",
            ["--verify-each"],
            "{path}:2:3: error: pass 'test-break-types' produced invalid IR: 'arith.addi' op",
        ),
        # By default the IR is verified once, after the last pass: the error
        # says the IR is invalid and which pass ran last.
        (
            "test-break-types,split-k{factor=2}",
            [],
            "{path}:2:3: error: invalid IR after pass 'split-k', the last of 2 "
            "(--verify-each verifies after each pass and names the one at fault): 'arith.addi' op",
        ),
        # With one pass, that pass is the one at fault.
        (
            "test-break-types",
            [],
            "{path}:2:3: error: pass 'test-break-types' produced invalid IR: 'arith.addi' op",
        ),
    ],
)
def test_invalid_ir_from_a_pass_is_one_line(
    pipeline: str, flags: list[str], expected: str, tmp_path: Path
) -> None:
    patterns = tmp_path / "breaks_types.py"
    patterns.write_text(BREAKS_TYPES)
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    out = tmp_path / "out.mlir"
    proc = xsplit_opt(
        "--load-patterns", str(patterns), str(src), "-p", pipeline, *flags, "-o", str(out)
    )
    assert_one_line_error(proc, expected.format(path=src))
    assert proc.returncode == 1 and not out.exists()


def test_verify_each_leaves_valid_output_unchanged() -> None:
    once = xsplit_opt(str(SEED), "-p", "split-k{factor=77},materialize-late")
    each = xsplit_opt(str(SEED), "-p", "split-k{factor=77},materialize-late", "--verify-each")
    assert once.returncode == each.returncode == 0, once.stderr + each.stderr
    assert once.stdout == each.stdout and "flow.dispatch.workgroups" in once.stdout
