"""The Python rewrite API."""

from __future__ import annotations

import pytest

import xsplit
from tests.e2e.cases import matmul
from xsplit.api import parse_module, rewrite, rewrite_module
from xsplit.diagnostics import XsplitError


def test_rewrite_text_in_text_out() -> None:
    out = rewrite(matmul(8, 8, 1000), "split-k{factor=4},materialize-late")
    assert "flow.dispatch.workgroups" in out and "scf.forall" in out


def test_rewrite_module_in_place() -> None:
    module = parse_module(matmul(8, 8, 1000))
    assert rewrite_module(module, "split-k{factor=4}") is module
    assert any(op.name == "scf.forall" for op in module.walk())


def test_errors_carry_the_cli_diagnostic() -> None:
    with pytest.raises(XsplitError) as info:
        rewrite("func.func @f() {\n  %0 = foo.bar() : () -> i32\n}\n", "split-k", "in.mlir")
    assert info.value.diagnostic == "in.mlir:2:15: error: Operation foo.bar is not registered"
    with pytest.raises(XsplitError, match="factor must be an integer >= 1, got '-1'"):
        rewrite(matmul(8, 8, 100), "split-k{factor=-1}")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: xsplit.rewrite(matmul(8, 8, 100), 123), "error: a pass pipeline is text, not int"),
        (lambda: xsplit.rewrite(None, "split-k"), "error: rewrite's source is text, not NoneType"),
        (
            lambda: xsplit.rewrite(matmul(8, 8, 100), "split-k", 7),
            "error: rewrite's filename is text, not int",
        ),
        (
            lambda: xsplit.rewrite_module("not a module", "split-k"),
            "error: rewrite_module takes an xDSL ModuleOp, not str",
        ),
        (
            lambda: xsplit.rewrite_module(parse_module(matmul(8, 8, 100)), ["split-k"]),
            "error: a pass pipeline is text, not list",
        ),
        (lambda: xsplit.load_patterns(3), "error: load_patterns takes a file path, not int"),
        (
            lambda: xsplit.rewrite(matmul(8, 8, 100), "split-k{factor=true}"),
            "error: split-k: factor must be an integer >= 1, got 'true'",
        ),
        (
            lambda: xsplit.rewrite(matmul(8, 8, 100), "split-k{size=4}"),
            "error: split-k: unknown option 'size'; its options are factor, tile, strategy, "
            "balanced, align, pad_m, cpu_tiles, merge, kernel, target",
        ),
    ],
)
def test_bad_arguments_raise_only_xsplit_error(call, message: str) -> None:
    with pytest.raises(XsplitError) as info:
        call()
    assert info.value.diagnostic == message


def test_pass_classes_check_their_options_when_built_directly() -> None:
    from xsplit.rewrites.split.split_k import SPLIT_K

    with pytest.raises(XsplitError) as info:
        SPLIT_K.pass_class(factor=0)  # type: ignore[call-arg]
    assert info.value.diagnostic == "error: split-k: factor must be an integer >= 1, got 0"


def test_package_exports() -> None:
    assert xsplit.rewrite is rewrite and xsplit.XsplitError is XsplitError


def test_empty_input_is_an_empty_module() -> None:
    assert rewrite("", "split-k") == rewrite("// only a comment\n", "split-k")
    assert "builtin.module" in rewrite("", "split-k")
