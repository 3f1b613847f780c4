"""`lower-threadwise-gemm`: the GEMM kernel's last stage. One thread's
register ops become scalar `memref`/`arith` ops, unrolled, so that every
index into a private buffer is a constant and LLVM keeps it in registers.

- `threadwise_fill`: a zero into every register;
- `threadwise_read`: one load from the staged tile per register (extended to
  f32 from an f16 tile);
- `threadwise_gemm`: `acc[i, j] += a[i] * b[j]`, each `a[i]` and `b[j]` read
  once;
- `threadwise_write`: per register, under the mask that its element is inside
  C, the merge: C's value plus the register (`store`), a `memref.atomic_rmw
  addf` (`atomic`), or a store into the partials at the chunk (`partials`);
- `threadwise_fragment`: the whole fragment in one warp-collective load
  where the intrinsic has one (`nvgpu.ldmatrix` for m16n8k16: x4 for A, x2
  transposed for B, which is staged K-major, x4 transposed for a `pair` of
  B blocks side by side along N); else (or with `loads`)
  the lane's elements at the places its layout gives, each run that is
  contiguous in the tile for every lane in one `vector.load` (two halves:
  one 32-bit shared load; a K-packed B's four K: one 64-bit load), then
  `vector.from_elements`; with `swizzle` or `kpack` every address is its
  element's place in the tile (`ThreadwiseFragmentOp.place`);
- `threadwise_mma`: the accumulator's C fragment into a vector (and, with
  `b_half`, its half of the pair of B fragments), the intrinsic's op (`EMIT`: `nvgpu.mma.sync` for m16n8k16, `amdgpu.mfma` for
  gfx942's MFMAs), its elements back;
- `threadwise_write_fragments`: as `threadwise_write`, at the places the
  intrinsic's C layout gives.
- `threadwise_reduce`: per kept row (column), the registers plus the GEMM's
  init (C's element under its mask, or the constant), C written back under
  the mask with `store_c`, the identity outside C, combined in register
  order into one partial.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import VectorType
from xdsl.ir import SSAValue

from xsplit.dialects.amdgpu import MFMAOp, SchedBarrierOp
from xsplit.dialects.fragments import NUMPY, Fragment, Intrinsic, fragment_matrix
from xsplit.dialects.nvgpu import LdMatrixOp, MmaSyncOp
from xsplit.dialects.vector import FromElementsOp
from xsplit.dialects.xsplit_gemm import (
    BATCH_DIM,
    ThreadwiseFillOp,
    ThreadwiseFragmentOp,
    ThreadwiseGemmOp,
    ThreadwiseMmaOp,
    ThreadwiseReadOp,
    ThreadwiseReadTileOp,
    ThreadwiseWriteFragmentsOp,
    ThreadwiseReduceOp,
    ThreadwiseWriteOp,
)
from xsplit.rewrites.dsl import IRBuilder, Match, Pass, Pattern
from xsplit.rewrites.reduce.kernel_ir import KernelBuilder


def _shape(v: SSAValue) -> list[int]:
    return list(v.type.get_shape())  # type: ignore[attr-defined]


def lower_fill(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseFillOp)
    kb = KernelBuilder(ir.b)
    for at in itertools.product(*(range(s) for s in _shape(op.acc))):
        kb.store(kb.zero(), op.acc, list(at))
    return []


def lower_read(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseReadOp)
    kb = KernelBuilder(ir.b)
    (regs,) = _shape(op.regs)
    stride, g = op.stride.value.data, op.group_size
    offsets = [(i // g) * stride + i % g for i in range(regs)]
    # f16 tiles are extended here: the registers and the products are f32.
    if op.down is not None:
        at = [[kb.add(op.row, o), op.col] for o in offsets]
    else:
        at = [[op.row, kb.add(op.col, o)] for o in offsets]
    values = [kb.extf(kb.load(op.tile, idx)) for idx in at]
    for i, v in enumerate(values):
        kb.store(v, op.regs, [i])
    return []


def lower_gemm(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseGemmOp)
    kb = KernelBuilder(ir.b)
    rm, rn = _shape(op.acc)
    a = [kb.load(op.a, [i]) for i in range(rm)]
    b = [kb.load(op.b, [j]) for j in range(rn)]
    for i in range(rm):
        for j in range(rn):
            total = kb.fma(a[i], b[j], kb.load(op.acc, [i, j]))
            kb.store(total, op.acc, [i, j])
    return []


def _merge(acc: SSAValue, reg: list[int], c: SSAValue, at: list, merge: str):
    """The body that merges register `acc[reg]` into `c[at]` by `merge`."""

    def write(body: KernelBuilder) -> None:
        value = body.load(acc, reg)
        if merge == "atomic":
            body.atomic_add(value, c, at)
        elif merge == "store":
            body.store(body.addf(body.load(c, at), value), c, at)
        else:
            body.store(value, c, at)

    return write


def lower_write(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseWriteOp)
    kb = KernelBuilder(ir.b)
    rm, rn = _shape(op.acc)
    rows, cols = _shape(op.c)[-2:]
    sm, sn = op.stride_sizes
    merge = op.merge.data
    prefix = list(op.chunk)
    rows_at = [kb.add(op.row, i * sm) for i in range(rm)]
    g = op.group_size
    cols_at = [kb.add(op.col, (j // g) * sn + j % g) for j in range(rn)]
    row_in = [kb.below(r, rows) for r in rows_at]
    col_in = [kb.below(c, cols) for c in cols_at]
    for i in range(rm):
        for j in range(rn):
            at = [*prefix, rows_at[i], cols_at[j]]
            kb.if_(kb.both(row_in[i], col_in[j]), _merge(op.acc, [i, j], op.c, at, merge))
    return []


def _runs(frag: Fragment, lanes: int, place=None) -> list[list[tuple[int, ...]]]:
    """The fragment's positions in runs along its last dimension that sit
    side by side in one row of the tile for every lane (one vector load
    each), with `place(x, row, col)` where the matrix's elements are in
    the tile (a block at (0, 0)); positions that do not are runs of one."""
    rows, cols = fragment_matrix(frag, lanes)
    if place is not None:
        rows, cols = place(NUMPY, rows, cols)
    runs = []
    for head in itertools.product(*(range(s) for s in frag.shape[:-1])):
        run = [(*head, e) for e in range(frag.shape[-1])]
        at = [(rows[(slice(None), *p)], cols[(slice(None), *p)]) for p in run]
        together = all(
            np.array_equal(r, at[0][0]) and np.array_equal(c, at[0][1] + e)
            for e, (r, c) in enumerate(at)
        )
        runs.extend([run] if together else [[p] for p in run])
    return runs


def lower_fragment(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseFragmentOp)
    kb = KernelBuilder(ir.b)
    frag, lanes = op.fragment, op.intrinsic.lanes
    load = frag.matrix_load
    if load is not None and not op.loads_only:
        # One collective load of the whole fragment; each lane addresses one
        # row (a whole 16-byte chunk, where the tile is swizzled). A pair's
        # second block is the next lanes' rows, one block further along N.
        lane, col = op.lane, op.col
        tiles = load.tiles
        if op.pair is not None:
            per = 8 * load.tiles  # lanes addressing one block's matrices
            lane = kb.rem(op.lane, per)
            col = kb.add(op.col, kb.mul(kb.div(op.lane, per), op.intrinsic.n))
            tiles *= 2
        r, c = load.address(kb, lane)
        at = [kb.c(x) for x in op.place(kb, kb.add(op.row, r), kb.add(col, c))]
        return [kb.insert(LdMatrixOp(op.tile, at, tiles, load.transpose)).results[0]]
    elements: list[SSAValue] = []
    blocks = [op.col] + ([kb.add(op.col, op.intrinsic.n)] if op.pair is not None else [])
    for block_col in blocks:
        values: dict[tuple[int, ...], SSAValue] = {}
        # Runs judged at the block (0, 0): the blocks' offsets are whole
        # swizzle phases and K-packs, so they are runs at every block.
        for run in _runs(frag, lanes, op.place):
            r, c = frag.coords(kb, op.lane, run[0])
            at = list(op.place(kb, kb.add(op.row, r), kb.add(block_col, c)))
            loaded = (
                kb.load_vector(op.tile, at, len(run)) if len(run) > 1 else [kb.load(op.tile, at)]
            )
            values.update(zip(run, loaded))
        elements += [values[p] for p in frag.positions()]
    return [kb.insert(FromElementsOp(elements, op.result.type)).results[0]]  # type: ignore[arg-type]


def _emit_mma_sync(kb: KernelBuilder, intr: Intrinsic, a, b, c) -> SSAValue:
    return kb.insert(MmaSyncOp(a, b, c, (intr.m, intr.n, intr.k))).results[0]


def _emit_mfma(kb: KernelBuilder, intr: Intrinsic, a, b, c) -> SSAValue:
    if intr.a.shape != (1,):
        return kb.insert(MFMAOp(a, b, c, (intr.m, intr.n, intr.k))).results[0]
    # MLIR's f32 MFMA takes its one element of A and B as scalars; f16 rows
    # on it (`Intrinsic.widens`) are widened, exactly, one v_cvt_f32_f16 an
    # element where the f16 MFMA's B costs a v_perm_b32 per two.
    def element(v, i: int) -> SSAValue:
        return kb.extf(kb.insert(vector.ExtractOp(v, [i], v.type.element_type)).results[0])

    x = element(a, 0)
    if intr.issues == 1:
        return kb.insert(MFMAOp(x, element(b, 0), c, (intr.m, intr.n, intr.k))).results[0]
    # Side by side (`Intrinsic.issues`): op i takes B's element i and its
    # run of C's elements. Every conversion first, then a scheduling
    # barrier: LLVM would otherwise issue each MFMA right after its
    # operand's conversion and wait 2 states (`s_nop 1`) between them.
    shape = (intr.m, intr.n // intr.issues, intr.k)
    bs = [element(b, i) for i in range(intr.issues)]
    kb.insert(SchedBarrierOp())
    per = intr.c.size // intr.issues
    ctype = VectorType(c.type.element_type, [per])
    out: list[SSAValue] = []
    for i in range(intr.issues):
        ci = kb.insert(FromElementsOp([_at(kb, c, per * i + e) for e in range(per)], ctype))
        d = kb.insert(MFMAOp(x, bs[i], ci.results[0], shape)).results[0]
        out += [_at(kb, d, e) for e in range(per)]
    return kb.insert(FromElementsOp(out, c.type)).results[0]


def _at(kb: KernelBuilder, v: SSAValue, i: int) -> SSAValue:
    """Element i of the 1-D vector v."""
    element = v.type.element_type  # type: ignore[attr-defined]
    return kb.insert(vector.ExtractOp(v, [i], element)).results[0]


EMIT: dict[str, Callable[[KernelBuilder, Intrinsic, SSAValue, SSAValue, SSAValue], SSAValue]] = {
    "nvgpu.mma.sync": _emit_mma_sync,
    "amdgpu.mfma": _emit_mfma,
}
"""How each intrinsic's op (`Intrinsic.op`) is made from A, B and C fragments."""


def lower_mma(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseMmaOp)
    kb = KernelBuilder(ir.b)
    intr = op.intrinsic
    i, j = op.block
    positions = intr.c.positions()
    regs = [kb.load(op.acc, [i, j, v]) for v in range(len(positions))]
    ctype = VectorType(op.acc.type.element_type, intr.c.shape)  # type: ignore[attr-defined]
    c = kb.insert(FromElementsOp(regs, ctype)).results[0]
    b = op.b
    if op.half is not None:  # this block's half of a pair of B fragments
        element = b.type.element_type  # type: ignore[attr-defined]
        first = op.half * intr.b.shape[0]
        halves = [
            kb.insert(vector.ExtractOp(b, [first + p[0], *p[1:]], element)).results[0]
            for p in intr.b.positions()
        ]
        b = kb.insert(FromElementsOp(halves, VectorType(element, intr.b.shape))).results[0]
    d = EMIT[intr.op](kb, intr, op.a, b, c)
    element = ctype.element_type
    for v, p in enumerate(positions):
        kb.store(kb.insert(vector.ExtractOp(d, list(p), element)).results[0], op.acc, [i, j, v])
    return []


def lower_write_fragments(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseWriteFragmentsOp)
    kb = KernelBuilder(ir.b)
    intr = op.intrinsic
    fm, fn, _ = _shape(op.acc)
    rows, cols = _shape(op.c)[-2:]
    merge = op.merge.data
    prefix = [] if op.chunk is None else [op.chunk]
    places = [intr.c.coords(kb, op.lane, p) for p in intr.c.positions()]
    for i in range(fm):
        for j in range(fn):
            row = kb.add(op.row, i * intr.m)
            col = kb.add(op.col, j * intr.n)
            for v, (r, c) in enumerate(places):
                at = [*prefix, kb.add(row, r), kb.add(col, c)]
                if merge == "tile":  # the tile holds the warp tiles whole
                    kb.store(kb.load(op.acc, [i, j, v]), op.c, at)
                    continue
                inside = kb.both(kb.below(at[-2], rows), kb.below(at[-1], cols))
                if op.col_from is not None:
                    mine = arith.CmpiOp(at[-1], op.col_from, "uge")
                    inside = kb.both(inside, kb.insert(mine).results[0])
                kb.if_(inside, _merge(op.acc, [i, j, v], op.c, at, merge))
    return []


def lower_read_tile(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseReadTileOp)
    kb = KernelBuilder(ir.b)
    rm, rn = _shape(op.acc)
    sm, sn = op.stride_sizes
    rows_at = [kb.add(op.row, i * sm) for i in range(rm)]
    cols_at = [kb.add(op.col, j * sn) for j in range(rn)]
    for i in range(rm):
        for j in range(rn):
            kb.store(kb.load(op.tile, [rows_at[i], cols_at[j]]), op.acc, [i, j])
    return []


def lower_reduce(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseReduceOp)
    kb = KernelBuilder(ir.b)
    rm, rn = _shape(op.acc)
    rows, cols = op.extents
    sm, sn = op.stride_sizes
    method = op.method.data
    rows_at = [kb.add(op.row, i * sm) for i in range(rm)]
    cols_at = [kb.add(op.col, j * sn) for j in range(rn)]
    # row + i * sm stays inside C when the tiles divide it.
    row_in = [kb.below(r, rows) if rows % (rm * sm) else None for r in rows_at]
    col_in = [kb.below(c, cols) if cols % (rn * sn) else None for c in cols_at]
    init = None if op.init is None else op.init.value.data

    def element(i: int, j: int) -> SSAValue:
        """C's element: the GEMM's init added once; the identity outside C."""
        valid = kb.both(row_in[i], col_in[j])
        x = kb.load(op.acc, [i, j])
        at = [rows_at[i], cols_at[j]]
        if op.c is not None:
            x = kb.addf(x, kb.load_or_zero(op.c, at, valid))
        elif init:
            x = kb.addf(x, kb.f(init))
        if op.store_c is not None:
            assert op.c is not None
            kb.if_(valid, lambda b, x=x: b.store(x, op.c, at))  # type: ignore[arg-type]
        return x if valid is None else kb.select(valid, x, kb.identity(method))

    if op.dim.value.data == BATCH_DIM:  # along the batch: each element is its own output
        for i in range(rm):
            for j in range(rn):
                kb.store(element(i, j), op.parts, [i, j])
        return []
    along_n = op.dim.value.data == 1
    for u in range(rm if along_n else rn):
        total = None
        for w in range(rn if along_n else rm):
            x = element(u, w) if along_n else element(w, u)
            total = x if total is None else kb.combine(method, total, x)
        assert total is not None
        kb.store(total, op.parts, [u])
    return []


LOWER_THREADWISE_GEMM = Pass(
    "lower-threadwise-gemm",
    "Lowers xsplit_gemm's threadwise ops to unrolled scalar memref and arith ops.",
    [
        Pattern("lower-threadwise-fill", "zeros into every register", ThreadwiseFillOp, lower_fill),
        Pattern(
            "lower-threadwise-read", "a register per load from the tile", ThreadwiseReadOp,
            lower_read,
        ),
        Pattern(
            "lower-threadwise-gemm", "the outer product, unrolled", ThreadwiseGemmOp, lower_gemm
        ),
        Pattern(
            "lower-threadwise-write", "each register merged into C under its mask",
            ThreadwiseWriteOp, lower_write,
        ),
        Pattern(
            "lower-threadwise-fragment", "a lane's fragment from the tile, by its layout",
            ThreadwiseFragmentOp, lower_fragment,
        ),
        Pattern(
            "lower-threadwise-mma", "the accumulator's fragment through the intrinsic's op",
            ThreadwiseMmaOp, lower_mma,
        ),
        Pattern(
            "lower-threadwise-write-fragments",
            "each C fragment element merged into C under its mask",
            ThreadwiseWriteFragmentsOp, lower_write_fragments,
        ),
        Pattern(
            "lower-threadwise-read-tile", "each register loaded from the C tile",
            ThreadwiseReadTileOp, lower_read_tile,
        ),
        Pattern(
            "lower-threadwise-reduce", "each kept row's registers, with the init, combined",
            ThreadwiseReduceOp, lower_reduce,
        ),
    ],  # fmt: skip
)

__all__ = ["LOWER_THREADWISE_GEMM"]
