"""xsplit's own GEMM kernel as the tests build and check it: a matmul through
`gemm-kernel` and its three lowerings, seeded inputs, numpy's result, a run in
the simulator in a shuffled thread order, and a machine that measures the
worst bank conflict of the A tile's accesses."""

from __future__ import annotations

import numpy as np

from tests.helpers.kept import parsed, rewrite_kept
from tests.helpers.simulation import simulate_module
from xsplit.api import parse_module, rewrite_module
from xsplit.diagnostics import collect_remarks
from xsplit.simulator.machine import Launch, Machine, lockstep
from xsplit.simulator.run import launch_sizes, pick_function

LOWER = "lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm"


def matmul(m: int, n: int, k: int, element: str = "f32") -> str:
    a, b, c = f"tensor<{m}x{k}x{element}>", f"tensor<{k}x{n}x{element}>", f"tensor<{m}x{n}xf32>"
    return f"""
func.func @mm(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %x = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %x : {c}
}}
"""


def lowered(m: int, n: int, k: int, options: str, element: str = "f32", printed: bool = True):
    """The kernel as the passes left it (see tests/helpers/kept.py), and its
    text; None for the text where not `printed` (printing a lowered kernel
    costs about what lowering it does, and a test that reads only the IR
    need not pay it)."""
    pipeline = f"gemm-kernel{{{options}}},{LOWER}"
    with collect_remarks():
        if not printed:
            return rewrite_module(parse_module(matmul(m, n, k, element)), pipeline), None
        text = rewrite_kept(matmul(m, n, k, element), pipeline)
    return parsed(text, "kernel.mlir"), text


def to_bf16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to the nearest bf16 (to even), still as f32: the
    simulator holds bf16 in f32."""
    bits = x.astype(np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def inputs(m: int, n: int, k: int, seed: int, element: str = "f32") -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    dtype = np.float16 if element == "f16" else np.float32
    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, n)).astype(dtype)
    if element == "bf16":
        a, b = to_bf16(a), to_bf16(b)
    return [a, b, rng.uniform(-1, 1, (m, n)).astype(np.float32)]


def expected(args: list[np.ndarray]) -> list[np.ndarray]:
    a, b, c = (x.astype(np.float64) for x in args)
    return [args[0], args[1], (c + a @ b).astype(np.float32)]


ORDERS = ["shuffled"]
"""The thread order `check` simulates in. The race check reads the run's
access log (which lanes touched which element in which barrier interval),
whatever order the lanes ran in: tests/sync/test_differential.py finds the
race of every barrier taken out in lockstep alone. A race-free kernel
without float atomics computes the same bits in every order, so the other
three orders ran the same kernel three more times (three quarters of these
tests' time) and could show only what the race check reports. Shuffled
chunks of lanes, not lockstep, so that a race the log missed would still
show in the numbers."""


def check(
    m: int, n: int, k: int, options: str, seed: int = 0, element: str = "f32", printed: bool = True
) -> str | None:
    """The kernel's text, which callers read (None where not `printed`:
    printing a lowered kernel cost a sixth of such a test, and a caller that
    reads no text need not pay it; test_kernel_round_trip.py and the
    compile tests print every form)."""
    module, text = lowered(m, n, k, options, element, printed)
    if text is None:
        # What the text's "xsplit_gemm." would show: the dialect has ops only.
        assert not any(op.name.startswith("xsplit_gemm.") for op in module.walk())
    else:
        assert "xsplit_gemm." not in text
    args = inputs(m, n, k, seed, element)
    report = simulate_module(module, expected(args), args, orders=ORDERS)
    assert report.clean, report.races + report.mismatches
    return text


class QuietMachine(Machine):
    """A lockstep machine that logs nothing: what a subclass measures is all
    it keeps (`worst`), and its wrapped op closures (`_wrapped`)."""

    def __init__(self, launch: Launch) -> None:
        super().__init__(launch, lockstep, log=False)
        self.worst = 0
        self._wrapped: dict[int, object] = {}


class LoadCounter(QuietMachine):
    """Counts the lanes that run each plain global load of A and of B
    (elements and loads: `a`, `b`, `a_loads`, `b_loads`) and each product
    (`fma`: an `arith.mulf` is one, a lane's share of an `nvgpu.mma.sync`
    16 x 8 x 16 / 32); cp.async is not a load. Reads of buffers nothing
    writes are not in the simulator's access log, so the counting hooks the
    per-op closures."""

    def __init__(self, launch: Launch) -> None:
        super().__init__(launch)
        self.counts = {"a": 0, "b": 0, "a_loads": 0, "b_loads": 0, "fma": 0}

    def fn(self, op):
        f = super().fn(op)
        hint = op.operands[0].name_hint if op.operands else None
        if op.name == "arith.mulf":
            what, width = "fma", 1
        elif op.name == "nvgpu.mma.sync":
            what, width = "fma", 16 * 8 * 16 // 32
        elif op.name in ("memref.load", "vector.load") and hint in ("a", "b"):
            what = hint
            width = op.results[0].type.get_shape()[0] if op.name == "vector.load" else 1
        else:
            return f
        if id(op) not in self._wrapped:
            counts = self.counts

            def wrapped(fr, chunked, f=f, what=what, width=width) -> None:
                counts[what] += fr.n * width
                if what != "fma":
                    counts[f"{what}_loads"] += fr.n
                f(fr, chunked)

            self._wrapped[id(op)] = wrapped
        return self._wrapped[id(op)]


class BankMachine(QuietMachine):
    """Records, for every store into (or load from) an A tile, the worst
    bank conflict of any warp: the most distinct words one of the 32
    four-byte banks gets from the warp's lanes in that access (1:
    conflict-free; one word read by many lanes is a broadcast). Lockstep
    order, so each access runs for all its lanes at once."""

    def __init__(self, launch: Launch, kind: str, group: int) -> None:
        super().__init__(launch)
        self.kind, self.group = kind, group

    def fn(self, op):
        f = super().fn(op)
        at = 1 if op.name in ("memref.store", "vector.store") else 0
        if op.name != self.kind or not str(op.operands[at].name_hint).startswith("a_tile"):
            return f
        if id(op) not in self._wrapped:
            strides = [1]
            for size in reversed(op.operands[at].type.get_shape()[1:]):
                strides.insert(0, strides[0] * size)
            # A vector store of f32 writes its elements' words side by side.
            width = op.operands[0].type.get_shape()[0] if op.name == "vector.store" else 1

            def wrapped(fr, chunked, f=f, op=op, strides=strides, at=at, width=width) -> None:
                idx = [
                    np.broadcast_to(self.arr(fr, self.slots[v]), (fr.n,))
                    for v in op.operands[at + 1 :]
                ]
                words = sum(i * s for i, s in zip(idx, strides))
                warps = fr.lanes // self.group
                for w in np.unique(warps):
                    mine = np.unique(words[warps == w][:, None] + np.arange(width))
                    self.worst = max(self.worst, int(np.bincount(mine % 32).max()))
                f(fr, chunked)

            self._wrapped[id(op)] = wrapped
        return self._wrapped[id(op)]


def worst_conflict(options: str, k: int, kind: str, group: int = 32) -> int:
    """The worst conflict of the A tile's `kind` accesses among `group`
    lanes at a time: a warp for 32-bit accesses; 8 lanes, a quarter of one,
    for a row copy's 128-bit `vector.store`s."""
    module, _ = lowered(128, 128, k, options, printed=False)
    fn = pick_function(module, None)
    grid, block = launch_sizes(fn, None, None)
    machine = BankMachine(Launch(grid, block, 32), kind, group)
    machine.run(fn, inputs(128, 128, k, 0))
    return machine.worst
