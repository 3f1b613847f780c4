"""Differential test of insert-barriers against the simulator, on random
kernels (shapes, tilings, distributions, thread counts): after the pass the
simulator finds no race and the results match numpy; with any one of the
barriers the pass inserted taken out, it finds a race."""

from __future__ import annotations

import re

import pytest

from tests.sync.kernels import random_kernel
from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.diagnostics import collect_remarks
from xsplit.dialects import make_context
from xsplit.simulator import simulate
from xsplit.simulator.run import pick_function, random_inputs

BARRIER = re.compile(r"^\s*gpu\.barrier\s*$", re.MULTILINE)


def insert_barriers(text: str) -> tuple[str, list[str]]:
    ctx = make_context()
    module = parse_module(text, "kernel.mlir", ctx)
    with collect_remarks() as diagnostics:
        run_passes(module, build_pipeline("insert-barriers,verify-sync"), ctx)
        lines = list(diagnostics)
    return print_module(module), lines


@pytest.mark.parametrize("seed", range(24))
def test_barriers_are_exactly_what_the_simulator_needs(seed):
    kernel = random_kernel(seed)
    assert not BARRIER.search(kernel.text)
    synced, diagnostics = insert_barriers(kernel.text)
    # Every case is decidable: no warning, and verify-sync accepts the result.
    assert not [d for d in diagnostics if ": warning: " in d or ": error: " in d], diagnostics
    func = pick_function(parse_module(synced, "synced.mlir"), None)
    inputs = random_inputs(func, seed)
    expected = kernel.expected(inputs)
    reference = [e if e is not None else inputs[i] for i, e in enumerate(expected)]
    report = simulate(func, inputs=inputs, orders=["lockstep", "reverse", "shuffled"])
    assert not report.races, (kernel.text, report.races)
    checked = simulate(func, reference=reference, inputs=inputs, orders=["lockstep", "reverse"])
    mismatches = [m for m in checked.mismatches if "(argument 2)" not in m]
    assert not mismatches, mismatches
    barriers = list(BARRIER.finditer(synced))
    for k, barrier in enumerate(barriers):
        without = synced[: barrier.start()] + synced[barrier.end() :]
        func = pick_function(parse_module(without, "without.mlir"), None)
        report = simulate(func, inputs=inputs, orders=["lockstep"])
        assert report.races, f"barrier {k} of {len(barriers)} was not needed:\n{synced}"


def test_the_generator_covers_the_interesting_cases():
    """Coinciding distributions (no barrier), loops (a WAR across iterations)
    and straight-line rounds (RAW, WAR, RAW: three), both memory spaces."""
    counts = {}
    for seed in range(24):
        kernel = random_kernel(seed)
        synced, _ = insert_barriers(kernel.text)
        looped = "%round =" in kernel.text
        counts.setdefault((looped, kernel.scratch_global), []).append(len(BARRIER.findall(synced)))
    assert set(counts) == {(True, True), (True, False), (False, True), (False, False)}
    everything = [n for ns in counts.values() for n in ns]
    assert 0 in everything
    assert max(n for (looped, _), ns in counts.items() if not looped for n in ns) == 3
    assert max(n for (looped, _), ns in counts.items() if looped for n in ns) == 2
