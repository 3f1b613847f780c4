"""`$move` in templates (`xsplit/rewrites/dsl/clone.py`), and the template
pieces the dispatch templates need (`template.py`): `$if`/`$else`, a list
of value lists as a hole, `unnamed=True`; `ValuesRef.distinct()`."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IndexType

from xsplit.api import parse_module, rewrite
from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dsl import Pass, Pattern, Template, operand, result
from xsplit.rewrites.dsl.clone import CloningTemplate, _placeholder
from xsplit.rewrites.dsl.constraints import Match
from xsplit.rewrites.dsl.structure import (
    operands,
    outputs,
    region_ops,
    results,
    the_value,
    values_from_above,
)

LOOP = """
func.func @f(%a: tensor<4xf32>, %n: index) -> tensor<?xf32> {
  %s = arith.constant 2.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%e : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %u = arith.addf %r, %r : tensor<?xf32>
  func.return %u : tensor<?xf32>
}"""


def _pass(name: str, root: str, where, template) -> None:
    Pass(name, "move test", [Pattern(name=name, doc="move test", root=root, where=where, rewrite=template)])


def _sizes(m) -> list[list]:
    return [list(v.owner.dynamic_sizes) for v in m["outs"]]


def test_a_root_moved_into_a_region_keeps_its_body_and_its_uses_outside_read_the_region() -> None:
    _pass(
        "test-move-root",
        "linalg.generic",
        results().capture("loop")
        & outputs().distinct().capture("outs")
        & values_from_above().capture_those("scalars", the_value.is_constant()),
        CloningTemplate(
            """
%0 = flow.dispatch.region -> (
$for r in $loop:
  $loop[$r].type{$sizes[$r]},
$end
  ) {
$for c in $scalars:
  %k$c = $clone $scalars[$c]
$end
  $move $root replacing $scalars with %k
  flow.return $loop : $loop.type
}
""",
            unnamed=True,
            sizes=_sizes,
        ),
    )
    out = rewrite(LOOP, "test-move-root")
    # The generic is inside, reads the copy of %s, and is the one generic;
    # the addf after it reads the region; the region carries the size %n.
    assert "%r = flow.dispatch.region -> (tensor<?xf32>{%n}) {" in out
    assert "{\n      %s = arith.constant 2.000000e+00 : f32\n      %r_1 = linalg.generic" in out
    assert "arith.mulf %x, %s : f32" in out
    # The original constant is erased (nothing else read it), the generic
    # is moved, not copied.
    assert out.count("arith.constant") == 1 and out.count("linalg.generic") == 1
    assert "flow.return %r_1 : tensor<?xf32>" in out
    assert "arith.addf %r, %r" in out


REGION = """
func.func @g(%a: tensor<4xf32>, %b: f32) -> tensor<4xf32> {
  %c = arith.constant 3.0 : f32
  %r = flow.dispatch.region -> (tensor<4xf32>) {
    %m = linalg.fill ins(%c : f32) outs(%a : tensor<4xf32>) -> tensor<4xf32>
    %n = linalg.fill ins(%b : f32) outs(%m : tensor<4xf32>) -> tensor<4xf32>
    flow.return %n : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}"""

MOVED_OPS = CloningTemplate(
    """
%0 = flow.dispatch.region -> ($r.type) {
$for i in $above:
$if $is_tensor[$i]:
  %in$i = tensor.empty() : $above[$i].type
$else:
  %in$i = arith.constant 5.0 : f32
$end
$end
  %y:1 = $move $body.ops replacing $above with %in yielding $yielded
  %1 = arith.negf %y#0 : $r.type
  flow.return %1 : $r.type
}
""",
    is_tensor=lambda m: [str(v.type).startswith("tensor") for v in m["above"]],
)


def test_moved_ops_read_the_template_s_values_and_what_follows_reads_theirs() -> None:
    _pass(
        "test-move-ops",
        "flow.dispatch.region",
        region_ops("body", "body", yielded="yielded")
        & values_from_above().capture("above")
        & result(0).capture("r"),
        MOVED_OPS,
    )
    out = rewrite(REGION, "test-move-ops")
    # Both fills moved (not copied), on the template's values for %c, %a
    # and %b; $if chose an empty for the tensor and a constant for the scalars.
    assert out.count("linalg.fill") == 2
    assert "tensor.empty() : tensor<4xf32>" in out
    assert out.count("arith.constant 5.000000e+00 : f32") == 2
    assert "%m = linalg.fill ins(%in0 : f32) outs(%in1 : tensor<4xf32>)" in out
    assert "%n = linalg.fill ins(%in2 : f32) outs(%m : tensor<4xf32>)" in out
    assert "arith.negf %n : tensor<4xf32>" in out
    assert "3.000000e+00" not in out  # the outer constant is dead and erased
    # A region that yields what it captures: what follows reads the
    # template's value for it.
    out = rewrite(REGION.replace("flow.return %n", "flow.return %a"), "test-move-ops")
    assert "arith.negf %in1 : tensor<4xf32>" in out


def test_move_lines_parse_as_placeholders() -> None:
    line = _placeholder("  $move $body.ops replacing $above with %in, $c with %k")
    assert '"xsplit.template_clone"(%in[*above], %k[*c])' in line
    assert 'xsplit.move = "body", xsplit.ops' in line and "-> ()" in line
    assert 'xsplit.move = "root"' in _placeholder("$move $root")


def _addi_pass(name: str, template: Template) -> None:
    _pass(name, "arith.addi", operand(0).capture("x"), template)


NARROW = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  func.return %0 : i32\n}"
WIDE = NARROW.replace("i32", "i64")


def test_if_else_chooses_lines_and_bad_nesting_is_a_clear_error() -> None:
    wide = lambda m: m["x"].type.width.data > 32  # noqa: E731
    _addi_pass(
        "test-if-else",
        Template(
            "$if not $wide:\n%r = arith.subi $x, $x : $x.type\n$else:\n"
            "%r = arith.muli $x, $x : $x.type\n$end",
            wide=wide,
        ),
    )
    assert "arith.subi %a, %a : i32" in rewrite(NARROW, "test-if-else")
    out = rewrite(WIDE, "test-if-else")
    assert "arith.muli %a, %a : i64" in out and "arith.subi" not in out
    # `$if` alone, on an element of a list, inside a `$for`.
    _addi_pass(
        "test-if-each",
        Template(
            "$for i in $flags:\n$if $flags[$i]:\n%c$i = arith.constant $i : $x.type\n$end\n$end\n"
            "%r = arith.muli $x, $x : $x.type",
            flags=lambda m: [True, False, True],
        ),
    )
    out = rewrite(NARROW, "test-if-each")
    assert "arith.constant 0 : i32" in out and "arith.constant 2 : i32" in out
    assert "arith.constant 1 : i32" not in out
    _addi_pass("test-if-open", Template("$if $w:\n%r = arith.addi $x, $x : $x.type", w=lambda m: 1))
    with pytest.raises(XsplitError, match=r"\$if without \$end"):
        rewrite(NARROW, "test-if-open")
    _addi_pass("test-else-alone", Template("$else:\n%r = arith.addi $x, $x : $x.type"))
    with pytest.raises(XsplitError, match=r"\$else without \$if"):
        rewrite(NARROW, "test-else-alone")


def test_unnamed_values_take_the_names_of_what_they_stand_for() -> None:
    src = "func.func @f(%a: i32) -> i32 {\n  %sum = arith.addi %a, %a : i32\n  func.return %sum : i32\n}"
    for unnamed, expected in ((False, "%twice = arith.muli"), (True, "%sum = arith.muli")):
        name = f"test-unnamed-{unnamed}"
        Pass(
            name,
            "unnamed test",
            [
                Pattern(
                    name=name,
                    doc="unnamed test",
                    root="arith.addi",
                    where=operand(0).capture("x"),
                    rewrite=Template("%twice = arith.muli $x, $x : $x.type", unnamed=unnamed),
                )
            ],
        )
        assert expected in rewrite(src, name)


def test_distinct_values_appear_once() -> None:
    # The generic reads %e twice, as its input and its init.
    generic = next(op for op in parse_module(LOOP, "loop.mlir").walk() if op.name == "linalg.generic")
    m = Match(generic, {})
    assert operands().capture("all").check(m) is None and len(m.captures["all"]) == 2
    m = Match(generic, {})
    assert operands().distinct().capture("all").check(m) is None
    assert len(m.captures["all"]) == 1
