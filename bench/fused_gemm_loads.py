"""Global loads per FMA of the fused GEMM + reduction kernel, counted by
xsplit's SPMD simulator: the per-thread kernel lower-reduce wrote first
(one dot product per C element, A and B read from global memory for every
product), the tiled text kernel that replaced it (tiled_gemm.py: 64x64 C
tiles, A and B staged through workgroup memory along K; it still writes the
batch forms) and xsplit's staged GEMM kernel with the reduction as its
epilogue, which lower-reduce writes now for GPU targets (fused_gemm.py: the
same tiles, 128-bit loads where rows are whole vectors).

    python bench/fused_gemm_loads.py                        # 512x512x512, row sum, lds, sm_80
    python bench/fused_gemm_loads.py --shape 256x256x256 --stages atomic lds subgroup
    python bench/fused_gemm_loads.py --step-k 8 16 32       # the tiled kernel's K step

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
from xsplit.rewrites.reduce import fused_gemm, tiled_gemm
from xsplit.rewrites.reduce.kernel_writer import per_thread_kernels_text
from xsplit.rewrites.reduce.plan import plan
from xsplit.rewrites.reduce.reduced import analyze
from xsplit.simulator.machine import Launch, Machine, lockstep
from xsplit.simulator.run import launch_sizes, pick_function
from xsplit.target.targets import target as find_target


def program(m: int, n: int, k: int) -> str:
    """C = A @ B from a zero fill, reduced along its rows (over N) into OUT."""
    c = f"tensor<{m}x{n}xf32>"
    return f"""
func.func @gemm_rowsum(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %o: tensor<{m}xf32>) -> tensor<{m}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %c = linalg.fill ins(%zero : f32) outs(%e : {c}) -> {c}
  %x = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : {c}) -> {c}
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
    if op.name == "arith.mulf":
        return "fma"
    if op.name in ("memref.load", "memref.store", "vector.load"):
        memref = op.operands[1] if op.name == "memref.store" else op.operands[0]
        if "private" in str(memref.type):
            return None  # the staged kernel's registers
        space = "shared" if "workgroup" in str(memref.type) else "global"
        name = memref.name_hint if space == "global" and memref.name_hint in ("a", "b") else "other"
        kind = "store" if op.name == "memref.store" else "load"
        return f"{space} {kind} {name if space == 'global' else ''}".strip()
    return None


def kernels(m: int, n: int, k: int, stage: str, target: str, step_k: int | None):
    """(per-thread, tiled text, staged) modules, each after the passes
    lower-reduce runs on it, and the text kernel's K step."""
    ctx = make_context()
    module = parse_module(program(m, n, k), "bench.mlir", ctx)
    run_passes(module, build_pipeline("fuse-reduction"), ctx)
    reduce = next(op for op in module.walk() if op.name == "linalg.reduce")
    red = analyze(reduce)
    assert not isinstance(red, str), red
    p = plan(red, None, {"target": find_target(target).name, "stage": stage})
    tiles = tiled_gemm.gemm_tiles(p.target)
    if step_k is not None:
        tiles = tiled_gemm.GemmTiles(
            tiles.tile_m, tiles.tile_n, step_k, tiles.threads_m, tiles.threads_n
        )
    out: list = []
    for text, pipeline in (
        (per_thread_kernels_text(red, p), "distribute"),
        (tiled_gemm.kernels_text(red, p, tiles), "insert-barriers"),
    ):
        kernel = parse_module(text, "kernel.mlir", make_context())
        run_passes(kernel, build_pipeline(pipeline), ctx)
        out.append(kernel)
    staged = ModuleOp(fused_gemm.kernels(red, p))
    return out[0], out[1], staged, tiles.step_k


def count(module, m: int, n: int, k: int) -> dict[str, float]:
    fn = pick_function(module, None)
    grid, block = launch_sizes(fn, None, None)
    machine = CountingMachine(Launch(grid, block, 32))
    rng = np.random.default_rng(0)
    args = [
        rng.uniform(-1, 1, (m, k)).astype(np.float32),
        rng.uniform(-1, 1, (k, n)).astype(np.float32),
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
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="512x512x512", help="MxNxK (default 512x512x512)")
    parser.add_argument(
        "--stages", nargs="+", default=["lds"], choices=["atomic", "lds", "subgroup"]
    )
    parser.add_argument("--target", default="sm_80", choices=["sm_80", "gfx942"])
    parser.add_argument(
        "--step-k", nargs="+", type=int, default=[None], help="the tiled kernel's K step"
    )
    args = parser.parse_args()
    m, n, k = (int(x) for x in args.shape.split("x"))
    useful = m * n * k
    print(f"{m}x{n}x{k} GEMM + row sum on {args.target}; {useful} useful FMAs")
    print(
        "| stage | kernel | workgroups x threads | global loads | A+B loads / FMA | A+B load instructions / FMA | FMAs run | shared accesses | simulated |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for stage in args.stages:
        for step_k in args.step_k:
            with collect_remarks():  # the passes' remarks are not what this measures
                old, text, staged, step = kernels(m, n, k, stage, args.target, step_k)
            rows = []
            for name, module in (
                ("per-thread (first)", old), (f"tiled text, K step {step}", text),
                ("staged (xsplit_gemm), K step 16", staged),
            ):  # fmt: skip
                c = count(module, m, n, k)
                rows.append(c)
                print(
                    f"| {stage} | {name} | {int(c['grid'])} x {int(c['threads'])} | {int(c['loads'])} | "
                    f"{c['ab'] / useful:.4f} | {c['ab_loads'] / useful:.4f} | {int(c['fma'])} | "
                    f"{int(c['shared'])} | {c['seconds']:.1f} s |"
                )
            print(
                f"ratio (per-thread / tiled text / staged, A+B loads per useful FMA): "
                f"{rows[0]['ab'] / rows[1]['ab']:.1f}x, {rows[0]['ab'] / rows[2]['ab']:.1f}x; "
                f"load instructions: {rows[0]['ab_loads'] / rows[2]['ab_loads']:.1f}x fewer staged"
            )


if __name__ == "__main__":
    main()
