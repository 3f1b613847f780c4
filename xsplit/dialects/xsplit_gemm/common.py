"""What the three levels of `xsplit_gemm` share: the merges, the chunking of
K, the layouts of staged tiles (swizzled, K-packed), the limits of a
gathered copy, the intrinsics' fragments, the fused reduction's kinds, and
the checks their verifiers run."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.fragments import INTRINSICS, Intrinsic


MERGES = ("store", "atomic", "partials")
"""How a workgroup's C tile reaches C: `store` adds it to C (one chunk only),
`atomic` adds it with `memref.atomic_rmw addf` (any number of K chunks
meeting in the same element), `partials` stores it into its chunk's slice of
a partials buffer that `merge_partials` later adds to C in chunk order."""


def i64_array(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def shape_of(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, MemRefType)
    return tuple(t.get_shape())


def memory_space(t: MemRefType) -> str:
    """'workgroup', 'private' or 'global' (the simulator's reading of
    `#gpu.address_space<...>` and of LLVM's numbers 3 and 5)."""
    text = str(t.memory_space)
    for space, number in (("workgroup", "3"), ("private", "5")):
        if space in text or text.startswith(number + " "):
            return space
    return "global"


def need(cond: bool, op: IRDLOperation, what: str) -> None:
    if not cond:
        raise VerifyException(f"'{op.name}' op {what}")


def need_static_memref(
    op: IRDLOperation, v: SSAValue, name: str, rank: int, space: str | None, f16: bool = False
) -> None:
    """A static memref of `rank` in `space` holding f32 (or, with `f16`, f16
    or bf16)."""
    t = v.type
    need(isinstance(t, MemRefType), op, f"{name} must be a memref")
    assert isinstance(t, MemRefType)
    halves = (Float16Type, BFloat16Type)
    ok = isinstance(t.element_type, Float32Type) or (f16 and isinstance(t.element_type, halves))
    need(ok, op, f"{name} must hold f32{', f16 or bf16' if f16 else ''}")
    need(len(t.get_shape()) == rank, op, f"{name} must have rank {rank}")
    need(all(s > 0 for s in t.get_shape()), op, f"{name} must have a static shape")
    if space is not None:
        need(memory_space(t) == space, op, f"{name} must be in {space} memory")


def chunk_size(k: int, chunks: int, step_k: int) -> int:
    """K elements per chunk: an even share rounded up to whole K steps, so
    that a step never straddles two chunks."""
    share = -(-k // chunks)
    return -(-share // step_k) * step_k


def chunk_count(k: int, chunks: int, step_k: int) -> int:
    """How many chunks `chunks` asks for once each is whole K steps: never
    more, fewer where the rounding leaves the last ones empty."""
    return -(-k // chunk_size(k, chunks, step_k))


CHUNK_BYTES = 16
"""A swizzled tile moves whole 16-byte chunks (one 128-bit store, one
16-byte cp.async, one ldmatrix row)."""

LINE_CHUNKS = 8
"""Chunks in one 128-byte line: the 32 four-byte banks once."""


def swizzle_fits(shape, element_size: int) -> bool:
    """Whether a tile of `shape` can be swizzled: its rows are a power of
    two (at least 2) of 16-byte chunks."""
    chunks = shape[1] * element_size // CHUNK_BYTES
    return shape[1] * element_size % CHUNK_BYTES == 0 and chunks >= 2 and chunks & (chunks - 1) == 0


def swizzled(x, row, col, row_length: int, element_size: int):
    """Where element (row, col) of a swizzled tile (rows of `row_length`
    elements of `element_size` bytes) lives: the 16-byte chunk of its
    column XOR a phase of its row, the rest unchanged. The phase counts
    the 128-byte lines the rows fill (R chunks a row: a line holds 8 / R
    rows) modulo min(R, 8), so that the 8 rows of one chunk column (an
    ldmatrix's 8x8 matrix) fall in 8 distinct chunks of the banks, while
    the 8 consecutive chunks of a line (a quarter warp's 128-bit stores)
    stay a permutation of one line. `x` does the arithmetic
    (`fragments.NUMPY`, or a kernel builder emitting it)."""
    v = CHUNK_BYTES // element_size
    chunks = row_length // v
    phase = x.rem(x.div(row, max(1, LINE_CHUNKS // chunks)), min(chunks, LINE_CHUNKS))
    return row, x.add(x.mul(x.xor(x.div(col, v), phase), v), x.rem(col, v))


def kpacked(x, row, col, kpack: int):
    """Where element (k, n) of a K-packed tile lives: runs of `kpack`
    consecutive K of one column side by side, [k / kpack, n * kpack + k %
    kpack], so that a lane's `kpack` K of one column are one wide read."""
    return x.div(row, kpack), x.add(x.mul(col, kpack), x.rem(row, kpack))


def layout_props(props: dict, swizzle: bool, kpack: int) -> dict:
    if swizzle:
        props["swizzle"] = UnitAttr()
    if kpack != 1:
        props["kpack"] = IntegerAttr(kpack, i64)
    return props


def verify_layout(self, tile: SSAValue, rows: int, cols: int) -> None:
    """A copy of rows x cols into `tile` with `swizzle` or `kpack`."""
    size = tile.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    shape = shape_of(tile)
    swizzle, kpack = getattr(self, "swizzle", None), getattr(self, "kpack", None)
    if swizzle is not None:
        need(self.transpose is None and kpack is None, self, "swizzle copies rows as they are")
        fits = swizzle_fits(shape, size)
        need(fits, self, "a swizzled tile's rows must be 2, 4, 8, ... 16-byte chunks")
        need(shape[1] == cols, self, "a swizzled copy fills whole rows of the tile")
    if kpack is not None:
        kp = self.kpack_size
        need(self.transpose is None, self, "kpack copies rows as they are")
        need(kp > 0 and rows % kp == 0, self, f"kpack {kp} must divide the copy's rows")
        need(
            shape[0] >= rows // kp and shape[1] >= cols * kp,
            self,
            "the tile is smaller than the K-packed copy",
        )
        need(
            (rows // kp * cols // self.width) % self.thread_count == 0,
            self,
            "threads must divide the K-packed copy",
        )


GATHER_BYTES = 4
"""Bytes per lane of one direct-to-LDS load on gfx942 (16 is gfx950's)."""

WAVE = 64
"""Lanes of a gfx942 wavefront: one direct-to-LDS load fills 64 x 4 bytes."""


def gather_refusal(src: SSAValue, sizes: tuple[int, int], threads: int) -> str | None:
    """Why a `blockwise_gather` of `sizes` from `src` by `threads` threads
    cannot be (None: it can): each wavefront's load fills 64 lanes x 4
    bytes of the tile, one run after the other, every wavefront as many;
    a lane's elements are inside or outside the source together."""
    per_lane = GATHER_BYTES * 8 // src.type.element_type.bitwidth  # type: ignore[attr-defined]
    rows, cols = sizes
    if threads % WAVE:
        return f"the threads are not whole {WAVE}-lane wavefronts"
    if (rows * cols) % (WAVE * per_lane * (threads // WAVE)):
        return f"the {rows}x{cols} tile is not whole loads of {WAVE * per_lane} elements a wavefront"
    if cols % per_lane or shape_of(src)[1] % per_lane:
        return f"its rows are not whole runs of {per_lane} elements"
    return None


ASYNC_COPY_BYTES = (16, 8, 4)
"""The sizes one `cp.async` copies (sm_80, sm_90), widest first."""


def async_width(element_bits: int, row_length: int, sizes: tuple[int, int], threads: int) -> int:
    """Elements per `cp.async` of a tile of `sizes` from rows of
    `row_length`: the widest of 16, 8 or 4 bytes that starts every copy on
    its own alignment (the source's rows and the tile's are whole copies)
    and that the threads divide; 0 where none does (16-bit rows of an odd
    length: a 4-byte copy would straddle two rows' elements)."""
    rows, cols = sizes
    for size in ASYNC_COPY_BYTES:
        w = size * 8 // element_bits
        if w >= 1 and row_length % w == 0 and cols % w == 0 and (rows * cols // w) % threads == 0:
            return w
    return 0


def aligned_length(length: int, element_bits: int) -> int:
    """`length` elements rounded up to whole 16-byte vectors: the row length
    `pad_rows` widens a source of rows cp.async cannot copy to."""
    per = CHUNK_BYTES * 8 // element_bits
    return -(-length // per) * per


def front_pad(k: int, chunks: int, step_k: int, element_bits: int) -> int:
    """Zeros `pad_rows` puts before each row of A for a K loop whose steps
    end at each chunk's end (`residue_first`): its steps start r mod tk
    into K, r = K - (chunks - 1) * chunk_k, and f = -r mod (a 16-byte
    vector) places every step's first K on a vector of the padded row."""
    per = CHUNK_BYTES * 8 // element_bits
    r = k - (chunks - 1) * chunk_size(k, chunks, step_k)
    return -r % per


def padded_a_length(k: int, chunks: int, step_k: int, element_bits: int) -> int:
    """A padded row's length: the front zeros, K, and zeros to a whole vector."""
    return aligned_length(k + front_pad(k, chunks, step_k, element_bits), element_bits)


def intrinsic_of(op: IRDLOperation, name: StringAttr) -> Intrinsic:
    intr = INTRINSICS.get(name.data)
    need(intr is not None, op, f"mma must be one of {', '.join(INTRINSICS)}")
    assert intr is not None
    return intr


def verify_fragments_acc(op: IRDLOperation, acc: SSAValue, intr: Intrinsic) -> None:
    need_static_memref(op, acc, "the accumulator", 3, "private")
    need(
        shape_of(acc)[2] == intr.c.size,
        op,
        f"the accumulator holds {intr.c.size} elements of C per {intr.m}x{intr.n} block",
    )


def paired(shape: tuple[int, ...], pair: bool) -> tuple[int, ...]:
    """A fragment's vector shape, or two of them stacked along the first
    dimension."""
    return (2 * shape[0], *shape[1:]) if pair else tuple(shape)


# The fused GEMM + reduction: the same kernel with a reduction epilogue.

REDUCE_METHODS = ("sum", "max")
REDUCE_STAGES = ("atomic", "lds", "subgroup")
"""How the threads sharing an output of the C tile combine (rocMLIR's RFC,
seed 004): `atomic`, one atomic (or partial) per thread and output;
`lds`, their partials meet in workgroup memory, where one thread per output
combines them; `subgroup`, lanes of one subgroup combine in registers
(shuffles, or a clustered `gpu.subgroup_reduce`), and where an output's
threads span subgroups the subgroups' partials meet in workgroup memory."""
REDUCE_MERGES = ("atomic", "partials")
"""How a workgroup's outputs reach the output: `atomic` (`addf`, `maxnumf`),
or `partials`, stored at `[chunk, element]` for `merge_reduced`."""
EXCHANGES = ("shuffle", "cluster")
"""How lanes combine in the subgroup stage: a `gpu.shuffle xor` butterfly
(NVIDIA, where `gpu.subgroup_reduce` does not legalize in IREE 3.13), or a
clustered `gpu.subgroup_reduce` (gfx942): DPP where the lanes are
consecutive, `ds_swizzle`/`ds_bpermute` where they are strided."""


def need_one_of(op: IRDLOperation, attr: StringAttr, what: str, allowed: tuple[str, ...]) -> None:
    need(attr.data in allowed, op, f"{what} must be one of {', '.join(allowed)}")


BATCH_DIM = 2
"""A fused reduction's `dim` along the batch: the op computes one batch's C,
every element of which is its own output, merged across the batch's
workgroups (grid z) into the output's element at its (m, n)."""


def reduce_chunks(extent: int, tile: int, threads: int, stage: str) -> int:
    """Rows of a fused reduction's partials buffer: a workgroup per tile
    along the reduced axis, times its threads along it in the atomic stage
    (each keeps its own partial)."""
    return -(-extent // tile) * (threads if stage == "atomic" else 1)


def out_shapes(kept: int, dim: int) -> tuple[tuple[int, ...], ...]:
    """The output's shapes for `kept` elements: dropped, or kept as 1 at the
    reduced dimension `dim` of C."""
    return ((kept,), (1, kept) if dim == 0 else (kept, 1))


def verify_reduce_kind(op) -> None:
    need_one_of(op, op.method, "method", REDUCE_METHODS)
    need_one_of(op, op.stage, "stage", REDUCE_STAGES)
    need_one_of(op, op.merge, "merge", REDUCE_MERGES)
    need_one_of(op, op.exchange, "exchange", EXCHANGES)
    need(
        op.dim.value.data in (0, 1, BATCH_DIM),
        op,
        "dim must be 0 (along M), 1 (along N) or 2 (along the batch)",
    )
    need(
        op.dim.value.data != BATCH_DIM or op.stage.data == "atomic",
        op,
        "along the batch every element is its own output: the stage is atomic",
    )
    need(op.subgroup.value.data > 0, op, "subgroup must be positive")
    need(op.init is None or op.c is None, op, "C's init is an operand or a constant, not both")
    need(op.store_c is None or op.c is not None, op, "store_c needs C")


def verify_epilogue_layout(op, threads: tuple[int, int], tile: tuple[int, int]) -> None:
    d = op.dim.value.data
    if d == BATCH_DIM:  # nothing is combined inside the tile
        return
    stage = op.stage.data
    reduced, kept_tile = threads[d], tile[1 - d]
    if stage == "subgroup":
        need(
            reduced & (reduced - 1) == 0,
            op,
            "the subgroup stage needs a power-of-two thread count along the reduced axis",
        )
    if stage != "atomic":
        # One thread per kept row (column) of the tile combines it.
        need(kept_tile <= threads[0] * threads[1], op, "the tile keeps more outputs than it has threads")


def verify_mma_operands_and_warps(op, intr: Intrinsic) -> tuple[int, int]:
    """What a gridwise op on tensor cores needs of its operands and warps:
    A and B of the intrinsic's element types, A as it is in memory
    (M-major), warps as positive [M, N] counts, which it returns."""
    for v, name in ((op.a, "A"), (op.b, "B")):
        element = str(v.type.element_type)
        takes = f"{intr.name} takes {name} of {', '.join(intr.operands + intr.widens)}"
        need(intr.takes(element), op, takes)
    need(op.a_k_major is None, op, "mma reads A as it is in memory (M-major)")
    need(len(op.warps.get_values()) == 2, op, "warps must be [M, N] counts")
    wm, wn = op.warp_counts
    need(min(wm, wn) > 0, op, "warps must be positive")
    return wm, wn


def need_whole_warp_blocks(op, intr: Intrinsic, warps: tuple[int, int]) -> None:
    """The op's tile is whole intrinsic blocks for each of its warps."""
    wm, wn = warps
    tm, tn, tk = op.tile_sizes
    need(
        tm % (wm * intr.m) == 0 and tn % (wn * intr.n) == 0 and tk % intr.k == 0,
        op,
        f"the tile must be whole {intr.m}x{intr.n}x{intr.k} blocks per warp",
    )
