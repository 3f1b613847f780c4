"""A CPU compile that keeps its executable-targets IR (what `xsplit e2e`
reads the workgroup counts from) writes the vmfb a plain compile writes, and
its counts are those of `--compile-to=executable-targets`."""

from __future__ import annotations

import pytest

from xsplit.iree import iree_compile
from xsplit.iree.iree_compile import compile_keeping, compile_mlir
from xsplit.iree.workgroups import read_counts, workgroup_counts

# Two dispatches: the counts are read per dispatch, in program order.
TWO_DISPATCHES = """\
func.func @f(%a: tensor<64x3001xf32>, %b: tensor<3001x96xf32>, %d: tensor<96x40xf32>) -> tensor<64x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x96xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x3001xf32>, tensor<3001x96xf32>) outs(%c1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %e2 = tensor.empty() : tensor<64x40xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x40xf32>) -> tensor<64x40xf32>
  %s = linalg.matmul ins(%r, %d : tensor<64x96xf32>, tensor<96x40xf32>) outs(%c2 : tensor<64x40xf32>) -> tensor<64x40xf32>
  return %s : tensor<64x40xf32>
}
"""


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_kept_counts_are_the_executable_targets_counts(cache, monkeypatch, tmp_path):
    if cache:
        monkeypatch.setenv(iree_compile.COMPILE_CACHE_VARIABLE, str(tmp_path))
    else:
        monkeypatch.delenv(iree_compile.COMPILE_CACHE_VARIABLE, raising=False)
    monkeypatch.setattr(iree_compile, "_KEPT", {})
    vmfb = compile_keeping(TWO_DISPATCHES, "cpu", "executable-targets")
    assert vmfb == compile_mlir(TWO_DISPATCHES, "cpu")

    compiles: list[tuple] = []
    plain = iree_compile.compile_with_flags
    monkeypatch.setattr(
        iree_compile,
        "compile_with_flags",
        lambda *args: compiles.append(args) or plain(*args),
    )
    kept = workgroup_counts(TWO_DISPATCHES, "cpu")
    assert compiles == []  # read from what the full compile kept
    separate = read_counts(
        compile_mlir(TWO_DISPATCHES, "cpu", compile_to="executable-targets").decode()
    )
    assert len(compiles) == 1
    assert len(kept) == 2 and all(c.total for c in kept)
    assert kept == separate


def test_a_program_not_kept_is_compiled_for_its_counts(monkeypatch):
    monkeypatch.setattr(iree_compile, "_KEPT", {})
    monkeypatch.delenv(iree_compile.COMPILE_CACHE_VARIABLE, raising=False)
    counts = workgroup_counts(TWO_DISPATCHES.replace("3001", "3002"), "cpu")
    assert len(counts) == 2 and all(c.total for c in counts)
