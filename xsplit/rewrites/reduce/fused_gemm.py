"""`lower-reduce`'s fused GEMM + reduction: xsplit's staged GEMM kernel
(`xsplit_gemm`) with a reduction epilogue instead of C's write.

The kernel starts as one `xsplit_gemm.gridwise_gemm_reduce` and goes through
the GEMM kernel's passes (`lower-gridwise-gemm`, `lower-blockwise-gemm`,
`lower-threadwise-gemm`): the same staged K loop as `gemm-kernel`'s, on the
tile table's FUSED entry (64x64 C tiles, 256 threads with 4x4 registers, K
steps of 16, 128-bit loads, FMAs) or, with f16 A and B on sm_80, sm_90 and
gfx942, its FUSED_MMA entry (tensor cores and K steps of 32, the C
fragments handed to the epilogue through a workgroup-memory C tile),
then `blockwise_reduce`, which reduces the tile in registers by the stage
(rocMLIR's RFC, seed 004) and merges each output with an atomic or, in the
deterministic form, a partial that `merge_reduced` combines in a second
kernel. Built with xDSL builders, not text.

It takes C[batch..., m, n] = init + A[batch..., m, k] B[batch..., k, n]
with any number of batch loops, leading every operand in any order, reduced
along M, N or one batch loop. The batch loops run on grid z, linearized
(the merge's grid y, or z along a batch loop), each kernel taking its
batch's matrices, outputs and partials as rank-reduced subviews; reduced
along a batch loop, each batch's kernel merges every element of its C
into the output's (`dim` 2), or stores it into its batch's M x N of the
partials. A or B transposed in memory (A[k, m], B[n, k]) is read as it lies
by the K loop's copies (`a_transposed`, `b_transposed`; FMA tiles); a C
that lies N x M is Cᵀ = Bᵀ Aᵀ (`View`). On llvm-cpu, which runs
workgroup-level code only, the same ops carry `workgroup_level` and
lower-gridwise-gemm makes them one thread's loops over a 32x32 tile
(the table's FUSED entry for `cpu`; workgroup_loops.py). Batch dimensions
after the matrix are refused (the per-element kernel takes them).
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
from xsplit.rewrites.reduce.reduced import Gemm, Loops, ReductionToLower, loops_of
from xsplit.targets.gemm_tiles import FUSED, FUSED_MMA, GemmTiles, gemm_tiles

MERGED_PER_THREAD = 64
"""On the CPU: the outputs the merge kernel's one thread a workgroup combines."""


@dataclass(frozen=True)
class View:
    """The GEMM as the staged kernel sees it, C[M, N] = A[M, K] B[K, N] past
    the batch: which argument is its A and which its B, whether each lies
    transposed, its M and N loops, and along which of them (or the batch)
    it reduces. A C that lies N x M is Cᵀ = Bᵀ Aᵀ: the program's B is the
    kernel's A and its A the kernel's B, each read as it lies, so that the
    kernel writes C (and reduces it) in the order C lies in memory."""

    loops: Loops
    a: int
    b: int
    a_t: bool
    b_t: bool
    m: int
    n: int
    c_t: bool

    @property
    def along(self) -> str:
        """'n' (one output per row of the kernel's C), 'm' or 'batch'."""
        r = self.loops.reduced
        return "n" if r == self.n else "m" if r == self.m else "batch"

    @property
    def batches(self) -> int:
        """The batch loops' iterations, all of them on grid z."""
        return _product(self.loops.extent[d] for d in self.loops.batch)


def _product(sizes) -> int:
    total = 1
    for s in sizes:
        total *= s
    return total


def view(red: ReductionToLower) -> View:
    loops = loops_of(red)
    assert not isinstance(loops, str)
    src = red.source
    assert isinstance(src, Gemm)
    a_t, b_t = src.a_dims[-1] == loops.m, src.b_dims[-1] == loops.k
    if src.out_dims[-1] == loops.m:  # C lies N x M: Cᵀ = Bᵀ Aᵀ
        return View(loops, src.b, src.a, not b_t, not a_t, loops.n, loops.m, True)
    return View(loops, src.a, src.b, a_t, b_t, loops.m, loops.n, False)


@dataclass(frozen=True)
class Layout:
    """The kernel's tile, its epilogue's threads (16 per row of the tile, as
    the FMA kernel has), and the intrinsic and warps where it has one."""

    tile: tuple[int, int, int]
    threads: tuple[int, int]
    mma: Intrinsic | None = None
    warps: tuple[int, int] | None = None


def layout(red: ReductionToLower, p: Plan) -> Layout:
    """The tile table's entry for the fused kernel (`gemm_tiles`' FUSED_MMA):
    tensor cores where the target has an intrinsic for A and B's element
    type (f16 on sm_80, sm_90 and gfx942) and `mma` is not `none`, else
    (FUSED) FMA register tiles, or on the CPU one thread's loops over a tile."""
    src = red.source
    assert isinstance(src, Gemm)
    element = red.element(src.a)
    intr = intrinsic_for(p.target.name, element) if element == red.element(src.b) else None
    # A transposed operand is read by the FMA tiles' copies (the tensor-core
    # tiles read rows as gemm-kernel's do).
    if not p.target.is_gpu or intr is None or p.mma == "none" or any(transposed(red)):
        tiles = _fused_tiles(red, p, FUSED, element)
        return Layout(tiles.tile, tiles.threads)
    tiles = _fused_tiles(red, p, FUSED_MMA, element)
    return Layout(tiles.tile, tiles.threads, intr, tiles.warps)


def _fused_tiles(red: ReductionToLower, p: Plan, form: str, element: str) -> GemmTiles:
    """The table's `form` entry for `red`'s GEMM with A of `element` on `p`'s target."""
    v = view(red)
    m, n = v.loops.extent[v.m], v.loops.extent[v.n]
    return gemm_tiles(p.target, element, m, n, v.loops.extent[v.loops.k], form=form)


MAX_GRID_Z = 65535
"""Grid z's limit on every GPU target: the batch loops' iterations."""


def applies(red: ReductionToLower, p: Plan) -> str | None:
    """None when the staged kernel takes `red` on `p`'s target, else why not:
    every operand's batch dimensions (any number, in any order) come first,
    and its last two are its matrix, either way round."""
    loops = loops_of(red)
    if isinstance(loops, str):
        return loops
    src = red.source
    assert isinstance(src, Gemm)
    batch, m, n, k = set(loops.batch), loops.m, loops.n, loops.k
    for name, dims, pair in (("A", src.a_dims, (m, k)), ("B", src.b_dims, (k, n)),
                             ("C", src.out_dims, (m, n))):  # fmt: skip
        if set(dims[:-2]) != batch:
            return f"{name}'s batch dimensions do not come first"
        if dims[-2:] not in (list(pair), list(pair[::-1])):
            return f"{name}'s last two dimensions are not its matrix"
    batches = _product(loops.extent[d] for d in loops.batch)
    if batches > MAX_GRID_Z:
        return f"its {batches} batches exceed grid z's {MAX_GRID_Z}"
    return None


def transposed(red: ReductionToLower) -> tuple[bool, bool]:
    """Whether the kernel's A lies K x M and its B N x K in memory (past the batch)."""
    v = view(red)
    return v.a_t, v.b_t


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


def _strides(shape: list[int]) -> list[int]:
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def _subview(bld: Builder, v, offsets, sizes, keep: list[bool]) -> SSAValue:
    """A rank-reduced `memref.subview` of `v` (row-major): the dimensions
    not in `keep` dropped, the strides MLIR infers for those kept."""
    shape = list(v.type.get_shape())
    strides = _strides(shape)
    kept = [size for size, k in zip(sizes, keep) if k]
    layout = StridedLayoutAttr([s for s, k in zip(strides, keep) if k], None)
    dynamic = [o for o in offsets if isinstance(o, SSAValue)]
    static = [DYNAMIC_INDEX if isinstance(o, SSAValue) else o for o in offsets]
    result = MemRefType(v.type.element_type, kept, layout)
    op = memref.SubviewOp(v, dynamic, [], [], static, sizes, [1] * len(shape), result)
    return bld.insert(op).results[0]


def _slice(bld: Builder, v, at: list[SSAValue | None]) -> SSAValue:
    """`v` at the batch coordinates `at` (one per dimension; None: kept
    whole), those dimensions dropped: a batch's matrix, output rows or
    partials."""
    if all(x is None for x in at):
        return v
    shape = list(v.type.get_shape())
    offsets = [0 if x is None else x for x in at]
    sizes = [s if x is None else 1 for s, x in zip(shape, at)]
    return _subview(bld, v, offsets, sizes, [x is None for x in at])


def _columns(bld: Builder, parts, first: SSAValue, width: int) -> SSAValue:
    """Columns first..first+width of the partials (chunks x batches·outputs):
    a batch's outputs."""
    chunks = parts.type.get_shape()[0]
    return _subview(bld, parts, [0, first], [chunks, width], [True, True])


def _delinearize(bld: Builder, z: SSAValue, dims: list[int], extent: dict[int, int]):
    """Each of the loops `dims` (row-major, the last fastest) at the linear
    index `z`; the one loop of a single batch is `z` itself."""
    vals: dict[int, SSAValue] = {}
    for d in reversed(dims):
        if d == dims[0]:
            vals[d] = z
            break
        size = _index(bld, extent[d])
        vals[d] = bld.insert(arith.RemUIOp(z, size)).results[0]
        z = bld.insert(arith.DivUIOp(z, size)).results[0]
    return vals


def gridwise(red: ReductionToLower, p: Plan, a, b, c, out, merge: str) -> GridwiseGemmReduceOp:
    """The gridwise op of `red` on the values given (`a` and `b` the
    kernel's, `view`); `c` None for a constant init."""
    src = red.source
    assert isinstance(src, Gemm)
    v = view(red)
    init = None
    if src.init_arg is None and src.init_const is not None and float(src.init_const) != 0.0:
        init = float(src.init_const)
    lay = layout(red, p)
    gpu_kernel = p.target.is_gpu
    # Along the batch every element is its own output, and llvm-cpu's one
    # thread a workgroup has no one to exchange with: nothing to exchange.
    stage = p.stage if gpu_kernel else "atomic"
    dim, stage = {"n": (1, stage), "m": (0, stage), "batch": (BATCH_DIM, "atomic")}[v.along]
    # A lying K x M is staged K-major: its copy is then a plain row copy.
    return GridwiseGemmReduceOp(
        a, b, out, c, lay.tile, lay.threads, red.method, dim, stage,
        merge, p.subgroup, "cluster" if p.target.name == "gfx942" else "shuffle", init, src.store,
        a_k_major=v.a_t and gpu_kernel, mma=lay.mma.name if lay.mma else None, warps=lay.warps,
        a_transposed=v.a_t, b_transposed=v.b_t, workgroup_level=not gpu_kernel,
    )  # fmt: skip


def kernels(red: ReductionToLower, p: Plan, ctx: Context) -> list[Operation]:
    """The kernel named like the function (or, deterministic, a host of that
    name, `{name}_partials` and `{name}_merge`), lowered through the GEMM
    kernel's passes in `ctx` and detached. The batch loops, however many,
    run on grid z linearized (the merge's grid y, or z for a reduction
    along one of them), each kernel taking its batch's matrices, outputs
    and partials as rank-reduced subviews."""
    from xsplit.rewrites.reduce.gemm_stages import GEMM_STAGES

    src = red.source
    assert isinstance(src, Gemm)
    name = red.fn.sym_name.data
    count = len(red.arg_shapes)
    types = [_memref(red, i) for i in range(count)]
    hints = [a.name_hint for a in red.fn.args]

    v = view(red)
    loops = v.loops
    batch, extent = loops.batch, loops.extent
    batches = v.batches
    axis = v.m if v.along == "m" else v.n
    kept = extent[v.n if v.along == "m" else v.m]
    # Reduced along the batch, each batch's kernel merges into the output
    # at its other batch loops (or its own M x N of the partials).
    along_batch = v.along == "batch"
    others = [d for d in batch if d != loops.reduced]
    # The output's dimensions by loop: C's less the axis (a kept unit
    # dimension, None, is never sliced).
    out_dims: list[int | None] = [
        None if pos == red.axis else d for pos, d in enumerate(src.out_dims)
        if red.keepdim or pos != red.axis
    ]  # fmt: skip

    def batch_ids(bld: Builder, dim: str, dims: list[int]):
        """The batch loops' values from grid `dim` (linear) and that id."""
        if not dims:
            return {}, None
        z = bld.insert(gpu.BlockIdOp(dim)).results[0]
        return _delinearize(bld, z, dims, extent), z

    def at(bld: Builder, value, dims, vals) -> SSAValue:
        return _slice(bld, value, [vals.get(d) if d is not None else None for d in dims])

    def values(bld: Builder, args, vals):
        c = at(bld, args[src.init_arg], src.out_dims, vals) if src.init_arg is not None else None
        a = at(bld, args[v.a], src.b_dims if v.c_t else src.a_dims, vals)
        b = at(bld, args[v.b], src.a_dims if v.c_t else src.b_dims, vals)
        return a, b, c

    def output(bld: Builder, out, vals):
        keep = {d: x for d, x in vals.items() if d != loops.reduced}
        return at(bld, out, out_dims, keep)

    if not p.deterministic:

        def body(bld: Builder, args):
            vals, _ = batch_ids(bld, "z", batch)
            out = output(bld, args[red.out], vals)
            return bld.insert(gridwise(red, p, *values(bld, args, vals), out, "atomic"))

        new = [_function(name, types, hints, body, batch=(2, batches))]
    else:
        d = 0 if v.along == "m" else 1
        lay = layout(red, p)
        c_last = [extent[x] for x in src.out_dims[-2:]]
        if along_batch:  # an M x N of partials per batch
            ptype = MemRefType(f32, [extent[loops.reduced], *(extent[x] for x in others), *c_last])
            pdims: list[int | None] = [loops.reduced, *others, None, None]
        else:
            chunks = reduce_chunks(extent[axis], lay.tile[d], lay.threads[d], p.stage)
            ptype = MemRefType(f32, [chunks, red.elements])

        def partials(bld: Builder, args):
            vals, z = batch_ids(bld, "z", batch)
            parts = args[count]
            if along_batch:
                out = at(bld, parts, pdims, vals)
            elif z is not None:
                first = bld.insert(arith.MuliOp(z, _index(bld, kept))).results[0]
                out = _columns(bld, parts, first, kept)
            else:
                out = parts
            return bld.insert(gridwise(red, p, *values(bld, args, vals), out, "partials"))

        gpu_kernel = p.target.is_gpu
        # On GPUs the merge kernel's workgroups are the FMA entry's size.
        element = red.element(src.a)
        threads = (
            _fused_tiles(red, p, FUSED, element).thread_count if gpu_kernel else MERGED_PER_THREAD
        )

        def merged(parts, out) -> MergeReducedOp:
            return MergeReducedOp(parts, out, red.method, threads, not gpu_kernel)

        def merge(bld: Builder, args):
            if along_batch:  # an output matrix at a time, its rows on grid y
                vals, _ = batch_ids(bld, "z", others)
                parts = at(bld, args[0], [None, *others, None, None], vals)
                return bld.insert(merged(parts, output(bld, args[1], vals)))
            vals, y = batch_ids(bld, "y", batch)
            parts = args[0]
            if y is not None:
                first = bld.insert(arith.MuliOp(y, _index(bld, kept))).results[0]
                parts = _columns(bld, parts, first, kept)
            return bld.insert(merged(parts, output(bld, args[1], vals)))

        def host(bld: Builder, args):
            buf = bld.insert(memref.AllocOp.get(f32, shape=ptype.get_shape())).results[0]
            buf.name_hint = "partials"
            bld.insert(func.CallOp(f"{name}_partials", [*args, buf], []))
            bld.insert(func.CallOp(f"{name}_merge", [buf, args[red.out]], []))
            return bld.insert(memref.DeallocOp.get(buf))

        merge_grid = (
            (2, _product(extent[x] for x in others)) if along_batch else (1, batches)
        )
        new = [
            _function(name, types, hints, host, host=True),
            _function(
                f"{name}_partials", [*types, ptype], [*hints, "partials"], partials,
                batch=(2, batches),
            ),
            _function(
                f"{name}_merge", [ptype, types[red.out]], ["partials", hints[red.out]], merge,
                batch=merge_grid,
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
    v = view(red)
    loops = v.loops
    lay = layout(red, p)
    tm, tn, tk = lay.tile
    thm, thn = lay.threads
    along_n = v.along == "n"
    row = "row" if along_n else "column"
    r_threads = thn if along_n else thm
    stride = 1 if along_n else thn
    gx = -(-loops.extent[v.n] // tn)
    gy = -(-loops.extent[v.m] // tm)
    out = "stores one partial" if p.deterministic else (
        f"adds one {'addf' if red.method == 'sum' else 'maxnumf'} atomic"
    )
    how = (
        f"the fused GEMM in xsplit's staged kernel (xsplit_gemm.gridwise_gemm_reduce): {tm}x{tn} "
        f"C tiles, one per workgroup of {thm * thn} threads holding {tm // thm}x{tn // thn} each "
        f"in registers; A and B staged through workgroup memory {tk} K elements at a time"
    )
    a_t, b_t = v.a_t, v.b_t
    transposed_c = " (C lies N x M: computed as Cᵀ = Bᵀ Aᵀ, B as the kernel's A and A as its B)"
    if not p.target.is_gpu:
        return _describe_workgroup_level(red, p, v, (gx, gy), out, transposed_c * v.c_t)
    if v.c_t:
        how += transposed_c
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
    if v.along == "batch":
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
        axis = v.m if v.along == "m" else v.n
        d = 0 if v.along == "m" else 1
        if v.along == "batch":
            src = red.source
            assert isinstance(src, Gemm)
            others = [x for x in loops.batch if x != loops.reduced]
            dims = [loops.reduced, *others, *src.out_dims[-2:]]
            shape = "x".join(str(loops.extent[x]) for x in dims)
        else:
            chunks = reduce_chunks(loops.extent[axis], lay.tile[d], lay.threads[d], p.stage)
            shape = f"{chunks}x{red.elements}"
        epi += f"; partials in a {shape} buffer, then a fixed-order merge kernel"
    chosen = f" (chosen for {p.target.name}: {p.why})" if p.why else ""
    gz = v.batches
    return f"lower-reduce: stage {p.stage}{chosen}: {how}; grid {gx}x{gy}x{gz}; {epi}"


def _describe_workgroup_level(red, p: Plan, v: View, grid, out: str, extra: str) -> str:
    tm, tn, _ = layout(red, p).tile
    how = (
        "the fused GEMM in xsplit's staged kernel (xsplit_gemm.gridwise_gemm_reduce "
        f"workgroup_level): {tm}x{tn} C tiles, one per workgroup of one thread that loops over "
        f"its tile, A and B read as they lie (llvm-cpu: no workgroup memory, no staging){extra}"
    )
    row = {"n": "row", "m": "column", "batch": "element"}[v.along]
    if v.along == "batch":
        epi = f"the batch axis is reduced across workgroups: each element {out.replace('one', 'its own')}"
    else:
        epi = f"each {row} combined serially, then the workgroup {out} per {row}"
    if p.deterministic:
        epi += "; partials, then a fixed-order merge kernel"
    chosen = f" (chosen for {p.target.name}: {p.why})" if p.why else ""
    gx, gy = grid
    return f"lower-reduce: stage {p.stage}{chosen}: {how}; grid {gx}x{gy}x{v.batches}; {epi}"
