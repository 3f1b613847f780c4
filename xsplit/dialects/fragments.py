"""Warp-level matrix intrinsics: which element of A, B and C each lane's
registers hold. One entry per intrinsic, read by the ops' verifiers (the
fragments' vector types), the GEMM kernel's lowerings (the addresses each
lane reads and writes) and the simulator (what the collective computes):

    >>> frag = INTRINSICS["m16n8k16"]
    >>> frag.a.coords(NUMPY, 5, (2, 1))   # lane 5 (group 1, thread 1), a5
    (1, 11)

A layout is a function `(x, lane, idx) -> (row, col)` of the lane and a
static position `idx` in the lane's vector, written with `x.add`, `x.mul`,
`x.div` and `x.rem` (and `x.xor` for a swizzled tile): with `NUMPY` it
runs on ints or numpy arrays of lanes,
with the kernel builder it emits the index arithmetic for an SSA lane id.
A second intrinsic is a new `Intrinsic` here, an emitter of its op in
`lower_threadwise_gemm.EMIT`, and its op in the simulator (its dialect's
module under `simulator/semantics/`), a call of
`semantics.warp.warp_matrix_multiply` with the entry (gfx942's MFMA, 64
lanes: `amdgpu.mfma`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Layout = Callable[[Any, Any, tuple[int, ...]], tuple[Any, Any]]


class _NumpyArith:
    """Index arithmetic on ints and numpy arrays (floor division)."""

    @staticmethod
    def add(a, b):
        return a + b

    @staticmethod
    def mul(a, b):
        return a * b

    @staticmethod
    def div(a, b):
        return a // b

    @staticmethod
    def rem(a, b):
        return a % b

    @staticmethod
    def xor(a, b):
        return a ^ b


NUMPY = _NumpyArith()


@dataclass(frozen=True)
class MatrixLoad:
    """A warp-collective load that reads a whole fragment from workgroup
    memory at once (sm_80's `ldmatrix`, `nvgpu.ldmatrix`): `tiles` 8x8
    matrices of 16-bit elements, read row-major or, with `transpose`,
    column-major. Each lane passes the start of one matrix row, at
    `address(x, lane) -> (row, col)` relative to the block."""

    tiles: int
    transpose: bool
    address: Callable[[Any, Any], tuple[Any, Any]]


@dataclass(frozen=True)
class Fragment:
    """One operand's fragment: the lane's vector shape, the matrix it is a
    piece of (rows x cols: m x k for A, k x n for B, m x n for C), where
    each of its elements sits in that matrix, and, where the target has one,
    the collective load that reads it whole."""

    shape: tuple[int, ...]
    rows: int
    cols: int
    layout: Layout
    matrix_load: MatrixLoad | None = None

    def positions(self) -> list[tuple[int, ...]]:
        """The lane's vector positions, in order (row-major)."""
        return list(itertools.product(*(range(s) for s in self.shape)))

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def coords(self, x, lane, idx: tuple[int, ...]):
        return self.layout(x, lane, idx)


@dataclass(frozen=True)
class Intrinsic:
    """A warp-collective `D = A · B + C` of an m x n x k block: every lane
    of a `lanes`-wide warp holds one fragment of each operand."""

    name: str
    m: int
    n: int
    k: int
    lanes: int
    operands: tuple[str, ...]
    """Element types of A and B it takes (C and D are f32 in the kernel)."""
    targets: tuple[str, ...]
    a: Fragment
    b: Fragment
    c: Fragment
    op: str
    """The op a lowering emits for it."""
    default: bool = True
    """Whether `mma=auto` takes it for its element type; one that is not
    default serves where a tile entry (or `mma=NAME`) asks for it."""
    widens: tuple[str, ...] = ()
    """Element types of A and B it also takes by widening them (exactly) to
    its own on the fragment, `arith.extf`: gfx942's f32 MFMA on f16 rows
    with M under 16, where B's one element a lane needs no K-packing."""

    issues: int = 1
    """How many of `op` one multiply issues side by side along N: block i
    (of n / issues columns) takes the lane's B element i and C elements
    c * i .. c * (i + 1) - 1 (c: C's elements an op). 1: one op."""

    def takes(self, element: str) -> bool:
        """Whether A and B of `element` multiply on it, as they are or widened."""
        return element in self.operands or element in self.widens


# PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"
# (.f16/.bf16 A and B, .f32 C): groupID = lane / 4, threadID_in_group =
# lane % 4. MLIR's nvgpu.mma.sync holds register r of A as row r of its
# vector<4x2xf16> (a_{2r+e} is element [r, e]); likewise B and C: its NVVM
# lowering (unpackOperandVector) passes the rows of the !llvm.array<4 x
# vector<2xf16>> in order, and C's f32 elements row by row.
def _m16n8k16_a(x, lane, idx):
    r, e = idx
    g, t = x.div(lane, 4), x.rem(lane, 4)
    return x.add(g, 8 * (r % 2)), x.add(x.mul(t, 2), e + 8 * (r // 2))


def _m16n8k16_b(x, lane, idx):
    r, e = idx
    g, t = x.div(lane, 4), x.rem(lane, 4)
    return x.add(x.mul(t, 2), e + 8 * r), g


def _m16n8k16_c(x, lane, idx):
    r, e = idx
    g, t = x.div(lane, 4), x.rem(lane, 4)
    return x.add(g, 8 * r), x.add(x.mul(t, 2), e)


# ldmatrix gives lane l, from matrix i, the pair (l / 4, 2 (l % 4) + e), or
# with .trans (2 (l % 4) + e, l / 4); lanes 8i..8i+7 address matrix i's rows.
# A's register r is the 8x8 matrix at (8 (r % 2), 8 (r / 2)); B's register r
# the K rows 8r..8r+7, read transposed (B is staged K-major).
def _m16n8k16_a_rows(x, lane):
    return x.add(x.rem(lane, 8), x.mul(x.rem(x.div(lane, 8), 2), 8)), x.mul(x.div(lane, 16), 8)


def _m16n8k16_b_rows(x, lane):
    return x.rem(lane, 16), 0


M16N8K16 = Intrinsic(
    name="m16n8k16",
    m=16,
    n=8,
    k=16,
    lanes=32,
    operands=("f16", "bf16"),
    targets=("sm_80", "sm_90"),
    a=Fragment((4, 2), 16, 16, _m16n8k16_a, MatrixLoad(4, False, _m16n8k16_a_rows)),
    b=Fragment((2, 2), 16, 8, _m16n8k16_b, MatrixLoad(2, True, _m16n8k16_b_rows)),
    c=Fragment((2, 2), 16, 8, _m16n8k16_c),
    op="nvgpu.mma.sync",
)

# CDNA3 (gfx942) MFMA, 64-lane wavefronts, as IREE's getSingleSubgroupLayout
# gives them (IREEGPUAttrs.cpp: mfmaLhs16xK, mfmaRhsKx16, mfmaAcc16x16 and
# their 32x32 forms; IREE lowers its own MFMA matmuls by them): lane l holds
# a run of four K of A's row l % m, the same four K of B's column l % n,
# and four rows of C's column l % n (for 32x32, four runs of four rows,
# eight apart).
def _mfma_a(m: int) -> Layout:
    def layout(x, lane, idx):
        (i,) = idx
        return x.rem(lane, m), x.add(x.mul(x.div(lane, m), 4), i)

    return layout


def _mfma_b(n: int) -> Layout:
    def layout(x, lane, idx):
        (i,) = idx
        return x.add(x.mul(x.div(lane, n), 4), i), x.rem(lane, n)

    return layout


def _mfma_c(m: int) -> Layout:
    def layout(x, lane, idx):
        (i,) = idx
        groups = 64 // m
        return x.add(x.mul(x.div(lane, m), 4), 4 * groups * (i // 4) + i % 4), x.rem(lane, m)

    return layout


def _mfma(m: int, k: int) -> Intrinsic:
    return Intrinsic(
        name=f"mfma_f32_{m}x{m}x{k}",
        m=m,
        n=m,
        k=k,
        lanes=64,
        operands=("f16", "bf16"),
        targets=("gfx942",),
        a=Fragment((4,), m, k, _mfma_a(m)),
        b=Fragment((4,), k, m, _mfma_b(m)),
        c=Fragment((m * m // 64,), m, m, _mfma_c(m)),
        op="amdgpu.mfma",
    )


MFMA_16X16X16 = _mfma(16, 16)
MFMA_32X32X8 = _mfma(32, 8)


# CDNA3 ISA, v_mfma_f32_16x16x4_f32: one f32 of A and of B a lane, lane l
# holding A's element (l % 16, l / 16) and B's (l / 16, l % 16); C as the
# 16x16x16's. A lane's B is one element, so B staged K x N (N contiguous)
# is read with no packing.
def _mfma_f32_a(x, lane, idx):
    return x.rem(lane, 16), x.div(lane, 16)


def _mfma_f32_b(x, lane, idx):
    return x.div(lane, 16), x.rem(lane, 16)


MFMA_16X16X4_F32 = Intrinsic(
    name="mfma_f32_16x16x4_f32",
    m=16,
    n=16,
    k=4,
    lanes=64,
    operands=("f32",),
    targets=("gfx942",),
    a=Fragment((1,), 16, 4, _mfma_f32_a),
    b=Fragment((1,), 4, 16, _mfma_f32_b),
    c=Fragment((4,), 16, 16, _mfma_c(16)),
    op="amdgpu.mfma",
    default=False,
    widens=("f16", "bf16"),
)


# Eight f32 MFMAs over 128 columns, interleaved (issue 37, f16 with M under
# 16): lane l's column of MFMA i is 8 (l % 16) + i rather than 16 i + l % 16,
# so that its B elements of all eight are one run of 8 consecutive columns
# (one 16-byte read of f16, converted once each) where eight separate
# 16x16x4 blocks read 8 elements 16 columns apart. Any bijection of the
# columns serves, since C's writes take the same one.
def _interleaved_b(x, lane, idx):
    (i,) = idx
    return x.div(lane, 16), x.add(x.mul(x.rem(lane, 16), 8), i)


def _interleaved_c(x, lane, idx):
    (i,) = idx
    return x.add(x.mul(x.div(lane, 16), 4), i % 4), x.add(x.mul(x.rem(lane, 16), 8), i // 4)


MFMA_16X16X4_F32_X8 = Intrinsic(
    name="mfma_f32_16x16x4_f32_x8",
    m=16,
    n=128,
    k=4,
    lanes=64,
    operands=("f32",),
    targets=("gfx942",),
    a=Fragment((1,), 16, 4, _mfma_f32_a),
    b=Fragment((8,), 4, 128, _interleaved_b),
    c=Fragment((32,), 16, 128, _interleaved_c),
    op="amdgpu.mfma",
    default=False,
    widens=("f16", "bf16"),
    issues=8,
)

INTRINSICS: dict[str, Intrinsic] = {
    i.name: i
    for i in (M16N8K16, MFMA_16X16X16, MFMA_32X32X8, MFMA_16X16X4_F32, MFMA_16X16X4_F32_X8)
}
"""Every intrinsic the GEMM kernel can use, by name."""


def intrinsic_for(target: str, element: str) -> Intrinsic | None:
    """The intrinsic for A and B of `element` (\"f16\", \"bf16\") on `target`, if any
    (the first in `INTRINSICS`: gfx942's 16x16x16 before its 32x32x8)."""
    for intr in INTRINSICS.values():
        if target in intr.targets and element in intr.operands and intr.default:
            return intr
    return None


def fragment_matrix(frag: Fragment, lanes: int):
    """For every lane and vector position, (row, col) in the operand's
    matrix: two int arrays of shape (lanes, *frag.shape). Each element of
    the matrix is held by exactly one lane (checked by the tests)."""
    import numpy as np

    lane = np.arange(lanes)
    rows = np.zeros((lanes, *frag.shape), dtype=np.int64)
    cols = np.zeros((lanes, *frag.shape), dtype=np.int64)
    for idx in frag.positions():
        r, c = frag.coords(NUMPY, lane, idx)
        rows[(slice(None), *idx)] = r
        cols[(slice(None), *idx)] = c
    return rows, cols


def matrix_load_coords(load: MatrixLoad, lanes: int = 32):
    """Where each lane's elements come from under `load`, by ldmatrix's own
    rule (PTX ISA, "Warp-level matrix load instruction: ldmatrix"): two int
    arrays (lanes, tiles, 2) of rows and columns relative to the block."""
    import numpy as np

    lane = np.arange(lanes)
    starts = [load.address(NUMPY, lane)]
    row0 = np.broadcast_to(starts[0][0], (lanes,))
    col0 = np.broadcast_to(starts[0][1], (lanes,))
    rows = np.zeros((lanes, load.tiles, 2), dtype=np.int64)
    cols = np.zeros((lanes, load.tiles, 2), dtype=np.int64)
    for i in range(load.tiles):
        for e in range(2):
            pair = 2 * (lane % 4) + e
            row, col = (pair, lane // 4) if load.transpose else (lane // 4, pair)
            source = 8 * i + row  # the lane that addresses this matrix row
            rows[:, i, e] = row0[source]
            cols[:, i, e] = col0[source] + col
    return rows, cols


__all__ = [
    "INTRINSICS", "NUMPY", "Fragment", "Intrinsic", "MatrixLoad", "fragment_matrix",
    "intrinsic_for", "matrix_load_coords",
]  # fmt: skip
