"""`gemm-kernel{target=NAME chunks=S merge=auto|store|atomic|deterministic}`:
a matmul becomes xsplit's own GEMM kernel, at its first (gridwise) stage.

The input is a function in destination-passing form that holds one
`linalg.matmul` of static arguments (A and B f32, f16 or bf16, C f32),
`C + A · B` with C the init, and
returns it. The output is the same function on memrefs, returning nothing,
whose body is one `xsplit_gemm.gridwise_gemm` (with `gpu.known_block_size`
and `gpu.known_grid_size`): each workgroup computes one C tile over one of
`chunks` static K chunks (grid z). The chunks meet

- `store` (one chunk): the tile is added to C;
- `atomic`: each thread adds its elements with `memref.atomic_rmw addf`;
- `deterministic`: each chunk stores its tile into a chunks x M x N partials
  buffer, and a second kernel (`xsplit_gemm.merge_partials`) adds them to C
  in chunk order; the function becomes a host function that allocates the
  buffer and calls `{name}_partials`, then `{name}_merge`.

`auto` is `store` for one chunk and `atomic` for more. `stages=2`
double-buffers the staging: with asynchronous copies on sm_80 and sm_90
(3 and 4 stages too), through registers (or, `prefetch=lds`, with
direct-to-LDS loads) on gfx942. On sm_80 and sm_90 each cp.async copies
16, 8 or 4 bytes, the widest every row starts aligned for: rows of f32
that are not whole 16-byte vectors (an odd K) go 4 bytes an element
(measured in the sm_90 SASS against a register-staged prefetch: 74% FFMA
against 77%, with nothing held in registers across the math), 16-bit rows
of an even length in pairs or quads. 16-bit rows of an odd length start 2
bytes into a word on every other row, which no cp.async can copy:
`pad=auto` first copies such an A or B into rows of whole vectors
(`xsplit_gemm.pad_rows`, a host function allocating the copies; sm_90
SASS: 7-17% HMMA through registers, 47-48% padded); `pad=none` stages A
through registers and B, where its rows allow, by cp.async (`async_b`);
`prefetch=registers` forces registers for both.
On gfx942, whose vector loads take any element-aligned address, such rows
load 16 bytes at a time anyway (`misaligned_vectors`), and a K that is not
whole steps has its ragged last step peeled out of the loop.
`tile`, `threads` and `stages` not given are the target's table's for the
element type and output size (`xsplit/targets/gemm_tiles.py`). `mma=auto`
multiplies on tensor cores where the target has an intrinsic for A and B's
element type (f16 and bf16 on sm_80 and sm_90: `nvgpu.mma.sync` m16n8k16;
on gfx942: `amdgpu.mfma` 16x16x16, 64-lane wavefronts), with `warps` warps
per workgroup each owning a warp tile (`threads` then does not apply);
`mma=none` (or no intrinsic, or `a_layout=k`) keeps one register tile of
FMAs per thread. gfx942's f32 MFMA (`mma=mfma_f32_16x16x4_f32`, one
element of A and B a lane, f16 and bf16 widened to f32; or eight side by
side over 128 interleaved columns, `mma=mfma_f32_16x16x4_f32_x8`) is
taken by name, or by `auto` where the table's entry names it with its own
tile (f32 with M under 64, f16 with M under 16). The later stages are
passes of their own (`lower-gridwise-gemm`, `lower-blockwise-gemm`,
`lower-threadwise-gemm`); after the last, `export-dispatch{target=...}` makes
it a custom dispatch for iree-compile, and `xsplit simulate` runs any stage
from `lower-gridwise-gemm` on.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    MemRefType,
    TensorType,
    UnitAttr,
    bf16,
    f16,
    f32,
    i32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

import xsplit.attr_names as attr_names
from xsplit.diagnostics import XsplitError, remark
from xsplit.dialects.fragments import INTRINSICS, intrinsic_for
from xsplit.dialects.xsplit_gemm import (
    GridwiseGemmOp,
    MergePartialsOp,
    PadRowsOp,
    aligned_length,
    async_width,
    chunk_count,
    front_pad,
    padded_a_length,
)
from xsplit.rewrites.dsl import (
    Constraint,
    IRBuilder,
    Match,
    Option,
    Pass,
    Pattern,
    Remark,
    attr,
    init,
    input,
    operand,
    positive,
    result,
)
from xsplit.rewrites.dsl.structure import (
    because,
    block_arguments,
    block_holds,
    operands,
    parent,
    terminator,
    the_value,
)
from xsplit.targets.gemm_tiles import WORKGROUP_MEMORY, element_name, gemm_tiles
from xsplit.targets.table import target as find_target

MERGE_CHOICES = ("auto", "store", "atomic", "deterministic")

# With tensor cores: four warps (128 threads), each a 32x32 warp tile of
# 2x4 m16n8 blocks.
DEFAULT_WARPS = (2, 2)
MMA_CHOICES = ("auto", "none", *(i.name for i in INTRINSICS.values() if not i.default))
"""auto, none, or an intrinsic `auto` does not take by itself (gfx942's
f32 MFMA), by name."""

PREFETCH_CHOICES = ("auto", "registers", "lds")
PAD_CHOICES = ("auto", "none")
STREAM_CHOICES = ("auto", "none", "on")

MAX_WORKGROUP_THREADS = 1024
"""Threads a workgroup may have: CUDA's block limit, and gfx942's."""

MAX_THREAD_REGISTERS = {"cuda": 255, "rocm": 512}
"""32-bit registers a thread may have (sm_80's 255; gfx942's 512 VGPRs and
AGPRs): an accumulator tile beyond them cannot live in registers."""

MAX_GRID_YZ = 65535
"""Workgroups CUDA's grid takes along y and z (x takes 2^31 - 1)."""

ASYNC_COPY_TARGETS = ("sm_80", "sm_90")
"""Targets whose second stage is `cp.async` (`nvgpu.device_async_copy`)."""

MISALIGNED_VECTOR_BACKENDS = ("rocm",)
"""Backends whose global vector loads take any element-aligned address:
gfx942's LLVM emits `global_load_dwordx4` for a 16-byte load at 4 (f32)
or 2 (f16) bytes of alignment, so rows of an odd K or N still load 16
bytes at a time (`misaligned_vectors`); CUDA's `ld.global.v4` and
`cp.async` of 16 bytes need 16."""


_MATMUL_MAPS = ArrayAttr(
    [
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (i, k))),
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (k, j))),
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (i, j))),
    ]
)
"""A matmul's own maps: no operand transposed or broadcast."""

_all_args_static = block_arguments().each(
    because(the_value.has_static_shape(), "every argument must be a static tensor")
    & because(
        the_value.has_no_zero_dim(),
        "it is empty (M, N or K is 0): there is nothing to multiply",
    )
)

matmul_form: Constraint = (
    because(parent("func.func", capture="fn"), "it is not at the top level of a function")
    & because(operands().count(3), "it is not a plain matmul of two inputs into an init")
    & because(
        ~attr("indexing_maps").is_present() | attr("indexing_maps").equals(_MATMUL_MAPS),
        "its operands are transposed or broadcast",
    )
    & because(
        operands().each(the_value.is_argument_of_block()),
        "its operands and init must be function arguments (destination-passing form)",
    )
    & because(
        result(0).capture("product")
        & terminator("func.return", where=operands().count(1) & operand(0).is_captured("product")),
        "the function must return only the matmul's result",
    )
    & because(block_holds(2), "the function must hold only the matmul")
    & _all_args_static
    & because(init().element_type(f32), "C must be f32")
    & because(
        input(0).element_type(f16, bf16, f32) & input(1).element_type(f16, bf16, f32),
        "A and B must be f32, f16 or bf16",
    )
    & because(operands().all_distinct(), "A, B and C must be different arguments")
)
"""A static matmul into f32, alone in its function and in destination-passing
form: its operands are the function's arguments, its result what it returns."""


def _matmul_form(m: Match) -> bool | str:
    failure = matmul_form.check(m)
    return True if failure is None else failure.reason


def _merge(op: Operation, merge: str, chunks: int) -> str:
    if merge == "auto":
        return "store" if chunks == 1 else "atomic"
    if merge == "store" and chunks > 1:
        raise XsplitError(
            "gemm-kernel: merge=store takes one chunk; use atomic or deterministic", op
        )
    return merge


def _memref(t) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


# The verifier speaks of the op's properties; a user gave options.
_IN_OPTIONS = (
    ("'xsplit_gemm.gridwise_gemm' op ", ""),
    ("'xsplit_gemm.merge_partials' op ", ""),
    ("direct_to_lds", "prefetch=lds"),
    ("register_prefetch", "prefetch=registers"),
    ("stages 2", "stages=2"),
    ("a K-major A", "a_layout=k"),
)


def _in_options(message: str, op: Operation) -> str:
    """The verifier's `message` in the words of gemm-kernel's options, with
    the configuration it judged (with tensor cores the threads come from
    `warps`, which a user may not have given)."""
    for old, new in _IN_OPTIONS:
        message = message.replace(old, new)
    if not isinstance(op, GridwiseGemmOp):
        return message
    tm, tn, tk = op.tile_sizes
    thm, thn = op.thread_counts
    if op.mma is None:
        threads = f"threads={thm},{thn}"
    else:
        wm, wn = op.warp_counts
        threads = f"warps={wm},{wn}: {thm * thn} threads"
    return f"{message} (tile={tm},{tn},{tk}, {threads})"


def _check_limits(op: GridwiseGemmOp, tgt, at: Operation) -> None:
    """Refuses what no GPU of the target can launch or hold, which the
    op's verifier (target-free) lets through: a compile or a launch on the
    device would fail, or the unrolled register tile would never end."""
    from xsplit.rewrites.reduce.lower_gridwise_gemm import a_tile_shape, b_tile_shape

    tm, tn, tk = op.tile_sizes
    threads = op.block[0]
    shown = f"tile={tm},{tn},{tk}"
    if op.mma is None:
        who = f"threads={','.join(map(str, op.thread_counts))}"
    else:
        lanes = op.intrinsic.lanes  # type: ignore[union-attr]
        who = f"warps={','.join(map(str, op.warp_counts))} of {lanes} lanes"
    if threads > MAX_WORKGROUP_THREADS:
        raise XsplitError(
            f"gemm-kernel: {who} makes {threads} threads a workgroup, over the "
            f"{MAX_WORKGROUP_THREADS} a GPU workgroup takes",
            at,
        )
    if op.mma is None:
        registers = (tm // op.thread_counts[0]) * (tn // op.thread_counts[1])
    else:
        intr = op.intrinsic
        assert intr is not None
        wm, wn = op.warp_counts
        registers = tm * tn // (wm * wn) // intr.lanes
    limit = MAX_THREAD_REGISTERS[tgt.backend]
    if registers > limit:
        raise XsplitError(
            f"gemm-kernel: {shown} with {who} gives each thread {registers} f32 accumulators, "
            f"over the {limit} registers a thread has on {tgt.name}; give a smaller tile or more "
            "threads",
            at,
        )
    size = lambda v, shape: shape[0] * shape[1] * v.type.element_type.bitwidth // 8  # noqa: E731
    b_bytes = 0 if getattr(op, "stream_b", None) is not None else size(op.b, b_tile_shape(op))
    used = (size(op.a, a_tile_shape(op)) + b_bytes) * op.stage_count
    room = WORKGROUP_MEMORY[tgt.backend]
    if used > room:
        raise XsplitError(
            f"gemm-kernel: {shown} in {op.stage_count} stage{'s' if op.stage_count > 1 else ''} "
            f"takes {used} bytes of workgroup memory, over the {room} a workgroup has on "
            f"{tgt.name}; give a smaller tile{' or stages=1' if op.stage_count > 1 else ''}",
            at,
        )
    gx, gy, gz = op.grid
    for count, what in ((gy, f"M in tiles of {tm}"), (gz, "chunks")):
        if count > MAX_GRID_YZ:
            raise XsplitError(
                f"gemm-kernel: {what} make {count} workgroups along grid "
                f"{'y' if what != 'chunks' else 'z'}, over the {MAX_GRID_YZ} it takes",
                at,
            )


def _kernel(
    name: str, types: Sequence[MemRefType], hints: Sequence[str | None], body, at: Operation,
    tgt=None,
) -> func.FuncOp:  # fmt: skip
    block = Block(arg_types=list(types))
    for arg, hint in zip(block.args, hints):
        arg.name_hint = hint
    op = body(Builder(InsertPoint.at_end(block)), block.args)
    block.add_op(func.ReturnOp())
    fn = func.FuncOp(name, FunctionType.from_lists(list(types), []), Region(block))
    try:
        op.verify()
    except VerifyException as e:  # options the kernel cannot take (tile, threads)
        raise XsplitError(f"gemm-kernel: {_in_options(str(e), op)}", at) from None
    if isinstance(op, GridwiseGemmOp) and tgt is not None:
        _check_limits(op, tgt, at)
    grid, launch = op.grid, op.block
    fn.attributes["gpu.known_block_size"] = DenseArrayBase.from_list(i32, list(launch))
    fn.attributes["gpu.known_grid_size"] = DenseArrayBase.from_list(i32, list(grid))
    return fn


PAD_THREADS = 256
"""Threads a workgroup of `pad_rows` (one element each)."""


def _host(name: str, types, hints, steps, padded: dict) -> func.FuncOp:
    """The host function `name` (the matmul's signature) that allocates the
    padded operands and the partials, calls `steps` in order and frees what
    it allocated."""
    block = Block(arg_types=types)
    for arg, hint in zip(block.args, hints):
        arg.name_hint = hint
    host = Builder(InsertPoint.at_end(block))
    made: dict = {}

    def value(ref):
        kind, what = ref
        if kind == "arg":
            return block.args[what]
        if ref not in made:
            t = padded[what] if kind == "pad" else what
            buf = host.insert(memref.AllocOp.get(t.element_type, shape=t.get_shape())).results[0]
            buf.name_hint = f"{hints[what] or 'operand'}_padded" if kind == "pad" else "partials"
            made[ref] = buf
        return made[ref]

    for kname, refs in steps:
        host.insert(func.CallOp(kname, [value(r) for r in refs], []))
    for buf in made.values():
        host.insert(memref.DeallocOp.get(buf))
    host.insert(func.ReturnOp())
    hfn = func.FuncOp(name, FunctionType.from_lists(types, []), Region(block))
    hfn.attributes[attr_names.HOST] = UnitAttr()
    return hfn


def _lower(m: Match, ir: IRBuilder) -> Sequence[SSAValue] | None:
    lower_matmul(m.root, **{k: m.options[k] for k in GEMM_KERNEL_PATTERN.options})
    return None


def lower_matmul(
    op: Operation,
    target: str,
    chunks: int = 1,
    merge: str = "auto",
    tile: Sequence[int] | None = None,
    threads: Sequence[int] | None = None,
    stages: int | None = None,
    a_layout: str = "m",
    mma: str = "auto",
    warps: Sequence[int] | None = None,
    prefetch: str = "auto",
    pad: str = "auto",
    stream_b: str = "auto",
) -> None:
    """Replaces the function of `op`, a matmul in the form `gemm-kernel`
    takes, with the gridwise kernel (and, for `deterministic` or padded
    operands, its host, merge and padding kernels). What `split-k` would call to split a matmul into this
    kernel's static chunks; raises XsplitError at `op` for a form or an
    option it cannot take."""
    m = Match(op)
    found = _matmul_form(m)
    if found is not True:
        raise XsplitError(f"gemm-kernel: cannot take this matmul: {found}", op)
    fn = m["fn"]
    tgt = find_target(target)
    if not tgt.is_gpu:
        raise XsplitError(
            f"gemm-kernel: target {tgt.name} is not a GPU; the kernel needs threads and "
            "workgroup memory",
            op,
        )
    a, b, c = op.operands
    k = a.type.get_shape()[1]  # type: ignore[attr-defined]
    m_, n_ = c.type.get_shape()  # type: ignore[attr-defined]
    async_target = tgt.name in ASYNC_COPY_TARGETS
    pads = _pads(a, b, async_target, pad, prefetch, a_layout, stages)
    bits = a.type.element_type.bitwidth  # type: ignore[attr-defined]
    k_rows = aligned_length(k, bits) if "a" in pads else k
    n_rows = aligned_length(n_, bits) if "b" in pads else n_
    # What is not given comes from the target's table (measured, or the
    # model's until measured) for the rows the kernel copies; its stages are
    # for A as it is in memory.
    # An entry's own intrinsic only with its own tile (given threads speak
    # of FMAs): else the entry of FMAs for the shape.
    whole_entry = tile is None and threads is None
    table = gemm_tiles(
        tgt, element_name(a.type.element_type), m_, n_rows, k_rows, stream_b == "auto",
        intrinsics=whole_entry and mma != "none",
    )  # fmt: skip
    tile = tuple(table.tile if tile is None else tile)
    threads = tuple(table.threads if threads is None else threads)
    if warps is None:
        warps = table.warps or DEFAULT_WARPS
    if stages is None:
        stages = table.stages if a_layout == "m" else 1
    if stages < 2:
        pads = ()
    if not pads:
        k_rows, n_rows = k, n_
    if len(tile) != 3 or len(threads) != 2 or min(*tile, *threads) <= 0:
        raise XsplitError(
            "gemm-kernel: tile takes three positive sizes M,N,K and threads two counts M,N", op
        )
    chunks = chunk_count(k, min(chunks, -(-k // tile[2])), tile[2])
    merge = _merge(op, merge, chunks)
    k_major = a_layout == "k"
    # A padded starts each row with the zeros that put the loop's K steps
    # on whole vectors (`front_pad`); padding serves only where cp.async
    # then copies both.
    a_front = front_pad(k, chunks, tile[2], bits) if "a" in pads else 0
    if "a" in pads:
        k_rows = padded_a_length(k, chunks, tile[2], bits)
    if pads and not _async_copies_fit(
        a, b, (k_rows, n_rows), tile, threads, warps, mma, k_major, tgt
    ):  # fmt: skip
        pads, k_rows, n_rows, a_front = (), k, n_, 0
    # gfx942 has no cp.async. Its direct-to-LDS load (prefetch=lds) moves 4
    # bytes a lane into 64 consecutive words a wavefront; through registers
    # (the default) keeps 128-bit loads and padded tiles.
    second_stage = stages >= 2 and not async_target
    if prefetch == "lds" and not (second_stage and stages == 2):
        raise XsplitError(
            "gemm-kernel: prefetch=lds (direct-to-LDS loads) takes stages=2 on gfx942", op
        )
    if stages > 2 and (not async_target or prefetch == "registers"):
        raise XsplitError(
            "gemm-kernel: stages=3 and 4 take cp.async (sm_80, sm_90); through registers or "
            "direct to LDS it is stages=2",
            op,
        )
    # On CUDA, rows of 16-bit elements that are not whole 16-byte vectors
    # have no cp.async (its 4 bytes would straddle two elements of a row
    # that starts 2 bytes in): their second stage goes through registers.
    by_registers = prefetch == "registers" or (
        prefetch == "auto"
        and not _async_copies_fit(a, b, (k_rows, n_rows), tile, threads, warps, mma, k_major, tgt)
    )
    register_prefetch = stages == 2 and (
        (second_stage and prefetch != "lds") or (async_target and by_registers)
    )
    if async_target and by_registers and stages > 2 and prefetch == "auto":
        stages, register_prefetch = 2, True
    direct_to_lds = second_stage and prefetch == "lds"
    # Through registers on CUDA: B still takes cp.async where its rows are
    # whole 16-byte vectors (only A's rows are unaligned: K odd, N not).
    async_b = (
        register_prefetch and async_target and prefetch == "auto"
        and _b_async_fits(a, b, n_rows, tile, threads, warps, mma, tgt)
    )  # fmt: skip
    intr = None
    elements = {str(v.type.element_type) for v in (a, b)}  # type: ignore[attr-defined]
    if mma == "auto" and not k_major and len(elements) == 1:
        # The intrinsic the table's entry names (gfx942's f32 MFMA on
        # skinny and short f32, and on skinny f16 widened), else the
        # target's for the element type.
        (kind,) = elements
        intr = (
            _named_intrinsic(table.mma, tgt.name, kind) if whole_entry else None
        ) or intrinsic_for(tgt.name, kind)
    elif mma not in ("auto", "none"):
        intr = _named_intrinsic(mma, tgt.name, "/".join(sorted(elements)))
        if intr is None or k_major:
            raise XsplitError(
                f"gemm-kernel: mma={mma} takes A and B of "
                f"{'/'.join(INTRINSICS[mma].operands + INTRINSICS[mma].widens)} "
                f"on {', '.join(INTRINSICS[mma].targets)}, with a_layout=m",
                op,
            )
    warp_counts = None
    if intr is not None:
        warp_counts = tuple(warps)
        if len(warp_counts) != 2 or min(warp_counts) <= 0:
            raise XsplitError("gemm-kernel: warps takes two positive counts M,N", op)
        threads = (warp_counts[0], warp_counts[1] * intr.lanes)
    mma_name = intr.name if intr is not None else None
    misaligned = tgt.backend in MISALIGNED_VECTOR_BACKENDS
    # The table's column runs where the thread tile holds whole runs of them.
    runs = table.columns
    columns = runs if intr is None and threads[1] and (tile[1] // threads[1]) % runs == 0 else 1
    # B streamed into registers where the entry says so (a skinny M on
    # FMAs) and the options leave it the form's: one thread along M, A
    # as it is, two stages, f32 (A's copies are 4 bytes an element).
    streamed = (
        (stream_b == "on" or stream_b == "auto" and table.stream_b) and intr is None and not k_major
        and stages == 2 and threads[0] == 1 and prefetch != "lds" and bits == 32
        and b.type.element_type.bitwidth == 32  # type: ignore[attr-defined]
    )  # fmt: skip
    if streamed:
        async_b = False
        # Runs of 16-byte loads only where B's rows are whole runs.
        columns = columns if n_ % columns == 0 else 1
    args = list(fn.args)
    types = [_memref(v.type) for v in args]
    hints = [v.name_hint for v in args]
    name = fn.sym_name.data
    ia, ib, ic = (args.index(v) for v in (a, b, c))
    # The GEMM's A and B: the arguments, or their copies widened to whole
    # 16-byte rows (`pad_rows`), which the host allocates and fills first.
    padded = {
        i: MemRefType(v.type.element_type, [v.type.get_shape()[0], length])  # type: ignore[attr-defined]
        for i, v, w, length in ((ia, a, "a", k_rows), (ib, b, "b", n_rows))
        if w in pads
    }
    gemm_types = [padded.get(i, t) for i, t in enumerate(types)]
    new: list[Operation] = []
    steps: list[tuple[str, list]] = []  # the host's calls: kernel, arguments

    def gridwise(vals, merge_kind: str):
        return GridwiseGemmOp(
            *vals, tile, threads, chunks, merge_kind, stages, k_major, mma_name, warp_counts,
            register_prefetch, direct_to_lds, async_b, misaligned, columns, streamed,
        )  # fmt: skip

    for i, t in padded.items():
        which = "a" if i == ia else "b"
        kname = f"{name}_pad_{which}"
        front = a_front if i == ia else 0
        pad_body = lambda bld, vals, f=front: bld.insert(  # noqa: E731
            PadRowsOp(vals[0], vals[1], PAD_THREADS, f)
        )
        new.append(_kernel(kname, [types[i], t], [hints[i], f"{hints[i] or which}_padded"], pad_body, op))
        steps.append((kname, [("arg", i), ("pad", i)]))
    operands = [("pad", i) if i in padded else ("arg", i) for i in (ia, ib)]
    if merge != "deterministic":
        # Alone, the kernel takes the function's place and signature.
        kname = f"{name}_gemm" if padded else name

        def body(bld: Builder, vals):
            return bld.insert(gridwise([vals[ia], vals[ib], vals[ic]], merge))

        new.append(_kernel(kname, gemm_types, hints, body, op, tgt))
        steps.append((kname, [("pad", i) if i in padded else ("arg", i) for i in range(len(args))]))
    else:
        ptype = MemRefType(f32, [chunks, m_, n_])
        pname, mname = f"{name}_partials", f"{name}_merge"
        new.append(
            _kernel(
                pname, [gemm_types[ia], gemm_types[ib], ptype], [hints[ia], hints[ib], "partials"],
                lambda bld, vals: bld.insert(gridwise(vals, "partials")), op, tgt,
            )
        )  # fmt: skip
        merge_body = lambda bld, vals: bld.insert(  # noqa: E731
            MergePartialsOp(vals[0], vals[1], threads[0] * threads[1])
        )
        new.append(_kernel(mname, [ptype, types[ic]], ["partials", hints[ic]], merge_body, op))
        steps.append((pname, [*operands, ("partials", ptype)]))
        steps.append((mname, [("partials", ptype), ("arg", ic)]))
    if len(steps) > 1:
        new.append(_host(name, types, hints, steps, padded))
    gw = next(o for f in new for o in f.walk() if isinstance(o, GridwiseGemmOp))
    gx, gy, gz = gw.grid
    remark(
        op,
        f"gemm-kernel: on {tgt.name}, {tile[0]}x{tile[1]} C tiles over {chunks} K chunk"
        f"{'s' if chunks > 1 else ''} of {gw.chunk_k} (grid {gx}x{gy}x{gz}, {gw.block[0]} "
        f"threads, K steps of {tile[2]}{_buffering(stages, register_prefetch, direct_to_lds)}"
        f"{' (B with cp.async)' if async_b else ''}"
        f"{', B streamed into registers' if streamed else ''}"
        f"{f', tensor cores ({mma_name})' if mma_name else ''})"
        f"; merge {merge}{_padding(padded, types, ia)}",
    )
    parent = fn.parent_block()
    assert parent is not None
    for f in new:
        parent.insert_op_before(f, fn)
    fn.detach()
    fn.erase()


def _named_intrinsic(name: str | None, target: str, element: str):
    """The intrinsic `name` where it takes `element` on `target`, else None."""
    intr = INTRINSICS.get(name or "")
    return intr if intr and target in intr.targets and intr.takes(element) else None


def _padding(padded: dict, types, ia: int) -> str:
    """The remark's words on `pad_rows`: which operand, its rows, the bytes
    the copy moves (read and written once)."""
    said = []
    for i, t in padded.items():
        rows, cols = types[i].get_shape()
        moved = rows * (cols + t.get_shape()[1]) * t.element_type.bitwidth // 8
        said.append(
            f"{'A' if i == ia else 'B'}'s rows of {cols} padded to {t.get_shape()[1]} first "
            f"({moved / 1e6:.2f} MB moved)"
        )
    return "; " + " and ".join(said) if said else ""


def _pads(a, b, async_target: bool, pad: str, prefetch: str, a_layout: str, stages) -> tuple:
    """The operands ("a", "b") whose rows `pad_rows` widens to whole 16-byte
    vectors before the GEMM: on sm_80 and sm_90, 16-bit rows of an odd
    length, which start 2 bytes into a word on every other row, so that no
    cp.async can copy them and through registers they go 2 bytes a load
    (sm_90 SASS: 7-17% HMMA). The copy reads and writes the operand once
    (memory-bound, a few microseconds for MBs); the GEMM then stages both
    operands with 16-byte cp.async."""
    if pad != "auto" or not async_target or prefetch != "auto" or a_layout != "m":
        return ()
    if stages is not None and stages < 2:
        return ()
    if a.type.element_type.bitwidth != 16:  # type: ignore[attr-defined]
        return ()
    odd = lambda v: v.type.get_shape()[1] % 2 == 1  # noqa: E731
    return tuple(w for w, v in (("a", a), ("b", b)) if odd(v))


def _copy_threads(a, b, threads, warps, mma, tgt) -> int:
    """The threads that share a copy: with tensor cores, the warps' lanes."""
    t = threads[0] * threads[1]
    if mma == "auto":
        elements = {str(v.type.element_type) for v in (a, b)}  # type: ignore[attr-defined]
        intr = intrinsic_for(tgt.name, elements.pop()) if len(elements) == 1 else None
        if intr is not None and len(warps) == 2:
            t = warps[0] * warps[1] * intr.lanes
    return t


def _async_copies_fit(a, b, kn, tile, threads, warps, mma, k_major, tgt) -> bool:
    """Whether cp.async can stage A and B: 4-byte elements always (one copy
    of 4 bytes each where rows are not whole vectors); 16-bit ones in
    copies of 4, 8 or 16 bytes (K and N even, the threads dividing them)."""
    if a.type.element_type.bitwidth != 16:  # type: ignore[attr-defined]
        return True
    if k_major:
        return False
    k, n = kn  # A's and B's rows as the kernel copies them (padded or not)
    tm, tn, tk = tile
    t = _copy_threads(a, b, threads, warps, mma, tgt)
    if t <= 0 or min(tile) <= 0:  # refused later, in the options' words
        return True
    return async_width(16, k, (tm, tk), t) > 0 and async_width(16, n, (tk, tn), t) > 0


def _b_async_fits(a, b, n, tile, threads, warps, mma, tgt) -> bool:
    """Whether B alone can be staged by cp.async (4, 8 or 16 bytes a copy):
    its rows of `n` even, and the threads dividing B's tile in such copies."""
    bits = b.type.element_type.bitwidth  # type: ignore[attr-defined]
    _, tn, tk = tile
    t = _copy_threads(a, b, threads, warps, mma, tgt)
    if t <= 0 or min(tile) <= 0:
        return False
    return async_width(bits, n, (tk, tn), t) > 0


def _buffering(stages: int, register_prefetch: bool, direct_to_lds: bool) -> str:
    if stages == 1:
        return ""
    if stages > 2:
        return f", {stages} stages of cp.async"
    if direct_to_lds:
        return ", double-buffered with direct-to-LDS loads"
    return ", double-buffered " + ("through registers" if register_prefetch else "with cp.async")


def _check_target(name: str) -> str | None:
    if not name:
        return "is required (sm_80, sm_90, gfx942)"
    try:
        find_target(name)
    except XsplitError as e:
        return e.message
    return None


GEMM_KERNEL_PATTERN = Pattern(
    name="gemm-kernel",
    doc="a matmul in destination-passing form becomes xsplit's gridwise GEMM kernel",
    root="linalg.matmul",
    where=matmul_form,
    rewrite=_lower,
    options=(
        "target", "chunks", "merge", "tile", "threads", "stages", "a_layout", "mma", "warps",
        "prefetch", "pad", "stream_b",
    ),  # fmt: skip
)

NOT_TAKEN = Remark(
    name="gemm-kernel-not-applicable",
    doc="says why a matmul is left as it is",
    root="linalg.matmul",
    where=~matmul_form,
    message=lambda m: f"gemm-kernel: left as it is: {matmul_form.check(m.at(m.root)).reason}",  # type: ignore[union-attr]
)

GEMM_KERNEL = Pass(
    "gemm-kernel",
    "Turns a matmul into xsplit's own split-K GEMM kernel, at its gridwise stage.",
    [GEMM_KERNEL_PATTERN, NOT_TAKEN],
    (
        Option("target", str, "", "sm_80, sm_90 or gfx942", check=_check_target),
        Option(
            "chunks", int, 1, "static K chunks (grid z); fewer where whole K steps leave one empty",
            check=positive,
        ),
        Option(
            "merge", str, "auto", "how chunks meet: store (one chunk), atomic, deterministic",
            MERGE_CHOICES,
        ),
        Option("tile", tuple, None, "the C tile and K step: M,N,K (default: the target's table)"),
        Option("threads", tuple, None, "threads per workgroup along M,N (default: the table)"),
        Option(
            "stages", int, None,
            "staged tiles in flight: 2 double-buffers, with cp.async (sm_80, sm_90) or through "
            "registers (gfx942, and CUDA rows cp.async cannot copy); 3 and 4 with cp.async; "
            "default: the table",
            (1, 2, 3, 4),
        ),
        Option(
            "a_layout", str, "m", "A's tile: m (as in memory, K contiguous) or k (transposed)",
            ("m", "k"),
        ),
        Option(
            "mma", str, "auto",
            "tensor cores: auto (where the target has them for A and B's type: f16 and bf16 on "
            "sm_80, sm_90, gfx942; f32 on gfx942 and f16 with M under 16 where the table's entry "
            "says so), none (FMAs), mfma_f32_16x16x4_f32 (gfx942's f32 MFMA, f16 widened) or "
            "mfma_f32_16x16x4_f32_x8 (eight of it over 128 interleaved columns)",
            MMA_CHOICES,
        ),
        Option(
            "warps", tuple, None,
            "with tensor cores, warps per workgroup along M,N (default: the table's, else 2,2)",
        ),
        Option(
            "prefetch", str, "auto",
            "how the next K step is staged: auto (cp.async where the rows allow it on sm_80 and "
            "sm_90, else through registers), registers (loads, then stores after the multiply) "
            "or lds (gfx942's direct-to-LDS loads, 4 bytes a lane, unpadded tiles)",
            PREFETCH_CHOICES,
        ),
        Option(
            "pad", str, "auto",
            "auto: on sm_80 and sm_90, 16-bit A or B rows of an odd length are first copied "
            "into rows of whole 16-byte vectors (a pad_rows kernel) so that cp.async stages "
            "them; none: they are staged as they are (through registers)",
            PAD_CHOICES,
        ),
        Option(
            "stream_b", str, "auto",
            "auto: where the table's entry streams B (FMAs on M under 8), B goes from global "
            "memory straight into the threads' registers and only A is staged; on: wherever the "
            "form allows it (FMAs, one thread along M, stages=2); none: B staged",
            STREAM_CHOICES,
        ),
    ),
)

__all__ = ["GEMM_KERNEL", "lower_matmul"]
