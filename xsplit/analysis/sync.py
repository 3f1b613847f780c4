"""Where a distributed kernel needs barriers, and proofs where it does not.

`SyncAnalysis` pairs the accesses `AccessAnalysis` finds (access.py) that
share a buffer, at least one writing, and asks whether another thread may
touch the same element: each such pair is a `Dependence` with the block where
a barrier between them would order them, and each pair ruled out is a
`Proof`. `insert-barriers` places barriers from the dependences; `verify-sync`
checks that the barriers a kernel has order all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Block, Operation

from xsplit.analysis.access import (
    ATOMIC,
    LOOP_OPS,
    Access,
    AccessAnalysis,
    TooLarge,
    Verdict,
    is_uniform,
)
from xsplit.semantics import op_property


@dataclass
class Dependence:
    """`first` runs before `second` in some thread's program order (in the
    same iteration, or `wrap`: across an iteration of the loop whose body is
    `block`), and another thread's `second` may touch what it touched. A
    barrier in `block` after `first_anchor` and before `second_anchor` (their
    ancestors there) orders them."""

    first: Access
    second: Access
    verdict: Verdict
    block: Block | None
    first_anchor: Operation | None
    second_anchor: Operation | None
    wrap: bool = False
    unfixable: str = ""

    @property
    def kind(self) -> str:
        if self.first.writes and self.second.writes:
            return "WAW"
        return "RAW" if self.first.writes else "WAR"


@dataclass
class Proof:
    """Two ops that share a buffer, one writing, with no dependence across threads."""

    first: Access
    second: Access
    detail: str


def _same_base(a: Access, b: Access) -> bool:
    return a.base is not None and a.base is b.base


def _ancestors(op: Operation, func: Operation) -> list[Operation]:
    out = [op]
    cur = op.parent_op()
    while cur is not None and cur is not func:
        out.append(cur)
        cur = cur.parent_op()
    return out[::-1]


def _common_block(a: Operation, b: Operation, func: Operation) -> tuple[Block, Operation, Operation]:
    """The innermost block holding both, and each op's ancestor in it."""
    ca, cb = _ancestors(a, func), _ancestors(b, func)
    block = func.regions[0].blocks[0]
    i = 0
    while i < len(ca) and i < len(cb) and ca[i] is cb[i]:
        i += 1
    if i == len(ca) or i == len(cb):
        # One contains the other (not for accesses), or they are the same op.
        x = ca[min(i, len(ca) - 1)]
        return x.parent_block() or block, x, x
    xa, xb = ca[i], cb[i]
    if xa.parent_block() is not xb.parent_block():
        # Different regions of one op (then/else of an scf.if).
        parent = ca[i - 1] if i else None
        return (parent.parent_block() if parent else block), parent or xa, parent or xb  # type: ignore[return-value]
    return xa.parent_block(), xa, xb  # type: ignore[return-value]


def _anchor_in(op: Operation, block: Block) -> Operation | None:
    cur: Operation | None = op
    while cur is not None and cur.parent_block() is not block:
        cur = cur.parent_op()
    return cur


class SyncAnalysis:
    """The dependences across threads of one kernel that need a barrier."""

    def __init__(self, func: Operation, block_size: Sequence[int] | None = None):
        self.func = func
        self.access = AccessAnalysis(func, block_size)
        self.dependences: list[Dependence] = []
        self.proofs: list[Proof] = []
        # Each block's op positions and barriers, read once: `satisfied` runs
        # for every dependence, thousands on a tiled GEMM, and walking a
        # block's ops each time was most of verify-sync. `plan` is the one
        # writer while the analysis is in use and forgets them when it moves
        # a barrier.
        self._layouts: dict[int, tuple[Block, dict[int, int], list[tuple[int, Operation]]]] = {}
        an = self.access
        accs = [a for a in an.accesses if a.space_name != "private"]
        for i, a in enumerate(accs):
            for b in accs[i:]:
                if not _same_base(a, b):
                    continue
                if not (a.writes or b.writes) or (a.kind == ATOMIC and b.kind == ATOMIC):
                    continue
                self._pair(a, b)

    def _verdict(self, a: Access, b: Access, shared: int) -> Verdict:
        try:
            return self.access.conflict(a, b, shared)
        except TooLarge:
            return Verdict("unknown", "too many points to enumerate")

    def _pair(self, a: Access, b: Access) -> None:
        an = self.access
        common = an.common_loops(a.op, b.op)
        block, xa, xb = _common_block(a.op, b.op, self.func)
        found = False
        exclusive = a.op is not b.op and xa is xb
        if exclusive and xa.name == "scf.if" and self.divergence_of(xa) is None:
            # Exclusive branches of a uniform scf.if: a workgroup takes one.
            same = Verdict("none", "disjoint: exclusive branches of a uniform scf.if")
        else:
            same = self._verdict(a, b, len(common))
        if same.status != "none":
            found = True
            if a.op is b.op or xa is xb:
                self.dependences.append(
                    Dependence(a, b, same, block, xa, xb, unfixable="the two accesses run "
                               "concurrently in different threads (one op, or exclusive branches)")
                )  # fmt: skip
            else:
                self.dependences.append(Dependence(a, b, same, block, xa, xb))
        for j in range(len(common) - 1, -1, -1):
            loop = common[j]
            info = an._loop_info.get(id(loop))
            if info is not None and info[0] == "enum" and int(np.max(info[1][0], initial=0)) <= 1:  # type: ignore[index]
                continue
            v = self._verdict(a, b, j)
            if v.status == "none":
                continue
            found = True
            body = loop.regions[0].blocks[0]
            ya, yb = _anchor_in(a.op, body), _anchor_in(b.op, body)
            self.dependences.append(Dependence(a, b, v, body, ya, yb, wrap=True))
            if a is not b:
                self.dependences.append(Dependence(b, a, v, body, yb, ya, wrap=True))
        if not found and a.op is not b.op:
            self.proofs.append(Proof(a, b, same.detail))

    # -- barriers -----------------------------------------------------------------

    def _layout(self, block: Block) -> tuple[dict[int, int], list[tuple[int, Operation]]]:
        """Where each op of `block` is, and its barriers with their places."""
        kept = self._layouts.get(id(block))
        if kept is None or kept[0] is not block:
            position: dict[int, int] = {}
            barriers: list[tuple[int, Operation]] = []
            for i, o in enumerate(block.ops):
                position[id(o)] = i
                if o.name == "gpu.barrier":
                    barriers.append((i, o))
            kept = (block, position, barriers)
            self._layouts[id(block)] = kept
        return kept[1], kept[2]

    def _forget_layouts(self) -> None:
        self._layouts.clear()

    def satisfied(self, dep: Dependence) -> bool:
        if dep.unfixable or dep.block is None:
            return False
        position, barriers = self._layout(dep.block)
        ia, ib = position[id(dep.first_anchor)], position[id(dep.second_anchor)]
        space = dep.first.space_name
        bars = [q for q, o in barriers if orders(o, space)]
        if dep.wrap:
            if any(q > ia or q < ib for q in bars) or (ia < ib and bars):
                return True
        elif any(ia < q < ib for q in bars):
            return True
        return self._barrier_after(dep.first.op, dep.first_anchor, space) or self._barrier_before(
            dep.second.op, dep.second_anchor, space
        )

    def _barrier_after(self, op: Operation, anchor: Operation | None, space: str) -> bool:
        """A barrier ordering `space` after `op` in its block, or after an
        op around it, short of `anchor`."""
        return self._barrier_beside(op, anchor, space, after=True)

    def _barrier_before(self, op: Operation, anchor: Operation | None, space: str) -> bool:
        """`_barrier_after`'s mirror: one before `op` or an op around it."""
        return self._barrier_beside(op, anchor, space, after=False)

    def _barrier_beside(
        self, op: Operation, anchor: Operation | None, space: str, after: bool
    ) -> bool:
        cur = op
        while cur is not anchor and cur is not None:
            block = cur.parent_block()
            if block is None:
                return False
            position, barriers = self._layout(block)
            at = position[id(cur)]
            if any((q > at if after else q < at) and orders(o, space) for q, o in barriers):
                return True
            cur = block.parent_op()  # type: ignore[assignment]
        return False

    def divergence_of(self, op: Operation) -> Operation | None:
        """`op` itself if its condition or bounds depend on the thread, else
        the thread-dependent control flow around it, if any."""
        region_block = op.regions[0].blocks[0] if op.regions and op.regions[0].blocks else None
        return self.divergence(region_block) if region_block is not None else None

    def divergence(self, block: Block) -> Operation | None:
        """The thread-dependent `scf.if` or loop around `block`, if any."""
        an = self.access
        cur = block.parent_op()
        while cur is not None and cur is not self.func:
            if cur.name == "scf.if":
                operands = [cur.operands[0]]
            elif cur.name in LOOP_OPS:
                operands = list(cur.operands[:3]) if cur.name == "scf.for" else list(cur.operands)
            else:
                operands = []
            for v in operands:
                if v.type.__class__.__name__ not in ("IndexType", "IntegerType"):
                    continue
                n = an.num(v, an.space_of(cur))
                if n is None or not is_uniform(n):
                    return cur
            cur = cur.parent_op()
        return None

    def plan(self) -> tuple[list[tuple[Block, Operation, Dependence]], list[Dependence]]:
        """Where to insert barriers (before each op), fewest first-fit; and the
        dependences no barrier can order."""
        placed: list[tuple[Block, Operation, Dependence]] = []
        unfixable: list[Dependence] = []
        pending = [d for d in self.dependences if not self.satisfied(d)]
        walk_index = {id(op): i for i, op in enumerate(self.func.walk())}
        for d in pending:
            if not d.unfixable and d.block is not None and (div := self.divergence(d.block)):
                from xsplit.diagnostics import location_of

                d.unfixable = (
                    f"a barrier would have to go under thread-dependent control flow "
                    f"('{div.name}' at {location_of(div)})"
                )
        unfixable = [d for d in pending if d.unfixable]
        pending = [d for d in pending if not d.unfixable]
        needed = list(pending)
        barriers: list[Operation] = []
        while pending:
            # Innermost blocks first: a barrier inside a loop also orders what
            # runs around the loop. Within a block, as late as possible.
            pending.sort(key=lambda d: (-_depth(d.block), walk_index.get(id(d.second_anchor), 0)))
            d = pending[0]
            barrier = _new_barrier()
            d.block.insert_op_before(barrier, d.second_anchor)  # type: ignore[union-attr, arg-type]
            self._forget_layouts()
            placed.append((d.block, d.second_anchor, d))  # type: ignore[arg-type]
            barriers.append(barrier)
            pending = [x for x in pending if not self.satisfied(x)]
        # A barrier placed early may be made redundant by later ones: drop,
        # latest first, each one whose dependences the others still order.
        for i in range(len(barriers) - 1, -1, -1):
            barrier = barriers[i]
            block, before = barrier.parent_block(), barrier.next_op
            block.detach_op(barrier)  # type: ignore[union-attr]
            self._forget_layouts()
            if all(self.satisfied(x) for x in needed):
                barrier.erase()
                del placed[i]
            else:
                block.insert_op_before(barrier, before)  # type: ignore[union-attr, arg-type]
                self._forget_layouts()
        return placed, unfixable


def _depth(block: Block | None) -> int:
    depth = 0
    while block is not None and block.parent_op() is not None:
        depth += 1
        block = block.parent_op().parent_block()  # type: ignore[union-attr]
    return depth


_BARRIER_CLASS: list[type[Operation]] = []


def _new_barrier() -> Operation:
    """A `gpu.barrier` of whatever class the context registers for it."""
    if not _BARRIER_CLASS:
        from xsplit.dialects import make_context

        cls = make_context().get_optional_op("gpu.barrier")
        if cls is None:
            from xdsl.dialects.gpu import BarrierOp

            cls = BarrierOp
        _BARRIER_CLASS.append(cls)
    try:
        return _BARRIER_CLASS[0]()
    except TypeError:
        return _BARRIER_CLASS[0].create()


def orders(barrier: Operation, space: str) -> bool:
    """Whether a barrier orders accesses to `space` across a workgroup: its
    scope is the workgroup, and its fence (if limited) covers that space."""
    scope = op_property(barrier, "scope")
    if scope is not None and "workgroup" not in str(scope):
        return False
    fenced = op_property(barrier, "address_spaces")
    return fenced is None or space in str(fenced)


def is_kernel(func: Operation) -> bool:
    """Thread-level code: GPU thread ids, or loops mapped to threads."""
    for op in func.walk():
        if op.name in ("gpu.thread_id", "gpu.lane_id"):
            return True
        if op.name == "scf.forall" and "#gpu.thread" in str(op_property(op, "mapping")):
            return True
    return False
