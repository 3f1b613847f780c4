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
- `threadwise_reduce`: per kept row (column), the registers plus the GEMM's
  init (C's element under its mask, or the constant), C written back under
  the mask with `store_c`, the identity outside C, combined in register
  order into one partial.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from xsplit.dialects.xsplit_gemm import (
    ThreadwiseFillOp,
    ThreadwiseGemmOp,
    ThreadwiseReadOp,
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
    rm, rn = _shape(op.acc)
    for i in range(rm):
        for j in range(rn):
            kb.store(kb.zero(), op.acc, [i, j])
    return []


def lower_read(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, ThreadwiseReadOp)
    kb = KernelBuilder(ir.b)
    (regs,) = _shape(op.regs)
    stride = op.stride.value.data
    # f16 tiles are extended here: the registers and the products are f32.
    if op.down is not None:
        at = [[kb.add(op.row, i * stride), op.col] for i in range(regs)]
    else:
        at = [[op.row, kb.add(op.col, i * stride)] for i in range(regs)]
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
    cols_at = [kb.add(op.col, j * sn) for j in range(rn)]
    row_in = [kb.below(r, rows) for r in rows_at]
    col_in = [kb.below(c, cols) for c in cols_at]
    for i in range(rm):
        for j in range(rn):
            at = [*prefix, rows_at[i], cols_at[j]]

            def write(body: KernelBuilder, i: int = i, j: int = j, at: list = at) -> None:
                value = body.load(op.acc, [i, j])
                if merge == "atomic":
                    body.atomic_add(value, op.c, at)
                elif merge == "store":
                    body.store(body.addf(body.load(op.c, at), value), op.c, at)
                else:
                    body.store(value, op.c, at)

            kb.if_(kb.both(row_in[i], col_in[j]), write)
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
            "lower-threadwise-reduce", "each kept row's registers, with the init, combined",
            ThreadwiseReduceOp, lower_reduce,
        ),
    ],  # fmt: skip
)

__all__ = ["LOWER_THREADWISE_GEMM"]
