"""`split-k{target=T},materialize-late`, the tool's usage line, compiles with
iree-compile as it is for T = sm_80, sm_90 and gfx942, whichever kernel
split-k picks: IREE's static chunks (what `kernel=auto` picks while the own
kernel's terms are unmeasured), IREE's own split of a decode, and the own
kernel (`kernel=own`, atomic and deterministic merges), which
materialize-late puts in its dispatch form. Their merges hold no
system-scope fence or atomic and no compare-and-swap loop, read off the
sm_90 SASS (ptxas, nvdisasm) and the gfx942 ISA iree-compile dumps."""

from __future__ import annotations

from pathlib import Path

import pytest

from xsplit.api import rewrite
from xsplit.diagnostics import collect_remarks

SEED = Path(__file__).parents[2] / "examples" / "matmul_123x456x51234.mlir"

DECODE = """
func.func @decode(%a: tensor<1x14336xf32>, %b: tensor<14336x4096xf32>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x14336xf32>, tensor<14336x4096xf32>) outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}
"""

GPUS = ("sm_80", "sm_90", "gfx942")


def _late(source: str, split: str) -> tuple[str, list[str]]:
    with collect_remarks() as said:
        out = rewrite(source, f"{split},materialize-late")
    return out, said


def _compiles(out: str, target: str, work: Path) -> bool:
    """Whether iree-compile compiles `out` for `target` all the way. On sm_80
    and gfx942 through `read_machine_code` (the same compile, with its
    executables dumped), which the test run keeps (tests/conftest.py):
    test_no_merge_is_fenced_system_wide reads the same programs (the
    usage line's static chunks, and the own kernel, whose merge is atomic
    by default), and gfx942's compile of the own kernel is the slowest
    here."""
    if target in ("sm_80", "gfx942"):
        from xsplit.bench.machine_code import read_machine_code

        return bool(read_machine_code(out, target, work))
    from xsplit.iree.iree_compile import compile_mlir

    return bool(compile_mlir(out, target))


@pytest.mark.gpu_compile
@pytest.mark.parametrize("target", GPUS)
def test_the_usage_line_compiles_on_every_gpu(target: str, tmp_path: Path) -> None:
    out, said = _late(SEED.read_text(), f"split-k{{target={target}}}")
    assert any(f"own kernel not measured on {target}" in line for line in said), said
    assert "xsplit.split_factor" in out and "xsplit.host" not in out
    assert _compiles(out, target, tmp_path)


@pytest.mark.gpu_compile
@pytest.mark.parametrize(
    "target,merge",
    [("sm_80", "atomic"), ("sm_90", "atomic"), ("gfx942", "atomic"), ("sm_80", "deterministic")],
)
def test_the_own_kernel_through_materialize_late_compiles(
    target: str, merge: str, tmp_path: Path
) -> None:
    out, said = _late(SEED.read_text(), f"split-k{{target={target} kernel=own merge={merge}}}")
    assert any("kernel=own: own kernel" in line for line in said), said
    assert "hal.executable.source" in out and "xsplit.host" not in out, out[-2000:]
    assert "xsplit.kernel_target" not in out
    assert _compiles(out, target, tmp_path)


@pytest.mark.gpu_compile
@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
@pytest.mark.parametrize(
    "source,split,merged",
    [
        (SEED, "split-k{target=T}", "IREE's static chunks"),
        (DECODE, "split-k{target=T}", "IREE's own split"),
        (SEED, "split-k{target=T kernel=own}", "the own kernel's atomics"),
    ],
    ids=["static-chunks", "iree-split", "own-kernel"],
)
def test_no_merge_is_fenced_system_wide(target: str, source, split: str, merged: str, tmp_path) -> None:
    from xsplit.bench.machine_code import read_machine_code

    text = source.read_text() if isinstance(source, Path) else source
    out, _ = _late(text, split.replace("T", target))
    kernels = read_machine_code(out, target, tmp_path)
    assert kernels, merged
    for k in kernels:
        assert not k.system_scope, (merged, k.summary())
        assert k.cmpswap == 0, (merged, k.summary())
    if "own" in split:
        assert any(k.atomic_adds for k in kernels), [k.summary() for k in kernels]
