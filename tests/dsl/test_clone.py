"""`$clone` in templates (`xsplit/rewrites/dsl/clone.py`): copies of captured
ops, on their own operands or given ones, with other result types, with
the values they read replaced, and empty lists left out as MLIR does."""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType

from xsplit.api import rewrite
from xsplit.rewrites.dsl import Pass, Pattern, attr, operand, result, where
from xsplit.rewrites.dsl.clone import CloningTemplate, _placeholder
from xsplit.rewrites.dsl.structure import the_value, values_from_above

SRC = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}"""


def _pass(name: str, template: CloningTemplate, where=None) -> None:
    captures = operand(0).capture("x") & operand(1).capture("init") & result(0).capture("r")
    Pass(
        name,
        "clone test",
        [
            Pattern(
                name=name,
                doc="clone test",
                root="linalg.generic",
                where=captures & (where if where is not None else captures),
                rewrite=template,
            )
        ],
    )


def test_a_copy_on_other_operands_keeps_its_region() -> None:
    _pass(
        "test-clone-operands",
        CloningTemplate(
            """
%0 = arith.negf $x : $x.type
%1 = $clone $r(%0, $init : $x.type, $init.type) -> ($r.type)
"""
        ),
    )
    out = rewrite(SRC, "test-clone-operands")
    assert "arith.negf %a" in out
    assert "ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>)" in out
    assert "arith.mulf %x, %s : f32" in out and out.count("linalg.generic") == 1


def test_a_copy_reads_the_values_it_is_given_instead() -> None:
    _pass(
        "test-clone-replacing",
        CloningTemplate(
            """
$for i in $scalars:
%k$i = arith.constant 3.0 : f32
$end
%1 = $clone $r replacing $scalars with %k
""",
        ),
        values_from_above().capture_those("scalars", the_value.is_constant()),
    )
    out = rewrite(SRC, "test-clone-replacing")
    assert "arith.constant 3.000000e+00 : f32" in out
    assert "arith.constant 2.0" not in out and "2.000000e+00" not in out  # erased, unused
    assert "arith.mulf %x, %k" in out or "arith.mulf %x, %0" in out


def test_an_empty_list_leaves_no_comma_and_no_braces() -> None:
    line = _placeholder("%1 = $clone $r replacing $none with %k")
    assert '"xsplit.template_clone"(%k[*none]) {xsplit.source = "r"' in line
    _pass(
        "test-clone-empty",
        CloningTemplate(
            """
%0 = flow.dispatch.region -> ($r.type{$none}) {
  %1 = $clone $r replacing $none with %k
  flow.return %1 : $r.type
}
""",
        ),
        values_from_above().capture_those("none", the_value.type_is(IndexType)),
    )
    out = rewrite(SRC, "test-clone-empty")
    assert "flow.dispatch.region -> (tensor<4xf32>) {" in out
    assert "flow.return" in out


def test_names_follow_the_template() -> None:
    kept = _placeholder("%copy = $clone $r")
    unnamed = _placeholder("%3 = $clone $r")
    assert "xsplit.unnamed" not in kept and "xsplit.unnamed" in unnamed


REGION = """
func.func @g(%a: f32) -> f32 {
  %r = flow.dispatch.region -> (f32) {
    %m = arith.mulf %a, %a : f32
    flow.return %m : f32
  }
  func.return %r : f32
}"""


def test_copies_of_a_list_of_ops_yield_what_the_template_reads() -> None:
    from xsplit.rewrites.dsl.structure import region_ops

    Pass(
        "test-clone-ops",
        "clone test",
        [
            Pattern(
                name="test-clone-ops",
                doc="clone test",
                root="flow.dispatch.region",
                where=region_ops("body", "body", yielded="yielded")
                & values_from_above().capture("above")
                & result(0).capture("r"),
                rewrite=CloningTemplate(
                    """
%v0 = arith.constant 3.0 : f32
%0 = flow.dispatch.region -> ($r.type) {
  %y:1 = $clone $body.ops replacing $above with %v yielding $yielded
  %1 = arith.negf %y#0 : f32
  flow.return %1 : f32
}
"""
                ),
            )
        ],
    )
    out = rewrite(REGION, "test-clone-ops")
    # The region's mulf is copied, on the template's constant for %a, and the
    # negf the template adds reads the copy.
    assert "%m = arith.mulf %v0, %v0 : f32" in out
    assert "arith.negf %m : f32" in out and out.count("arith.mulf") == 1


def test_a_copy_takes_the_attributes_and_names_the_line_gives() -> None:
    line = _placeholder(
        "%t = $clone $r(%0, $init : $x.type, $init.type) -> ($r.type)"
        ' with {xsplit.split_part = "tail"} renamed'
    )
    assert 'xsplit.adding = {xsplit.split_part = "tail"}' in line and "xsplit.renamed" in line
    _pass(
        "test-clone-adding",
        CloningTemplate(
            """
%0 = arith.negf $x : $x.type
%tail = $clone $r(%0, $init : $x.type, $init.type) -> ($r.type) with {xsplit.split_part = "tail"} renamed
"""
        ),
    )
    out = rewrite(SRC, "test-clone-adding")
    # The copy is the template's %tail, not the original's %r, and carries
    # the attribute beside its own maps and body.
    assert '%tail = linalg.generic' in out and "%r = " not in out
    assert 'attrs =  {xsplit.split_part = "tail"}' in out
    assert "arith.mulf %x, %s : f32" in out


def test_without_renamed_a_copy_keeps_the_original_names() -> None:
    _pass(
        "test-clone-keeps-names",
        CloningTemplate(
            """
%0 = arith.negf $x : $x.type
%tail = $clone $r(%0, $init : $x.type, $init.type) -> ($r.type)
"""
        ),
    )
    out = rewrite(SRC, "test-clone-keeps-names")
    assert "%r = linalg.generic" in out and "xsplit.split_part" not in out


SQUARE = """
func.func @h(%a: tensor<4x4xf32>, %e: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}"""


def test_with_replaces_an_inherent_attribute() -> None:
    _pass(
        "test-clone-maps",
        CloningTemplate(
            "%t = $clone $r with {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, "
            "affine_map<(d0, d1) -> (d0, d1)>]} renamed"
        ),
    )
    out = rewrite(SQUARE, "test-clone-maps")
    # The maps are the generic's own (a property): the copy transposes, and
    # gains no discardable attribute of that name.
    assert "%t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>" in out
    assert "attrs" not in out


def test_a_copy_takes_operands_listed_by_a_repetition_within_the_line() -> None:
    # One operand per value of a list, each a template value named per index.
    _pass(
        "test-clone-inline-operands",
        CloningTemplate(
            """
$for i in $xs:
%$names[$i] = arith.negf $xs[$i] : $xs[$i].type
$end
%1 = $clone $r(${i in $xs: %$names[$i]}, $init : $xs.type, $init.type) -> ($r.type)
""",
            xs=lambda m: [m["x"]],
            names=lambda m: ["negated"],
        ),
    )
    out = rewrite(SRC, "test-clone-inline-operands")
    assert "%negated = arith.negf %a" in out
    assert "ins(%negated : tensor<4xf32>) outs(%e : tensor<4xf32>)" in out
    assert "arith.mulf %x, %s : f32" in out


def test_a_copy_of_the_root_in_its_place_is_the_root_updated() -> None:
    # As after an UpdateRoot (MLIR's modifyOpInPlace), no pattern of another
    # family tries the copy again: it is the op the pass already saw.
    tried: list[str] = []

    def watch(m):
        tried.append(m.root.name)
        return "only watching"

    Pass(
        "test-clone-in-place",
        "clone test",
        [
            Pattern(
                name="test-mark-in-place",
                doc="clone test",
                root="linalg.generic",
                where=result(0).capture("r") & ~attr("xsplit.test_mark").is_present(),
                rewrite=CloningTemplate("%r = $clone $r with {xsplit.test_mark = 1 : i64}"),
                benefit=2,
            ),
            Pattern(
                name="test-watch",
                doc="clone test",
                root="linalg.generic",
                where=where("it is watched", watch),
                rewrite=CloningTemplate("%r = $clone $r"),
            ),
        ],
    )
    out = rewrite(SRC, "test-clone-in-place")
    assert "%r = linalg.generic" in out and "xsplit.test_mark = 1 : i64" in out
    assert tried == []
