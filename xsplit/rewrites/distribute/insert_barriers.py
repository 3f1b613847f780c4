"""`insert-barriers`: puts a `gpu.barrier` wherever threads of a workgroup
may otherwise race, and nowhere else.

For every two accesses to one buffer (global or workgroup memory), one of
them writing, the access analysis (xsplit/analysis/access.py) decides whether
a thread may touch, through the later op, an element another thread touched
through the earlier one: in the same iteration of the loops around both, and
across iterations of each. Each such dependence (RAW, WAR or WAW) needs a
barrier on every path between the two ops. The pass places them greedily,
as late as possible (before the op that needs the data), so that one barrier
serves every dependence it can: the fewest for straight-line code.

Where the distributions provably coincide (every element the two ops share
is touched by one thread only, as for a fill and a matmul tiled and
distributed alike) no barrier goes in, and a remark gives the proof. A
dependence the analysis cannot decide gets a barrier and a warning; one no
barrier can order (inside thread-dependent control flow, or two threads in
one op) gets a warning and no barrier.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from xsplit.analysis.sync import SyncAnalysis, is_kernel
from xsplit.diagnostics import location_of, remark, warning
from xsplit.rewrites.dsl import IRBuilder, Match, Option, Pass, Pattern, where


def parse_block(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        sizes = [int(p) for p in text.split(",")]
    except ValueError:
        return None
    return sizes if 1 <= len(sizes) <= 3 and all(s > 0 for s in sizes) else None


def check_block_sizes(text: str) -> str | None:
    return None if parse_block(text) is not None else f"must be X[,Y,Z] positive sizes, got '{text}'"


def where_op(op) -> str:
    return f"{op.name} at {location_of(op) or '<unknown>'}"


def analyze(m: Match) -> bool | str:
    func = m.root
    if not func.regions or not func.regions[0].blocks:
        return "the function has no body"
    if not is_kernel(func):
        return "the function uses no GPU thread ids"
    m.captures["sync"] = SyncAnalysis(func, parse_block(m.options.get("block")))
    return True


def proof_remarks(sync: SyncAnalysis) -> None:
    said: set[tuple[int, int]] = set()
    threads = sync.access.threads
    for p in sync.proofs:
        key = (id(p.first.op), id(p.second.op))
        if key in said:
            continue
        said.add(key)
        how = (
            "every element both touch is touched by one thread only, which wrote it itself"
            if "coincide" in p.detail
            else "no element is touched by both in different threads"
        )
        remark(
            p.second.op,
            f"no barrier needed between {where_op(p.first.op)} and {where_op(p.second.op)}: "
            f"{how}: {p.first.kind} {p.first.describe_indices()}, {p.second.kind} "
            f"{p.second.describe_indices()} (checked for all {threads} threads of the block)",
        )


def insert(m: Match, b: IRBuilder) -> Sequence[SSAValue] | None:
    sync: SyncAnalysis = m["sync"]
    proof_remarks(sync)
    undecided = [
        d for d in sync.dependences if d.verdict.status == "unknown" and not sync.satisfied(d)
    ]
    placed, unfixable = sync.plan()
    for _, before, d in placed:
        across = " across loop iterations" if d.wrap else ""
        remark(
            before,
            f"inserted gpu.barrier before {where_op(before)}: {d.kind} dependence{across} "
            f"from {where_op(d.first.op)} to {where_op(d.second.op)} ({d.verdict.detail})",
        )
    for d in undecided:
        if not d.unfixable:
            warning(
                d.second.op,
                f"cannot decide whether {where_op(d.first.op)} and {where_op(d.second.op)} "
                f"touch the same elements in different threads ({d.verdict.detail}); "
                "synchronized conservatively",
            )
    for d in unfixable:
        warning(
            d.second.op,
            f"{d.kind} dependence between {where_op(d.first.op)} and {where_op(d.second.op)} "
            f"cannot be ordered by gpu.barrier: {d.unfixable}",
        )
    return None


INSERT_BARRIERS_PATTERN = Pattern(
    name="insert-barriers",
    doc="inserts the gpu.barriers a distributed kernel's cross-thread dependences need",
    root="func.func",
    where=where("a kernel on GPU threads", analyze),
    rewrite=insert,
    options=["block"],
)

INSERT_BARRIERS = Pass(
    "insert-barriers",
    "Inserts gpu.barrier between ops where threads of a workgroup would race.",
    [INSERT_BARRIERS_PATTERN],
    options=[
        Option(
            "block",
            str,
            None,
            "threads per block X[,Y,Z] when the function has no gpu.known_block_size",
            check=check_block_sizes,
        )
    ],
)
