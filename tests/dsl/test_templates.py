"""Template holes: computed numbers and attributes, value lists, repetition,
regions, and results named or captured."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir.affine import AffineMap

from xsplit.api import rewrite
from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dsl import Pass, Pattern, Template, operand, where

SRC = """
func.func @f(%a: i32, %b: i32, %c: i64) -> (i32, i64) {
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %c, %c : i64
  func.return %0, %1 : i32, i64
}"""


def _pass(name: str, template: Template, where_=None) -> None:
    Pass(
        name,
        "template test",
        [
            Pattern(
                name=name,
                doc="template test",
                root="arith.addi",
                where=(operand(0).capture("x") & operand(1).capture("y"))
                & (where_ if where_ is not None else operand(0).capture("x")),
                rewrite=template,
            )
        ],
    )


def _width(m) -> int:
    return m["x"].type.width.data


def test_a_helper_computes_a_number_hole() -> None:
    template = Template(
        "%w = arith.constant $bits : $x.type\n%r = arith.muli $x, %w : $x.type", bits=_width
    )
    _pass("test-t-number", template)
    out = rewrite(SRC, "test-t-number")
    assert "arith.constant 32 : i32" in out and "arith.constant 64 : i64" in out
    assert out.count("arith.muli") == 2
    # Parsed once per distinct content of its holes: the width and the types.
    assert len(template._parsed) == 2  # pyright: ignore[reportPrivateUsage]


def test_a_helper_computes_an_attribute_hole_in_an_op_with_a_region() -> None:
    template = Template(
        "%v = tensor.from_elements $x, $y : tensor<2x$x.type>\n"
        "%e = tensor.empty() : tensor<2x$x.type>\n"
        "%g = linalg.generic {indexing_maps = [$map, $map], iterator_types = [\"parallel\"]}"
        " ins(%v : tensor<2x$x.type>) outs(%e : tensor<2x$x.type>) {\n"
        "^bb0(%i: $x.type, %o: $x.type):\n"
        "  %twice = arith.addi %i, %i : $x.type\n"
        "  linalg.yield %twice : $x.type\n"
        "} -> tensor<2x$x.type>\n"
        "%c1 = arith.constant 1 : index\n"
        "%r = tensor.extract %g[%c1] : tensor<2x$x.type>",
        map=lambda m: AffineMapAttr(AffineMap.identity(1)),
    )
    _pass("test-t-attr", template)
    out = rewrite(SRC, "test-t-attr")
    assert out.count("linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, "
                     "affine_map<(d0) -> (d0)>]") == 2
    assert "%twice = arith.addi %i, %i : i32" in out
    assert "%r = tensor.extract %g[%c1] : tensor<2xi32>" in out
    assert "func.return %r, %r_1 : i32, i64" in out


def test_a_for_block_repeats_ops_and_chains_them() -> None:
    # x + y becomes x * 3 (three adds of x chained), to see the repetition.
    template = Template(
        "%acc0 = arith.addi $x, $x : $x.type\n"
        "$for i in 1..$count:\n"
        "%acc$i = arith.addi %acc$i.prev, $x : $x.type\n"
        "$end\n",
        count=lambda m: 2,
    )
    _pass("test-t-for", template)
    out = rewrite(SRC, "test-t-for")
    assert out.count("arith.addi") == 4
    assert "%acc1 = arith.addi %acc0, %a : i32" in out
    assert "func.return %acc1, %acc1_1 : i32, i64" in out


def test_value_lists_and_indexing() -> None:
    template = Template(
        "$for i in $xs:\n"
        "%d$i = arith.muli $xs[$i], $xs[$i] : $xs[$i].type\n"
        "$end\n"
        "%r = arith.addi %d0, %d1 : $x.type",
        results=["%r"],
        xs=lambda m: [m["x"], m["y"]],
    )
    _pass("test-t-list", template)
    out = rewrite(SRC, "test-t-list")
    assert "%d0 = arith.muli %a, %a : i32" in out and "%d1 = arith.muli %b, %b : i32" in out
    assert "%r = arith.addi %d0, %d1 : i32" in out


def test_results_name_a_value_or_a_capture() -> None:
    named = Template(
        "%keep = arith.subi $x, $y : $x.type\n%other = arith.muli $x, $y : $x.type",
        results=["%keep"],
    )
    _pass("test-t-named", named)
    out = rewrite(SRC, "test-t-named")
    assert "%keep = arith.subi %a, %b : i32" in out
    assert "func.return %keep, %keep_1 : i32, i64" in out
    # DRR's replaceWithValue: no ops, the root is replaced by a capture.
    _pass("test-t-capture", Template("", results=["$y"]))
    out = rewrite(SRC, "test-t-capture")
    assert "arith.addi" not in out and "func.return %b, %c : i32, i64" in out


def test_unknown_holes_and_unbalanced_for_are_clear_errors() -> None:
    _pass("test-t-unknown", Template("%r = arith.muli $x, $nowhere : $x.type"))
    with pytest.raises(XsplitError, match=r"\$nowhere is neither a capture nor a helper"):
        rewrite(SRC, "test-t-unknown")
    _pass("test-t-open", Template("$for i in $n:\n%r = arith.muli $x, $x : $x.type", n=lambda m: 1))
    with pytest.raises(XsplitError, match=r"\$for without \$end"):
        rewrite(SRC, "test-t-open")


def test_indexing_one_value_or_past_a_list_is_a_clear_error() -> None:
    # `$x[1]` on one captured value once wrote `$x` whole, the index dropped.
    _pass("test-t-index-one", Template("%r = arith.muli $x[1], $x : $x.type"))
    with pytest.raises(XsplitError, match=r"\$x is one value, not a list to index"):
        rewrite(SRC, "test-t-index-one")
    _pass(
        "test-t-index-past",
        Template("%r = arith.muli $xs[2], $x : $x.type", xs=lambda m: [m["x"], m["y"]]),
    )
    with pytest.raises(XsplitError, match=r"\$xs\[2\] is past its 2 values"):
        rewrite(SRC, "test-t-index-past")


def test_a_repetition_over_what_is_no_count_is_a_clear_error() -> None:
    _pass("test-t-for-count", Template("$for i in $n:\n%r$i = arith.muli $x, $x : $x.type\n$end", n=lambda m: "two"))
    with pytest.raises(XsplitError, match=r"template \$for needs a count, \$n is 'two'"):
        rewrite(SRC, "test-t-for-count")
    _pass("test-t-inline-count", Template("%r = arith.addi ${i in $n: $x}, $x : $x.type", n=lambda m: "two"))
    with pytest.raises(XsplitError, match=r"template \$\{i in \.\.\.\} needs a count, \$n is 'two'"):
        rewrite(SRC, "test-t-inline-count")


def test_holes_list_captures_helpers_and_counts_not_loop_indices() -> None:
    t = Template(
        "$for i in 1..$n:\n%a$i = arith.addi $x, $ys[$i] : $x.type\n$end",
        results=["$z"],
    )
    assert t.holes == ["x", "ys", "n", "z"]
    assert where  # the module imports stay used


def test_update_root_sets_attributes_in_place_and_remarks() -> None:
    from xdsl.dialects.builtin import IntegerAttr, i64

    from xsplit.diagnostics import collect_remarks
    from xsplit.rewrites.dsl import UpdateRoot

    Pass(
        "test-t-update",
        "template test",
        [
            Pattern(
                name="test-t-update",
                doc="marks each add with its operand's width",
                root="arith.addi",
                where=operand(0).capture("x") & ~where(
                    "is marked", lambda m: "xsplit.width" in m.root.attributes
                ),
                rewrite=UpdateRoot(
                    {"xsplit.width": lambda m: IntegerAttr(_width(m), i64)},
                    remark=lambda m: f"width {_width(m)}",
                ),
            )
        ],
    )
    with collect_remarks() as remarks:
        out = rewrite(SRC, "test-t-update")
    assert "%0 = arith.addi %a, %b {xsplit.width = 32 : i64} : i32" in out
    assert "%1 = arith.addi %c, %c {xsplit.width = 64 : i64} : i64" in out
    assert [r.split("remark: ")[-1] for r in remarks] == ["width 32", "width 64"]


def test_a_repetition_within_a_line_lists_one_item_per_index() -> None:
    # A block's arguments and an op's operands, one per value of a list:
    # x + y becomes a generic-free `tensor.from_elements` of x, y, x*x, y*y.
    template = Template(
        "$for i in $xs:\n"
        "%d$i = arith.muli $xs[$i], $xs[$i] : $xs[$i].type\n"
        "$end\n"
        "%v = tensor.from_elements ${i in $xs: $xs[$i]}, ${j in $xs: %d$j} : tensor<4x$x.type>\n"
        "%r = arith.addi $x, $y : $x.type",
        results=["%r"],
        xs=lambda m: [m["x"], m["y"]],
    )
    assert "i" not in template.holes and "j" not in template.holes
    _pass("test-t-inline", template)
    out = rewrite(SRC, "test-t-inline")
    assert "tensor.from_elements %a, %b, %d0, %d1 : tensor<4xi32>" in out
    # An empty list leaves nothing between the commas it would have filled.
    empty = Template(
        "%r = arith.addi $x, $y : $x.type\n%v = tensor.from_elements $x ${i in $none: $y} : tensor<1x$x.type>",
        results=["%r"],
        none=lambda m: [],
    )
    _pass("test-t-inline-empty", empty)
    assert "tensor.from_elements %a : tensor<1xi32>" in rewrite(SRC, "test-t-inline-empty")


def test_a_list_in_a_list_is_written_in_brackets() -> None:
    # A reassociation, `[[0], [1, 2]]`, as a helper's list of lists.
    template = Template(
        "%e = tensor.empty() : tensor<2x6x$x.type>\n"
        "%s = tensor.expand_shape %e [$groups] output_shape [2, 2, 3] : tensor<2x6x$x.type> into tensor<2x2x3x$x.type>\n"
        "%r = arith.addi $x, $y : $x.type",
        results=["%r"],
        groups=lambda m: [[0], [1, 2]],
    )
    _pass("test-t-nested", template)
    out = rewrite(SRC, "test-t-nested")
    assert "tensor.expand_shape %e [[0], [1, 2]] output_shape [2, 2, 3]" in out


def test_an_unclosed_repetition_within_a_line_is_a_clear_error() -> None:
    _pass("test-t-inline-open", Template("%r = arith.addi ${i in $n: $x : $x.type", n=lambda m: 1))
    with pytest.raises(XsplitError, match=r"\$\{ without its \}"):
        rewrite(SRC, "test-t-inline-open")


def test_a_helper_list_mixes_numbers_and_the_templates_own_values() -> None:
    from xsplit.rewrites.dsl.template import value_named

    # An offsets list as MLIR prints it, `[0, %i]`, and one name asked for
    # twice in a `$for`: each repetition's value gets it, as builders name them.
    template = Template(
        "%i = arith.constant 1 : index\n"
        "%t = tensor.empty() : tensor<4x4x$x.type>\n"
        "$for k in $twice:\n"
        "%$names[$k] = tensor.extract_slice %t[$offsets] [1, 1] [1, 1] : tensor<4x4x$x.type> to tensor<1x1x$x.type>\n"
        "$end\n"
        "%r = arith.addi $x, $y : $x.type",
        results=["%r"],
        twice=lambda m: 2,
        names=lambda m: ["piece", "piece"],
        offsets=lambda m: [0, value_named("i")],
    )
    _pass("test-t-mixed", template)
    out = rewrite(SRC, "test-t-mixed")
    assert "%piece = tensor.extract_slice %t[0, %i] [1, 1] [1, 1]" in out
    assert "%piece_1 = tensor.extract_slice %t[0, %i] [1, 1] [1, 1]" in out
