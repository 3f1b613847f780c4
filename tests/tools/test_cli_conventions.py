"""The command line a compiler engineer expects (issue 13): passes and options
that --help shows, option errors in words, MLIR's booleans, plain xdsl-opt
with remarks and without tracebacks, one set of conventions for xsplit-opt,
xsplit check/bench/e2e and xsplit-e2e, and IREE crashes reported as such."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import tool_command, xsplit_opt

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"
SMALL = EXAMPLES / "small_matmul.mlir"
FOLD = EXAMPLES / "patterns" / "fold_zero_init.py"
BIN = Path(sys.executable).parent


def tool(name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Runs a console script of this checkout (`xsplit`, `xsplit-e2e`, `xdsl-opt`)."""
    mains = {"xsplit": "console_main", "xsplit-e2e": "e2e_console_main"}
    if name in mains:
        main = mains[name]
        cold = [sys.executable, "-c", f"from xsplit.tools.xsplit_cli import {main}; {main}()"]
        command = [*tool_command(f"xsplit.tools.xsplit_cli:{main}", name, cold), *args]
    else:
        command = [str(BIN / name), *args]
    return subprocess.run(
        command, capture_output=True, text=True, check=False, env={**os.environ, **(env or {})}
    )


def assert_only(proc: subprocess.CompletedProcess[str], code: int, stderr: str) -> None:
    """The exact one line on stderr, the exit code, and no traceback."""
    assert "Traceback" not in proc.stderr
    assert proc.stderr == stderr + "\n", proc.stderr
    assert proc.returncode == code


# --help and --help-pass


def _builtin_pass_docs() -> dict[str, str]:
    from xsplit.passes import XSPLIT_PASSES, load_builtin_passes
    from xsplit.rewrites.dsl import PASSES

    load_builtin_passes()
    # The DSL's doc, or (for `auto`, a plain ModulePass) its docstring's first line.
    return {
        name: PASSES[name].doc if name in PASSES else XSPLIT_PASSES[name]().__doc__.splitlines()[0]
        for name in XSPLIT_PASSES
    }


BUILTIN_PASS_DOCS = _builtin_pass_docs()
XSPLIT_PASS_LIST = ", ".join(sorted(BUILTIN_PASS_DOCS))
"""The unknown-pass message's list of xsplit's own passes."""

PASS_DOCS = {
    "split-k": "Splits each linalg reduction into partial reductions over chunks of K and a merge.",
    "materialize-late": "Forms IREE dispatches around split reductions, in the form IREE "
    "distributes.",
    "materialize-early": "Lowers graph-level grouped GEMMs to scf.forall loops and encodings "
    "to pack/mmt4d/unpack before dispatches form.",
    "form-dispatch-regions": "Puts each graph-level split-reduction scf.forall in a "
    "flow.dispatch.region.",
    "dispatch-regions-to-workgroups": "Turns static-shaped flow.dispatch.regions into "
    "flow.dispatch.workgroups.",
    "fold-zero-init": "Folds zero-initialised matmuls into the adds that follow them.",
}


def test_help_lists_every_pass_with_its_doc_loaded_ones_included() -> None:
    proc = xsplit_opt("--load-patterns", str(FOLD), "--help")
    assert proc.returncode == 0 and not proc.stderr
    for name, doc in PASS_DOCS.items():
        assert re.search(rf"^  {re.escape(name)} +{re.escape(doc)}$", proc.stdout, re.M), name
    # Every registered pass, not only those named above, has its line.
    for name, doc in BUILTIN_PASS_DOCS.items():
        assert re.search(rf"^  {re.escape(name)} +{re.escape(doc)}$", proc.stdout, re.M), name
    without = xsplit_opt("--help")
    assert "fold-zero-init" not in without.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["xsplit-opt"],
        ["xsplit"],
        ["xsplit", "check"],
        ["xsplit", "bench"],
        ["xsplit", "e2e"],
        ["xsplit-e2e"],
    ],
)
def test_help_reads_as_plain_text(command: list[str]) -> None:
    if command[0] == "xsplit-opt":
        proc = xsplit_opt("--help")
    else:
        proc = tool(command[0], *command[1:], "--help")
    assert proc.returncode == 0 and not proc.stderr
    assert "`" not in proc.stdout
    if command[-1] in ("check", "e2e", "xsplit-e2e", "xsplit-opt"):
        assert "split-k " in proc.stdout and "--load-patterns" in proc.stdout
    if command[-1] in ("e2e", "xsplit-e2e"):
        for option in ("--seed", "--load-patterns", "--no-gpu", "--dim", "--function"):
            assert option in proc.stdout


def test_help_pass_gives_each_option_name_type_default_and_meaning() -> None:
    proc = xsplit_opt("--help-pass", "split-k")
    assert proc.returncode == 0 and not proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"split-k: {PASS_DOCS['split-k']}"
    text = " ".join(line.strip() for line in lines[1:])
    for head, meaning in [
        ("factor=integer (default: not set)", "the number of chunks; takes an integer >= 1"),
        ("tile=integer (default: not set)", "takes an integer >= 1"),
        ("strategy=string (default: forall)", "takes one of forall, expand, grouped"),
        ("balanced=bool (default: false)", "chunk sizes differ by at most one; takes true or false"),
        ("target=string (default: not set)", "takes one of cpu, sm_80, sm_90, gfx942, cuda, rocm"),
    ]:
        assert head in " ".join(text.split()) and meaning in text, (head, text)
    loaded = xsplit_opt("--load-patterns", str(FOLD), "--help-pass", "fold-zero-init")
    assert loaded.stdout == f"fold-zero-init: {PASS_DOCS['fold-zero-init']}\n  It takes no options.\n"


def test_help_pass_of_auto_says_its_option_as_the_dsl_passes_do() -> None:
    proc = xsplit_opt("--help-pass", "auto")
    assert proc.returncode == 0 and not proc.stderr
    text = " ".join(proc.stdout.split())
    assert "target=string (default: device)" in text and "'str'" not in text
    assert "takes one of cpu, sm_80, sm_90, gfx942, cuda, rocm" in text


def test_help_pass_of_an_unknown_pass() -> None:
    assert_only(
        xsplit_opt("--help-pass", "splitk"),
        1,
        f"error: unknown pass 'splitk'; xsplit's passes are {XSPLIT_PASS_LIST} (xDSL's own "
        "passes are accepted too)",
    )


def test_unknown_pass_list_includes_loaded_passes() -> None:
    proc = xsplit_opt("--load-patterns", str(FOLD), str(SMALL), "-p", "fold-zero")
    assert_only(
        proc,
        1,
        f"error: unknown pass 'fold-zero'; xsplit's passes are {XSPLIT_PASS_LIST}, fold-zero-init "
        "(xDSL's own passes are accepted too)",
    )


def test_a_pattern_file_that_cannot_load_is_one_line_before_help() -> None:
    assert_only(
        xsplit_opt("--load-patterns", "/no/such.py", "--help"),
        1,
        "error: cannot load patterns from '/no/such.py': no such file",
    )


# Booleans as MLIR reads them


@pytest.mark.parametrize(("text", "same_as"), [("1", "true"), ("True", "true"), ("0", "false"),
                                               ("FALSE", "false"), ("", "true")])
def test_booleans_accept_what_mlir_accepts(text: str, same_as: str) -> None:
    option = "balanced" if text == "" else f"balanced={text}"
    given = xsplit_opt(str(SMALL), "-p", f"split-k{{factor=3 {option}}}")
    spelled = xsplit_opt(str(SMALL), "-p", f"split-k{{factor=3 balanced={same_as}}}")
    assert given.returncode == 0 and given.stderr == "", given.stderr
    assert given.stdout == spelled.stdout
    balanced = xsplit_opt(str(SMALL), "-p", "split-k{tile=300 balanced=true}").stdout
    plain = xsplit_opt(str(SMALL), "-p", "split-k{tile=300}").stdout
    assert balanced != plain  # 4 chunks of 250 against 3 of 300 and 100: the option is read


# Plain xdsl-opt


def test_xdsl_opt_prints_remarks() -> None:
    proc = tool("xdsl-opt", str(SMALL), "-p", "split-k{factor=3 strategy=expand}")
    assert proc.returncode == 0
    assert proc.stderr == (
        "remark: expand needs a factor that divides K (3 does not divide K = 1000); using forall\n"
    )


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (["-p", "split-k{factor=abc}"], "error: split-k: factor must be an integer >= 1, got 'abc'"),
        (["-p", "split-k{balanced=maybe}"], "error: split-k: balanced must be true or false, got 'maybe'"),
        (
            ["-p", "split-k{factor=3,tile=4}"],
            "error: bad pass pipeline 'split-k{factor=3,tile=4}' at column 17 (','): pass "
            "options are separated by spaces, not commas",
        ),
        (["-p", "split-k{factor=0}"], "error: split-k: factor must be an integer >= 1, got '0'"),
        (["-p", "splitk"], "error: Unrecognized passes: ['splitk']"),
    ],
)
def test_xdsl_opt_errors_are_one_line(args: list[str], stderr: str) -> None:
    assert_only(tool("xdsl-opt", str(SMALL), *args), 1, stderr)


def test_xdsl_opt_bad_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %0 = foo.bar() : () -> i32\n}\n")
    assert_only(
        tool("xdsl-opt", str(bad), "-p", "split-k"),
        1,
        f"{bad}:2:15: error: Operation foo.bar is not registered",
    )


# xsplit check: --dim and pipelines without materialize-late

DYNAMIC = """func.func @dyn(%a: tensor<16x?xf32>, %b: tensor<?x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x?xf32>, tensor<?x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
"""

HALF_DYNAMIC = DYNAMIC.replace("%b: tensor<?x32xf32>", "%b: tensor<1000x32xf32>").replace(
    "tensor<16x?xf32>, tensor<?x32xf32>)", "tensor<16x?xf32>, tensor<1000x32xf32>)"
)


def test_check_refuses_dim_on_a_static_program() -> None:
    assert_only(
        tool("xsplit", "check", str(SMALL), "-p", "split-k{factor=3},materialize-late", "--dim", "8"),
        2,
        f"{SMALL}:1:1: error: @mm has no dynamic dimensions; --dim does not apply to it",
    )


@pytest.mark.parametrize(
    ("program", "dims", "stderr"),
    [
        (
            DYNAMIC,
            ["1000", "999"],
            "error: dimension 1 of %a (given 1000) and dimension 0 of %b (given 999) must be "
            "equal: @dyn indexes them with the same loop; give the same --dim for both",
        ),
        (
            HALF_DYNAMIC,
            ["999"],
            "error: dimension 1 of %a (given 999) and dimension 0 of %b (static 1000) must be "
            "equal: @dyn indexes them with the same loop; give --dim 1000",
        ),
        (
            DYNAMIC,
            ["1000"],
            "error: @dyn has 2 dynamic dimensions, but --dim gave 1 size",
        ),
    ],
)
def test_check_refuses_dims_that_cannot_be_right(
    program: str, dims: list[str], stderr: str, tmp_path: Path
) -> None:
    path = tmp_path / "dyn.mlir"
    path.write_text(program)
    args = [a for d in dims for a in ("--dim", d)]
    proc = tool("xsplit", "check", str(path), "-p", "split-k{factor=3},materialize-late", *args)
    assert_only(proc, 2, f"{path}:1:1: {stderr}")


@pytest.mark.parametrize(
    ("strategy", "left"),
    [("forall", "a graph-level scf.forall"), ("grouped", "xsplit's linalg_ext.split_grouped_gemm")],
)
def test_check_completes_a_pipeline_without_materialize_late(strategy: str, left: str) -> None:
    proc = tool("xsplit", "check", str(SMALL), "-p", f"split-k{{factor=3 strategy={strategy}}}")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "PASS"
    assert proc.stderr == (
        f"{SMALL}:2:3: remark: xsplit check: the pipeline leaves {left}, which iree-compile 3.13 "
        "cannot compile; xsplit check adds materialize-late (add it to the pipeline yourself to "
        "silence this)\n"
    )


# IREE failures and crashes


def _log_of(stderr: str) -> Path:
    m = re.search(r"; full output in (\S+\.log)$", stderr.strip())
    assert m, stderr
    return Path(m.group(1))


def test_a_graph_level_forall_crash_is_reported_with_cause_fix_and_log(tmp_path: Path) -> None:
    proc = tool(
        "xsplit", "check", str(SMALL), "-p", "split-k{factor=3}", "--exact-pipeline",
        env={"XSPLIT_LOG_DIR": str(tmp_path)},
    )
    log = _log_of(proc.stderr)
    assert_only(
        proc,
        2,
        f"error: iree-compile crashed (killed by SIGSEGV) compiling {SMALL} rewritten by "
        "'split-k{factor=3}' for cpu: a graph-level scf.forall crashes iree-compile 3.13; add "
        f"materialize-late to the pipeline; full output in {log}",
    )
    assert log.parent == tmp_path
    text = log.read_text()
    assert "# exit status: killed by SIGSEGV" in text and "Stack dump:" in text
    saved = Path(str(log)[: -len(".log")] + ".input").read_text()
    assert "scf.forall" in saved and "flow.dispatch" not in saved


def test_e2e_reports_an_unknown_dialect_with_its_fix(tmp_path: Path) -> None:
    proc = tool(
        "xsplit-e2e", str(SMALL), "-p", "split-k{factor=3 strategy=grouped}", "--exact-pipeline",
        "--no-gpu", env={"XSPLIT_LOG_DIR": str(tmp_path)},
    )
    log = _log_of(proc.stderr)
    assert_only(
        proc,
        2,
        f"error: iree-compile failed compiling {SMALL} rewritten by "
        "'split-k{factor=3 strategy=grouped}' for cpu: linalg_ext.split_grouped_gemm is xsplit's "
        f"own op, which iree-compile does not know; add materialize-late to the pipeline; full "
        f"output in {log}",
    )
    assert "Dialect `linalg_ext' not found" in log.read_text()


def test_an_unknown_failure_gives_the_tool_s_first_error_at_the_saved_input(tmp_path: Path) -> None:
    from xsplit.diagnostics import XsplitError
    from xsplit.iree.iree_compile import compile_mlir

    with pytest.raises(XsplitError) as info:
        compile_mlir("func.func @f() {\n  %0 = foo.bar() : () -> i32\n}\n", "cpu",
                     phase="compiling a test program")
    message = info.value.message
    m = re.fullmatch(
        r"iree-compile failed compiling a test program for cpu: (\S+\.input):2:8: error: .*"
        r"; full output in (\S+\.log)",
        message,
    )
    assert m, message
    assert Path(m.group(1)).read_text().startswith("func.func @f()")


# xsplit-e2e: the README's command, with the shared options


def test_e2e_takes_seed_load_patterns_and_no_gpu() -> None:
    proc = tool(
        "xsplit-e2e", str(EXAMPLES / "matmul_plus_c.mlir"), "-p", "fold-zero-init,split-k{factor=2}",
        "--load-patterns", str(FOLD), "--seed", "7", "--no-gpu",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert re.fullmatch(r"result 0: max \|split - unsplit\| = \S+ \(tolerance \S+\): PASS", lines[0])
    assert lines[1] == "workgroups per dispatch, in program order (the CPU only):"
    assert len(lines) == 3 and lines[2].startswith("  cpu ")


def test_e2e_input_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = foo.bar %a\n}\n")
    for command in (["xsplit-e2e"], ["xsplit", "e2e"]):
        proc = tool(*command, str(bad), "-p", "split-k")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"{bad}:2:"), proc.stderr
        assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (["--seed", "x"], "argument --seed: expected an integer >= 0, got 'x'"),
        (["--dim", "-3"], "argument --dim: expected a size (an integer >= 0), got -3"),
        ([], "the following arguments are required: -p/--passes"),
    ],
)
def test_e2e_usage_errors_match_xsplit_s(args: list[str], stderr: str) -> None:
    e2e = tool("xsplit-e2e", str(SMALL), *args)
    sub = tool("xsplit", "e2e", str(SMALL), *args)
    if "-p" not in args and "required" not in stderr:
        pass
    assert_only(e2e, 2, f"xsplit-e2e: error: {stderr}")
    assert_only(sub, 2, f"xsplit e2e: error: {stderr}")


# Bench's output in plain English


def test_bench_table_reads_as_english() -> None:
    from xsplit.bench.driver import MODEL_CONFIG, BenchReport, ConfigResult, GpuFill, format_table

    configs = [
        ConfigResult("iree-default", None, [], [2.0]),
        ConfigResult("iree-data-tiling", None, [], [3.0]),
        ConfigResult("iree-split-reduction", None, [], [2.5]),
        ConfigResult(MODEL_CONFIG, 1, [], [2.4]),
        ConfigResult("xsplit-x1", 1, [], [2.0]),
    ]
    gpu = [GpuFill("gfx942", 304, 1, 1, 1)]
    report = BenchReport("in.mlir", "mm", 2, 1, "cpu", 1, [], configs, gpu)
    table = format_table(report)
    assert "1 chunks" not in table and "1 workgroups" not in table
    assert "xsplit with the model's 1 chunk takes 1.20x as long as IREE's best (iree-default)" in table
    assert "best of the sweep: 1 chunk; the model's pick takes 1.20x as long as that" in table
    assert "unsplit 1 workgroup, 0.00 waves, 0% fill; split in 1 chunk: 1 workgroup" in table


def test_the_cost_model_s_remark_counts_in_english() -> None:
    from xsplit.api import rewrite
    from xsplit.diagnostics import collect_remarks

    # N = 24: IREE's own tile, one workgroup for the whole 16x24 output.
    with collect_remarks() as remarks:
        rewrite(SMALL.read_text().replace("x32xf32", "x24xf32"), "split-k{target=cpu}", "small.mlir")
    (line,) = remarks
    assert "unsplit 1 chunk of 1000: 1 workgroup, 1 wave at 50% fill" in line, line
    assert not re.search(r"\b1 (chunks|workgroups|waves)\b", line), line


@pytest.mark.parametrize(
    ("pipeline", "graph_level"),
    [
        ("split-k{factor=3}", True),
        ("split-k{factor=3},materialize-late", False),
        ("split-k{factor=3},form-dispatch-regions", False),
        ("split-k{factor=3 strategy=grouped},materialize-early", True),
        ("split-k{factor=3 strategy=grouped},materialize-late", False),
        ("split-k{factor=4 strategy=expand}", False),
    ],
)
def test_the_crash_cause_is_named_only_for_a_graph_level_forall(
    pipeline: str, graph_level: bool
) -> None:
    from xsplit.api import rewrite
    from xsplit.iree.iree_compile import has_graph_level_forall, known_cause

    text = rewrite(SMALL.read_text(), pipeline)
    assert has_graph_level_forall(text) is graph_level
    cause = known_cause("iree-compile", text, -11, "Stack dump:\n")
    assert (cause is not None and "graph-level scf.forall" in cause) is graph_level
