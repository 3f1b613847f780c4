"""`stream-prefetch`'s forms against split-k's tiles on products of few
rows, in one process, alternating (issue 39).

    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 python bench/stream_rows.py \
        [--rounds 30] [--only FORM,...] [--chunks 8,32] [--iree] M N K [M N K ...]

For each shape: `pick`, `auto{target=cpu}` as it chose before the form
(the prefetch model's table emptied, so split-k's IREE tiles), and the
forms of `stream-prefetch{prefetch=on}`, named by what they vary:

- `all-t1`, `all-t0`, `all-none`: one register tile of every row
  (`tile_rows=M`), prefetching into L2 (`prefetcht1`), into L1
  (`prefetcht0`), or not at all;
- `all-t1-aN`: tiles of up to N accumulators (16, 24: the default, 28, 32);
- `all-t1-dN`: prefetching N rows of B ahead (16, 64; the default 32);
- `g4b32-t1`, `g4b32-none`, `g4b128-t1`: tiles of 4 rows over blocks of
  32 or 128 rows of B (`tile_rows=4 k_block=`), past 4 rows;
- with `--chunks`: `split-cN` (split-k's tiles in N chunks, the sweep's
  form) and `all-t1-cN`;
- with `--iree`: `iree`, IREE default.

Every program is checked against numpy first, then each round calls all of
them and a read-only pass over as many bytes as B on every core, in a
fresh order, 150 ms apart, from a thread at niceness 19
(`xsplit.bench.driver.time_rounds`). The table gives each form's median
wall time, its median ratio to the pick's in the same round, its read rate
over B against the read pass of the same round, its process CPU time (the
workers' included) and that ratio, and its best and tenth-percentile
calls against the pick's. On a shared machine compare the ratios of one
run, never absolute times across runs. The environment variable puts
IREE's buffers on 2 MiB pages, as bench/data_tiling.py does by default.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from xsplit.api import rewrite
from xsplit.bench.driver import ConfigResult, sweep_options, time_rounds
from xsplit.bench.machine import ReadPass
from xsplit.diagnostics import collect_remarks
from xsplit.iree.cpu_runner import to_numpy
from xsplit.iree.iree_compile import compile_mlir
import xsplit.analysis.cost_model.cpu as cpu_model
import xsplit.rewrites.split.stream_prefetch as sp


def program(m: int, n: int, k: int) -> str:
    a, b, c = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    return f"""
func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %0 : {c}
}}"""


def variants(m: int, iree: bool, chunks: list[int]) -> list[tuple[str, str, int]]:
    """(name, pipeline, prefetch locality) for M rows; a name's `-dN` says
    the prefetch distance (rows of B ahead)."""
    out = [("pick", "auto{target=cpu}", 2)] + ([("iree", "", 2)] if iree else [])
    for c in chunks:
        out += [
            (f"split-c{c}", f"split-k{{{sweep_options(c)}}},materialize-late", 2),
            (f"all-t1-c{c}", f"stream-prefetch{{prefetch=on tile_rows={m} chunks={c}}}", 2),
        ]
    every_row = f"stream-prefetch{{prefetch=on tile_rows={m}}}"
    out += [(f"all-t1-d{d}", every_row, 2) for d in (16, 64)]
    out += [(f"all-t1-a{a}", every_row, 2) for a in (16, 24, 28, 32)]
    out += [
        ("all-t1", f"stream-prefetch{{prefetch=on tile_rows={m}}}", 2),
        ("all-none", f"stream-prefetch{{prefetch=none tile_rows={m}}}", 2),
    ]
    if m > 4:
        out += [
            ("all-t0", f"stream-prefetch{{prefetch=on tile_rows={m}}}", 3),
            ("g4b32-t1", "stream-prefetch{prefetch=on tile_rows=4 k_block=32}", 2),
            ("g4b32-none", "stream-prefetch{prefetch=none tile_rows=4 k_block=32}", 2),
            ("g4b128-t1", "stream-prefetch{prefetch=on tile_rows=4 k_block=128}", 2),
        ]
    else:
        out += [("all-t0", f"stream-prefetch{{prefetch=on tile_rows={m}}}", 3)]
    return out


def _tenth(times: list[float]) -> float:
    """The tenth percentile: what a call takes when the machine is nearly
    quiet, less exposed than the best to one lucky call."""
    return statistics.quantiles(times, n=10, method="inclusive")[0]


def bench_shape(
    m: int, n: int, k: int, rounds: int, iree: bool, only: str, chunks: list[int]
) -> None:
    import iree.runtime as rt

    rng = np.random.default_rng(m * 7 + n + k)
    inputs = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((m, k), (k, n), (m, n))]
    want = inputs[0].astype(np.float64) @ inputs[1].astype(np.float64) + inputs[2]
    config = rt.Config("local-task")
    device_inputs = [rt.asdevicearray(config.device, a) for a in inputs]
    timed = []
    source = program(m, n, k)
    defaults = (
        sp.PREFETCH_LOCALITY,
        sp.LINE_PREFETCH_LOCALITY,
        sp.PREFETCH_DISTANCE,
        sp.MANY_ROWS_ACCUMULATORS,
    )
    for name, pipeline, locality in variants(m, iree, chunks):
        if only and name != "pick" and name not in only.split(","):
            continue
        # Both constants: the form's own choice between them is what the
        # variants compare.
        sp.PREFETCH_LOCALITY = sp.LINE_PREFETCH_LOCALITY = locality
        if "-d" in name:
            sp.PREFETCH_DISTANCE = int(name.rsplit("-d", 1)[1])
        if "-a" in name:
            sp.MANY_ROWS_ACCUMULATORS = int(name.rsplit("-a", 1)[1])
        # The pick is auto's as it was before the form: the model's table
        # emptied, stream-prefetch leaves every product to split-k.
        measured = cpu_model.PREFETCH_STREAM_TIME_RATIO
        if name == "pick":
            cpu_model.PREFETCH_STREAM_TIME_RATIO = {}
        with collect_remarks() as remarks:
            text = rewrite(source, pipeline) if pipeline else source
        cpu_model.PREFETCH_STREAM_TIME_RATIO = measured
        (
            sp.PREFETCH_LOCALITY,
            sp.LINE_PREFETCH_LOCALITY,
            sp.PREFETCH_DISTANCE,
            sp.MANY_ROWS_ACCUMULATORS,
        ) = defaults
        said = [r for r in remarks if "stream-prefetch:" in str(r) or "split-k" in str(r)]
        print(f"# {name}: {str(said[-1]) if said else '(no remark)'}", flush=True)
        vmfb = compile_mlir(text, "cpu", [])
        context = rt.SystemContext(config=config)
        context.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
        call = context.modules.module["main"]
        (got,) = to_numpy(call(*[rt.asdevicearray(config.device, a) for a in inputs]))
        error = float(np.abs(got - want).max())
        assert error <= 1e-3 * max(1.0, float(np.abs(want).max())), (name, error)
        run = functools.partial(lambda c: to_numpy(c(*device_inputs)), call)
        timed.append((ConfigResult(name, None, []), run))
    read = ReadPass.build(inputs[1].nbytes)
    assert read is not None, "no C compiler for the read pass"
    read_result = ConfigResult("read-pass", None, [])
    timed.append((read_result, read))
    cpu: dict[str, list[float]] = {r.name: [] for r, _ in timed}

    def with_cpu_time(name: str, call: Callable[[], object]) -> Callable[[], None]:
        def timed_call() -> None:
            start = time.process_time()
            call()
            cpu[name].append((time.process_time() - start) * 1e3)

        return timed_call

    calls = [(r, with_cpu_time(r.name, c)) for r, c in timed]
    time_rounds(calls, rounds, seed=m + n + k, progress=lambda step: None)
    pick = next(r for r, _ in timed if r.name == "pick")
    gb = inputs[1].nbytes / 1e9
    print(
        f"\n{m}x{n}x{k}: {rounds} rounds, B {gb * 1e3:.0f} MB, "
        f"read pass median {read_result.median_ms:.2f} ms"
    )
    print(
        "| form | median ms | over the pick (same round) | of the read pass (same round) "
        "| CPU ms | CPU over the pick | best ms (over the pick's best) "
        "| tenth percentile ms (over the pick's) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for result, _ in timed:
        if result is read_result:
            continue
        over = statistics.median(t / p for t, p in zip(result.times_ms, pick.times_ms))
        share = statistics.median(r / t for t, r in zip(result.times_ms, read_result.times_ms))
        cpu_over = statistics.median(t / p for t, p in zip(cpu[result.name], cpu["pick"]))
        cpu_ms = statistics.median(cpu[result.name])
        best = min(result.times_ms)
        tenth = _tenth(result.times_ms)
        print(
            f"| {result.name} | {result.median_ms:.2f} | {over:.3f} | {share:.0%} | {cpu_ms:.2f} "
            f"| {cpu_over:.3f} | {best:.2f} ({best / min(pick.times_ms):.3f}) "
            f"| {tenth:.2f} ({tenth / _tenth(pick.times_ms):.3f}) |"
        )
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--iree", action="store_true", help="IREE default too")
    parser.add_argument("--only", default="", help="the forms to time, comma-separated")
    parser.add_argument(
        "--chunks", default="", help="chunk counts, comma-separated: split-k's and the form's"
    )
    parser.add_argument("dims", type=int, nargs="+", help="M N K, repeated")
    args = parser.parse_args()
    if len(args.dims) % 3:
        parser.error("give M N K for each shape")
    for i in range(0, len(args.dims), 3):
        chunks = [int(c) for c in args.chunks.split(",") if c]
        bench_shape(*args.dims[i : i + 3], args.rounds, args.iree, args.only, chunks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
