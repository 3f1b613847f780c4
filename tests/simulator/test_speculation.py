"""The simulator's shortcuts change nothing: a kernel is compiled once for
all its thread orders, and a chunked stretch run for all its lanes at once
(`speculation`) gives, per order, the results, the access log (in the
schedule's order) and the races that running it chunk by chunk gives;
where an element passes between chunks it runs the chunks."""

from __future__ import annotations

import numpy as np
import pytest

import xsplit.simulator.compiled as compiled
import xsplit.simulator.machine as machine
from xsplit.api import parse_module
from xsplit.simulator import Launch, Machine, simulate
from xsplit.simulator.compiled import Compiled
from xsplit.simulator.races import find_races
from xsplit.simulator.run import launch_sizes, pick_function, random_inputs, schedules

WG = "memref<64xf32, #gpu.address_space<workgroup>>"
PRIVATE = "memref<2xf32, #gpu.address_space<private>>"

# Stage a row through workgroup memory, read a neighbour's element after
# the barrier, sum a few of them in a loop through a private buffer, keep
# odd threads' sums, and add each workgroup's into one element atomically
# (every workgroup's lanes meet there: that stretch runs chunk by chunk).
KERNEL = f"""\
func.func @k(%a: memref<4x64xf32>, %b: memref<4x64xf32>, %o: memref<1xf32>) attributes {{gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>}} {{
  %t = gpu.thread_id x
  %blk = gpu.block_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : {WG}
  %p = memref.alloca() : {PRIVATE}
  %v = memref.load %a[%blk, %t] : memref<4x64xf32>
  memref.store %v, %s[%t] : {WG}
  gpu.barrier
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %p[%c0] : {PRIVATE}
  scf.for %i = %c1 to %c3 step %c1 {{
    %ti = arith.addi %t, %i : index
    %n = arith.remui %ti, %c64 : index
    %w = memref.load %s[%n] : {WG}
    %acc = memref.load %p[%c0] : {PRIVATE}
    %sum = arith.addf %acc, %w : f32
    memref.store %sum, %p[%c0] : {PRIVATE}
  }}
  %r = memref.load %p[%c0] : {PRIVATE}
  %odd = arith.remui %t, %c2 : index
  %keep = arith.cmpi ne, %odd, %c0 : index
  scf.if %keep {{
    memref.store %r, %b[%blk, %t] : memref<4x64xf32>
  }}
  gpu.barrier
  %is0 = arith.cmpi eq, %t, %c0 : index
  scf.if %is0 {{
    %old = memref.atomic_rmw addf %r, %o[%c0] : (f32, memref<1xf32>) -> f32
  }}
  return
}}
"""

# Without the first barrier a thread reads its neighbour's element in the
# stretch that writes it: elements pass between chunks, and they race.
RACY = KERNEL.replace("  gpu.barrier\n", "", 1)

# Workgroup 0 writes %b's last row before the first barrier, workgroup 3
# reads it after (and writes its odd elements): no barrier orders
# workgroups, so they race, though in each stretch only one workgroup
# touches the row (both run at once). Run in reverse, the chunks log %s
# before %b, which the program touches first.
ACROSS = KERNEL.replace(
    f"  memref.store %v, %s[%t] : {WG}\n  gpu.barrier\n",
    f"""  %wg0 = arith.cmpi eq, %blk, %c0 : index
  scf.if %wg0 {{
    memref.store %v, %b[%c3, %t] : memref<4x64xf32>
  }}
  memref.store %v, %s[%t] : {WG}
  gpu.barrier
  %wg3 = arith.cmpi eq, %blk, %c3 : index
  scf.if %wg3 {{
    %late = memref.load %b[%c3, %t] : memref<4x64xf32>
  }}
""",
)


def _log_columns(m: Machine) -> dict:
    """Each buffer's accesses as columns, in the schedule's order."""
    out = {}
    for ident, entries in m.log.entries.items():
        sizes = [len(e[0]) for e in entries]
        cols = [np.concatenate([e[0] for e in entries]), np.concatenate([e[1] for e in entries])]
        cols += [np.repeat([e[i] for e in entries], sizes) for i in (2, 3, 4)]
        order = m.log.in_schedule_order(entries)
        out[m.buffers[ident].name] = [c if order is None else c[order] for c in cols]
    return out


def _runs(
    text: str, monkeypatch, chunked: bool, counts: dict | None = None, inputs=None
) -> dict:
    func = pick_function(parse_module(text, "k.mlir"), None)
    inputs = inputs if inputs is not None else random_inputs(func, 1)
    launch = Launch(*launch_sizes(func, None, None))
    if chunked:
        monkeypatch.setattr(machine, "speculate", lambda *args: False)
    elif counts is not None:
        real = machine.speculate

        def counted(*args) -> bool:
            ran = real(*args)
            counts[ran] = counts.get(ran, 0) + 1
            return ran

        monkeypatch.setattr(machine, "speculate", counted)
    code = Compiled(func, launch)
    out = {}
    for order, schedule in schedules(launch.lanes, 1).items():
        m = Machine(launch, schedule, code=code)
        results = m.run(func, [x.copy() for x in inputs])
        out[order] = (results, [r.describe(m) for r in find_races(m)], _log_columns(m))
    monkeypatch.undo()
    return out


def _same_runs(fast: dict, slow: dict) -> None:
    for order in slow:
        (got, races, log), (want, want_races, want_log) = fast[order], slow[order]
        for g, w in zip(got, want):
            assert g.tobytes() == w.tobytes(), order
        assert races == want_races, order
        assert list(log) == list(want_log)
        for name in want_log:
            for g, w in zip(log[name], want_log[name]):
                assert np.array_equal(g, w), (order, name)


@pytest.mark.parametrize("text", [KERNEL, RACY, ACROSS], ids=["synchronized", "racy", "across"])
def test_speculation_is_the_chunked_run(text: str, monkeypatch) -> None:
    counts: dict = {}
    fast = _runs(text, monkeypatch, chunked=False, counts=counts)
    slow = _runs(text, monkeypatch, chunked=True)
    _same_runs(fast, slow)
    # Chunk by chunk around the atomic (and the stretch that races); at
    # once where nothing passes between chunks.
    assert counts.get(False, 0) > 0
    races = slow["shuffled"][1]
    if text is KERNEL:
        assert counts.get(True, 0) > 0
        assert not any(races for _, races, _ in slow.values())
    elif text is RACY:
        assert races and all("%s[" in r for r in races)
    else:
        assert counts.get(True, 0) > 0
        assert races and all("%b[3, " in r and "block (0,0,0)" in r for r in races)
        assert any("read by block (3,0,0)" in r for r in races)


def test_racy_orders_still_differ(monkeypatch) -> None:
    """The stretch that races runs chunk by chunk: its orders give different
    results, as they did before any stretch ran at once."""
    fast = _runs(RACY, monkeypatch, chunked=False)
    b = [results[1].tobytes() for results, _, _ in fast.values()]
    assert len(set(b)) > 1


def test_each_op_is_compiled_once_for_every_order(monkeypatch) -> None:
    func = pick_function(parse_module(KERNEL, "k.mlir"), None)
    seen: list[int] = []
    real = compiled.compile_op

    def counting(code, op):
        seen.append(id(op))
        return real(code, op)

    monkeypatch.setattr(compiled, "compile_op", counting)
    report = simulate(func)
    assert report.clean
    assert seen and len(seen) == len(set(seen))


@pytest.mark.parametrize("drop", [None, 0], ids=["synchronized", "first-barrier-dropped"])
def test_async_copies_run_at_once_as_in_chunks(drop, monkeypatch) -> None:
    """sm_80's kernel issues `nvgpu.device_async_copy`s, groups and waits for
    them in stretches run at once: the copies in flight are left as the
    chunks would have left them, so later waits land and log them alike;
    with a barrier dropped, the races and wrong results are the chunks'."""
    from tests.helpers.gemm_kernel import inputs, lowered

    _, text = lowered(32, 32, 64, "target=sm_80 chunks=2 tile=32,16,16 warps=2,1", "f16")
    assert "nvgpu.device_async_copy" in text
    if drop is not None:
        lines = text.splitlines()
        at = [i for i, line in enumerate(lines) if line.strip() == "gpu.barrier"][drop]
        text = "\n".join(lines[:at] + lines[at + 1 :]) + "\n"
    counts: dict = {}
    args = inputs(32, 32, 64, 1, "f16")
    fast = _runs(text, monkeypatch, chunked=False, counts=counts, inputs=args)
    slow = _runs(text, monkeypatch, chunked=True, inputs=args)
    _same_runs(fast, slow)
    assert counts.get(True, 0) > 0
    assert bool(slow["shuffled"][1]) == (drop is not None)


# Each thread copies its element into a workgroup buffer asynchronously
# and passes a barrier with the copy in flight; then it copies it into a
# second one, waits for the first copy only and reads its neighbour's
# element of the first buffer, with no barrier between: the element passes
# between chunks in that stretch, which then runs chunk by chunk, the
# copies in flight and each thread's group count put back as they were.
ASYNC_NEIGHBOUR = f"""\
func.func @k(%a: memref<2x64xf32>, %b: memref<2x64xf32>) attributes {{gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 2, 1, 1>}} {{
  %t = gpu.thread_id x
  %blk = gpu.block_id x
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : {WG}
  %s2 = memref.alloc() : {WG}
  %copy = nvgpu.device_async_copy %a[%blk, %t], %s[%t], 1 : memref<2x64xf32> to {WG}
  %group = nvgpu.device_async_create_group %copy
  gpu.barrier
  %copy2 = nvgpu.device_async_copy %a[%blk, %t], %s2[%t], 1 : memref<2x64xf32> to {WG}
  %group2 = nvgpu.device_async_create_group %copy2
  nvgpu.device_async_wait %group2 numGroups = 1
  %t1 = arith.addi %t, %c1 : index
  %n = arith.remui %t1, %c64 : index
  %w = memref.load %s[%n] : {WG}
  gpu.barrier
  nvgpu.device_async_wait %group2 numGroups = 0
  gpu.barrier
  %w2 = memref.load %s2[%n] : {WG}
  %sum = arith.addf %w, %w2 : f32
  memref.store %sum, %b[%blk, %t] : memref<2x64xf32>
  return
}}
"""


def test_async_copies_put_back_when_the_chunks_run(monkeypatch) -> None:
    counts: dict = {}
    fast = _runs(ASYNC_NEIGHBOUR, monkeypatch, chunked=False, counts=counts)
    slow = _runs(ASYNC_NEIGHBOUR, monkeypatch, chunked=True)
    _same_runs(fast, slow)
    assert counts.get(False) == 3  # the second stretch, in the three chunked orders
    assert slow["shuffled"][1]  # the race is found
    assert len({results[1].tobytes() for results, _, _ in slow.values()}) > 1
