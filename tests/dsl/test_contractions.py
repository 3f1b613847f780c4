"""`contractions.py` (a contraction's loops by role) and `ValueRef`'s
`produced_by` / `used_only_by`."""

from __future__ import annotations

from xsplit.api import parse_module
from xsplit.rewrites.dsl import Match, is_structural, operand, result, where
from xsplit.rewrites.dsl.arrays import int_array
from xsplit.rewrites.dsl.contractions import batch_loops, contraction, init_position

BATCH = """
func.func @f(%a: tensor<3x4x10xf32>, %b: tensor<3x10x5xf32>, %p: tensor<3x4x5xf32>, %i: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x4x10xf32>, tensor<3x10x5xf32>) outs(%p : tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %1 = linalg.reduce ins(%0 : tensor<3x4x5xf32>) outs(%i : tensor<4x5xf32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  func.return %1 : tensor<4x5xf32>
}
"""


def _ops(src: str) -> dict[str, object]:
    return {op.name: op for op in parse_module(src).walk()}


def test_contraction_captures_the_roles_of_its_loops() -> None:
    ops = _ops(BATCH)
    m = Match(ops["linalg.batch_matmul"])  # type: ignore[arg-type]
    assert is_structural(contraction("c"))
    assert contraction("c").holds(m)
    assert batch_loops("c")(m) == 1
    assert (init_position("c", "batch")(m), init_position("c", "m")(m), init_position("c", "n")(m)) == (0, 1, 2)


def test_a_reduction_is_not_a_contraction_and_says_why() -> None:
    failure = contraction("c").check(Match(_ops(BATCH)["linalg.reduce"]))  # type: ignore[arg-type]
    assert failure is not None and "not a linalg contraction" in failure.reason
    failure = (batch_loops("c") == 1).check(Match(_ops(BATCH)["linalg.reduce"]))  # type: ignore[arg-type]
    assert failure is not None and "not a captured contraction" in failure.reason


def test_used_only_by_and_produced_by_see_the_op_at_the_other_end() -> None:
    ops = _ops(BATCH)
    merges_batch = result(0).used_only_by(
        "linalg.reduce", where=int_array("dimensions").at(0) == init_position("c", "batch")
    )
    m = Match(ops["linalg.batch_matmul"])  # type: ignore[arg-type]
    assert (contraction("c") & merges_batch).holds(m)
    # From the reduce: its input is produced by a contraction.
    produced = operand(0).produced_by(where=contraction("c"), capture="producer")
    r = Match(ops["linalg.reduce"])  # type: ignore[arg-type]
    assert is_structural(produced) and produced.holds(r) and r["producer"] is ops["linalg.batch_matmul"]
    failure = result(0).used_only_by("linalg.generic").check(Match(ops["linalg.batch_matmul"]))  # type: ignore[arg-type]
    assert failure is not None and "its user is linalg.reduce" in failure.reason


def test_a_native_test_inside_keeps_them_native() -> None:
    native = where("anything", lambda m: True)
    assert not is_structural(operand(0).produced_by(where=native))
    assert not is_structural(result(0).used_only_by("linalg.reduce", where=native))


MATVEC = """
func.func @f(%a: tensor<4x10xf32>, %x: tensor<10xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<4x10xf32>, tensor<10xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
"""


def test_loop_of_names_a_roles_loop_and_is_unknown_where_there_is_none() -> None:
    from xsplit.rewrites.dsl.contractions import loop_of

    batch = Match(_ops(BATCH)["linalg.batch_matmul"])  # type: ignore[arg-type]
    assert contraction("c").holds(batch)
    assert (loop_of("c", "m")(batch), loop_of("c", "n")(batch), loop_of("c", "k")(batch)) == (1, 2, 3)
    matvec = Match(_ops(MATVEC)["linalg.matvec"])  # type: ignore[arg-type]
    assert contraction("c").holds(matvec)
    assert (loop_of("c", "m") >= 0).holds(matvec)
    failure = (loop_of("c", "n") >= 0).check(matvec)
    assert failure is not None and "$c has no n loop" in failure.reason
