"""Tool speed: `xsplit-opt` as a whole process against stock `xdsl-opt`'s
parse + print of the same file, on a generated module of N mixed reductions.

    python bench/tool_speed.py                          # N = 500 2000 8000, 3 runs
    python bench/tool_speed.py --sizes 2000 --runs 5 --out speed.md
    python bench/tool_speed.py --emit mixed2000.mlir --sizes 2000   # just the module

Each reduction is its own `func.func` on tensors, in turn: a `linalg.matmul`,
one with a `tensor.empty` + `linalg.fill` init, a `linalg.batch_matmul`, a
`linalg.generic` contraction A^T.B, one A.B^T with a filled init, and a
matmul whose K is not divisible by 5; shapes vary, and about a third of the
K extents are not multiples of 5.

Timed, as whole processes (start-up included, wall clock, medians of
`--runs`, round by round so that load falls on all alike):

- `xdsl-opt FILE -o OUT`: stock xDSL's parse + print;
- `xsplit-opt -p 'split-k{factor=5},materialize-late' FILE -o OUT`;
- `iree-opt FILE -o OUT`, where it is on PATH: MLIR's parse + print.

Outputs go to a temporary folder, never /dev/null: writing is part of a
tool's run. Each tool runs once untimed first, and every run reads and
writes its modules' bytecode in a cache of its own (`PYTHONPYCACHEPREFIX`,
with `PYTHONDONTWRITEBYTECODE` cleared): an installed xDSL comes with its
bytecode, while xsplit run from a checkout under `PYTHONDONTWRITEBYTECODE`
would compile its ~100 modules again on every run (0.2-0.3 s), which no
installed tool does. Before timing, the script checks that split-k rewrote every
reduction (the output has one `scf.forall`-free split per function, counted
by its `tensor.extract_slice` chunks), so the timing is not of a no-op.
Target (issue 21): xsplit-opt at most 1.5x xdsl-opt, and its time per
reduction at 8,000 within about 15% of that at 2,000.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from xsplit.files import write_output

PIPELINE = "split-k{factor=5},materialize-late"

# (M, N, K): K of 999, 1234 and 517 are not multiples of 5.
SHAPES = [(16, 32, 1000), (32, 24, 999), (64, 64, 1234), (48, 32, 640), (16, 64, 517)]
BATCHES = (2, 3, 4)


def _matmul(i: int, m: int, n: int, k: int, fill: bool) -> str:
    a, b, c = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    if fill:
        return (
            f"func.func @matmul_fill{i}(%a: {a}, %b: {b}) -> {c} {{\n"
            f"  %cst = arith.constant 0.000000e+00 : f32\n"
            f"  %e = tensor.empty() : {c}\n"
            f"  %c = linalg.fill ins(%cst : f32) outs(%e : {c}) -> {c}\n"
            f"  %0 = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n"
            f"  func.return %0 : {c}\n}}\n"
        )
    return (
        f"func.func @matmul{i}(%a: {a}, %b: {b}, %c: {c}) -> {c} {{\n"
        f"  %0 = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n"
        f"  func.return %0 : {c}\n}}\n"
    )


def _batch_matmul(i: int, batch: int, m: int, n: int, k: int) -> str:
    a, b = f"tensor<{batch}x{m}x{k}xf32>", f"tensor<{batch}x{k}x{n}xf32>"
    c = f"tensor<{batch}x{m}x{n}xf32>"
    return (
        f"func.func @batch_matmul{i}(%a: {a}, %b: {b}, %c: {c}) -> {c} {{\n"
        f"  %0 = linalg.batch_matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n"
        f"  func.return %0 : {c}\n}}\n"
    )


def _generic(i: int, m: int, n: int, k: int, transposed: str) -> str:
    """A contraction as a `linalg.generic`: A^T.B (`a`) or A.B^T with a filled init (`b`)."""
    c = f"tensor<{m}x{n}xf32>"
    if transposed == "a":
        a, b = f"tensor<{k}x{m}xf32>", f"tensor<{k}x{n}xf32>"
        maps = "(d2, d0)", "(d2, d1)"
        head = f"func.func @generic_at_b{i}(%a: {a}, %b: {b}, %c: {c}) -> {c} {{\n"
        init = ""
    else:
        a, b = f"tensor<{m}x{k}xf32>", f"tensor<{n}x{k}xf32>"
        maps = "(d0, d2)", "(d1, d2)"
        head = f"func.func @generic_a_bt{i}(%a: {a}, %b: {b}) -> {c} {{\n"
        init = (
            f"  %cst = arith.constant 0.000000e+00 : f32\n"
            f"  %e = tensor.empty() : {c}\n"
            f"  %c = linalg.fill ins(%cst : f32) outs(%e : {c}) -> {c}\n"
        )
    return (
        head + init + f"  %0 = linalg.generic {{indexing_maps = ["
        f"affine_map<(d0, d1, d2) -> {maps[0]}>, affine_map<(d0, d1, d2) -> {maps[1]}>, "
        f"affine_map<(d0, d1, d2) -> (d0, d1)>], "
        f'iterator_types = ["parallel", "parallel", "reduction"]}} '
        f"ins(%a, %b : {a}, {b}) outs(%c : {c}) {{\n"
        f"  ^bb0(%x: f32, %y: f32, %acc: f32):\n"
        f"    %p = arith.mulf %x, %y : f32\n"
        f"    %s = arith.addf %acc, %p : f32\n"
        f"    linalg.yield %s : f32\n"
        f"  }} -> {c}\n"
        f"  func.return %0 : {c}\n}}\n"
    )


def generate(n: int) -> str:
    """A module of `n` functions, one reduction each, the six kinds in turn."""
    parts = []
    for i in range(n):
        m, nn, k = SHAPES[(i // 6) % len(SHAPES)]
        kind = i % 6
        if kind == 0:
            parts.append(_matmul(i, m, nn, k, fill=False))
        elif kind == 1:
            parts.append(_matmul(i, m, nn, k, fill=True))
        elif kind == 2:
            parts.append(_batch_matmul(i, BATCHES[i % 3], m, nn, k))
        elif kind == 3:
            parts.append(_generic(i, m, nn, k, "a"))
        elif kind == 4:
            parts.append(_generic(i, m, nn, k, "b"))
        else:
            parts.append(_matmul(i, m, nn, 517 + 2 * (i % 7), fill=False))
    return "".join(parts)


def _tools() -> dict[str, list[str]]:
    """The commands timed, each before `FILE -o OUT`, by the label it reports under."""
    bin_dir = os.path.dirname(sys.executable)

    def find(name: str) -> str | None:
        local = os.path.join(bin_dir, name)
        return local if os.access(local, os.X_OK) else shutil.which(name)

    tools: dict[str, list[str]] = {}
    for label, name, args in (
        ("xdsl-opt", "xdsl-opt", []),
        ("xsplit-opt", "xsplit-opt", ["-p", PIPELINE]),
        ("iree-opt", "iree-opt", []),
    ):
        path = find(name)
        if path is None:
            if label != "iree-opt":
                sys.exit(f"tool_speed: {name} is not installed")
            continue
        tools[label] = [path, *args]
    return tools


def _run(command: list[str], path: str, out: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([*command, path, "-o", out], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        sys.exit(f"tool_speed: {os.path.basename(command[0])} failed on {path}: {tail[0]}")
    return elapsed


def _bytecode_cached(folder: str) -> dict[str, str]:
    """The environment of the timed runs: bytecode read from and written to
    a cache in `folder`, for every tool alike (see the module's doc)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
    return env


def check_rewritten(output: str, n: int) -> None:
    """Every function of the output holds split chunks: split-k did its work."""
    functions = output.split("func.func @")[1:]
    unsplit = [f.split("(", 1)[0] for f in functions if "tensor.extract_slice" not in f]
    if len(functions) != n or unsplit:
        sys.exit(
            f"tool_speed: split-k rewrote {n - len(unsplit)} of {n} reductions "
            f"(e.g. @{unsplit[0] if unsplit else '?'} is not split); timing would measure a no-op"
        )


def measure(n: int, runs: int, tools: dict[str, list[str]], folder: str) -> dict[str, float]:
    path = os.path.join(folder, f"mixed{n}.mlir")
    write_output(path, generate(n))
    outputs = {label: os.path.join(folder, f"{label}-{n}.mlir") for label in tools}
    times: dict[str, list[float]] = {label: [] for label in tools}
    env = _bytecode_cached(folder)
    for label, command in tools.items():
        _run(command, path, outputs[label], env)  # fills the bytecode cache
    for _ in range(runs):
        for label, command in tools.items():
            times[label].append(_run(command, path, outputs[label], env))
    with open(outputs["xsplit-opt"], encoding="utf-8") as f:
        check_rewritten(f.read(), n)
    return {label: statistics.median(t) for label, t in times.items()}


def table(rows: list[tuple[int, dict[str, float]]], runs: int) -> str:
    labels = [label for label in ("xdsl-opt", "xsplit-opt", "iree-opt") if label in rows[0][1]]
    head = ["reductions", *(f"{label} s" for label in labels), "xsplit / xdsl"]
    head += [f"{label} ms/op" for label in labels]
    lines = [
        f"`{PIPELINE}`; whole processes, medians of {runs} run(s)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---:|" * len(head),
    ]
    for n, t in rows:
        cells = [str(n), *(f"{t[label]:.2f}" for label in labels)]
        cells.append(f"**{t['xsplit-opt'] / t['xdsl-opt']:.2f}x**")
        cells += [f"{1000 * t[label] / n:.2f}" for label in labels]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", help="also write the table to this file")
    parser.add_argument(
        "--emit", metavar="FILE", help="write the module of the first size to FILE and exit"
    )
    args = parser.parse_args()
    if args.emit:
        write_output(args.emit, generate(args.sizes[0]))
        return
    tools = _tools()
    rows = []
    with tempfile.TemporaryDirectory(prefix="xsplit-tool-speed-") as folder:
        for n in args.sizes:
            rows.append((n, measure(n, args.runs, tools, folder)))
            print(f"  {n}: " + ", ".join(f"{k} {v:.2f} s" for k, v in rows[-1][1].items()))
    text = table(rows, args.runs)
    sys.stdout.write(text)
    if args.out:
        write_output(args.out, text)


if __name__ == "__main__":
    main()
