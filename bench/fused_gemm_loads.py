"""Global loads per FMA of the fused GEMM + reduction kernel, counted by
xsplit's SPMD simulator: the per-thread kernel lower-reduce wrote first
(one dot product per C element, A and B read from global memory for every
product; what a GEMM the staged kernel does not take still gets) and
xsplit's staged GEMM kernel with the reduction as its epilogue, which
lower-reduce writes for GPU targets (fused_gemm.py: 64x64 C tiles, A and B
staged through workgroup memory along K, 128-bit loads where rows are
whole vectors). The tiled kernel between them (1/32 A+B loads and load
instructions per FMA on 512x512x512) is gone; bench/RESULTS.md keeps its
numbers.

    python bench/fused_gemm_loads.py                        # 512x512x512, row sum, lds, sm_80
    python bench/fused_gemm_loads.py --shape 256x256x256 --stages atomic lds subgroup
    python bench/fused_gemm_loads.py --element f16 --stages atomic lds subgroup  # tensor cores

With `--element f16` A and B are f16 and only the staged kernel runs, with
FMA register tiles (`mma=none`) and on tensor cores (`mma=auto`: an
`nvgpu.mma.sync` counts 16x8x16 FMAs, an `amdgpu.mfma` 16x16x16); the
table adds the atomics per output and the C tile's workgroup-memory
accesses (the tensor-core epilogue's round trip).

The simulator runs every thread of every workgroup (lockstep order) and
counts, per op, the lanes that run it: loads from global buffers (A and B,
and the output's initial values where a kernel reads them; a `vector.load`
counts its elements, and once as an instruction), workgroup-memory loads and
stores, and `arith.mulf`, which in every kernel are the GEMM's products (the
FMAs run, zero padding included; the useful ones are M*N*K).
The shape is MxNxK; the results are checked against numpy.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from xdsl.dialects.builtin import ModuleOp

from xsplit.api import parse_module
from xsplit.diagnostics import collect_remarks
from xsplit.dialects import make_context
from xsplit.pipeline import build_pipeline, run_passes
from xsplit.rewrites.reduce import fused_gemm
from xsplit.rewrites.reduce.kernel_writer import kernels as per_thread_kernels
from xsplit.rewrites.reduce.plan import plan
from xsplit.rewrites.reduce.reduced import analyze
from xsplit.simulator.machine import Launch, Machine, lockstep
from xsplit.simulator.run import launch_sizes, pick_function
from xsplit.targets.table import target as find_target


def program(m: int, n: int, k: int, element: str = "f32") -> str:
    """C = A @ B from a zero fill, reduced along its rows (over N) into OUT."""
    c = f"tensor<{m}x{n}xf32>"
    a, b = f"tensor<{m}x{k}x{element}>", f"tensor<{k}x{n}x{element}>"
    return f"""
func.func @gemm_rowsum(%a: {a}, %b: {b}, %o: tensor<{m}xf32>) -> tensor<{m}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %c = linalg.fill ins(%zero : f32) outs(%e : {c}) -> {c}
  %x = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  %r = linalg.reduce ins(%x : {c}) outs(%o : tensor<{m}xf32>) dimensions = [1]
    (%p: f32, %q: f32) {{
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }}
  return %r : tensor<{m}xf32>
}}
"""


class CountingMachine(Machine):
    """The simulator, counting per op kind the lanes that run it: loads from
    global and workgroup memory, stores into workgroup memory, and
    `arith.mulf` (in both kernels only the GEMM's products). It hooks the
    machine's per-op closures rather than its access log, which leaves out
    reads of buffers nothing writes (A and B), since those cannot race."""

    def __init__(self, launch: Launch) -> None:
        super().__init__(launch, lockstep, log=False)
        self.counts: dict[str, int] = {}
        self._counted: dict[int, object] = {}

    def fn(self, op):
        f = super().fn(op)
        what = _kind(op)
        if what is None:
            return f
        wrapped = self._counted.get(id(op))
        if wrapped is None:
            counts = self.counts
            counts.setdefault(what, 0)

            width = op.results[0].type.get_shape()[0] if op.name == "vector.load" else 1
            if what == "fma" and op.name != "arith.mulf":  # a warp's intrinsic, per lane
                lanes = 32 if op.name == "nvgpu.mma.sync" else 64
                width = (16 * 8 * 16 if lanes == 32 else 16 * 16 * 16) // lanes
            if what.startswith("global load"):
                counts.setdefault("instructions " + what, 0)

            def wrapped(fr, chunked, f=f, what=what, width=width) -> None:
                counts[what] += fr.n * width
                if what.startswith("global load"):
                    counts["instructions " + what] += fr.n
                f(fr, chunked)

            self._counted[id(op)] = wrapped
        return wrapped


def _kind(op) -> str | None:
    if op.name in ("arith.mulf", "nvgpu.mma.sync", "amdgpu.mfma"):
        return "fma"
    if op.name == "memref.atomic_rmw":
        return "atomic"
    if op.name == "nvgpu.ldmatrix":
        return "shared ldmatrix"  # per lane: one 16-byte row of a matrix
    if op.name in ("memref.load", "memref.store", "vector.load"):
        memref = op.operands[1] if op.name == "memref.store" else op.operands[0]
        if "private" in str(memref.type):
            return None  # the staged kernel's registers
        if memref.name_hint == "c_tile":
            return "shared c_tile"
        space = "shared" if "workgroup" in str(memref.type) else "global"
        name = memref.name_hint if space == "global" and memref.name_hint in ("a", "b") else "other"
        kind = "store" if op.name == "memref.store" else "load"
        return f"{space} {kind} {name if space == 'global' else ''}".strip()
    return None


def kernels(m: int, n: int, k: int, stage: str, target: str):
    """(per-thread, staged) modules, each after the passes lower-reduce runs
    on it."""
    ctx = make_context()
    module = parse_module(program(m, n, k), "bench.mlir", ctx)
    run_passes(module, build_pipeline("fuse-reduction"), ctx)
    reduce = next(op for op in module.walk() if op.name == "linalg.reduce")
    red = analyze(reduce)
    assert not isinstance(red, str), red
    p = plan(red, None, {"target": find_target(target).name, "stage": stage})
    old = ModuleOp(per_thread_kernels(red, p))
    run_passes(old, build_pipeline("distribute"), ctx)
    return old, ModuleOp(fused_gemm.kernels(red, p, ctx))


def staged(m: int, n: int, k: int, stage: str, target: str, element: str, mma: str) -> ModuleOp:
    """The staged kernel lower-reduce writes, with `mma` auto or none."""
    ctx = make_context()
    module = parse_module(program(m, n, k, element), "bench.mlir", ctx)
    run_passes(module, build_pipeline("fuse-reduction"), ctx)
    reduce = next(op for op in module.walk() if op.name == "linalg.reduce")
    red = analyze(reduce)
    assert not isinstance(red, str), red
    p = plan(red, None, {"target": find_target(target).name, "stage": stage, "mma": mma})
    return ModuleOp(fused_gemm.kernels(red, p, ctx))


def count(
    module, m: int, n: int, k: int, subgroup: int = 32, element: str = "f32"
) -> dict[str, float]:
    fn = pick_function(module, None)
    grid, block = launch_sizes(fn, None, None)
    machine = CountingMachine(Launch(grid, block, subgroup))
    rng = np.random.default_rng(0)
    half = np.float16 if element == "f16" else np.float32
    args = [
        rng.uniform(-1, 1, (m, k)).astype(half),
        rng.uniform(-1, 1, (k, n)).astype(half),
        np.zeros(m, np.float32),
    ]
    t0 = time.perf_counter()
    results = machine.run(fn, args)
    seconds = time.perf_counter() - t0
    want = (args[0].astype(np.float64) @ args[1].astype(np.float64)).sum(axis=1)
    assert np.allclose(results[2], want, rtol=1e-3, atol=1e-3 * np.abs(want).max()), "wrong sums"
    c = machine.counts
    get = lambda key: float(sum(v for k, v in c.items() if k.startswith(key)))
    return {
        "grid": float(np.prod(grid)), "threads": float(np.prod(block)),
        "loads": get("global load"), "ab": get("global load a") + get("global load b"),
        "ab_loads": get("instructions global load a") + get("instructions global load b"),
        "shared": get("shared"), "fma": get("fma"), "seconds": seconds,
        "atomic": get("atomic"), "c_tile": get("shared c_tile"),
    }  # fmt: skip


def main_f16(m: int, n: int, k: int, stages: list[str], target: str) -> None:
    useful = m * n * k
    subgroup = 64 if target == "gfx942" else 32
    print(f"{m}x{n}x{k} f16 GEMM + row sum on {target}, the staged kernel; {useful} useful FMAs")
    print(
        "| stage | multiply | workgroups x threads | A+B loads / FMA | A+B load instructions / FMA "
        "| FMAs run | shared accesses | of which the C tile | atomics per output | simulated |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for stage in stages:
        for mma in ("none", "auto"):
            with collect_remarks():
                module = staged(m, n, k, stage, target, "f16", mma)
            c = count(module, m, n, k, subgroup, "f16")
            name = "FMA registers" if mma == "none" else "tensor cores"
            print(
                f"| {stage} | {name} | {int(c['grid'])} x {int(c['threads'])} | "
                f"{c['ab'] / useful:.4f} | {c['ab_loads'] / useful:.5f} | {int(c['fma'])} | "
                f"{int(c['shared'])} | {int(c['c_tile'])} | {c['atomic'] / m:.0f} | {c['seconds']:.1f} s |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="512x512x512", help="MxNxK (default 512x512x512)")
    parser.add_argument(
        "--stages", nargs="+", default=["lds"], choices=["atomic", "lds", "subgroup"]
    )
    parser.add_argument("--target", default="sm_80", choices=["sm_80", "gfx942"])
    parser.add_argument("--element", default="f32", choices=["f32", "f16"], help="A and B")
    args = parser.parse_args()
    m, n, k = (int(x) for x in args.shape.split("x"))
    if args.element == "f16":
        main_f16(m, n, k, args.stages, args.target)
        return
    useful = m * n * k
    print(f"{m}x{n}x{k} GEMM + row sum on {args.target}; {useful} useful FMAs")
    print(
        "| stage | kernel | workgroups x threads | global loads | A+B loads / FMA | A+B load instructions / FMA | FMAs run | shared accesses | simulated |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for stage in args.stages:
        with collect_remarks():  # the passes' remarks are not what this measures
            old, staged_module = kernels(m, n, k, stage, args.target)
        rows = []
        for name, module in (("per-thread (first)", old), ("staged (xsplit_gemm), K step 16", staged_module)):
            c = count(module, m, n, k)
            rows.append(c)
            print(
                f"| {stage} | {name} | {int(c['grid'])} x {int(c['threads'])} | {int(c['loads'])} | "
                f"{c['ab'] / useful:.4f} | {c['ab_loads'] / useful:.4f} | {int(c['fma'])} | "
                f"{int(c['shared'])} | {c['seconds']:.1f} s |"
            )
        print(
            f"ratio (per-thread / staged): A+B loads per useful FMA {rows[0]['ab'] / rows[1]['ab']:.1f}x, "
            f"load instructions {rows[0]['ab_loads'] / rows[1]['ab_loads']:.1f}x"
        )


if __name__ == "__main__":
    main()
