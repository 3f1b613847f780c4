"""Running a chunked stretch of code for all its lanes at once, where that
cannot be told apart from running it chunk by chunk.

Between two synchronization points the machine runs the lanes of a frame
in chunks, one after the other, in the schedule's order: that is how a
thread may read before or after another's write. Run chunk by chunk, every
op is interpreted once per chunk, and most of a simulation's time goes
there. But when no element of memory passes between chunks (no element
that one chunk writes or updates atomically is touched by another chunk),
each lane reads what it would have read in its chunk, and the run is the
same as one of all the lanes at once, op by op, lane by lane:

- every op of the stretch must be `lane_local` (see the registry): a lane's
  values come from its own values and memory, however many lanes run it;
- every access of a buffer that can be written goes through
  `Machine.access` before its write: kept here on a tape, in order, with the
  old contents of what it writes;
- a private buffer (not logged) is a lane's own unless a view of it reaches
  out of the lane's copy (`Machine.note_view` marks that);
- what a dialect keeps in `Machine.dialect_state` can be saved
  (`snapshot`), put back (`restore`) and made what the chunks would have
  left (`settle`, given each lane's chunk).

`speculate` runs the stretch so, then checks the tape: if elements passed
between chunks, or the run raised, it puts back memory, allocations and the
frame's values as they were, and the machine runs the chunks. Otherwise it
writes the tape into the access log as a region that knows each lane's
chunk: put in the schedule's order (chunk by chunk, each chunk's accesses
in program order) where races are looked for, after the end of each
barrier epoch has dropped the reads that cannot race, it is the chunked
run's log, so the races found and their witnesses are the chunked run's.
Atomics of one chunk on an element apply in lane order in both runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from xsplit.simulator.lanes import Frame
from xsplit.simulator.memory import READ, AccessLog, Buffer

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Segment

Machine = Any
"""The running `machine.Machine` (which imports this module)."""


class Tape:
    """An access log for a speculative run: every access in the order made,
    and the old contents of every element written, to put back."""

    def __init__(self) -> None:
        self.records: list[tuple[Buffer, np.ndarray, np.ndarray, int, int, int]] = []
        self.undo: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def record(
        self, buf: Buffer, flat: np.ndarray, lanes: np.ndarray, op: int, kind: int, epoch: int
    ) -> None:
        if len(flat):
            if kind != READ:
                self.undo.append((buf.data, flat, buf.data[flat]))
            self.records.append((buf, flat, lanes, op, kind, epoch))


def speculate(m: Machine, seg: Segment, fr: Frame, chunks: list[np.ndarray]) -> bool:
    """Runs `seg` for all of `fr`'s lanes at once if that is the same as
    running it chunk by chunk in the order of `chunks`; whether it did."""
    buffers = m.buffers
    if any(b.escaped and b.space == "private" for b in buffers):
        return False
    if not all(hasattr(s, "settle") for s in m.dialect_state.values()):
        return False  # a dialect's state that cannot be put back
    log = m.log
    tape = Tape()
    count = len(buffers)
    allocs = set(m.allocs)
    escaped = [b.escaped for b in buffers]
    private = [(b, b.data.copy()) for b in buffers if b.space == "private"]
    states = dict(m.dialect_state)
    saved = {k: s.snapshot() for k, s in states.items()}
    env = fr.env[:]
    m.log = tape  # type: ignore[assignment]
    try:
        for f in seg.fns:
            f(fr, True)
        chunk = _chunk_of(m, fr, chunks)
        same = not any(b.escaped and b.space == "private" for b in buffers)
        same = same and all(hasattr(s, "settle") for s in m.dialect_state.values())
        same = same and not _passes_between_chunks(tape.records, chunk)
    except Exception:  # noqa: BLE001 - the chunked run raises it, or not, itself
        same = False
    finally:
        m.log = log
    if same:
        _log(tape.records, chunk, log)  # type: ignore[arg-type]
        for key, state in m.dialect_state.items():
            state.settle(chunk, saved.get(key))
        return True
    for key in [k for k in m.dialect_state if k not in states]:
        del m.dialect_state[key]
    for key, state in states.items():
        state.restore(saved[key])
    for data, flat, old in reversed(tape.undo):
        data[flat] = old
    for b, saved in private:
        b.data[...] = saved
    del buffers[count:]
    for key in [k for k in m.allocs if k not in allocs]:
        del m.allocs[key]
    for b, e in zip(buffers, escaped):
        b.escaped = e
    fr.env[:] = env
    return False


def _chunk_of(m: Machine, fr: Frame, chunks: list[np.ndarray]) -> np.ndarray:
    """Each global lane's chunk (its place in the schedule's order)."""
    chunk = np.full(m.launch.lanes, -1, dtype=np.int16 if len(chunks) < 2**15 else np.int64)
    for c, pos in enumerate(chunks):
        chunk[fr.lanes[pos]] = c
    return chunk


def _passes_between_chunks(records: list, chunk: np.ndarray) -> bool:
    """Whether some element one chunk writes (or updates atomically) is
    touched by another chunk."""
    by_buffer: dict[int, list] = {}
    for r in records:
        by_buffer.setdefault(r[0].ident, []).append(r)
    for rs in by_buffer.values():
        if all(r[4] == READ for r in rs):
            continue
        owner = chunk[np.concatenate([r[2] for r in rs])]
        if owner.min() == owner.max():
            continue
        elem = np.concatenate([r[1] for r in rs])
        sizes = np.fromiter((len(r[1]) for r in rs), np.int64, len(rs))
        writes = np.repeat(np.fromiter((r[4] != READ for r in rs), bool, len(rs)), sizes)
        order = np.argsort(elem, kind="stable")
        e, c, w = elem[order], owner[order], writes[order]
        starts = np.flatnonzero(np.concatenate(([True], e[1:] != e[:-1])))
        shared = np.minimum.reduceat(c, starts) != np.maximum.reduceat(c, starts)
        if np.any(shared & np.logical_or.reduceat(w, starts)):
            return True
    return False


def _log(records: list, chunk: np.ndarray, log: AccessLog) -> None:
    """The tape into `log`, in program order, as a region whose schedule
    order `AccessLog.in_schedule_order` makes; buffers it logs first are
    put in the order the chunks would have first logged them."""
    region = len(log.regions)
    log.regions.append(chunk)
    known = set(log.entries)
    first: dict[int, tuple[int, int]] = {}
    for i, (buf, flat, lanes, op, kind, epoch) in enumerate(records):
        log.record(buf, flat, lanes, op, kind, epoch, region)
        if buf.ident not in known:
            at = (int(chunk[lanes].min()), i)
            if buf.ident not in first or at < first[buf.ident]:
                first[buf.ident] = at
    if len(first) > 1:
        for ident in sorted(first, key=first.__getitem__):
            log.entries[ident] = log.entries.pop(ident)
