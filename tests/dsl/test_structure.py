"""The match side's vocabulary for sets of values, the ops around the root
and reasons in a pattern's own words (`xsplit/rewrites/dsl/structure.py`)."""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerType, TensorType

from xsplit.api import parse_module
from xsplit.rewrites.dsl import Match, is_structural, operand, root_is, where
from xsplit.rewrites.dsl.structure import (
    arguments,
    because,
    block_arguments,
    block_holds,
    enclosing,
    operands,
    outputs,
    parent,
    results,
    terminator,
    the_value,
    values_from_above,
)

SRC = """
func.func @f(%x: tensor<4xf32>, %d: tensor<?xf32>, %n: index) -> tensor<4x2xf32> {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %l = scf.forall (%i) in (2) shared_outs(%o = %e) -> (tensor<4x2xf32>) {
    %in = arith.addf %x, %x : tensor<4xf32>
    %m = arith.mulf %c, %c : f32
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %in into %o[0, %i] [4, 1] [1, 1] : tensor<4xf32> into tensor<4x2xf32>
    }
  }
  func.return %l : tensor<4x2xf32>
}
func.func @g(%a: tensor<4x0xf32>, %b: tensor<4x0xf32>) -> tensor<4x0xf32> {
  %s = arith.addf %a, %b : tensor<4x0xf32>
  func.return %s : tensor<4x0xf32>
}
"""


def _ops(name: str):
    return [op for op in parse_module(SRC).walk() if op.name == name]


def test_each_holds_for_every_value_and_says_which_failed() -> None:
    (loop,) = _ops("scf.forall")
    static = values_from_above().each(~the_value.is_tensor() | the_value.has_static_shape())
    assert static.holds(Match(loop))
    scalar = values_from_above().each(the_value.type_is(IndexType, IntegerType))
    failure = scalar.check(Match(loop))
    assert failure is not None and failure.reason == "its type is tensor<4x2xf32>"
    named = values_from_above().each(
        the_value.type_is(IndexType), why=lambda v, f: f"it captures a {v.type}"
    )
    assert named.check(Match(loop)).reason == "it captures a tensor<4x2xf32>"  # type: ignore[union-attr]
    assert outputs().each(the_value.defined_by("tensor.empty")).holds(Match(loop))
    assert results().each(the_value.has_static_shape()).holds(Match(loop))


def test_capture_those_keeps_the_values_a_test_holds_for() -> None:
    (loop,) = _ops("scf.forall")
    m = Match(loop)
    constant = the_value.is_constant() & ~the_value.is_tensor()
    assert values_from_above().capture_those("constants", constant).holds(m)
    assert values_from_above().capture_those("others", ~constant).holds(m)
    assert [str(v.type) for v in m["constants"]] == ["f32"]
    assert [str(v.type) for v in m["others"]] == ["tensor<4x2xf32>", "tensor<4xf32>"]


def test_the_ops_and_block_around_the_root() -> None:
    (add, _) = _ops("arith.addf")
    (mul,) = _ops("arith.mulf")
    assert not parent("func.func").holds(Match(add))
    assert parent("scf.forall").holds(Match(add))
    m = Match(add)
    assert enclosing("func.func", capture="fn", where=arguments().count(3)).holds(m)
    assert m["fn"].sym_name.data == "f"
    failure = enclosing("func.func", where=arguments().count(2)).check(Match(mul))
    assert failure is not None and "there are 3" in failure.reason
    assert not enclosing("scf.parallel").holds(Match(mul))
    assert block_holds(3).holds(Match(add)) and not block_holds(2).holds(Match(add))
    assert terminator("scf.forall.in_parallel").holds(Match(add))
    assert not terminator("func.return").holds(Match(add))


def test_destination_passing_form() -> None:
    (_, add) = _ops("arith.addf")
    m = Match(add)
    form = (
        parent("func.func")
        & operands().each(the_value.is_argument_of_block())
        & operands().all_distinct()
        & operand(0).capture("a")
        & terminator("func.return", where=operands().count(1))
        & block_holds(2)
    )
    assert form.holds(m)
    empty = block_arguments().each(the_value.has_no_zero_dim())
    assert empty.check(Match(add)).reason == "its type tensor<4x0xf32> has a dimension of 0"  # type: ignore[union-attr]
    (inner, _) = _ops("arith.addf")
    assert not operands().each(the_value.is_argument_of_block()).holds(Match(inner))


def test_because_says_the_patterns_words_and_stays_structural() -> None:
    (_, add) = _ops("arith.addf")
    said = because(operands().count(3), "it is not a plain matmul")
    assert said.check(Match(add)).reason == "it is not a plain matmul"  # type: ignore[union-attr]
    assert because(operands().count(2), "never").holds(Match(add))
    assert is_structural(said & root_is("arith.addf"))
    native = values_from_above().each(where("a Python test", lambda m: True))
    assert not is_structural(native)
    assert not is_structural(because(where("native", lambda m: True), "why"))
    assert is_structural(values_from_above().capture_those("t", the_value.type_is(TensorType)))


CHAIN = """
func.func @f(%x: tensor<6xf32>, %y: tensor<6xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0] high[2] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<6xf32> to tensor<8xf32>
  %e = tensor.expand_shape %p [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %s = arith.addf %e, %e : tensor<2x4xf32>
  %q = tensor.pad %y low[0] high[2] {
  ^bb0(%j: index):
    tensor.yield %z : f32
  } : tensor<6xf32> to tensor<8xf32>
  %f = tensor.expand_shape %q [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %g = tensor.expand_shape %q [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %t = arith.addf %f, %g : tensor<2x4xf32>
  func.return %s, %t : tensor<2x4xf32>, tensor<2x4xf32>
}
"""


def test_producer_chain_captures_the_pads_and_reshapes_a_value_comes_from() -> None:
    from xsplit.rewrites.dsl.structure import producer_chain

    ops = [op for op in parse_module(CHAIN).walk() if op.name in ("arith.addf", "tensor.pad")]
    first_add, second_add = [op for op in ops if op.name == "arith.addf"]
    chain = producer_chain(
        operand(0), "tensor.pad", "tensor.expand_shape", capture="chain", each=the_value.has_one_use()
    )
    assert is_structural(chain)
    # %e has two uses (both of the add's operands): the chain stops the match.
    failure = chain.check(Match(first_add))
    assert failure is not None and "the tensor.expand_shape it comes from: it has 2 uses" in failure.reason
    anything = producer_chain(
        operand(0), "tensor.pad", "tensor.expand_shape", capture="chain", each=the_value.is_tensor()
    )
    m = Match(first_add)
    assert anything.holds(m)
    assert [op.name for op in m["chain"]] == ["tensor.pad", "tensor.expand_shape"]
    # %q feeds two reshapes: the chain fails at the pad.
    failure = chain.check(Match(second_add))
    assert failure is not None and "the tensor.pad it comes from: it has 2 uses" in failure.reason
    only_reshapes = producer_chain(operand(0), "tensor.expand_shape", capture="c", each=the_value.is_tensor())
    m = Match(second_add)
    assert only_reshapes.holds(m) and [op.name for op in m["c"]] == ["tensor.expand_shape"]
    # A value from no listed op has an empty chain.
    pad = ops[0]
    m = Match(pad)
    assert anything.holds(m) and m["chain"] == []
