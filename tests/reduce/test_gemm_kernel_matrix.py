"""xsplit's own GEMM kernel over its option matrix, drawn at random (seeded):
target, element type, mma, warps, tile, threads, stages, prefetch, a_layout,
chunks and merge, on shapes with M or N of 1, unaligned M, N and K, prime K,
K shorter than one K step and more chunks than K steps. Every configuration
gemm-kernel accepts runs race-free and right against numpy in the simulator
after its three lowerings; every one it refuses is a one-line XsplitError
that names an option, never an internal error.

`XSPLIT_GEMM_MATRIX_DRAWS=N` runs N draws instead of the default (and
`XSPLIT_GEMM_MATRIX_SEED=S` another seed): CI runs a few, a developer many.
The accepted ones are also compiled for sm_80 and gfx942 (`gpu_compile`),
and the GPU benchmark's shapes through `bench/gpu.py`'s own-kernel
configurations; the regressions below are the bugs the draws found."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.gemm_kernel import LOWER, ORDERS, expected, inputs, matmul
from tests.helpers.kept import parsed, rewrite_kept
from tests.helpers.simulation import simulate_module
from xsplit.api import rewrite
from xsplit.diagnostics import XsplitError, collect_remarks
from xsplit.dialects.fragments import intrinsic_for

ROOT = Path(__file__).parents[2]
DRAWS = int(os.environ.get("XSPLIT_GEMM_MATRIX_DRAWS", "16"))
SEED = int(os.environ.get("XSPLIT_GEMM_MATRIX_SEED", "32"))
PRIMES = (2, 3, 5, 7, 13, 31, 37, 97, 101)
OPTION_WORDS = (
    "target", "chunks", "merge", "tile", "threads", "stages", "a_layout", "mma", "warps",
    "prefetch",
)  # fmt: skip


@dataclass(frozen=True)
class Case:
    m: int
    n: int
    k: int
    element: str
    options: str

    @property
    def target(self) -> str:
        return re.search(r"target=(\S+)", self.options).group(1)  # type: ignore[union-attr]

    def __str__(self) -> str:
        return f"{self.m}x{self.n}x{self.k} {self.element} gemm-kernel{{{self.options}}}"


def draw(rng: np.random.Generator) -> Case:
    """One point of the matrix. Mostly what the kernel takes (tiles whole in
    warps' blocks with tensor cores, threads dividing the tile without),
    sometimes not; register tiles of at most 16 and workgroups of at most
    256 threads keep the simulator quick."""
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    target, element = pick(["sm_80", "sm_90", "gfx942"]), pick(["f32", "f16", "bf16"])
    mma = pick(["auto", "auto", "none"])
    a_layout = pick(["m", "m", "m", "k"])
    options = [f"target={target}"]
    intr = intrinsic_for(target, element) if mma == "auto" and a_layout == "m" else None
    if intr is not None:
        layouts = [(1, 1), (1, 2), (2, 1)] + ([(2, 2)] if intr.lanes == 32 else [])
        wm, wn = pick(layouts)
        fm, fn = pick([1, 2]), pick([1, 2])
        tile = (wm * intr.m * fm, wn * intr.n * fn, intr.k * pick([1, 1, 2]))
        options += [f"warps={wm},{wn}"]
    else:
        thm, thn = pick([1, 2, 4, 8]), pick([1, 2, 4, 8])
        rm, rn = pick([1, 2, 4]), pick([1, 2, 4])
        tile = (thm * rm, thn * rn, pick([4, 8, 16]))
        options += [f"threads={thm},{thn}"]
    options += [f"tile={','.join(map(str, tile))}", f"mma={mma}", f"a_layout={a_layout}"]
    stages = pick([1, 2])
    if target == "gfx942" and rng.random() < 0.25:
        # Direct-to-LDS loads fill 64 words a wavefront: whole wavefronts
        # over tiles of whole loads.
        layout = "warps=2,1 tile=32,32,16" if intr is not None else "threads=8,8 tile=16,16,8"
        options = [f"target={target}", *layout.split(), f"mma={mma}", "prefetch=lds"]
        tile, stages = (32, 32, 16) if intr is not None else (16, 16, 8), 2
    elif stages == 2 and target == "gfx942" or rng.random() < 0.1:
        options.append(f"prefetch={pick(['registers', 'lds'])}")
    options.append(f"stages={stages}")
    size = lambda: pick([1, int(rng.integers(2, 40)), int(rng.integers(2, 40))])  # noqa: E731
    m, n = size(), size()
    tk = tile[2]
    some, eights = int(rng.integers(2, 130)), 8 * int(rng.integers(1, 12))
    k = pick([1, tk - 1 or 1, pick(PRIMES), some, eights])
    steps = -(-k // tk)
    chunks = pick([1, 2, 3, steps, steps + 3, 64])
    merge = pick(["auto", "auto", "store", "atomic", "deterministic"])
    options += [f"chunks={chunks}", f"merge={merge}"]
    return Case(m, n, k, element, " ".join(options))


def lower(case: Case) -> str:
    with collect_remarks():
        return rewrite_kept(
            matmul(case.m, case.n, case.k, case.element), f"gemm-kernel{{{case.options}}},{LOWER}"
        )


def refusal(case: Case) -> str | None:
    """gemm-kernel's one-line refusal of `case`, or None where it takes it."""
    try:
        with collect_remarks():
            rewrite(matmul(case.m, case.n, case.k, case.element), f"gemm-kernel{{{case.options}}}")
    except XsplitError as e:
        return e.message
    return None


def assert_a_good_refusal(message: str, case: Case) -> None:
    assert "\n" not in message, (str(case), message)
    assert "internal error" not in message and "Error(" not in message, (str(case), message)
    assert any(word in message for word in OPTION_WORDS), (str(case), message)


def simulate_case(case: Case, text: str, seed: int) -> None:
    module = parsed(text, "kernel.mlir")
    args = inputs(case.m, case.n, case.k, seed, case.element)
    report = simulate_module(module, expected(args), args, orders=ORDERS)
    assert report.clean, (str(case), report.races[:3], report.mismatches[:3])


def cases(count: int, seed: int = SEED) -> list[Case]:
    return [draw(np.random.default_rng([seed, i])) for i in range(count)]


def accepted(count: int, seed: int = SEED) -> list[Case]:
    """The first `count` draws the kernel takes."""
    found, i = [], 0
    while len(found) < count:
        case = draw(np.random.default_rng([seed, 1000 + i]))
        i += 1
        if refusal(case) is None:
            found.append(case)
    return found


@pytest.mark.parametrize("case", accepted(DRAWS), ids=str)
def test_accepted_configurations_run_right(case: Case) -> None:
    text = lower(case)
    assert "xsplit_gemm." not in text
    simulate_case(case, text, seed=case.k)


@pytest.mark.parametrize("case", cases(4 * DRAWS), ids=str)
def test_every_draw_is_taken_or_refused_in_one_line(case: Case) -> None:
    """Through all three lowerings: an option the kernel cannot take is
    refused by gemm-kernel in the options' words, and nothing later fails."""
    try:
        text = lower(case)
    except XsplitError as e:
        assert_a_good_refusal(e.message, case)
        return
    assert "xsplit_gemm." not in text


def test_the_draws_cover_the_matrix() -> None:
    """The generator reaches every target, element, merge, stage count and
    second stage, M or N of 1, K below one step and more chunks than steps,
    both taken and refused (so the tests above cannot pass by refusing all)."""
    seen: set[str] = set()
    for case in cases(300):
        if refusal(case) is not None:
            seen.add("refused")
            continue
        seen.add("taken")
        named = r"((?:target|merge|stages|prefetch|mma|a_layout)=\S+)"
        seen.update(re.findall(named, case.options))
        seen.add(case.element)
        tile = re.search(r"tile=\d+,\d+,(\d+)", case.options)
        tk = int(tile.group(1))  # type: ignore[union-attr]
        chunks = int(re.search(r"chunks=(\d+)", case.options).group(1))  # type: ignore[union-attr]
        if min(case.m, case.n) == 1:
            seen.add("M or N of 1")
        if case.k < tk:
            seen.add("K below a step")
        if chunks > -(-case.k // tk):
            seen.add("chunks over the steps")
    want = {
        "taken", "refused", "f32", "f16", "bf16", "target=sm_80", "target=sm_90", "target=gfx942",
        "merge=store", "merge=atomic", "merge=deterministic", "stages=1", "stages=2",
        "prefetch=registers", "prefetch=lds", "mma=auto", "mma=none", "a_layout=k",
        "M or N of 1", "K below a step", "chunks over the steps",
    }  # fmt: skip
    assert want <= seen, want - seen


def test_a_refusal_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    case = Case(37, 45, 101, "f16", "target=sm_80 tile=8,8,8 warps=2,2")
    path = tmp_path / "mm.mlir"
    path.write_text(matmul(case.m, case.n, case.k, case.element))
    proc = subprocess.run(
        [sys.executable, "-m", "xsplit.tools.xsplit_opt", str(path),
         "-p", f"gemm-kernel{{{case.options}}}"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "warps=2,2: 128 threads" in errors[0], proc.stderr


def _bench_gpu():
    """bench/gpu.py, the GPU benchmark, whose own-kernel configurations a GPU
    session runs (it is a script, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_gpu", ROOT / "bench" / "gpu.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _samples(per_target: int) -> list[Case]:
    """The first taken draws of each target, sm_90 with sm_80's (it compiles as sm_80)."""
    found: dict[str, list[Case]] = {"sm_80": [], "gfx942": []}
    i = 0
    while min(len(v) for v in found.values()) < per_target:
        case = draw(np.random.default_rng([SEED, 5000 + i]))
        i += 1
        group = found["gfx942" if case.target == "gfx942" else "sm_80"]
        if len(group) < per_target and refusal(case) is None:
            group.append(case)
    return [c for v in found.values() for c in v]


@pytest.mark.gpu_compile
@pytest.mark.parametrize("case", _samples(3), ids=str)
def test_accepted_configurations_compile(case: Case) -> None:
    """Through export-dispatch and iree-compile for the target (sm_80:
    cuda; gfx942: hip), as a GPU session compiles them."""
    from xsplit.iree.iree_compile import compile_mlir

    with collect_remarks():
        text = rewrite(
            matmul(case.m, case.n, case.k, case.element),
            f"gemm-kernel{{{case.options}}},{LOWER},export-dispatch{{target={case.target}}}",
        )
    assert compile_mlir(text, case.target)


BENCH_SHAPES = [(32, 32, 500009), (64, 96, 200003), (16, 1024, 131071), (2048, 2048, 2048)]
"""bench/shapes_gpu.txt's skinny shapes with prime or odd K, and the square
one; XSPLIT_GEMM_MATRIX_BENCH=all takes every line of the file."""
FULL_COMPILE = {((32, 32, 500009), "f32"), ((2048, 2048, 2048), "f16")}


def _bench_shapes() -> list[tuple[int, int, int]]:
    if os.environ.get("XSPLIT_GEMM_MATRIX_BENCH") != "all":
        return BENCH_SHAPES
    lines = (ROOT / "bench" / "shapes_gpu.txt").read_text().splitlines()
    rows = [line.split()[:3] for line in lines if line.strip() and line[0] != "#"]
    return [(int(m), int(n), int(k)) for m, n, k in rows]


@pytest.mark.gpu_compile
@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("shape", _bench_shapes(), ids=lambda s: "x".join(map(str, s)))
def test_gpu_benchmark_own_kernel_compiles(shape: tuple[int, int, int], dtype: str) -> None:
    """Every own-kernel configuration bench/gpu.py makes of the shape (the
    table's tiles at the model's chunk count, atomic and deterministic, and
    atomic at a quarter and four times the chunks) is taken, and passes
    iree-compile's parser and verifier for sm_80 (--compile-to=flow); one
    shape a type compiles whole (all of them with XSPLIT_GEMM_MATRIX_BENCH=all)."""
    from xsplit.iree.iree_compile import compile_mlir

    m, n, k = shape
    with collect_remarks():
        program = _bench_gpu().own_program(m, n, k, dtype, "sm_90", lambda what: None)
    assert not program.extra["left_out"], program.extra["left_out"]
    assert {"own-atomic", "own-deterministic"} <= {c.name for c in program.configs}
    whole = (shape, dtype) in FULL_COMPILE or os.environ.get("XSPLIT_GEMM_MATRIX_BENCH") == "all"
    for config in program.configs:
        assert "hal.executable.source" in config.text
        compile_to = None if whole and config.name == "own-atomic" else "flow"
        assert compile_mlir(config.text, "sm_80", compile_to=compile_to)


# Regressions: what the draws found.


@pytest.mark.parametrize("threads", ["4,1", "1,1"])
def test_one_thread_along_n(threads: str) -> None:
    """lower-blockwise-gemm crashed (an internal error, "'int' object is not
    iterable") where threads_n was 1: the thread's column folded to 0."""
    tm = int(threads.split(",")[0]) * 2
    case = Case(5, 3, 65, "f32", f"target=gfx942 tile={tm},8,8 threads={threads} stages=2 chunks=3")
    simulate_case(case, lower(case), seed=1)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        # The unrolled 100000-wide register tile never ended; now refused at once.
        ("tile=100000,100000,16 threads=16,16 mma=none", "over the 255 registers"),
        ("tile=256,256,64 warps=2,2", "512 f32 accumulators"),
        ("tile=64,64,32 threads=32,64 mma=none", "2048 threads a workgroup, over the 1024"),
        # 69632 bytes of tiles: iree-compile takes it, a launch could not.
        ("tile=128,128,32 threads=16,16 mma=none stages=2", "over the 49152 a workgroup has"),
        ("tile=16,16,4 threads=4,4 mma=none chunks=70000", "over the 65535 it takes"),
        # The verifier's words for prefetch=lds and a_layout=k.
        ("target=gfx942 stages=2 prefetch=lds a_layout=k", "prefetch=lds stages A as it is"),
    ],
)
def test_what_no_gpu_can_launch_is_refused(options: str, words: str) -> None:
    options = options if "target=" in options else f"target=sm_80 {options}"
    k = 280000 if "chunks=70000" in options else 512
    case = Case(256, 256, k, "f16" if "warps" in options else "f32", options)
    message = refusal(case)
    assert message is not None and words in message, message
    assert_a_good_refusal(message, case)


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "gfx942"])
@pytest.mark.parametrize("element", ["f32", "f16", "bf16"])
def test_the_default_tiles_are_taken(target: str, element: str) -> None:
    """With no tile, threads or stages given, every output class takes the
    table's entry, aligned or not. bf16 read f32's entries (K steps of 8,
    no whole MMA block): its outputs of 256 and more were refused."""
    for m, n, k in ((64, 64, 1001), (256, 256, 512), (300, 260, 1001)):
        assert refusal(Case(m, n, k, element, f"target={target} chunks=2")) is None, (m, n, k)


def test_split_k_names_the_merges_it_takes() -> None:
    """split-k's merge defaults to "" (not given): the refusal of a merge it
    does not take listed that too ("one of , atomic, deterministic")."""
    with pytest.raises(XsplitError) as caught:
        rewrite(matmul(37, 45, 101), "split-k{target=sm_80 kernel=own merge=store}")
    assert caught.value.message == (
        "split-k: merge must be one of atomic, deterministic, got 'store'"
    )


@pytest.mark.parametrize("shape", [(0, 5, 7), (5, 0, 7), (5, 7, 0)])
@pytest.mark.parametrize(
    "pipeline",
    ["gemm-kernel{target=sm_80}", "split-k{target=sm_80 kernel=own}", "auto{target=sm_80}"],
)
def test_an_empty_matmul_is_left_as_it_is(shape: tuple[int, int, int], pipeline: str) -> None:
    """K = 0 was an internal error in gemm-kernel (a division by zero), and
    any size 0 one in split-k's cost model and chunk plan."""
    with collect_remarks():
        out = rewrite(matmul(*shape), pipeline)
    assert "linalg.matmul" in out and "gpu." not in out
