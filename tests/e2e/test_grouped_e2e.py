"""split-k{strategy=grouped}: the grouped GEMM and rock.reduce, materialized late
(inside the dispatch) or early (at graph level), must give the numbers of the
forall strategy and of the unsplit program, and spread over workgroups."""

from __future__ import annotations

import numpy as np
import pytest

from tests.e2e.cases import CASES, SAME_FORM_AS, Case
from tests.helpers.forms import program_form
from tests.helpers.kept_dumps import kept_run
from xsplit.api import build_pipeline, parse_module, print_module, rewrite, run_passes
from xsplit.interop.check import entry_function, random_inputs, tolerance
from xsplit.interop.e2e import run_e2e
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir
from xsplit.iree.workgroups import workgroup_counts
from xsplit.targets.table import COMPILED_GPU_TARGETS


def grouped_options(case: Case) -> str:
    return (case.options + " strategy=grouped").strip()


# Grouped covers what forall does, except min reductions (rock.reduce merges
# sum and max) and a tile over a dynamic K (the group count must be static).
GROUPED_CASES = [
    c
    for c in CASES
    if c.splits
    and "expand" not in c.options
    and "min" not in c.id
    and not ("tile" in c.options and c.dims)
]


def run_cpu(text: str, case: Case) -> np.ndarray:
    """`text` run on `case`'s inputs: the run run_e2e made of the same program
    (test_split_k_e2e's forall split, this module's grouped one) is kept."""
    inputs = random_inputs(entry_function(parse_module(case.mlir)), case.dims)
    (result,) = kept_run(compile_mlir(text, "cpu"), "main", inputs)
    return result


def test_enough_cases() -> None:
    assert len(GROUPED_CASES) >= 12
    assert any("balanced" in c.options for c in GROUPED_CASES)
    assert any("prime" in c.id for c in GROUPED_CASES)
    assert any(c.dims for c in GROUPED_CASES)


@pytest.mark.parametrize("case", GROUPED_CASES, ids=[c.id for c in GROUPED_CASES])
def test_grouped_matches_forall_and_unsplit(case: Case) -> None:
    options = grouped_options(case)
    grouped_text, report = run_e2e(
        case.mlir, f"split-k{{{options}}},materialize-late", case.dims, gpu_targets=()
    )
    assert "rock.reduce" not in grouped_text and "split_grouped_gemm" not in grouped_text
    assert "split_reduction_mapping" in grouped_text
    assert report.numerics_pass, (report.max_abs_error, report.tolerances)
    forall = run_cpu(rewrite(case.mlir, case.pipeline), case)
    grouped = run_cpu(grouped_text, case)
    assert float(np.abs(grouped.astype(np.float64) - forall).max()) <= tolerance(grouped, forall)
    if case.static:
        before, after = report.split_dispatch_workgroups("cpu")
        assert before is not None and after is not None and after > before


def test_grouped_ir_before_materialization() -> None:
    text = rewrite(CASES[0].mlir, "split-k{factor=77 strategy=grouped}")
    assert "linalg_ext.split_grouped_gemm" in text and "rock.reduce sum" in text


@pytest.mark.parametrize(
    "case", [c for c in GROUPED_CASES if c.id.startswith("seed") or c.dims][:3], ids=lambda c: c.id
)
def test_early_and_late_materialization_agree(case: Case) -> None:
    options = grouped_options(case)
    late = run_cpu(rewrite(case.mlir, f"split-k{{{options}}},materialize-late"), case)
    early = run_cpu(
        rewrite(case.mlir, f"split-k{{{options}}},materialize-early,materialize-late"), case
    )
    np.testing.assert_array_equal(early, late)


@pytest.mark.gpu_compile
@pytest.mark.parametrize("case", GROUPED_CASES[:6], ids=[c.id for c in GROUPED_CASES[:6]])
def test_grouped_compiles_for_gpus_and_spreads(case: Case) -> None:
    def rewritten(case: Case) -> str:
        module = parse_module(case.mlir)
        run_passes(module, build_pipeline(f"split-k{{{grouped_options(case)}}},materialize-late"))
        return print_module(module)

    text = rewritten(case)
    if case.id in SAME_FORM_AS:
        # The seed, of this form, is compiled and spreads on every target;
        # this program must still be that form with other numbers.
        (representative,) = [c for c in GROUPED_CASES if c.id == SAME_FORM_AS[case.id]]
        assert program_form(text) == program_form(rewritten(representative)), case.id
        return
    for target in COMPILED_GPU_TARGETS:
        after = workgroup_counts(text, target)
        if case.static and target not in case.unsplit_fails_on:
            before = workgroup_counts(case.mlir, target)
            index = next(i for i, c in enumerate(before) if "_elementwise_" not in c.dispatch)
            assert after[index].total > before[index].total  # type: ignore[operator]


def test_arbitrary_group_offsets_run_right() -> None:
    """A hand-written grouped op whose groups follow no formula (0, 2, 7) and
    whose init is not a fill: materialized, it must match numpy."""
    text = """
func.func @main(%a: tensor<4x7xf32>, %b: tensor<7x5xf32>, %p: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 2, 7>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a, %b : tensor<4x7xf32>, tensor<7x5xf32>) outs(%p : tensor<2x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x5xf32>
  func.return %0 : tensor<2x4x5xf32>
}"""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 7)), rng.standard_normal((7, 5))
    p = rng.standard_normal((2, 4, 5))
    a, b, p = (x.astype(np.float32) for x in (a, b, p))
    out = rewrite(text, "materialize-late")
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", [a, b, p])
    want = np.stack([p[0] + a[:, :2] @ b[:2], p[1] + a[:, 2:] @ b[2:]])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for target in COMPILED_GPU_TARGETS:
        compile_mlir(out, target)


def test_unsigned_max_is_not_merged_by_rock_reduce() -> None:
    """rock.reduce's max lowers to a signed (or float) max, so an unsigned max
    reduction must take the forall route."""
    from xsplit.diagnostics import collect_remarks

    text = """
func.func @main(%a: tensor<4x1000xi32>, %c: tensor<4xi32>) -> tensor<4xi32> {
  %0 = linalg.reduce ins(%a : tensor<4x1000xi32>) outs(%c : tensor<4xi32>) dimensions = [1]
    (%in: i32, %init: i32) {
      %m = arith.maxui %in, %init : i32
      linalg.yield %m : i32
    }
  func.return %0 : tensor<4xi32>
}"""
    with collect_remarks() as remarks:
        out = rewrite(text, "split-k{factor=4 strategy=grouped}")
    assert "rock.reduce" not in out and "scf.forall" in out
    assert any("grouped cannot express this split" in r for r in remarks)
