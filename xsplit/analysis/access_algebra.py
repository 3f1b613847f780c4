"""The algebra the access analysis computes in.

- `Affine`: an index as a symbolic affine form over named variables (thread
  ids, loop indices, box offsets, uniform symbols), what the analysis reports.
- `Num`: a value at every point of a `Space` (the threads of a block times the
  iterations of the loops enumerated around it), as a numpy array, plus
  integer multiples of uniform symbols kept symbolic so that they cancel when
  two accesses use them alike.

`affine_symbolic` and `affine_numeric` evaluate an MLIR affine expression in
each. `access.AccessAnalysis` builds both from a kernel's IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

# -- symbolic affine forms (what the analysis reports) -------------------------


@dataclass(frozen=True)
class Affine:
    """sum(coeffs[v] * v) + const over named variables."""

    coeffs: tuple[tuple[str, int], ...]
    const: int

    @staticmethod
    def of(name: str) -> Affine:
        return Affine(((name, 1),), 0)

    @staticmethod
    def constant(c: int) -> Affine:
        return Affine((), c)

    def _d(self) -> dict[str, int]:
        return dict(self.coeffs)

    def __add__(self, other: Affine) -> Affine:
        d = self._d()
        for k, v in other.coeffs:
            d[k] = d.get(k, 0) + v
        return Affine(tuple(sorted((k, v) for k, v in d.items() if v)), self.const + other.const)

    def scale(self, c: int) -> Affine:
        return Affine(tuple((k, v * c) for k, v in self.coeffs if v * c), self.const * c)

    @property
    def is_constant(self) -> bool:
        return not self.coeffs

    def __str__(self) -> str:
        parts = [(f"{v}*{k}" if v != 1 else k) for k, v in self.coeffs]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts).replace("+ -", "- ")


def affine_symbolic(expr: AffineExpr, dims: list[Affine | None], syms: list[Affine | None]) -> Affine | None:
    if isinstance(expr, AffineConstantExpr):
        return Affine.constant(expr.value)
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    assert isinstance(expr, AffineBinaryOpExpr)
    a, b = affine_symbolic(expr.lhs, dims, syms), affine_symbolic(expr.rhs, dims, syms)
    if a is None or b is None:
        return None
    if expr.kind == AffineBinaryOpKind.Add:
        return a + b
    if expr.kind == AffineBinaryOpKind.Mul:
        if b.is_constant:
            return a.scale(b.const)
        if a.is_constant:
            return b.scale(a.const)
        return None
    if a.is_constant and b.is_constant and b.const:
        if expr.kind == AffineBinaryOpKind.FloorDiv:
            return Affine.constant(a.const // b.const)
        if expr.kind == AffineBinaryOpKind.CeilDiv:
            return Affine.constant(-((-a.const) // b.const))
        return Affine.constant(a.const % b.const)
    return None


# -- numeric values over a block's threads, with symbolic uniform parts ---------


@dataclass
class Space:
    """Where a value lives: the threads of a block, times the iterations of
    the enumerated loops around it (axes in nesting order), with the points
    that really execute."""

    loops: tuple[Operation, ...]
    shape: tuple[int, ...]
    valid: np.ndarray

    def extend(self, loop: Operation, trips: np.ndarray, size: int) -> Space:
        k = np.arange(size).reshape((1,) * len(self.shape) + (size,))
        valid = self.valid[..., None] & (k < trips[..., None])
        return Space(self.loops + (loop,), self.shape + (size,), valid)


@dataclass
class Num:
    """A value per point of a space, plus integer multiples of uniform symbols."""

    const: np.ndarray
    atoms: dict[str, int] = field(default_factory=dict)
    varying_unknown: bool = False
    """Depends on the thread in a way the analysis cannot follow."""

    @property
    def concrete(self) -> bool:
        return not self.atoms and not self.varying_unknown


def trailing_broadcast(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(a)
    return a.reshape(a.shape + (1,) * (len(shape) - a.ndim)) if a.ndim < len(shape) else a


def is_uniform(x: Num) -> bool:
    if x.varying_unknown:
        return False
    c = np.asarray(x.const)
    if c.ndim == 0 or c.shape[0] == 1:
        return True
    return bool(np.all(c == c[:1]))


def aligned_consts(consts: list) -> list[np.ndarray]:
    """The constants with trailing unit axes up to the deepest one's rank
    (a 0-d constant stays a scalar)."""
    arrays = [np.asarray(c) for c in consts]
    n = max(c.ndim for c in arrays)
    return [c.reshape(c.shape + (1,) * (n - c.ndim)) if c.ndim else c for c in arrays]


def add_nums(a: Num, b: Num) -> Num:
    atoms = dict(a.atoms)
    for k, v in b.atoms.items():
        atoms[k] = atoms.get(k, 0) + v
    atoms = {k: v for k, v in atoms.items() if v}
    ca, cb = aligned_consts([a.const, b.const])
    return Num(ca + cb, atoms, a.varying_unknown or b.varying_unknown)


def scale_num(a: Num, c: int) -> Num:
    return Num(np.asarray(a.const) * c, {k: v * c for k, v in a.atoms.items() if v * c}, a.varying_unknown)


def mul_nums(a: Num, b: Num) -> Num:
    c = np.ravel(b.const)
    if c.size and np.all(c == c[0]):
        return scale_num(a, int(c[0]))
    if a.atoms:
        return Num(np.array(0), {}, True)
    ca, cb = np.asarray(a.const), np.asarray(b.const)
    n = max(ca.ndim, cb.ndim)
    ca = ca.reshape(ca.shape + (1,) * (n - ca.ndim)) if ca.ndim else ca
    cb = cb.reshape(cb.shape + (1,) * (n - cb.ndim)) if cb.ndim else cb
    return Num(ca * cb)


def affine_numeric(expr: AffineExpr, dims: list[Num], syms: list[Num], space: Space) -> Num:
    if isinstance(expr, AffineConstantExpr):
        return Num(np.array(expr.value))
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    assert isinstance(expr, AffineBinaryOpExpr)
    a = affine_numeric(expr.lhs, dims, syms, space)
    b = affine_numeric(expr.rhs, dims, syms, space)
    if expr.kind == AffineBinaryOpKind.Add:
        return add_nums(a, b)
    if expr.kind == AffineBinaryOpKind.Mul:
        if b.concrete:
            return mul_nums(a, b)
        return mul_nums(b, a) if a.concrete else Num(np.array(0), {}, True)
    if not (a.concrete and b.concrete):
        return Num(np.array(0), {}, True)
    ca, cb = np.asarray(a.const), np.asarray(b.const)
    cb = np.where(cb == 0, 1, cb)
    n = max(ca.ndim, cb.ndim)
    ca = ca.reshape(ca.shape + (1,) * (n - ca.ndim)) if ca.ndim else ca
    cb = cb.reshape(cb.shape + (1,) * (n - cb.ndim)) if cb.ndim else cb
    if expr.kind == AffineBinaryOpKind.FloorDiv:
        return Num(ca // cb)
    if expr.kind == AffineBinaryOpKind.CeilDiv:
        return Num(-((-ca) // cb))
    return Num(ca % cb)


# -- the points two accesses touch, compared -------------------------------------

MAX_POINTS = 1 << 21
"""The most (thread, iteration, element) points one access is enumerated over."""


class TooLarge(Exception):
    """An access has more points than `MAX_POINTS`: the question is left open."""


def point_keys(consts: list[np.ndarray], valid: np.ndarray, shared_axes, side: int) -> tuple:
    """An access's points that execute, as (element columns, thread, the
    iteration of each shared loop): `consts` is its element per point (one
    array per dimension, threads first), `shared_axes` pairs each shared
    loop's axis on both sides, `side` picks this access's."""
    shape = valid.shape
    if valid.size > MAX_POINTS:
        raise TooLarge()
    idx = np.indices(shape, sparse=True)
    sel = valid.reshape(-1)
    thread = np.broadcast_to(idx[0], shape).reshape(-1)[sel]
    elems = [c.reshape(-1)[sel] for c in consts]
    counters = [np.broadcast_to(idx[1 + ax[side]], shape).reshape(-1)[sel] for ax in shared_axes]
    return (elems, thread, *counters)


def pack_keys(cols_a: list[np.ndarray], cols_b: list[np.ndarray], side: int) -> np.ndarray:
    """One int64 key per point from several integer columns (same radix on both sides)."""
    cols = cols_a if side == 0 else cols_b
    key = np.zeros(len(cols[0]), dtype=np.int64)
    for ca, cb, c in zip(cols_a, cols_b, cols):
        lo = min(int(ca.min()), int(cb.min()))
        hi = max(int(ca.max()), int(cb.max()))
        key = key * (hi - lo + 1) + (c.astype(np.int64) - lo)
    return key


@dataclass
class Meeting:
    """How the points of two accesses meet (`meet`)."""

    empty: bool
    """One of them has no point that executes."""
    shared: bool = False
    """Some key (element, shared iterations) is touched by both."""
    threads: tuple[int, int] | None = None
    """Two different threads that touch one key, when there are."""
    element: list[int] = field(default_factory=list)
    """That key's element."""


def meet(ka: tuple, kb: tuple) -> Meeting:
    """Compares two accesses' `point_keys`: a key both touch is a conflict
    unless one and the same thread is all that touches it on both sides."""
    ea, ta, *ca = ka
    eb, tb, *cb = kb
    if len(ta) == 0 or len(tb) == 0:
        return Meeting(empty=True)
    key_a = pack_keys([*ea, *ca], [*eb, *cb], 0)
    key_b = pack_keys([*ea, *ca], [*eb, *cb], 1)
    keys, inv = np.unique(np.concatenate([key_a, key_b]), return_inverse=True)
    n = len(keys)
    big = np.iinfo(np.int64).max
    amin = np.full(n, big)
    amax = np.full(n, -1)
    bmin = np.full(n, big)
    bmax = np.full(n, -1)
    ia, ib = inv[: len(key_a)], inv[len(key_a) :]
    np.minimum.at(amin, ia, ta)
    np.maximum.at(amax, ia, ta)
    np.minimum.at(bmin, ib, tb)
    np.maximum.at(bmax, ib, tb)
    both = (amax >= 0) & (bmax >= 0)
    same = (amin == amax) & (bmin == bmax) & (amin == bmin)
    bad = both & ~same
    if not bad.any():
        return Meeting(empty=False, shared=bool(both.any()))
    k = int(np.nonzero(bad)[0][0])
    t1 = int(amin[k]) if amin[k] != bmax[k] else int(amax[k])
    t2 = int(bmax[k]) if bmax[k] != t1 else int(bmin[k])
    first = np.nonzero(ia == k)[0][0]
    return Meeting(empty=False, shared=True, threads=(t1, t2), element=[int(e[first]) for e in ea])
