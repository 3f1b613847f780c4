"""The atomic stage and the deterministic two-kernel form are workgroup-level
code on llvm-cpu: through export-dispatch they compile and run here through
IREE, and match numpy, fused and standalone, sum and max."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reduce.cases import fused, standalone
from xsplit.api import rewrite
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir


def _run(case, pipeline: str) -> None:
    out = rewrite(case.program(), f"{pipeline},export-dispatch{{target=cpu}}")
    vmfb = compile_mlir(out, "cpu")
    inputs = case.inputs(5)
    got = run_on_cpu(vmfb, case.name, inputs)
    want = case.expected(inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(w).max()))


@pytest.mark.parametrize("deterministic", ["false", "true"])
@pytest.mark.parametrize("method", ["sum", "max"])
def test_standalone_on_cpu(deterministic: str, method: str) -> None:
    _run(standalone(method, shape=(7, 203, 5), axis=1), f"lower-reduce{{target=cpu deterministic={deterministic}}}")
    _run(standalone(method, rock=False, shape=(131, 9), axis=0), f"lower-reduce{{stage=atomic target=cpu deterministic={deterministic}}}")


@pytest.mark.parametrize("deterministic", ["false", "true"])
@pytest.mark.parametrize("method", ["sum", "max"])
def test_fused_on_cpu(deterministic: str, method: str) -> None:
    _run(fused(method, axis=1, returned=True), f"fuse-reduction,lower-reduce{{target=cpu deterministic={deterministic}}}")
    _run(fused(method, axis=0, returned=False, rock=False), f"fuse-reduction,lower-reduce{{target=cpu deterministic={deterministic}}}")


def test_cpu_refuses_thread_level_stages() -> None:
    from xsplit.diagnostics import XsplitError

    with pytest.raises(XsplitError, match="stage=lds is thread-level code"):
        rewrite(standalone("sum").program(), "lower-reduce{stage=lds target=cpu}")
