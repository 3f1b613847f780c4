"""The structural match side: op trees with captures and typed constraints,
told apart from native `where` tests."""

from __future__ import annotations

from xsplit.api import parse_module
from xsplit.rewrites.dsl import (
    Match,
    attr,
    input,
    is_structural,
    leaves,
    no_discardable_attributes,
    not_inside,
    operand,
    operand_group_size,
    region_blocks,
    result,
    root_is,
    where,
)
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr

SRC = """
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x2xf32>) {
  %s = arith.addf %x, %x {tag} : tensor<4xf32>
  %t = arith.addf %x, %y : tensor<4xf32>
  %e = tensor.empty() : tensor<4x2xf32>
  %l = scf.forall (%i) in (2) shared_outs(%o = %e) -> (tensor<4x2xf32>) {
    %in = arith.addf %t, %t : tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %in into %o[0, %i] [4, 1] [1, 1] : tensor<4xf32> into tensor<4x2xf32>
    }
  } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
  func.return %s, %l : tensor<4xf32>, tensor<4x2xf32>
}
"""


def _ops(name: str):
    module = parse_module(SRC)
    return [op for op in module.walk() if op.name == name]


def test_repeated_captures_and_types() -> None:
    same_twice, different, inside = _ops("arith.addf")
    twice = operand(0).capture("v") & operand(1).is_captured("v") & result(0).same_type_as("v")
    assert twice.holds(Match(same_twice)) and twice.holds(Match(inside))
    failure = twice.check(Match(different))
    assert failure is not None and failure.reason == "it is not $v"


def test_not_inside_and_attributes() -> None:
    same_twice, _, inside = _ops("arith.addf")
    outside = not_inside("scf.forall")
    assert outside.holds(Match(same_twice))
    assert outside.check(Match(inside)).reason == "it is inside scf.forall"  # type: ignore[union-attr]
    assert not no_discardable_attributes().holds(Match(same_twice))
    assert no_discardable_attributes().holds(Match(inside))
    (loop,) = _ops("scf.forall")
    assert attr("mapping").each_is(SplitReductionMappingAttr).holds(Match(loop))
    assert attr("mapping").has_an(SplitReductionMappingAttr).holds(Match(loop))
    m = Match(loop)
    assert attr("mapping").capture("map").holds(m) and attr("mapping").equals_capture("map").holds(m)
    assert region_blocks("body", 1).holds(Match(loop))
    assert not region_blocks("body", 2).holds(Match(loop))
    assert operand_group_size("outputs", 1).holds(Match(loop))


def test_structural_and_native_tests_are_told_apart() -> None:
    tree = root_is("arith.addf") & input(0).capture("a") | ~operand(0).is_tensor()
    assert is_structural(tree) and len(leaves(tree)) == 3
    native = tree & where("a Python test", lambda m: True)
    assert not is_structural(native) and len(leaves(native)) == 4


def test_no_attributes_but_the_ones_named() -> None:
    """`no_discardable_attributes_but(names)`: an attribute xDSL caches on an
    op is allowed, any other one fails with its name."""
    from xsplit.rewrites.dsl import no_discardable_attributes_but

    same_twice, _, inside = _ops("arith.addf")
    marked = same_twice.attributes.copy()
    assert marked, "the test op carries an attribute"
    (name,) = marked
    assert no_discardable_attributes_but(name).holds(Match(same_twice))
    assert no_discardable_attributes_but(name, "other").holds(Match(inside))
    failure = no_discardable_attributes_but("other").check(Match(same_twice))
    assert failure is not None and failure.reason == f"it has {name}"
    assert is_structural(no_discardable_attributes_but("other"))
