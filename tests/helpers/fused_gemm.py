"""The fused GEMM + reduction as the tests lower and simulate it."""

from __future__ import annotations

from tests.helpers.gemm_kernel import ORDERS
from tests.helpers.kept import parsed, rewrite_kept
from tests.helpers.simulation import simulate_module
from tests.reduce.cases import GemmCase
from xsplit.diagnostics import collect_remarks

SUBGROUP = {"sm_80": 32, "gfx942": 64}
"""Lanes a subgroup has on each target (a warp, a wavefront)."""


def lower_fused(case: GemmCase, pipeline: str) -> str:
    """The lowered program; verify-sync must prove every barrier and decide
    every dependence (no warning at all)."""
    with collect_remarks() as said:
        out = rewrite_kept(case.program(), f"fuse-reduction,{pipeline},verify-sync")
    undecided = [line for line in said if "warning" in line or "cannot decide" in line]
    assert not undecided, undecided
    return out


def simulate_fused(out: str, case: GemmCase, subgroup: int, seed: int = 1) -> None:
    """Runs the lowered program on the case's seeded inputs: race-free and
    equal to what the unfused program computes. In one thread order, for the
    reason tests/helpers/gemm_kernel.py's ORDERS gives: the race check reads
    the access log in any order, and a race-free program computes the same
    bits in every order (atomics up to the rounding the comparison allows)."""
    module = parsed(out, "out.mlir")
    inputs = case.inputs(seed)
    want = case.final_arguments(inputs)
    report = simulate_module(module, want, inputs, subgroup_size=subgroup, orders=ORDERS)
    assert report.clean, report.races + report.mismatches
