"""`verify-sync`: checks that a distributed kernel's threads never race, and
changes nothing.

Every dependence across threads of a workgroup (RAW, WAR, WAW, in global or
workgroup memory; see `insert-barriers`) must have a `gpu.barrier` on every
path between its two ops. Each one that does not is an error naming both ops
and their locations; the pass then fails. A dependence the access analysis
cannot decide, and that no barrier orders, is a warning: the pass never
passes silently on what it could not prove.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from xsplit.analysis.sync import SyncAnalysis
from xsplit.diagnostics import XsplitError, diagnose, warning
from xsplit.rewrites.distribute.insert_barriers import analyze, check_block_sizes, where_op
from xsplit.rewrites.dsl import IRBuilder, Match, Option, Pass, Pattern, where

_WHAT = {
    "RAW": "reads what another thread wrote",
    "WAR": "overwrites what another thread read",
    "WAW": "overwrites what another thread wrote",
}


def verify(m: Match, b: IRBuilder) -> Sequence[SSAValue] | None:
    sync: SyncAnalysis = m["sync"]
    errors = 0
    said: set[tuple[int, int, str]] = set()
    for d in sync.dependences:
        if sync.satisfied(d):
            continue
        key = (id(d.first.op), id(d.second.op), d.kind)
        if key in said:
            continue
        said.add(key)
        where_ = " across loop iterations" if d.wrap else ""
        if d.verdict.status == "unknown":
            warning(
                d.second.op,
                f"cannot decide whether {where_op(d.second.op)} {_WHAT[d.kind]} at "
                f"{where_op(d.first.op)}{where_}: {d.verdict.detail}; no gpu.barrier orders them",
            )
            continue
        errors += 1
        reason = d.unfixable or "no gpu.barrier between them"
        diagnose(
            d.second.op,
            "error",
            f"unsynchronized {d.kind} dependence{where_}: {where_op(d.second.op)} "
            f"{_WHAT[d.kind]} at {where_op(d.first.op)} ({d.verdict.detail}); {reason}",
        )
    if errors:
        raise XsplitError(
            f"verify-sync: {errors} unsynchronized dependence{'s' if errors > 1 else ''}", m.root
        )
    return None


VERIFY_SYNC_PATTERN = Pattern(
    name="verify-sync",
    doc="fails on every cross-thread dependence of a kernel that no gpu.barrier orders",
    root="func.func",
    where=where("a kernel on GPU threads", analyze),
    rewrite=verify,
    options=["block"],
)

VERIFY_SYNC = Pass(
    "verify-sync",
    "Checks that no two threads of a workgroup race; changes nothing.",
    [VERIFY_SYNC_PATTERN],
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
