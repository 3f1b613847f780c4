"""The rewrite DSL: constraints, captures, templates, options, the engine."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IntegerAttr, i32

from xsplit.api import build_pipeline, parse_module, print_module, rewrite
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.rewrites.dsl import (
    Match,
    Option,
    Pass,
    Pattern,
    Remark,
    Template,
    ceildiv,
    divides,
    engine_settings,
    operand,
    option,
    positive,
    static_shape,
    where,
)

ADDI = """
func.func @f(%x: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = arith.addi %x, %c0 : i32
  %b = arith.addi %x, %c1 : i32
  func.return %a, %b : i32, i32
}
"""


def first(module, name):
    return next(op for op in module.walk() if op.name == name)


def test_and_or_not_compose_and_report_the_failing_part() -> None:
    m = Match(first(parse_module(ADDI), "arith.addi"))
    is_zero = operand(1).is_constant(0)
    is_one = operand(1).is_constant(1)
    assert is_zero.holds(m) and not is_one.holds(m)
    assert (is_zero | is_one).holds(m)
    assert not (is_zero & is_one).holds(m)
    assert (~is_one).holds(m) and not (~is_zero).holds(m)
    failure = (is_zero & is_one).check(m)
    assert failure is not None
    assert failure.constraint == "operand 1 is the constant 1"
    assert failure.reason == "it is the constant 0"
    assert (
        str(is_zero & ~is_one) == "operand 1 is the constant 0 and not operand 1 is the constant 1"
    )


def test_constant_zero_never_matches_one() -> None:
    # The bug we saw in xDSL's PDL-to-pdl_interp lowering: a 0 check dropped.
    module = parse_module(ADDI)
    ops = [op for op in module.walk() if op.name == "arith.addi"]
    zero = operand(1).is_constant(0)
    assert [zero.holds(Match(op)) for op in ops] == [True, False]


def test_captures_and_failed_alternatives_leave_none_behind() -> None:
    m = Match(first(parse_module(ADDI), "arith.addi"))
    c = (operand(0).capture("x") & operand(1).is_constant(1)) | operand(1).capture("y")
    assert c.holds(m)
    assert set(m.captures) == {"y"}


def test_producer_chains() -> None:
    m = Match(first(parse_module(ADDI), "arith.addi"))
    chain = operand(1).defined_by("arith.constant", capture="k")
    assert chain.holds(m) and isinstance(m["k"], arith.ConstantOp)
    failure = operand(0).defined_by("arith.constant").check(Match(m.root))
    assert failure is not None and failure.reason == "it comes from a block argument"


def test_option_constraints_read_the_pass_options() -> None:
    m = Match(first(parse_module(ADDI), "arith.addi"), options={"mode": "fast"})
    assert (option("mode") == "fast").holds(m)
    failure = (option("mode") == "slow").check(m)
    assert failure is not None and failure.reason == "mode is fast"


def test_shape_helpers() -> None:
    assert ceildiv(51234, 666) == 77 and ceildiv(12, 4) == 3
    assert divides(4, 12) and not divides(5, 12) and not divides(0, 12)
    from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType

    assert static_shape(TensorType(Float32Type(), [2, 3])) == (2, 3)
    assert static_shape(TensorType(Float32Type(), [2, DYNAMIC_INDEX])) is None
    with pytest.raises(ValueError):
        ceildiv(1, 0)


def _fold_add_zero(name: str) -> Pass:
    fold = Pattern(
        name=f"{name}-fold",
        doc="x + 0 -> x",
        root="arith.addi",
        where=operand(1).is_constant(0) & operand(0).capture("x"),
        rewrite=lambda m, ir: [m["x"]],
    )
    return Pass(name, "folds x + 0", [fold])


def test_builder_rewrite_and_dead_constant_cleanup() -> None:
    _fold_add_zero("test-fold-add-zero")
    out = rewrite(ADDI, "test-fold-add-zero")
    assert "arith.addi %x, %c1" in out and "%c0" not in out
    assert "func.return %x, %b" in out


def test_template_is_parsed_once_per_shape() -> None:
    template = Template("%r = arith.muli $x, $x : $x.type")
    double = Pattern(
        name="square",
        doc="x + x -> x * x (not arithmetic, just a template test)",
        root="arith.addi",
        where=where("adds a value to itself", lambda m: m.root.operands[0] is m.root.operands[1])
        & operand(0).capture("x"),
        rewrite=template,
    )
    Pass("test-square", "template test", [double])
    src = """
    func.func @f(%a: i32, %b: i32, %c: i64) -> (i32, i32, i64) {
      %0 = arith.addi %a, %a : i32
      %1 = arith.addi %b, %b : i32
      %2 = arith.addi %c, %c : i64
      func.return %0, %1, %2 : i32, i32, i64
    }"""
    out = rewrite(src, "test-square")
    assert out.count("arith.muli") == 3 and "arith.addi" not in out
    shapes = sorted(str(t) for (t,) in template._parsed)  # pyright: ignore[reportPrivateUsage]
    assert shapes == ["i32", "i64"]


def test_bad_template_is_a_clear_error() -> None:
    broken = Pattern(
        name="broken",
        doc="a template that does not parse",
        root="arith.addi",
        where=operand(0).capture("x"),
        rewrite=Template("%r = arith.muli $x : $x.type"),
    )
    Pass("test-broken-template", "broken", [broken])
    with pytest.raises(XsplitError, match="bad template"):
        rewrite(ADDI, "test-broken-template")


def test_options_are_typed_and_checked() -> None:
    p = Pass(
        "test-options",
        "options test",
        [],
        options=[
            Option("count", int, None, "how many", check=positive),
            Option("mode", str, "a", "which", choices=("a", "b")),
            Option("strict", bool, False, "whether"),
        ],
        validate=lambda o: "strict needs a count" if o["strict"] and o["count"] is None else None,
    )
    module = parse_module(ADDI)
    p.apply(module, count=3, mode="b")
    for bad, message in [
        ({"count": 0}, "test-options: count must be an integer >= 1, got 0"),
        ({"count": "3"}, "test-options: count must be an integer >= 1, got '3'"),
        ({"count": True}, "test-options: count must be an integer >= 1, got True"),
        ({"mode": "c"}, "test-options: mode must be one of a, b, got 'c'"),
        ({"strict": True}, "test-options: strict needs a count"),
        ({"colour": 1}, "test-options: unknown option 'colour'; its options are count, mode, strict"),
    ]:
        with pytest.raises(XsplitError) as info:
            p.apply(module, **bad)
        assert info.value.message == message
    for pipeline, message in [
        ("test-options{count=0}", "test-options: count must be an integer >= 1, got '0'"),
        ("test-options{count=x}", "test-options: count must be an integer >= 1, got 'x'"),
        ("test-options{count=1.5}", "test-options: count must be an integer >= 1, got '1.5'"),
        ("test-options{count=1,2}", "test-options: count must be an integer >= 1, got '1,2'"),
        ("test-options{mode=c}", "test-options: mode must be one of a, b, got 'c'"),
        ("test-options{strict=maybe count=1}", "test-options: strict must be true or false, got 'maybe'"),
    ]:
        with pytest.raises(XsplitError) as info:
            rewrite(ADDI, pipeline)
        assert info.value.message == message
    # Booleans read as MLIR reads them; a flag alone is true.
    for text, value in [("true", True), ("1", True), ("True", True), ("false", False), ("0", False)]:
        (built,) = build_pipeline(f"test-options{{strict={text} count=2}}")
        assert built.strict is value  # type: ignore[attr-defined]
    (built,) = build_pipeline("test-options{strict count=2}")
    assert built.strict is True  # type: ignore[attr-defined]


def test_explain_names_the_failed_constraint_and_location() -> None:
    _fold_add_zero("test-explain")
    with collect_remarks() as remarks, engine_settings(explain=True, stats=True) as settings:
        module = parse_module(ADDI, "in.mlir")
        from xsplit.rewrites.dsl import PASSES

        PASSES["test-explain"].apply(module)
    assert remarks == [
        "in.mlir:6:3: remark: explain: pattern 'test-explain-fold' did not match "
        "'arith.addi': 'operand 1 is the constant 0' failed: it is the constant 1"
    ]
    assert settings.stats == {"test-explain": {"test-explain-fold": 1}}


def test_remark_patterns_say_things_once_and_change_nothing() -> None:
    note = Remark(
        name="note-adds",
        doc="notes each add of one",
        root="arith.addi",
        where=operand(1).is_constant(1),
        message="adds one",
    )
    Pass("test-remark", "remark test", [note])
    with collect_remarks() as remarks:
        out = rewrite(ADDI, "test-remark", "in.mlir")
    assert remarks == ["in.mlir:6:3: remark: adds one"]
    assert out == rewrite(ADDI, "")


def test_rewrites_are_bounded() -> None:
    def swap(m, ir):
        x, y = m.root.operands
        return [ir.b.insert(arith.AddiOp(y, x)).result]

    ping = Pattern("ping", "swaps", "arith.addi", swap, family="ping")
    pong = Pattern("pong", "swaps back", "arith.addi", swap, family="pong")
    Pass("test-ping-pong", "never converges", [ping, pong], max_rewrites=50)
    with pytest.raises(XsplitError, match="did not reach a fixpoint within 50 rewrites"):
        rewrite(ADDI, "test-ping-pong")


def test_higher_benefit_wins_and_ties_keep_declaration_order() -> None:
    def to_constant(value):
        return lambda m, ir: [ir.constant(IntegerAttr(value, i32))]

    low = Pattern("low", "becomes 1", "arith.addi", to_constant(1), benefit=1)
    high = Pattern("high", "becomes 2", "arith.addi", to_constant(2), benefit=2)
    tie = Pattern("tie", "becomes 3", "arith.addi", to_constant(3), benefit=2)
    Pass("test-benefit", "benefit order", [low, high, tie])
    out = rewrite(ADDI, "test-benefit")
    # Both adds become 2: `high` outranks `low`, and is declared before `tie`.
    assert out.count("arith.constant 2 : i32") == 2 and "arith.addi" not in out


def test_output_is_deterministic() -> None:
    from tests.e2e.cases import CASES

    for case in CASES[:6]:
        runs = {rewrite(case.mlir, case.pipeline) for _ in range(3)}
        assert len(runs) == 1


def test_registered_patterns_are_listed() -> None:
    import xsplit

    names = {(p.pass_name, p.name) for p in xsplit.patterns()}
    assert ("split-k", "split-k-forall") in names
    assert ("split-k", "split-k-expand") in names
    assert ("materialize-late", "dispatch-region-to-workgroups") in names


def test_loading_a_pattern_file(tmp_path) -> None:
    import xsplit
    from tests.e2e.cases import matmul

    xsplit.load_patterns("examples/patterns/fold_zero_init.py")
    assert any(p.pass_name == "fold-zero-init" for p in xsplit.patterns())
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(XsplitError, match="cannot load patterns from .*RuntimeError: boom"):
        xsplit.load_patterns(str(bad))
    with pytest.raises(XsplitError, match="no such file"):
        xsplit.load_patterns(str(tmp_path / "missing.py"))
    del matmul


def test_print_module_roundtrips_dsl_output() -> None:
    module = parse_module(ADDI)
    assert print_module(module) == print_module(parse_module(print_module(module)))
