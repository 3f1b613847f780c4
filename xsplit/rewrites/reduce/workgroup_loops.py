"""`lower-gridwise-gemm` for llvm-cpu: the fused GEMM + reduction's ops with
`workgroup_level`, lowered to what one workgroup of one thread runs.

llvm-cpu runs workgroup-level code only: IREE gives each workgroup one
thread and cannot convert `#gpu.address_space<workgroup>` or `<private>`
memory, so the GPU lowering's staged tiles, register tiles and barriers
have no meaning there. Workgroup (x, y, z) still owns the C tile at
(y * tile_m, x * tile_n), but loops over it: each element of C is its dot
product, read from A and B as they lie (the caches hold the tile's rows),
plus C's init, written back with `store_c`; each kept row (column) is
combined in order and leaves with one atomic, or one partial at
`out[tile along the reduced axis, row]` (`reduce_chunks` with one thread).
Reduced along the batch, each element leaves alone. `merge_reduced` with
`workgroup_level`: the one thread loops over the `threads` outputs a GPU
workgroup's threads would merge.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xsplit.dialects.xsplit_gemm import BATCH_DIM, GridwiseGemmReduceOp, MergeReducedOp
from xsplit.rewrites.dsl import IRBuilder, Match, Pattern, attr
from xsplit.rewrites.reduce.kernel_ir import KernelBuilder


def _element(op: GridwiseGemmReduceOp, kb: KernelBuilder, i: SSAValue, j: SSAValue) -> SSAValue:
    """C[i, j]: its dot product over K, C's init added once, C written back
    with `store_c`."""
    _, _, k = op.mnk

    def step(b: KernelBuilder, kk: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
        a_at = [kk, i] if op.a_transposed is not None else [i, kk]
        b_at = [j, kk] if op.b_transposed is not None else [kk, j]
        return [b.fma(b.extf(b.load(op.a, a_at)), b.extf(b.load(op.b, b_at)), acc[0])]

    (value,) = kb.fold(0, k, 1, [kb.zero()], step, "k")
    if op.c is not None:
        value = kb.addf(value, kb.load(op.c, [i, j]))
    elif op.init is not None:
        value = kb.addf(value, kb.f(op.init.value.data))
    if op.store_c is not None:
        assert op.c is not None
        kb.store(value, op.c, [i, j])
    return value


def _out_index(op: GridwiseGemmReduceOp, e: SSAValue, d: int) -> list:
    """The output element `e` kept along C's other dimension: the output
    holds it as `(kept,)`, or with the reduced dimension kept as 1."""
    if len(op.out.type.get_shape()) == 1:  # type: ignore[attr-defined]
        return [e]
    return [0, e] if d == 0 else [e, 0]


def lower_gridwise_workgroup_level(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, GridwiseGemmReduceOp)
    kb = KernelBuilder(ir.b)
    tm, tn, _ = op.tile_sizes
    mm, nn, _ = op.mnk
    method, d = op.method.data, op.dim.value.data
    partials = op.merge.data == "partials"
    bx, by = kb.block_id("x"), kb.block_id("y")
    m0, n0 = kb.mul(by, tm), kb.mul(bx, tn)
    m0.name_hint, n0.name_hint = "m0", "n0"  # type: ignore[union-attr]
    # The tile's end, where C ends inside it.
    m1 = kb.min(kb.add(m0, tm), mm) if mm % tm else kb.add(m0, tm)
    n1 = kb.min(kb.add(n0, tn), nn) if nn % tn else kb.add(n0, tn)

    if d == BATCH_DIM:  # every element its own output

        def row(r: KernelBuilder, i: SSAValue) -> None:
            def col(c: KernelBuilder, j: SSAValue) -> None:
                value = _element(op, c, i, j)
                at = [i, j] if len(op.out.type.get_shape()) == 2 else [0, i, j]  # type: ignore[attr-defined]
                if partials:
                    c.store(value, op.out, at)
                else:
                    c.atomic(method, value, op.out, at)

            r.for_(n0, n1, 1, col, "col")

        kb.for_(m0, m1, 1, row, "row")
        return []
    # Along N (d 1) each row of the tile is an output, along M each column.
    (k_lo, k_hi), (r_lo, r_hi) = ((m0, m1), (n0, n1)) if d == 1 else ((n0, n1), (m0, m1))
    chunk = bx if d == 1 else by

    def kept(b: KernelBuilder, e: SSAValue) -> None:
        def along(inner: KernelBuilder, x: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
            i, j = (e, x) if d == 1 else (x, e)
            return [inner.combine(method, acc[0], _element(op, inner, i, j))]

        (total,) = b.fold(r_lo, r_hi, 1, [b.identity(method)], along, "along")
        if partials:
            b.store(total, op.out, [chunk, e])
        else:
            b.atomic(method, total, op.out, _out_index(op, e, d))

    kb.for_(k_lo, k_hi, 1, kept, "kept")
    return []


def lower_merge_workgroup_level(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    op = m.root
    assert isinstance(op, MergeReducedOp)
    kb = KernelBuilder(ir.b)
    chunks = op.partials.type.get_shape()[0]  # type: ignore[attr-defined]
    shape = op.out.type.get_shape()  # type: ignore[attr-defined]
    per, method = op.thread_count, op.method.data
    if op.matrix is not None:
        rows, count = op.matrix
        row = kb.block_id("y")
        at = lambda e: [*([0] * (len(shape) - 2)), row, e]  # noqa: E731
        part_at = lambda s, e: [s, row, e]  # noqa: E731
    else:
        count = op.elements
        long = max(range(len(shape)), key=lambda x: shape[x])
        at = lambda e: [e if x == long else 0 for x in range(len(shape))]  # noqa: E731
        part_at = lambda s, e: [s, e]  # noqa: E731
    first = kb.mul(kb.block_id("x"), per)
    last = kb.add(first, per)
    end = kb.min(last, count) if count % per else last

    def merge(body: KernelBuilder, e: SSAValue) -> None:
        total = body.load(op.out, at(e))
        for s in range(chunks):
            # In chunk order: the same result every run.
            total = body.combine(method, total, body.load(op.partials, part_at(s, e)))
        body.store(total, op.out, at(e))

    kb.for_(first, end, 1, merge, "elem")
    return []


LOWER_GRIDWISE_REDUCE_WORKGROUP = Pattern(
    name="lower-gridwise-gemm-reduce-workgroup-level",
    doc="a fused GEMM + reduction for llvm-cpu becomes one thread's loops over its C tile",
    root=GridwiseGemmReduceOp,
    where=attr("workgroup_level").is_present(),
    rewrite=lower_gridwise_workgroup_level,
    benefit=2,
)

LOWER_MERGE_REDUCED_WORKGROUP = Pattern(
    name="lower-merge-reduced-workgroup-level",
    doc="the ordered merge of a fused reduction's partials for llvm-cpu becomes one thread's "
    "loop over its outputs",
    root=MergeReducedOp,
    where=attr("workgroup_level").is_present(),
    rewrite=lower_merge_workgroup_level,
    benefit=2,
)
