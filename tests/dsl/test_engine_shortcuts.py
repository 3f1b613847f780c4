"""What the engine skips for speed changes nothing: patterns the options rule
out are not tried (but are explained), and templates are verified when asked
(the tests ask; the tool's output is verified anyway)."""

from __future__ import annotations

import pytest

from xsplit.api import parse_module, rewrite
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.rewrites.dsl import Option, Pass, Pattern, Template, engine_settings, operand, option
from xsplit.rewrites.dsl.constraints import Predicate
from xsplit.rewrites.dsl.template import VERIFY_TEMPLATES_VARIABLE

ADDI = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  func.return %0 : i32
}"""


def _counting(calls: list[str], name: str, structural: bool) -> Predicate:
    def test(m) -> bool:
        calls.append(name)
        return True

    return Predicate(name, test, structural=structural)


def _mode_pass(name: str, calls: list[str]) -> Pass:
    """A structural test, then mode = a, then a native test, in a pattern;
    a native test, then mode = a, in another."""
    structural_first = Pattern(
        name=f"{name}-structural-first",
        doc="test",
        root="arith.addi",
        where=_counting(calls, "structural", True)
        & (option("mode") == "a")
        & _counting(calls, "after", False),
        rewrite=lambda m, ir: [m.root.operands[0]],
    )
    native_first = Pattern(
        name=f"{name}-native-first",
        doc="test",
        root="arith.addi",
        where=_counting(calls, "native", False) & (option("mode") == "a"),
        rewrite=lambda m, ir: [m.root.operands[0]],
    )
    return Pass(
        name,
        "test",
        [structural_first, native_first],
        options=[Option("mode", str, "a", "which", choices=("a", "b"))],
    )


def test_a_pattern_the_options_rule_out_is_not_tried() -> None:
    calls: list[str] = []
    _mode_pass("test-skip-by-options", calls)
    out = rewrite(ADDI, "test-skip-by-options{mode=b}")
    assert "arith.addi" in out
    # The native test before the option check may do more than test (a
    # remark): it still runs; the structural one need not.
    assert calls == ["native"]
    calls.clear()
    out = rewrite(ADDI, "test-skip-by-options{mode=a}")
    assert "arith.addi" not in out and calls == ["structural", "after"]


def test_explanations_still_name_a_pattern_the_options_rule_out() -> None:
    calls: list[str] = []
    p = _mode_pass("test-explain-skip", calls)
    with collect_remarks() as remarks, engine_settings(explain=True):
        p.apply(parse_module(ADDI), mode="b")
    assert calls == ["structural", "native"]
    said = "\n".join(remarks)
    assert "pattern 'test-explain-skip-structural-first' did not match" in said
    assert "'mode = a' failed: mode is b" in said


def _invalid_template_pass(name: str) -> None:
    # Parses (the generic form), and fails verification: the result type is
    # not the operands'.
    Pass(
        name,
        "test",
        [
            Pattern(
                name=name,
                doc="test",
                root="arith.addi",
                where=operand(0).capture("x"),
                rewrite=Template('%r = "arith.addi"($x, $x) : ($x.type, $x.type) -> i64'),
            )
        ],
    )


def test_templates_are_verified_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    _invalid_template_pass("test-unverified-template")
    monkeypatch.setenv(VERIFY_TEMPLATES_VARIABLE, "1")
    with pytest.raises(XsplitError, match="bad template"):
        rewrite(ADDI, "test-unverified-template")
    # Not asked, the template is parsed only; the pass's output is verified.
    monkeypatch.setenv(VERIFY_TEMPLATES_VARIABLE, "0")
    with pytest.raises(XsplitError, match="produced invalid IR"):
        rewrite(ADDI, "test-unverified-template")


def test_a_structural_test_is_decided_once_per_op_for_every_pattern() -> None:
    calls: list[str] = []
    shared = _counting(calls, "shared", True)
    native = _counting(calls, "native", False)
    never = Predicate("never", lambda m: False, structural=True)
    patterns = [
        Pattern(
            name=f"test-shared-{i}",
            doc="test",
            root="arith.addi",
            where=shared & ~shared & never,
            rewrite=lambda m, ir: [m.root.operands[0]],
        )
        for i in range(2)
    ]
    # After a capture, a test may read it: it is tried each time.
    patterns.append(
        Pattern(
            name="test-shared-after-capture",
            doc="test",
            root="arith.addi",
            where=operand(0).capture("x") & shared & native & ~native,
            rewrite=lambda m, ir: [m.root.operands[0]],
        )
    )
    Pass("test-shared-tests", "test", patterns)
    out = rewrite(ADDI, "test-shared-tests")
    assert "arith.addi" in out
    assert calls == ["shared", "shared", "native", "native"]


def _early_pass(name: str, calls: list[str]) -> Pass:
    """Native tests declared pure, then structural tests that fail on the
    op: one reads nothing but the op, one reads a capture the native made,
    one comes after a native test not declared pure."""

    def pure(m) -> bool:
        calls.append("pure")
        m.captures["seen"] = m.root
        return True

    def impure(m) -> bool:
        calls.append("impure")
        return True

    def op_alone(m) -> bool:
        calls.append("op alone")
        return m.root.name != "arith.addi"

    def reads_capture(m) -> bool:
        calls.append("reads capture")
        return m.captures.get("seen") is None

    def pattern(suffix: str, where) -> Pattern:
        return Pattern(
            name=f"{name}-{suffix}",
            doc="test",
            root="arith.addi",
            where=where,
            rewrite=lambda m, ir: [m.root.operands[0]],
        )

    return Pass(
        name,
        "test",
        [
            pattern("op-alone", Predicate("pure", pure, pure=True) & _structural(op_alone)),
            pattern(
                "reads-capture", Predicate("pure", pure, pure=True) & _structural(reads_capture)
            ),
            pattern("impure", Predicate("impure", impure) & _structural(op_alone)),
        ],
    )


def _structural(test) -> Predicate:
    return Predicate(test.__name__, test, structural=True)


def test_a_structural_test_that_fails_on_the_op_alone_is_decided_before_pure_ones() -> None:
    calls: list[str] = []
    p = _early_pass("test-early", calls)
    p.apply(parse_module(ADDI))
    # The first pattern: its structural test, tried first, fails (the pure
    # native test is not run). The second: its test read the capture when
    # tried first, so the match runs in order. The third: the native test
    # may remark, so it runs in order, the test (decided already) after it.
    assert calls == ["op alone", "reads capture", "pure", "reads capture", "impure", "op alone"]
    calls.clear()
    with collect_remarks(), engine_settings(explain=True):
        p.apply(parse_module(ADDI))
    assert calls == ["pure", "op alone", "pure", "reads capture", "impure", "op alone"]
