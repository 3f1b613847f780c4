"""split-lanes' price against IREE's own code for a transposed matvec: the
operands' bytes over the read rate, against the same bytes at the share of
it IREE's transposing loop was measured at; and what the workgroups leave
idle."""

from __future__ import annotations

from xsplit.analysis.cost_model import Problem
from xsplit.analysis.cost_model.cpu import (
    IREE_TRANSPOSED_READ_SHARE,
    lane_split_estimate,
    transposed_matvec_estimate,
)
from xsplit.targets.table import TARGETS

TRANSPOSED_SPANS = ((True, False), (False, True))


def _matvec(n: int, k: int) -> Problem:
    """A one-row product against B[n, k]: K contiguous in both operands."""
    return Problem(1, 1, n, k, "f32", 4, 4, 2, TRANSPOSED_SPANS, (4, 4))


def test_a_large_matrix_is_priced_at_the_read_rate_and_beats_iree() -> None:
    cpu = TARGETS["cpu"]
    p = _matvec(4096, 14336)
    matrix_seconds = 4096 * 14336 * 4 / cpu.memory_bandwidth
    lanes = lane_split_estimate(p, cpu, 16)
    whole = transposed_matvec_estimate(p, cpu)
    # The bytes at the read rate, and a merge that costs under 2% of them.
    assert matrix_seconds < lanes < matrix_seconds * 1.02
    assert whole > matrix_seconds / IREE_TRANSPOSED_READ_SHARE
    assert lanes < whole


def test_a_small_matrix_is_not_worth_a_second_dispatch() -> None:
    cpu = TARGETS["cpu"]
    p = _matvec(70, 2000)
    assert lane_split_estimate(p, cpu, 16) > transposed_matvec_estimate(p, cpu)


def test_rows_for_one_workgroup_leave_the_other_cores_idle() -> None:
    """Eight rows are one workgroup, which one core streams: at the same
    bytes, half the rate of 64 rows on 2 cores."""
    cpu = TARGETS["cpu"]
    assert cpu.processors >= 2
    few_rows = lane_split_estimate(_matvec(8, 64 * 200_000 // 8), cpu, 16)
    many_rows = lane_split_estimate(_matvec(64 * 8, 200_000 // 8), cpu, 16)
    assert few_rows > 1.8 * many_rows


def test_each_row_of_a_merges_its_own_sums() -> None:
    """Four rows against B[n, k]: each has N x 16 sums to write and merge,
    which the price counts (4 x 4096 x 16 words read and written, about 1%
    of a 4096 x 11008 matrix), and the lanes still beat IREE's own."""
    cpu = TARGETS["cpu"]
    one, four = _matvec(4096, 11008), Problem(1, 4, 4096, 11008, "f32", 4, 4, 2, TRANSPOSED_SPANS, (4, 4))
    merged = 3 * 2 * 4096 * 16 * 4 / cpu.memory_bandwidth
    grown = lane_split_estimate(four, cpu, 16) - lane_split_estimate(one, cpu, 16)
    # The rows of A add their bytes too (3 x 11008 words), well under the sums'.
    assert merged < grown < merged * 1.2
    assert lane_split_estimate(four, cpu, 16) < transposed_matvec_estimate(four, cpu)
