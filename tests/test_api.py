"""The Python rewrite API."""

from __future__ import annotations

import pytest

import xsplit
from xsplit.api import parse_module, rewrite, rewrite_module
from xsplit.diagnostics import XsplitError

from tests.e2e.cases import matmul


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
    with pytest.raises(XsplitError, match="factor must be positive"):
        rewrite(matmul(8, 8, 100), "split-k{factor=-1}")


def test_package_exports() -> None:
    assert xsplit.rewrite is rewrite and xsplit.XsplitError is XsplitError


def test_empty_input_is_an_empty_module() -> None:
    assert rewrite("", "split-k") == rewrite("// only a comment\n", "split-k")
    assert "builtin.module" in rewrite("", "split-k")
