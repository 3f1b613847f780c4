"""The integer range analysis behind distribute's proofs: sound on generated
expressions, and exact where the IR pins a value down."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import affine, func

from xsplit import parse_module
from xsplit.analysis.ranges import Range, RangeAnalysis, launch_facts, trip_count


def test_interval_arithmetic_is_sound() -> None:
    """Random intervals and operations: every result of the operation on
    points of the inputs lies inside the computed range."""
    rng = np.random.default_rng(7)
    for _ in range(500):
        lo1, lo2 = (int(x) for x in rng.integers(-20, 20, 2))
        a = Range(lo1, lo1 + int(rng.integers(0, 15)))
        b = Range(lo2, lo2 + int(rng.integers(0, 15)))
        d = int(rng.integers(1, 7))
        xs = range(a.lo, a.hi + 1)
        ys = range(b.lo, b.hi + 1)
        checks = [
            (a + b, [x + y for x in xs for y in ys]),
            (a - b, [x - y for x in xs for y in ys]),
            (a * b, [x * y for x in xs for y in ys]),
            (a.min(b), [min(x, y) for x in xs for y in ys]),
            (a.max(b), [max(x, y) for x in xs for y in ys]),
            (a.floordiv(d), [x // d for x in xs]),
            (a.ceildiv(d), [-(-x // d) for x in xs]),
            (a.mod(d), [x % d for x in xs]),
        ]
        for r, points in checks:
            assert r.lo is not None and r.hi is not None
            assert r.lo <= min(points) and max(points) <= r.hi, (a, b, d, r)


@pytest.mark.parametrize(
    ("lb", "ub", "step", "expected"),
    [
        (Range.exactly(0), Range.exactly(64), Range.exactly(1), Range.exactly(64)),
        (Range.exactly(0), Range.exactly(1001), Range.exactly(143), Range.exactly(7)),
        (Range.exactly(0), Range(0, 334), Range.exactly(1), Range(0, 334)),
        (Range.exactly(5), Range.exactly(3), Range.exactly(1), Range.exactly(0)),
        (Range.exactly(0), Range(None, None), Range.exactly(1), Range(0, None)),
    ],
)
def test_trip_count(lb: Range, ub: Range, step: Range, expected: Range) -> None:
    assert trip_count(lb, ub, step) == expected


KERNEL = """
func.func @k(%chunk: index) -> (index, index, index, index, index, index)
    attributes {gpu.known_grid_size = array<i32: 77, 1, 1>, gpu.known_block_size = array<i32: 256, 2, 1>} {
  %n = affine.min affine_map<(d0) -> (666, d0 * -666 + 51234)>(%chunk)
  %b = gpu.block_id x
  %t = gpu.thread_id y
  %off = affine.apply affine_map<(d0) -> (d0 * 666)>(%b)
  %m = affine.min affine_map<(d0) -> (666, d0 * -666 + 51234)>(%b)
  %g = gpu.grid_dim x
  func.return %n, %b, %t, %off, %m, %g : index, index, index, index, index, index
}
"""


def test_kernel_values() -> None:
    module = parse_module(KERNEL, "k.mlir")
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    analysis = RangeAnalysis(launch_facts(fn))
    ret = fn.body.block.last_op
    n, b, t, off, m, g = (analysis.of(v) for v in ret.operands)
    assert n.hi == 666  # unknown chunk: only the min's constant bounds it
    assert b == Range(0, 76)
    assert t == Range(0, 1)
    assert off == Range(0, 76 * 666)
    # With the block id bounded, the last chunk's size is known to be 618..666.
    assert m == Range(51234 - 76 * 666, 666)
    assert g == Range.exactly(77)
    assert any(isinstance(op, affine.MinOp) for op in fn.walk())


def test_options_override_function_attributes() -> None:
    module = parse_module(KERNEL, "k.mlir")
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    facts = launch_facts(fn, grid=[5, 1, 1])
    assert facts.grid[0] == Range.exactly(5)
    assert facts.grid_source == "the grid option"
    assert facts.block[0] == Range.exactly(256)
