"""What iree-compile 3.13 makes of xsplit's static chunks on the GPUs, read
from the configurations it dumps (`--iree-hal-dump-executable-configurations-to`)
for sm_80 and gfx942, in f32, f16 and bf16, for fixed and generated shapes
(prime K among them, factors that do not divide K):

(a) no dispatch of the split has a dynamic size (IREE 3.13's CUDA code for a
    dynamic-K matmul was wrong on an H200, and gets no K tile);
(b) with `target=`, each chunk's contraction gets a K tile at least as large
    as the one IREE gives the static unsplit matmul (without one, a chunk of
    ceil(K/N) gets the K tile that divides it, as the unsplit K does);
(c) f16 and bf16 chunks get tensor cores (an `mma_kind`) wherever the
    unsplit matmul does;
(d) the split, compiled for the CPU, computes what numpy does.
"""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.e2e.cases import matmul_bf16, named_matmul
from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.interop.check import entry_function, random_inputs
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir, iree_compile_path
from xsplit.targets.gpu_tiles import drop_gpu_tiles
from xsplit.targets.table import target

pytestmark = pytest.mark.gpu_compile

GPUS = ("sm_80", "gfx942")
CONFIG = re.compile(r"lowering_config = #iree_gpu\.lowering_config<\{(.*?)\}>")


def _program(m: int, n: int, k: int, dtype: str) -> str:
    if dtype == "bf16":
        return matmul_bf16(m, n, k)
    return named_matmul("matmul", None, [m, k], [k, n], [m, n], dtype)


FIXED = [(123, 456, 6007, "f32", 7), (123, 456, 6007, "f16", 7), (64, 96, 5003, "bf16", 5)]


def _generated(seed: int) -> tuple[int, int, int, str, int]:
    rng = random.Random(seed)
    k = rng.choice([4099, 7919, rng.randint(2000, 9000)])
    dtype = rng.choice(["f32", "f16", "bf16"])
    return rng.randint(1, 200), rng.randint(8, 300), k, dtype, rng.randint(3, 40)


CASES = FIXED + [_generated(s) for s in range(1)]


def _dump(text: str, gpu: str, where: Path, to_vmfb: bool = True) -> list[str]:
    """The dumped configuration of each dispatch of `text` compiled for `gpu`,
    all the way to a vmfb where `to_vmfb` (xsplit's splits: they must compile),
    else only up to the configurations, which are the same dumps (the unsplit
    matmul is IREE's alone: its whole compile for gfx942 costs some 20
    CPU-seconds, its configuration a tenth of one)."""
    where.mkdir(parents=True)
    configs = where / "configs"
    output = ["-o", str(where / "module.vmfb")]
    if not to_vmfb:
        output = ["--compile-to=executable-configurations", "-o", str(where / "configured.mlir")]
    proc = subprocess.run(
        [iree_compile_path(), *target(gpu).flags, "-", *output,
         f"--iree-hal-dump-executable-configurations-to={configs}"],
        input=text.encode(), capture_output=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return [p.read_text() for p in sorted(configs.iterdir())]


def _contractions(dumps: list[str]) -> list[str]:
    """The dispatches that multiply (a chunk, a tail, the unsplit op), not merges or casts."""
    return [d for d in dumps if "arith.mulf" in d or "linalg.matmul" in d]


def _k_tile(dump: str) -> int:
    """The K elements one reduction step of the dispatch's contraction covers:
    its `reduction` tile, in intrinsics' K where it has an `mma_kind`."""
    (config,) = set(CONFIG.findall(dump))
    reduction = re.search(r"reduction = \[([^\]]*)\]", config)
    assert reduction is not None, config
    step = max(int(x) for x in reduction.group(1).split(","))
    kind = re.search(r"mma_layout<\w+?_(\d+)x(\d+)x(\d+)", config)
    return step * int(kind.group(3)) if kind else step


def _has_mma(dump: str) -> bool:
    return "mma_kind" in dump


def _split(program: str, pipeline: str) -> str:
    module = parse_module(program)
    run_passes(module, build_pipeline(pipeline))
    return print_module(module)


@pytest.mark.parametrize(
    "m,n,k,dtype,factor", CASES, ids=[f"{m}x{n}x{k}-{d}-f{f}" for m, n, k, d, f in CASES]
)
def test_static_chunks_on_gpus(
    m: int, n: int, k: int, dtype: str, factor: int, tmp_path: Path
) -> None:
    program = _program(m, n, k, dtype)
    # IREE's code on the chunks (kernel=iree): xsplit's own kernel, which the
    # model may choose for an f32 seed on sm_80, is tested in tests/reduce.
    pipelines = {gpu: f"split-k{{target={gpu} kernel=iree}},materialize-late" for gpu in GPUS}
    pipelines["factor"] = f"split-k{{factor={factor}}},materialize-late"
    splits = {name: _split(program, p) for name, p in pipelines.items()}
    for gpu in GPUS:
        whole = _contractions(_dump(program, gpu, tmp_path / f"{gpu}-whole", to_vmfb=False))
        assert len(whole) == 1
        # The README's main job, a factor with no target, is compiled for sm_80.
        for name in (gpu, "factor") if gpu == "sm_80" else (gpu,):
            text = splits[name]
            if "scf.forall" not in text:
                continue  # the model left it whole
            dumps = _dump(text, gpu, tmp_path / f"{gpu}-{name}")
            for dump in dumps:  # (a)
                assert not re.search(r"tensor<[^>]*\?", dump), f"{name} on {gpu}: a dynamic size"
            chunks = _contractions(dumps)
            assert len(chunks) >= 2, f"{name} on {gpu}: no chunk dispatch and tail"
            for chunk in chunks:
                if name == gpu:
                    assert _k_tile(chunk) >= _k_tile(whole[0]), f"{name} on {gpu}"  # (b)
                if _has_mma(whole[0]):
                    assert _has_mma(chunk), f"{name} on {gpu}: no tensor cores"  # (c)

    # (d) on the CPU, against numpy in float64 (the GPU tiles left to IREE).
    inputs = random_inputs(entry_function(parse_module(program)), [], seed=k)
    a, b, c = (x.astype(np.float64) for x in inputs)
    if dtype == "bf16":  # the program truncates its f32 inputs to bf16 itself
        a, b = (_bf16(x) for x in (a, b))
    want = c + a @ b
    scale = float((np.abs(a) @ np.abs(b)).max())
    for name in ("sm_80", "factor"):  # gfx942's split is the same aligned form
        module = parse_module(splits[name])
        drop_gpu_tiles(module)
        (got,) = run_on_cpu(compile_mlir(print_module(module), "cpu"), "main", inputs)
        error = float(np.abs(got.astype(np.float64) - want).max())
        assert error <= 1e-5 * scale + 1e-6, f"{name}: off by {error} (scale {scale})"


def _bf16(x: np.ndarray) -> np.ndarray:
    """`x` rounded to bf16 (to nearest even), as arith.truncf rounds."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)
