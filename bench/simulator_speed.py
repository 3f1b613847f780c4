"""How long the SPMD simulator takes on two GEMM + row-sum kernels.

    python bench/simulator_speed.py                  # 3 runs of each
    python bench/simulator_speed.py --runs 5 --kernels fused-dot tiled
    python bench/simulator_speed.py --check-with-iree  # and against the tensor program

- fused: the 70x200x90 `linalg.matmul` + row-sum `linalg.reduce` tensor
  program (destination-passing: the function's arguments are the inits)
  through `fuse-reduction,lower-reduce{stage=atomic target=sm_80}`, whatever
  that emits today. Target: under 5 s.
- fused-dot: the kernel that pipeline emitted when the issue was written,
  one dot product per thread in 2 blocks of 256 threads (`dot_kernel`): the
  pass now writes a tiled GEMM instead. Target: under 5 s.
- tiled: a 512x512x512 tiled GEMM + row sum written here (`tiled_kernel`):
  64 workgroups of 256 threads, a 64x64 C tile per workgroup, A and B tiles
  staged through workgroup memory 16 K elements at a time between barriers,
  a 4x4 register sub-tile per thread, the row sum fused in the epilogue with
  `memref.atomic_rmw addf`. Target: under 60 s.
- fused-512: the 512x512x512 tensor program through the same pipeline as
  `fused`, whatever it emits today. Target: under 60 s.

A run is what `xsplit simulate` does after parsing and computing the
reference: all four thread orders, race detection, and the comparison with
the expected results (numpy's, in f64). Each run must come out clean. The
table gives medians of wall-clock and CPU seconds; the CPU time is the
steadier figure on a machine whose cores are shared.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

TENSOR_PROGRAM = """\
func.func @{name}(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %c: tensor<{m}x{n}xf32>, %o: tensor<{m}xf32>) -> (tensor<{m}x{n}xf32>, tensor<{m}xf32>) {{
  %mm = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.reduce ins(%mm : tensor<{m}x{n}xf32>) outs(%o : tensor<{m}xf32>) dimensions = [1]
    (%p: f32, %q: f32) {{
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }}
  return %mm, %r : tensor<{m}x{n}xf32>, tensor<{m}xf32>
}}
"""


def tensor_program(m: int, n: int, k: int, name: str) -> str:
    """C = C + A @ B and o = o + the rows of C, both computed in place."""
    return TENSOR_PROGRAM.format(m=m, n=n, k=k, name=name)


def fused_kernel(m: int = 70, n: int = 90, k: int = 200, stage: str = "atomic") -> str:
    from xsplit.api import rewrite

    pipeline = f"fuse-reduction,lower-reduce{{stage={stage} target=sm_80}}"
    return rewrite(tensor_program(m, n, k, "mm_rowsum"), pipeline, "fused.mlir")


def dot_kernel(m: int = 70, n: int = 90, k: int = 200, block: int = 256, chunk: int = 16) -> str:
    """The fused kernel in the form `lower-reduce{stage=atomic}` gave it
    when the issue was written: one work item per thread, a row and a chunk
    of `chunk` columns; per column one dot product over K into C, and the
    chunk's sum added into the row's sum with one atomic."""
    chunks = -(-n // chunk)
    items = chunks * m
    grid = -(-items // block)
    a, b, c, o = (
        f"memref<{m}x{k}xf32>",
        f"memref<{k}x{n}xf32>",
        f"memref<{m}x{n}xf32>",
        f"memref<{m}xf32>",
    )
    return f"""\
func.func @mm_rowsum(%a: {a}, %b: {b}, %c: {c}, %o: {o}) attributes {{gpu.known_block_size = array<i32: {block}, 1, 1>, gpu.known_grid_size = array<i32: {grid}, 1, 1>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cblock = arith.constant {block} : index
  %citems = arith.constant {items} : index
  %cm = arith.constant {m} : index
  %cn = arith.constant {n} : index
  %ck = arith.constant {k} : index
  %cchunk = arith.constant {chunk} : index
  %zero = arith.constant 0.0 : f32
  %bid = gpu.block_id x
  %tid = gpu.thread_id x
  %first = arith.muli %bid, %cblock : index
  %item = arith.addi %first, %tid : index
  %in = arith.cmpi ult, %item, %citems : index
  scf.if %in {{
    %part = arith.divui %item, %cm : index
    %row = arith.remui %item, %cm : index
    %lo = arith.muli %part, %cchunk : index
    %end = arith.addi %lo, %cchunk : index
    %hi = arith.minui %end, %cn : index
    %sum = scf.for %col = %lo to %hi step %c1 iter_args(%s = %zero) -> (f32) {{
      %init = memref.load %c[%row, %col] : {c}
      %dot = scf.for %kk = %c0 to %ck step %c1 iter_args(%acc = %init) -> (f32) {{
        %x = memref.load %a[%row, %kk] : {a}
        %y = memref.load %b[%kk, %col] : {b}
        %p = arith.mulf %x, %y : f32
        %q = arith.addf %acc, %p : f32
        scf.yield %q : f32
      }}
      memref.store %dot, %c[%row, %col] : {c}
      %t = arith.addf %s, %dot : f32
      scf.yield %t : f32
    }}
    %old = memref.atomic_rmw addf %sum, %o[%row] : (f32, {o}) -> f32
  }}
  return
}}
"""


def tiled_kernel(m: int = 512, n: int = 512, k: int = 512) -> str:
    """The tiled GEMM + row sum on memrefs, (a, b, c, o) as in the tensor
    program: 64x64 C tiles, 16x16 threads of 4x4 elements each."""
    tile, bk, sub = 64, 16, 4
    threads = tile // sub
    assert m % tile == 0 and n % tile == 0 and k % bk == 0 and threads == bk
    sa = f"memref<{tile}x{bk}xf32, #gpu.address_space<workgroup>>"
    sb = f"memref<{bk}x{tile}xf32, #gpu.address_space<workgroup>>"
    a, b, c, o = (
        f"memref<{m}x{k}xf32>",
        f"memref<{k}x{n}xf32>",
        f"memref<{m}x{n}xf32>",
        f"memref<{m}xf32>",
    )
    cells = [(r, j) for r in range(sub) for j in range(sub)]
    f32s = ", ".join(["f32"] * len(cells))
    sizes = (
        f"gpu.known_block_size = array<i32: {threads}, {threads}, 1>, "
        f"gpu.known_grid_size = array<i32: {n // tile}, {m // tile}, 1>"
    )
    lines = [
        f"func.func @gemm_rowsum(%a: {a}, %b: {b}, %c: {c}, %o: {o}) attributes {{{sizes}}} {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %ck = arith.constant {k} : index",
        f"  %cbk = arith.constant {bk} : index",
        f"  %sa = memref.alloc() : {sa}",
        f"  %sb = memref.alloc() : {sb}",
        "  %tx = gpu.thread_id x",
        "  %ty = gpu.thread_id y",
        "  %bx = gpu.block_id x",
        "  %by = gpu.block_id y",
    ]
    # Rows and columns of this thread's sub-tile, in the tile and in C.
    for r in range(sub):
        lines.append(f"  %lrow{r} = affine.apply affine_map<()[s0] -> (s0 * {sub} + {r})>()[%ty]")
        lines.append(
            f"  %row{r} = affine.apply affine_map<()[s0, s1] -> (s0 * {tile} + s1 * {sub} + {r})>()[%by, %ty]"
        )
    for j in range(sub):
        lines.append(f"  %lcol{j} = affine.apply affine_map<()[s0] -> (s0 * {sub} + {j})>()[%tx]")
        lines.append(
            f"  %col{j} = affine.apply affine_map<()[s0, s1] -> (s0 * {tile} + s1 * {sub} + {j})>()[%bx, %tx]"
        )
    for r, j in cells:
        lines.append(f"  %init{r}{j} = memref.load %c[%row{r}, %col{j}] : {c}")
    carried = ", ".join(f"%x{r}{j} = %init{r}{j}" for r, j in cells)
    lines.append(
        f"  %acc:{len(cells)} = scf.for %k0 = %c0 to %ck step %cbk iter_args({carried}) -> ({f32s}) {{"
    )
    # Stage A[rows, k0 + tx] and B[k0 + ty, cols]: 4 elements of each per thread.
    lines.append("    %ka = arith.addi %k0, %tx : index")
    for r in range(sub):
        lines.append(f"    %va{r} = memref.load %a[%row{r}, %ka] : {a}")
        lines.append(f"    memref.store %va{r}, %sa[%lrow{r}, %tx] : {sa}")
    lines.append("    %kb = arith.addi %k0, %ty : index")
    for j in range(sub):
        lines.append(f"    %vb{j} = memref.load %b[%kb, %col{j}] : {b}")
        lines.append(f"    memref.store %vb{j}, %sb[%ty, %lcol{j}] : {sb}")
    lines.append("    gpu.barrier")
    inner = ", ".join(f"%y{r}{j} = %x{r}{j}" for r, j in cells)
    lines.append(
        f"    %part:{len(cells)} = scf.for %kk = %c0 to %cbk step %c1 iter_args({inner}) -> ({f32s}) {{"
    )
    for r in range(sub):
        lines.append(f"      %ea{r} = memref.load %sa[%lrow{r}, %kk] : {sa}")
    for j in range(sub):
        lines.append(f"      %eb{j} = memref.load %sb[%kk, %lcol{j}] : {sb}")
    for r, j in cells:
        lines.append(f"      %p{r}{j} = arith.mulf %ea{r}, %eb{j} : f32")
        lines.append(f"      %s{r}{j} = arith.addf %y{r}{j}, %p{r}{j} : f32")
    lines.append(f"      scf.yield {', '.join(f'%s{r}{j}' for r, j in cells)} : {f32s}")
    lines.append("    }")
    # The next iteration's stores must wait for every thread's reads.
    lines.append("    gpu.barrier")
    lines.append(f"    scf.yield {', '.join(f'%part#{i}' for i in range(len(cells)))} : {f32s}")
    lines.append("  }")
    for i, (r, j) in enumerate(cells):
        lines.append(f"  memref.store %acc#{i}, %c[%row{r}, %col{j}] : {c}")
    for r in range(sub):
        first = r * sub
        lines.append(f"  %sum{r}_0 = arith.addf %acc#{first}, %acc#{first + 1} : f32")
        for j in range(2, sub):
            lines.append(f"  %sum{r}_{j - 1} = arith.addf %sum{r}_{j - 2}, %acc#{first + j} : f32")
        lines.append(
            f"  %old{r} = memref.atomic_rmw addf %sum{r}_{sub - 2}, %o[%row{r}] : (f32, {o}) -> f32"
        )
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def expected(inputs: list[np.ndarray]) -> list[np.ndarray]:
    """What the tensor program computes, in f64: (a, b, c + a @ b, o + its rows)."""
    a, b, c, o = (x.astype(np.float64) for x in inputs)
    mm = c + a @ b
    return [inputs[0], inputs[1], mm, o + mm.sum(axis=1)]


def measure(text: str, runs: int, simulate: Callable | None = None) -> dict:
    """Seconds (wall and CPU) of `runs` simulations of the kernel in `text`."""
    from xsplit.api import parse_module
    from xsplit.simulator.run import launch_sizes, pick_function, random_inputs

    if simulate is None:
        from xsplit.simulator import simulate
    func = pick_function(parse_module(text, "kernel.mlir"), None)
    inputs = random_inputs(func, 0)
    reference = expected(inputs)
    grid, block = launch_sizes(func, None, None)
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        report = simulate(func, reference=reference, inputs=inputs)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
        if not report.clean:
            raise SystemExit(f"not clean: {report.races + report.mismatches}")
    return {"grid": grid, "block": block, "wall": wall, "cpu": cpu}


def check_with_iree(text: str, program: str) -> str:
    """`xsplit simulate KERNEL --reference PROGRAM`'s verdict line."""
    import contextlib
    import io
    import tempfile
    from pathlib import Path

    from xsplit.files import write_output
    from xsplit.tools.simulate import main as simulate_main

    with tempfile.TemporaryDirectory() as d:
        kernel, reference = Path(d) / "kernel.mlir", Path(d) / "program.mlir"
        write_output(str(kernel), text)
        write_output(str(reference), program)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            simulate_main([str(kernel), "--reference", str(reference)])
    return out.getvalue().strip().splitlines()[-1]


KERNELS = {
    "fused-dot": (
        "70x200x90 fused, one dot product per thread",
        dot_kernel,
        5.0,
        lambda: tensor_program(70, 90, 200, "mm_rowsum"),
    ),
    "fused": (
        "70x200x90 fused, as lower-reduce emits it now",
        fused_kernel,
        5.0,
        lambda: tensor_program(70, 90, 200, "mm_rowsum"),
    ),
    "tiled": (
        "512x512x512 tiled",
        tiled_kernel,
        60.0,
        lambda: tensor_program(512, 512, 512, "gemm_rowsum"),
    ),
    "fused-512": (
        "512x512x512 fused, as lower-reduce emits it now",
        lambda: fused_kernel(512, 512, 512),
        60.0,
        lambda: tensor_program(512, 512, 512, "mm_rowsum"),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per kernel; the table gives medians"
    )
    parser.add_argument("--kernels", nargs="+", choices=list(KERNELS), default=list(KERNELS))
    parser.add_argument(
        "--check-with-iree",
        action="store_true",
        help="also run `xsplit simulate` against the tensor program compiled by IREE for the CPU",
    )
    args = parser.parse_args()
    rows = []
    for key in args.kernels:
        label, make, target, program = KERNELS[key]
        text = make()
        if args.check_with_iree:
            print(
                f"{label}: xsplit simulate --reference (IREE): {check_with_iree(text, program())}"
            )
        r = measure(text, args.runs)
        threads = int(np.prod(r["grid"])) * int(np.prod(r["block"]))
        wall, cpu = statistics.median(r["wall"]), statistics.median(r["cpu"])
        rows.append((label, r["grid"], r["block"], threads, wall, cpu, target, r["wall"]))
    print()
    print(
        "| kernel | grid | block | threads | runs | median wall s | median CPU s | target s | every run (wall s) |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for label, grid, block, threads, wall, cpu, target, walls in rows:
        verdict = "**met**" if wall < target else "missed"
        every = ", ".join(f"{w:.2f}" for w in walls)
        print(
            f"| {label} | {'x'.join(map(str, grid))} | {'x'.join(map(str, block))} | {threads} | "
            f"{len(walls)} | {wall:.2f} | {cpu:.2f} | {target:.0f} ({verdict}) | {every} |"
        )


if __name__ == "__main__":
    main()
