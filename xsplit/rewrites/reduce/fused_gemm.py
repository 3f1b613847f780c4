"""`lower-reduce`'s fused GEMM + reduction on the GPU: xsplit's staged GEMM
kernel (`xsplit_gemm`) with a reduction epilogue instead of C's write.

The kernel starts as one `xsplit_gemm.gridwise_gemm_reduce` and goes through
the GEMM kernel's passes (`lower-gridwise-gemm`, `lower-blockwise-gemm`,
`lower-threadwise-gemm`): the same staged K loop as `gemm-kernel`'s (64x64
C tiles, 256 threads with 4x4 registers, K steps of 16, 128-bit loads, FMAs;
with f16 A and B on sm_80, sm_90 and gfx942, tensor cores and K steps of
32, the C fragments handed to the epilogue through a workgroup-memory C tile),
then `blockwise_reduce`, which reduces the tile in registers by the stage
(rocMLIR's RFC, seed 004) and merges each output with an atomic or, in the
deterministic form, a partial that `merge_reduced` combines in a second
kernel. Built with xDSL builders, not text.

It takes C[b, m, n] = init + A[b, m, k] B[b, k, n] with at most one batch
loop, reduced along M, N or the batch; a batch runs on grid z (the merge's
grid y), each kernel taking its batch's matrices as rank-reduced subviews; reduced
along the batch, each batch's kernel merges every element of its C into
the output's (`dim` 2), or stores it into its batch's M x N of the partials.
A or B transposed in memory (A[k, m], B[n, k]) is read as it lies by the K
loop's copies (`a_transposed`, `b_transposed`; FMA tiles). What it does not
take (several batch loops, a transposed C, the CPU) is written by
`tiled_gemm.py` as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    UnitAttr,
    f16,
    f32,
    i32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

import xsplit.attr_names as attr_names
from xsplit.diagnostics import XsplitError
from xsplit.dialects import gpu
from xsplit.dialects.fragments import Intrinsic, intrinsic_for
from xsplit.dialects.xsplit_gemm import (
    BATCH_DIM,
    GridwiseGemmReduceOp,
    MergeReducedOp,
    reduce_chunks,
)
from xsplit.rewrites.reduce.plan import Plan
from xsplit.rewrites.reduce.reduced import Gemm, ReductionToLower, loops_of
from xsplit.targets.gemm_tiles import FUSED_GPU

TILE = FUSED_GPU.tile
"""The C tile and K step; with THREADS, 4x4 registers per thread: the tile
table's entry for the fused GEMM, which the tiled kernel (tiled_gemm.py)
takes too (so that the two compare load for load)."""
THREADS = FUSED_GPU.threads

MMA_TILE = (64, 64, 32)
"""With tensor cores: K steps of 32, so that each thread copies whole
128-bit vectors of A and B (8 halves) on both targets."""
MMA_WARPS = (2, 2)
"""Four warps (wavefronts on gfx942), each a 32x32 warp tile."""


@dataclass(frozen=True)
class Layout:
    """The kernel's tile, its epilogue's threads (16 per row of the tile, as
    the FMA kernel has), and the intrinsic and warps where it has one."""

    tile: tuple[int, int, int]
    threads: tuple[int, int]
    mma: Intrinsic | None = None
    warps: tuple[int, int] | None = None


def layout(red: ReductionToLower, p: Plan) -> Layout:
    """Tensor cores where the target has an intrinsic for A and B's element
    type (f16 on sm_80, sm_90 and gfx942) and `mma` is not `none`, else FMA
    register tiles."""
    src = red.source
    assert isinstance(src, Gemm)
    elements = {red.element(src.a), red.element(src.b)}
    intr = intrinsic_for(p.target.name, elements.pop()) if len(elements) == 1 else None
    # A transposed operand is read by the FMA tiles' copies (the tensor-core
    # tiles read rows as gemm-kernel's do).
    if intr is None or p.mma == "none" or any(transposed(red)):
        return Layout(TILE, THREADS)
    threads = MMA_WARPS[0] * MMA_WARPS[1] * intr.lanes
    return Layout(MMA_TILE, (threads // THREADS[1], THREADS[1]), intr, MMA_WARPS)


def applies(red: ReductionToLower, p: Plan) -> str | None:
    """None when the staged kernel takes `red` on `p`'s target, else why not."""
    if not p.target.is_gpu:
        return f"{p.target.name} runs workgroup-level code only"
    loops = loops_of(red)
    if isinstance(loops, str):
        return loops
    src = red.source
    assert isinstance(src, Gemm)
    if len(loops.batch) > 1:
        return "the GEMM has more than one batch loop"
    lead = loops.batch
    m, n, k = loops.m, loops.n, loops.k
    if src.a_dims not in ([*lead, m, k], [*lead, k, m]):
        return "A's dimensions are permuted past its batch"
    if src.b_dims not in ([*lead, k, n], [*lead, n, k]):
        return "B's dimensions are permuted past its batch"
    if src.out_dims != [*lead, m, n]:
        return "C is transposed"
    return None


def transposed(red: ReductionToLower) -> tuple[bool, bool]:
    """Whether A lies K x M and B N x K in memory (past the batch)."""
    loops = loops_of(red)
    assert not isinstance(loops, str)
    src = red.source
    assert isinstance(src, Gemm)
    return src.a_dims[-1] == loops.m, src.b_dims[-1] == loops.k


def _index(bld: Builder, value: int) -> SSAValue:
    return bld.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).results[0]


def _memref(red: ReductionToLower, i: int) -> MemRefType:
    return MemRefType(f16 if red.element(i) == "f16" else f32, red.arg_shapes[i])


def _function(
    name: str, types, hints, build, host: bool = False, batch: tuple[int, int] | None = (2, 1)
) -> func.FuncOp:
    """A kernel (or, with `host`, the host) whose body `build` makes; its
    launch is its op's, with `batch` = (grid dimension, count) for the
    batch loop the body takes from that block id (None: the op's own)."""
    block = Block(arg_types=list(types))
    for arg, hint in zip(block.args, hints):
        arg.name_hint = hint
    op = build(Builder(InsertPoint.at_end(block)), block.args)
    block.add_op(func.ReturnOp())
    fn = func.FuncOp(name, FunctionType.from_lists(list(types), []), Region(block))
    if host:
        fn.attributes[attr_names.HOST] = UnitAttr()
    else:
        grid = list(op.grid)
        if batch is not None:
            grid[batch[0]] = batch[1]
        fn.attributes["gpu.known_block_size"] = DenseArrayBase.from_list(i32, list(op.block))
        fn.attributes["gpu.known_grid_size"] = DenseArrayBase.from_list(i32, grid)
    return fn


def _slice(bld: Builder, v, at, first: int = 0) -> SSAValue:
    """`v`'s slice at `at` along dimension `first`, that dimension dropped
    (a rank-reduced `memref.subview`): a batch's matrix, or its part of
    the partials (`first` 1, `at` its first column)."""
    shape = list(v.type.get_shape())
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    if first == 0:
        sizes, kept = [1, *shape[1:]], shape[1:]
        layout = StridedLayoutAttr(strides[1:], None)
        offsets = [at, *[0] * (len(shape) - 1)]
    else:  # partials [chunks, batches x outputs]: the columns at..at+width
        width = at[1]
        sizes, kept = [shape[0], width], [shape[0], width]
        layout = StridedLayoutAttr(strides, None)
        offsets = [0, at[0]]
        at = at[0]
    static = [DYNAMIC_INDEX if isinstance(o, SSAValue) else o for o in offsets]
    result = MemRefType(v.type.element_type, kept, layout)
    op = memref.SubviewOp(v, [at], [], [], static, sizes, [1] * len(shape), result)
    return bld.insert(op).results[0]


def gridwise(red: ReductionToLower, p: Plan, a, b, c, out, merge: str) -> GridwiseGemmReduceOp:
    """The gridwise op of `red` on the values given; `c` None for a constant init."""
    src = red.source
    assert isinstance(src, Gemm)
    loops = loops_of(red)
    assert not isinstance(loops, str)
    init = None
    if src.init_arg is None and src.init_const is not None and float(src.init_const) != 0.0:
        init = float(src.init_const)
    lay = layout(red, p)
    a_t, b_t = transposed(red)
    # Along the batch every element is its own output: nothing to exchange.
    dim, stage = {"n": (1, p.stage), "m": (0, p.stage), "batch": (BATCH_DIM, "atomic")}[loops.along]
    # A lying K x M is staged K-major: its copy is then a plain row copy.
    return GridwiseGemmReduceOp(
        a, b, out, c, lay.tile, lay.threads, red.method, dim, stage,
        merge, p.subgroup, "cluster" if p.target.name == "gfx942" else "shuffle", init, src.store,
        a_k_major=a_t, mma=lay.mma.name if lay.mma else None, warps=lay.warps, a_transposed=a_t,
        b_transposed=b_t,
    )  # fmt: skip


def kernels(red: ReductionToLower, p: Plan, ctx: Context) -> list[Operation]:
    """The kernel named like the function (or, deterministic, a host of that
    name, `{name}_partials` and `{name}_merge`), lowered through the GEMM
    kernel's passes in `ctx` and detached."""
    from xsplit.rewrites.reduce.gemm_stages import GEMM_STAGES

    src = red.source
    assert isinstance(src, Gemm)
    name = red.fn.sym_name.data
    count = len(red.arg_shapes)
    types = [_memref(red, i) for i in range(count)]
    hints = [a.name_hint for a in red.fn.args]

    loops = loops_of(red)
    assert not isinstance(loops, str)
    batches = loops.extent[loops.batch[0]] if loops.batch else 1
    axis = loops.m if loops.along == "m" else loops.n
    kept = loops.extent[loops.n if loops.along == "m" else loops.m]
    # Reduced along the batch, each batch's kernel merges into the whole
    # output (or its own M x N of the partials), which no slice narrows.
    along_batch = loops.along == "batch"

    def batch_id(bld: Builder, dim: str):
        # A batch GEMM: grid z (y for the merge) is the batch, whose
        # matrices the kernel takes as slices.
        return bld.insert(gpu.BlockIdOp(dim)).results[0] if loops.batch else None

    def values(bld: Builder, args, z):
        def at(v):
            return v if z is None else _slice(bld, v, z)

        c = at(args[src.init_arg]) if src.init_arg is not None else None
        return at(args[src.a]), at(args[src.b]), c

    if not p.deterministic:

        def body(bld: Builder, args):
            z = batch_id(bld, "z")
            out = args[red.out] if z is None or along_batch else _slice(bld, args[red.out], z)
            return bld.insert(gridwise(red, p, *values(bld, args, z), out, "atomic"))

        new = [_function(name, types, hints, body, batch=(2, batches))]
    else:
        d = 0 if loops.along == "m" else 1
        lay = layout(red, p)
        if along_batch:  # an M x N of partials per batch
            ptype = MemRefType(f32, [batches, loops.extent[loops.m], loops.extent[loops.n]])
        else:
            chunks = reduce_chunks(loops.extent[axis], lay.tile[d], lay.threads[d], p.stage)
            ptype = MemRefType(f32, [chunks, red.elements])

        def columns(bld: Builder, parts, z):
            if along_batch:
                return parts if z is None else _slice(bld, parts, z)
            if z is None:
                return parts
            first = bld.insert(arith.MuliOp(z, _index(bld, kept))).results[0]
            return _slice(bld, parts, (first, kept), first=1)

        def partials(bld: Builder, args):
            z = batch_id(bld, "z")
            out = columns(bld, args[count], z)
            return bld.insert(gridwise(red, p, *values(bld, args, z), out, "partials"))

        def merge(bld: Builder, args):
            threads = THREADS[0] * THREADS[1]
            if along_batch:  # the whole output at once, its rows on grid y
                return bld.insert(MergeReducedOp(args[0], args[1], red.method, threads))
            y = batch_id(bld, "y")
            out = args[1] if y is None else _slice(bld, args[1], y)
            merged = MergeReducedOp(columns(bld, args[0], y), out, red.method, threads)
            return bld.insert(merged)

        def host(bld: Builder, args):
            buf = bld.insert(memref.AllocOp.get(f32, shape=ptype.get_shape())).results[0]
            buf.name_hint = "partials"
            bld.insert(func.CallOp(f"{name}_partials", [*args, buf], []))
            bld.insert(func.CallOp(f"{name}_merge", [buf, args[red.out]], []))
            return bld.insert(memref.DeallocOp.get(buf))

        new = [
            _function(name, types, hints, host, host=True),
            _function(
                f"{name}_partials", [*types, ptype], [*hints, "partials"], partials,
                batch=(2, batches),
            ),
            _function(
                f"{name}_merge", [ptype, types[red.out]], ["partials", hints[red.out]], merge,
                batch=None if along_batch else (1, batches),
            ),
        ]
    module = ModuleOp(new)
    try:
        module.verify()
    except VerifyException as e:  # a bug in this builder, never the user's input
        raise XsplitError(f"lower-reduce: internal error: {e}", red.op) from None
    GEMM_STAGES.apply(ctx, module)
    ops = list(module.body.block.ops)
    for op in ops:
        op.detach()
    return ops


def describe(red: ReductionToLower, p: Plan) -> str:
    loops = loops_of(red)
    assert not isinstance(loops, str)
    lay = layout(red, p)
    tm, tn, tk = lay.tile
    thm, thn = lay.threads
    along_n = loops.along == "n"
    row = "row" if along_n else "column"
    r_threads = thn if along_n else thm
    stride = 1 if along_n else thn
    gx = -(-loops.extent[loops.n] // tn)
    gy = -(-loops.extent[loops.m] // tm)
    out = "stores one partial" if p.deterministic else (
        f"adds one {'addf' if red.method == 'sum' else 'maxnumf'} atomic"
    )
    how = (
        f"the fused GEMM in xsplit's staged kernel (xsplit_gemm.gridwise_gemm_reduce): {tm}x{tn} "
        f"C tiles, one per workgroup of {thm * thn} threads holding {tm // thm}x{tn // thn} each "
        f"in registers; A and B staged through workgroup memory {tk} K elements at a time"
    )
    a_t, b_t = transposed(red)
    if a_t or b_t:
        read = " and ".join(
            w for w, t in (("A as it lies, K x M, into a K-major tile", a_t),
                           ("B as it lies, N x K, transposed into its tile", b_t)) if t
        )  # fmt: skip
        how += f" (copied: {read})"
    if lay.mma is not None and lay.warps is not None:
        wm, wn = lay.warps
        how += (
            f"; multiplied on tensor cores ({lay.mma.op} {lay.mma.name}, {wm}x{wn} warps of "
            f"{lay.mma.lanes} lanes), the C fragments put in a workgroup-memory C tile and read "
            f"back as the {tm // thm}x{tn // thn} register tiles"
        )
    if loops.along == "batch":
        epi = (
            "the batch axis is reduced across workgroups (grid z): every element of a tile is "
            f"its own output, and its thread {out} per element"
        )
    elif p.stage == "atomic":
        regs = (tn // thn) if along_n else (tm // thm)
        epi = f"each thread combines its {regs} values of each {row} and {out} per {row}"
    elif p.stage == "lds":
        epi = (
            f"the {r_threads} threads of a {row} meet in workgroup memory, where one thread per "
            f"{row} combines them and {out} per {row} and workgroup"
        )
    else:
        lanes = 1 if stride >= p.subgroup else min(r_threads, p.subgroup // stride)
        if p.target.name != "gfx942":
            via = "a gpu.shuffle xor butterfly"
        elif stride == 1:
            via = f"gpu.subgroup_reduce cluster(size = {lanes}) (DPP)"
        else:
            via = f"gpu.subgroup_reduce cluster(size = {lanes}, stride = {stride})"
        gap = "consecutive" if stride == 1 else f"{stride} apart"
        if lanes == r_threads:
            epi = (
                f"the {r_threads} lanes of a {row}, {gap} in one subgroup, combine with {via} and "
                f"the first {out} per {row} and workgroup (no workgroup-memory step)"
            )
        else:
            epi = (
                f"the {r_threads} threads of a {row} are {gap}: {lanes} lanes per subgroup combine "
                f"with {via}, then the {r_threads // lanes} subgroups' partials meet in workgroup "
                f"memory (case 3.2) and one thread {out} per {row} and workgroup"
            )
    if p.deterministic:
        axis = loops.m if loops.along == "m" else loops.n
        d = 0 if loops.along == "m" else 1
        if loops.along == "batch":
            b, m, n = (loops.extent[x] for x in (loops.batch[0], loops.m, loops.n))
            shape = f"{b}x{m}x{n}"
        else:
            chunks = reduce_chunks(loops.extent[axis], lay.tile[d], lay.threads[d], p.stage)
            shape = f"{chunks}x{red.elements}"
        epi += f"; partials in a {shape} buffer, then a fixed-order merge kernel"
    chosen = f" (chosen for {p.target.name}: {p.why})" if p.why else ""
    gz = loops.extent[loops.batch[0]] if loops.batch else 1
    return f"lower-reduce: stage {p.stage}{chosen}: {how}; grid {gx}x{gy}x{gz}; {epi}"
