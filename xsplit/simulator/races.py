"""Races in an access log: two threads touch one element, at least one
writes, not both atomically, and nothing orders them. Threads of one
workgroup are ordered by a barrier between them (different epochs); threads
of different workgroups never are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xsplit.simulator.machine import Machine, describe_op
from xsplit.simulator.memory import ATOMIC, READ, WRITE

_KIND_WORD = {READ: "read", WRITE: "write", ATOMIC: "atomic"}


@dataclass(frozen=True)
class Race:
    """One pair of ops that race, with one element and one pair of threads
    as witness, and how many elements race between them."""

    first_op: int
    second_op: int
    first_kind: int
    second_kind: int
    first_lane: int
    second_lane: int
    element: str
    elements: int

    def describe(self, machine: Machine) -> str:
        a, b = machine.ops[self.first_op], machine.ops[self.second_op]
        count = f"at least {self.elements}" if self.elements >= _EXAMINED else str(self.elements)
        more = f" ({count} elements race between these ops)" if self.elements > 1 else ""
        return (
            f"race on {self.element}: {_KIND_WORD[self.first_kind]} by "
            f"{machine.launch.describe_lane(self.first_lane)} at {describe_op(a)}, "
            f"{_KIND_WORD[self.second_kind]} by {machine.launch.describe_lane(self.second_lane)} "
            f"at {describe_op(b)}{more}"
        )


def find_races(machine: Machine) -> list[Race]:
    """Every pair of ops that race in the machine's log, one witness each."""
    assert machine.log is not None
    races: dict[tuple[int, int], Race] = {}
    counts: dict[tuple[int, int], int] = {}
    block_of = machine.launch.block_of_lane
    for ident, entries in machine.log.entries.items():
        buf = machine.buffers[ident]
        if all(e[3] == READ for e in entries):
            continue
        elem = np.concatenate([e[0] for e in entries])
        lane = np.concatenate([e[1] for e in entries])
        op = _column(entries, 2, np.int64)
        kind = _column(entries, 3, np.int8)
        epoch = _column(entries, 4, np.int64)
        order = machine.log.in_schedule_order(entries)
        if order is not None:
            elem, lane, op, kind, epoch = (x[order] for x in (elem, lane, op, kind, epoch))
        shared = _shared_elements(elem, lane)
        if not shared.all():
            # An element only one lane touches races in no group (its groups
            # hold one lane, so one workgroup): leaving its accesses out, in
            # order, changes no group that remains.
            elem, lane, op, kind, epoch = (x[shared] for x in (elem, lane, op, kind, epoch))
            if not len(elem):
                continue
        block = block_of[lane]
        # Phase key: one workgroup's epoch. Cross-workgroup pairs are checked
        # separately with the epoch left out.
        for key_parts, across_blocks in (((elem, block, epoch), False), ((elem,), True)):
            racing = _racing_groups(key_parts, lane, block, kind, across_blocks)
            for members in racing:
                _witness(members, elem, lane, block, op, kind, epoch, across_blocks, buf, races, counts)
    out = []
    for key, race in races.items():
        out.append(
            Race(race.first_op, race.second_op, race.first_kind, race.second_kind,
                 race.first_lane, race.second_lane, race.element, counts[key])
        )  # fmt: skip
    return sorted(out, key=lambda r: (r.first_op, r.second_op))


def _racing_groups(key_parts, lane, block, kind, across_blocks: bool) -> list[np.ndarray]:
    """Index arrays of the accesses of each group (same element, and same
    phase unless across blocks) holding a conflicting pair."""
    order = np.lexsort(key_parts[::-1])
    keys = [k[order] for k in key_parts]
    change = np.zeros(len(order), dtype=bool)
    change[0] = True
    for k in keys:
        change[1:] |= k[1:] != k[:-1]
    starts = np.nonzero(change)[0]
    who = (block if across_blocks else lane)[order]
    kd = kind[order]
    big = np.iinfo(np.int64).max

    def reduce(values, select, fn, fill):
        v = np.where(select, values, fill)
        return fn.reduceat(v, starts)

    any_min = reduce(who, True, np.minimum, big)
    any_max = reduce(who, True, np.maximum, -1)
    writes = kd == WRITE
    has_write = np.add.reduceat(writes.astype(np.int64), starts) > 0
    atom = kd == ATOMIC
    plain = ~atom
    atom_min = reduce(who, atom, np.minimum, big)
    atom_max = reduce(who, atom, np.maximum, -1)
    plain_min = reduce(who, plain, np.minimum, big)
    plain_max = reduce(who, plain, np.maximum, -1)
    has_atom = atom_max >= 0
    has_plain = plain_max >= 0
    race = (has_write & (any_min != any_max)) | (
        has_atom
        & has_plain
        & ~((atom_min == atom_max) & (plain_min == plain_max) & (atom_min == plain_min))
    )
    ends = np.append(starts[1:], len(order))
    return [order[starts[g] : ends[g]] for g in np.nonzero(race)[0][:_EXAMINED]]


def _column(entries: list, i: int, dtype) -> np.ndarray:
    """Field `i` of each log entry, once per access it holds."""
    values = np.fromiter((e[i] for e in entries), dtype, len(entries))
    return np.repeat(values, np.fromiter((len(e[0]) for e in entries), np.int64, len(entries)))


def _shared_elements(elem: np.ndarray, lane: np.ndarray) -> np.ndarray:
    """Which accesses are to an element that more than one lane accesses."""
    size = int(elem.max()) + 1
    some = np.full(size, -1, dtype=np.int64)
    some[elem] = lane  # one of each element's lanes
    multi = np.zeros(size, dtype=bool)
    multi[elem[some[elem] != lane]] = True
    return multi[elem]


_EXAMINED = 1024
"""Racing elements examined for witnesses, per buffer and kind of pair."""


def _witness(members, elem, lane, block, op, kind, epoch, across_blocks, buf, races, counts):
    who = block if across_blocks else lane
    m_who, m_kind, m_op = who[members], kind[members], op[members]
    seen: set[tuple[int, int]] = set()
    for o in np.unique(m_op[m_kind != READ]):
        for k in np.unique(m_kind[(m_op == o) & (m_kind != READ)]):
            i = members[np.nonzero((m_op == o) & (m_kind == k))[0][0]]
            partner = m_who != who[i]
            if k == ATOMIC:
                partner &= m_kind != ATOMIC
            for p_op in np.unique(m_op[partner]):
                j = members[np.nonzero(partner & (m_op == p_op))[0][0]]
                a, b = (i, j) if (op[i], lane[i]) <= (op[j], lane[j]) else (j, i)
                key = (int(op[a]), int(op[b]))
                if key in seen:
                    continue
                seen.add(key)
                counts[key] = counts.get(key, 0) + 1
                if key not in races:
                    races[key] = Race(
                        int(op[a]), int(op[b]), int(kind[a]), int(kind[b]), int(lane[a]),
                        int(lane[b]), buf.element(int(elem[a])), 0,
                    )  # fmt: skip
