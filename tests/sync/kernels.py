"""Random small distributed kernels for the synchronization tests.

A kernel runs rounds of a producer (each thread writes its share of a
scratch buffer: `s = in + round`) and a consumer (each thread adds its share
of `s`, possibly transposed or shifted, into `out`). Producer and consumer
are distributed independently: cyclic 2-D tiles of random sizes with either
thread dimension on rows, or a linearized cyclic loop over elements. The
rounds run in a loop or one after the other; the scratch buffer is in
workgroup or global memory.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np


@dataclass
class Kernel:
    text: str
    n: int
    m: int
    rounds: int
    shuffle: str
    scratch_global: bool

    def expected(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        a = inputs[0].astype(np.float64)
        total = np.zeros_like(a)
        for r in range(self.rounds):
            s = a + r
            if self.shuffle == "transpose":
                s = s.T
            elif self.shuffle == "shift":
                s = np.roll(s, -1, axis=0)
            total += s
        out = [inputs[0], inputs[1] + total]
        if self.scratch_global:
            out.append(None)  # the scratch buffer's contents are not checked
        return out  # type: ignore[return-value]


class _Text:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("  " * indent + line)


def _distribute(t: _Text, rng: random.Random, n: int, m: int, block: tuple[int, int], indent: int, body) -> None:
    """Loops that give each thread its elements (i, j); `body` emits the work."""
    bx, by = block
    if rng.random() < 0.3:
        lin = t.fresh("lin")
        t.emit(indent, f"{lin} = affine.apply affine_map<()[s0, s1] -> (s0 * {bx} + s1)>()[%ty, %tx]")
        e = t.fresh("e")
        t.emit(indent, f"scf.for {e} = {lin} to %c{n * m} step %c{bx * by} {{")
        i, j = t.fresh("i"), t.fresh("j")
        t.emit(indent + 1, f"{i} = arith.divui {e}, %c{m} : index")
        t.emit(indent + 1, f"{j} = arith.remui {e}, %c{m} : index")
        body(i, j, indent + 1)
        t.emit(indent, "}")
        return
    th = rng.choice([d for d in (1, 2, 4) if n % d == 0])
    tw = rng.choice([d for d in (1, 2, 4) if m % d == 0])
    rows_by_y = rng.random() < 0.5
    trow, nrow, tcol, ncol = ("%ty", by, "%tx", bx) if rows_by_y else ("%tx", bx, "%ty", by)
    r0, r = t.fresh("r0_"), t.fresh("r")
    t.emit(indent, f"{r0} = affine.apply affine_map<()[s0] -> (s0 * {th})>()[{trow}]")
    t.emit(indent, f"scf.for {r} = {r0} to %c{n} step %c{nrow * th} {{")
    c0, c = t.fresh("col0_"), t.fresh("col")
    t.emit(indent + 1, f"{c0} = affine.apply affine_map<()[s0] -> (s0 * {tw})>()[{tcol}]")
    t.emit(indent + 1, f"scf.for {c} = {c0} to %c{m} step %c{ncol * tw} {{")
    ii, jj = t.fresh("ii"), t.fresh("jj")
    t.emit(indent + 2, f"scf.for {ii} = %c0 to %c{th} step %c1 {{")
    t.emit(indent + 3, f"scf.for {jj} = %c0 to %c{tw} step %c1 {{")
    i, j = t.fresh("i"), t.fresh("j")
    t.emit(indent + 4, f"{i} = arith.addi {r}, {ii} : index")
    t.emit(indent + 4, f"{j} = arith.addi {c}, {jj} : index")
    body(i, j, indent + 4)
    for k in (3, 2, 1, 0):
        t.emit(indent + k, "}")


def random_kernel(seed: int) -> Kernel:
    rng = random.Random(seed)
    n = rng.choice([4, 8, 16])
    m = rng.choice([4, 8, 16])
    block = rng.choice([(4, 1), (8, 1), (4, 4), (8, 2), (2, 8), (16, 4), (32, 2)])
    shuffle = rng.choice(["identity", "shift"] + (["transpose"] if n == m else []))
    looped = rng.random() < 0.5
    rounds = rng.choice([2, 3]) if looped else 2
    scratch_global = rng.random() < 0.3
    bx, by = block
    t = _Text()
    ty = f"memref<{n}x{m}xf32>"
    sty = ty if scratch_global else f"memref<{n}x{m}xf32, #gpu.address_space<workgroup>>"
    args = f"%in: {ty}, %out: {ty}" + (f", %s: {ty}" if scratch_global else "")
    t.emit(0, f"func.func @k({args}) attributes {{gpu.known_block_size = array<i32: {bx}, {by}, 1>}} {{")
    t.emit(1, "%tx = gpu.thread_id x")
    t.emit(1, "%ty = gpu.thread_id y")
    for c in sorted({0, 1, 2, 4, n, m, n * m, rounds} | {k * d for k in (1, 2, 4) for d in (1, 2, 4, 8, 16, 32)}):
        t.emit(1, f"%c{c} = arith.constant {c} : index")
    if not scratch_global:
        t.emit(1, f"%s = memref.alloc() : {sty}")

    def produce(round_value: str, indent: int) -> None:
        def body(i: str, j: str, ind: int) -> None:
            v, x = t.fresh("v"), t.fresh("x")
            t.emit(ind, f"{v} = memref.load %in[{i}, {j}] : {ty}")
            t.emit(ind, f"{x} = arith.addf {v}, {round_value} : f32")
            t.emit(ind, f"memref.store {x}, %s[{i}, {j}] : {sty}")

        _distribute(t, rng, n, m, block, indent, body)

    def consume(indent: int) -> None:
        def body(i: str, j: str, ind: int) -> None:
            if shuffle == "transpose":
                si, sj = j, i
            elif shuffle == "shift":
                p, q = t.fresh("p"), t.fresh("q")
                t.emit(ind, f"{p} = arith.addi {i}, %c1 : index")
                t.emit(ind, f"{q} = arith.remui {p}, %c{n} : index")
                si, sj = q, j
            else:
                si, sj = i, j
            x, o, y = t.fresh("x"), t.fresh("o"), t.fresh("y")
            t.emit(ind, f"{x} = memref.load %s[{si}, {sj}] : {sty}")
            t.emit(ind, f"{o} = memref.load %out[{i}, {j}] : {ty}")
            t.emit(ind, f"{y} = arith.addf {o}, {x} : f32")
            t.emit(ind, f"memref.store {y}, %out[{i}, {j}] : {ty}")

        _distribute(t, rng, n, m, block, indent, body)

    def round_value(index: str, indent: int) -> str:
        i, f = t.fresh("ri"), t.fresh("rf")
        t.emit(indent, f"{i} = arith.index_cast {index} : index to i64")
        t.emit(indent, f"{f} = arith.sitofp {i} : i64 to f32")
        return f

    if looped:
        t.emit(1, f"scf.for %round = %c0 to %c{rounds} step %c1 {{")
        rv = round_value("%round", 2)
        produce(rv, 2)
        consume(2)
        t.emit(1, "}")
    else:
        for r in range(rounds):
            rv = round_value(f"%c{r}", 1)
            produce(rv, 1)
            consume(1)
    t.emit(1, "func.return")
    t.emit(0, "}")
    return Kernel("\n".join(t.lines) + "\n", n, m, rounds, shuffle, scratch_global)
