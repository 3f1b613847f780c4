"""Differential test: the DSL engine running the README's fold pattern and a
plain hand-written xDSL RewritePattern doing the same rewrite must print
identical output on every input of a generated corpus."""

from __future__ import annotations

import itertools

import pytest
from xdsl.dialects import arith
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

import xsplit
from xsplit.api import parse_module, print_module
from xsplit.dialects.linalg import MatmulOp


class FoldZeroInitHandwritten(RewritePattern):
    """add(matmul(A, B, fill 0), C) -> matmul(A, B, C), written the usual way."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddfOp, rewriter: PatternRewriter) -> None:
        for mm_value, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            mm = mm_value.owner
            if not isinstance(mm, MatmulOp) or mm_value.uses.get_length() != 1:
                continue
            fill = mm.outputs[0].owner
            if not isinstance(fill, linalg.FillOp):
                continue
            cst = fill.inputs[0].owner
            if not isinstance(cst, arith.ConstantOp) or cst.value.value.data != 0:
                continue
            new = MatmulOp([mm.inputs[0], mm.inputs[1]], [c])
            rewriter.replace(op, new)
            _erase_dead_chain(rewriter, mm)
            return


def _erase_dead_chain(rewriter: PatternRewriter, op: Operation) -> None:
    worklist = [op]
    while worklist:
        current = worklist.pop()
        if current.parent is None or any(r.uses for r in current.results):
            continue
        producers = [v.owner for v in current.operands if isinstance(v.owner, Operation)]
        rewriter.erase(current)
        worklist.extend(p for p in producers if p.name in _FREE)


_FREE = {"linalg.matmul", "linalg.fill", "tensor.empty", "arith.constant"}


def corpus() -> list[tuple[str, str]]:
    cases = []
    for fill, side, uses, elt in itertools.product(
        ("0.0", "1.0", "-0.0", "arg"), ("left", "right"), (1, 2), ("f32", "f16")
    ):
        t = f"tensor<4x3x{elt}>"
        ta, tb = f"tensor<4x8x{elt}>", f"tensor<8x3x{elt}>"
        value = "%s" if fill == "arg" else "%cst"
        const = "" if fill == "arg" else f"  %cst = arith.constant {fill} : {elt}\n"
        add = "arith.addf %mm, %c" if side == "left" else "arith.addf %c, %mm"
        extra = ", %mm" if uses == 2 else ""
        extra_t = f", {t}" if uses == 2 else ""
        src = (
            f"func.func @f(%a: {ta}, %b: {tb}, %c: {t}, %s: {elt}) -> ({t}{extra_t}) {{\n"
            f"{const}"
            f"  %e = tensor.empty() : {t}\n"
            f"  %z = linalg.fill ins({value} : {elt}) outs(%e : {t}) -> {t}\n"
            f"  %mm = linalg.matmul ins(%a, %b : {ta}, {tb}) outs(%z : {t}) -> {t}\n"
            f"  %r = {add} : {t}\n"
            f"  func.return %r{extra} : {t}{extra_t}\n}}\n"
        )
        cases.append((f"fill-{fill}-{side}-uses{uses}-{elt}", src))
    return cases


CORPUS = corpus()


@pytest.mark.parametrize(("name", "source"), CORPUS, ids=[n for n, _ in CORPUS])
def test_dsl_and_handwritten_agree(name: str, source: str) -> None:
    xsplit.load_patterns("examples/patterns/fold_zero_init.py")
    by_dsl = xsplit.rewrite(source, "fold-zero-init")

    module = parse_module(source)
    PatternRewriteWalker(FoldZeroInitHandwritten()).rewrite_module(module)
    by_hand = print_module(module)

    assert by_dsl == by_hand
    folds = name.startswith(("fill-0.0", "fill--0.0")) and "uses1" in name
    assert ("linalg.fill" not in by_dsl) == folds
