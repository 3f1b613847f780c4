"""Array attributes and region bodies on the match side
(`xsplit/rewrites/dsl/arrays.py`)."""

from __future__ import annotations

from xsplit.api import parse_module
from xsplit.rewrites.dsl import Match, dim, input, is_structural, where
from xsplit.rewrites.dsl.arrays import body_ops, int_array

BODY = """{
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }"""
MAPS = (
    "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, "
    "#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]"
)


def _grouped(offsets: str, k: int = 10, body: str = BODY):
    groups = len(offsets.split(",")) - 1
    src = f"""
func.func @f(%a: tensor<4x{k}xf32>, %b: tensor<{k}x5xf32>, %p: tensor<{groups}x4x5xf32>) -> tensor<{groups}x4x5xf32> {{
  %0 = linalg_ext.split_grouped_gemm {{group_offsets = array<i64: {offsets}>, {MAPS}}} ins(%a, %b : tensor<4x{k}xf32>, tensor<{k}x5xf32>) outs(%p : tensor<{groups}x4x5xf32>) {body} -> tensor<{groups}x4x5xf32>
  func.return %0 : tensor<{groups}x4x5xf32>
}}
"""
    (op,) = [o for o in parse_module(src).walk() if o.name == "linalg_ext.split_grouped_gemm"]
    m = Match(op)
    assert input(0).has_shape("M", "K").holds(m)
    return m


OFFSETS = int_array("group_offsets")


def test_length_and_entries_are_numbers_of_the_match() -> None:
    m = _grouped("0, 3, 6, 9, 10")
    assert OFFSETS.length()(m) == 5
    assert OFFSETS.at(1)(m) == 3 and OFFSETS.at(-2)(m) == 9
    assert (dim("K") - OFFSETS.at(-2))(m) == 1
    assert (OFFSETS.length() - 1 == 4).holds(m)
    failure = (OFFSETS.at(7) > 0).check(m)
    assert failure is not None and "no entry 7" in failure.reason


def test_steps_evenly_to_the_end() -> None:
    even = OFFSETS.steps_evenly(OFFSETS.at(1), dim("K"))
    assert even.holds(_grouped("0, 5, 10"))
    assert even.holds(_grouped("0, 10"))
    failure = even.check(_grouped("0, 3, 6, 9, 10"))
    assert failure is not None and failure.reason == "group_offsets is 0, 3, 6, 9, 10"
    assert not even.holds(_grouped("0, 2, 7", k=7))
    # The end is a number of the match: K, not whatever the table ends with.
    assert not OFFSETS.steps_evenly(5, 12).holds(_grouped("0, 5, 10"))


def test_steps_evenly_then_a_shorter_last_step() -> None:
    tail = OFFSETS.steps_evenly_then(OFFSETS.at(1), dim("K"))
    assert tail.holds(_grouped("0, 3, 6, 9, 10"))
    assert tail.holds(_grouped("0, 4, 8, 10"))
    assert not tail.holds(_grouped("0, 5, 10"))  # the last step is not shorter
    assert not tail.holds(_grouped("0, 10"))  # no whole step before it
    failure = tail.check(_grouped("0, 2, 7, 10"))
    assert failure is not None and failure.reason == "group_offsets is 0, 2, 7, 10"


def test_body_ops_names_the_ops_of_a_region_in_order() -> None:
    m = _grouped("0, 5, 10")
    assert body_ops("body", "arith.mulf", "arith.addf", "linalg.yield").holds(m)
    failure = body_ops("body", "arith.addf", "arith.mulf", "linalg.yield").check(m)
    assert failure is not None and failure.reason == "region body holds arith.mulf, arith.addf, linalg.yield"
    maximum = BODY.replace("arith.mulf %x, %y", "arith.maximumf %x, %y")
    assert not body_ops("body", "arith.mulf", "arith.addf", "linalg.yield").holds(_grouped("0, 5, 10", body=maximum))


def test_they_are_structural() -> None:
    assert is_structural(OFFSETS.steps_evenly(OFFSETS.at(1), dim("K")))
    assert is_structural(OFFSETS.steps_evenly_then(OFFSETS.at(1), dim("K")))
    assert is_structural(body_ops("body", "linalg.yield"))
    native = where("a Python test", lambda m: True)
    assert not is_structural(native & body_ops("body", "linalg.yield"))
