"""xsplit's own GEMM kernel, in rocMLIR's three levels.

A GEMM starts as one gridwise op over whole memrefs and is lowered in
stages, each a pass (`xsplit/rewrites/kernel/`), each stage printable and
runnable in the simulator:

    xsplit_gemm.gridwise_gemm %a, %b, %c {chunks = 4 : i64, merge = "atomic",
        threads = array<i64: 16, 16>, tile = array<i64: 64, 64, 16>}
        : memref<100x999xf32>, memref<999x70xf32>, memref<100x70xf32>

- gridwise (`gridwise_gemm`, `merge_partials`): the whole problem; the launch
  is implied by the tile and the chunk count;
- blockwise (`blockwise_copy`, `blockwise_async_copy`, `blockwise_load` and
  `blockwise_store`, `blockwise_gemm`): what one workgroup's threads do
  together: stage a tile of A or B in workgroup memory (at once,
  asynchronously, or through registers in two halves), multiply the staged
  tiles into each thread's register tile;
- threadwise (`threadwise_fill`, `threadwise_read`, `threadwise_gemm`,
  `threadwise_write`): one thread's registers, held in a private memref whose
  indices are all constants once lowered, so that LLVM keeps it in registers.

The fused GEMM + reduction is the same kernel with a reduction epilogue:
`gridwise_gemm_reduce` and `merge_reduced` (gridwise), `blockwise_reduce`,
`threadwise_reduce` (FMA tiles only; no tensor-core epilogue yet).

A and B are f32, f16 or bf16, staged in workgroup memory as they are; the
registers, the accumulation and C are f32. Without `mma` each thread
extends its operands to f32 and multiplies with FMAs. With `mma` (f16 and
bf16 on sm_80/sm_90: `m16n8k16`) warps multiply on tensor cores: the blockwise
step is `blockwise_mma`, and the threadwise ops read fragments
(`threadwise_fragment`), issue the intrinsic (`threadwise_mma`) and write
the accumulator's fragments (`threadwise_write_fragments`); which element
each lane holds is the intrinsic's table in `fragments.py`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    FloatAttr,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    VectorType,
    i64,
)
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.fragments import INTRINSICS, Intrinsic
from xsplit.dialects.nvgpu import DeviceAsyncTokenType


MERGES = ("store", "atomic", "partials")
"""How a workgroup's C tile reaches C: `store` adds it to C (one chunk only),
`atomic` adds it with `memref.atomic_rmw addf` (any number of K chunks
meeting in the same element), `partials` stores it into its chunk's slice of
a partials buffer that `merge_partials` later adds to C in chunk order."""


def _ints(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _shape(v: SSAValue) -> tuple[int, ...]:
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


def _need(cond: bool, op: IRDLOperation, what: str) -> None:
    if not cond:
        raise VerifyException(f"'{op.name}' op {what}")


def _static_f32(
    op: IRDLOperation, v: SSAValue, name: str, rank: int, space: str | None, f16: bool = False
) -> None:
    """A static memref of `rank` in `space` holding f32 (or, with `f16`, f16
    or bf16)."""
    t = v.type
    _need(isinstance(t, MemRefType), op, f"{name} must be a memref")
    assert isinstance(t, MemRefType)
    halves = (Float16Type, BFloat16Type)
    ok = isinstance(t.element_type, Float32Type) or (f16 and isinstance(t.element_type, halves))
    _need(ok, op, f"{name} must hold f32{', f16 or bf16' if f16 else ''}")
    _need(len(t.get_shape()) == rank, op, f"{name} must have rank {rank}")
    _need(all(s > 0 for s in t.get_shape()), op, f"{name} must have a static shape")
    if space is not None:
        _need(memory_space(t) == space, op, f"{name} must be in {space} memory")


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


def _layout_props(props: dict, swizzle: bool, kpack: int) -> dict:
    if swizzle:
        props["swizzle"] = UnitAttr()
    if kpack != 1:
        props["kpack"] = IntegerAttr(kpack, i64)
    return props


def _verify_layout(self, tile: SSAValue, rows: int, cols: int) -> None:
    """A copy of rows x cols into `tile` with `swizzle` or `kpack`."""
    size = tile.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    shape = _shape(tile)
    swizzle, kpack = getattr(self, "swizzle", None), getattr(self, "kpack", None)
    if swizzle is not None:
        _need(self.transpose is None and kpack is None, self, "swizzle copies rows as they are")
        fits = swizzle_fits(shape, size)
        _need(fits, self, "a swizzled tile's rows must be 2, 4, 8, ... 16-byte chunks")
        _need(shape[1] == cols, self, "a swizzled copy fills whole rows of the tile")
    if kpack is not None:
        kp = self.kpack_size
        _need(self.transpose is None, self, "kpack copies rows as they are")
        _need(kp > 0 and rows % kp == 0, self, f"kpack {kp} must divide the copy's rows")
        _need(
            shape[0] >= rows // kp and shape[1] >= cols * kp,
            self,
            "the tile is smaller than the K-packed copy",
        )
        _need(
            (rows // kp * cols // self.width) % self.thread_count == 0,
            self,
            "threads must divide the K-packed copy",
        )


@irdl_op_definition
class GridwiseGemmOp(IRDLOperation):
    """
    `C (+)= A · B` over the whole of A (M x K), B (K x N) and C (M x N),
    split along K into `chunks` static chunks of whole `tile[2]` steps.
    Workgroup (x, y, z) computes the `tile[0]` x `tile[1]` C tile at
    (y * tile[0], x * tile[1]) over chunk z, with `threads[0]` x `threads[1]`
    threads each holding a register tile. `merge` says how the chunks meet
    (see `MERGES`); with `partials`, `c` is the chunks x M x N partials
    buffer and chunk z's product is stored into `c[z]`.
    """

    name = "xsplit_gemm.gridwise_gemm"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    tile = prop_def(DenseArrayBase)
    threads = prop_def(DenseArrayBase)
    chunks = prop_def(IntegerAttr)
    merge = prop_def(StringAttr)
    stages = opt_prop_def(IntegerAttr)
    """Tiles in flight: 2 to 4 pipeline the staging with asynchronous
    copies (`nvgpu.device_async_copy`, sm_80 and later); 2 with
    `register_prefetch` double-buffers through registers; 1 when absent."""
    a_k_major = opt_prop_def(UnitAttr)
    """Stage A K-major (transposed, as the fused text kernel does) rather
    than as it is in memory (M-major, K contiguous)."""
    register_prefetch = opt_prop_def(UnitAttr)
    """With 2 stages, double-buffer through registers instead of with
    asynchronous copies: the next step's tiles are loaded into each thread's
    registers before the multiply and stored into the idle buffers after it
    (gfx942, which has no `cp.async`)."""
    async_b = opt_prop_def(UnitAttr)
    """With `register_prefetch`, B (whose rows are whole 16-byte vectors)
    is staged with 16-byte asynchronous copies instead, straight into the
    idle pair; only A goes through registers (sm_80 and later, where A's
    rows of 16-bit elements are not whole vectors)."""
    direct_to_lds = opt_prop_def(UnitAttr)
    """With 2 stages, double-buffer with direct-to-LDS loads
    (`blockwise_gather`, `amdgpu.gather_to_lds` on gfx942): the next step's
    tiles go from global to workgroup memory without registers, while the
    threads multiply the other pair. The tiles are unpadded."""
    mma = opt_prop_def(StringAttr)
    """The warp-level matrix intrinsic (`fragments.INTRINSICS`) the warps
    multiply with; FMAs per thread when absent."""
    warps = opt_prop_def(DenseArrayBase)
    """With `mma`: warps along M and N, each owning a warp tile of
    `tile / warps`; `threads` is then [warps[0], warps[1] * lanes]."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)"

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        c: SSAValue,
        tile: tuple[int, int, int],
        threads: tuple[int, int],
        chunks: int,
        merge: str,
        stages: int = 1,
        a_k_major: bool = False,
        mma: str | None = None,
        warps: tuple[int, int] | None = None,
        register_prefetch: bool = False,
        direct_to_lds: bool = False,
        async_b: bool = False,
    ):
        props: dict = {
            "tile": _ints(tile),
            "threads": _ints(threads),
            "chunks": IntegerAttr(chunks, i64),
            "merge": StringAttr(merge),
        }
        if stages != 1:
            props["stages"] = IntegerAttr(stages, i64)
        if a_k_major:
            props["a_k_major"] = UnitAttr()
        if register_prefetch:
            props["register_prefetch"] = UnitAttr()
        if direct_to_lds:
            props["direct_to_lds"] = UnitAttr()
        if async_b:
            props["async_b"] = UnitAttr()
        if mma is not None:
            props["mma"] = StringAttr(mma)
        if warps is not None:
            props["warps"] = _ints(warps)
        super().__init__(operands=[a, b, c], properties=props)

    @property
    def intrinsic(self) -> Intrinsic | None:
        return None if self.mma is None else INTRINSICS.get(self.mma.data)

    @property
    def warp_counts(self) -> tuple[int, int]:
        assert self.warps is not None
        wm, wn = self.warps.get_values()
        return int(wm), int(wn)

    @property
    def stage_count(self) -> int:
        return 1 if self.stages is None else self.stages.value.data

    @property
    def tile_sizes(self) -> tuple[int, int, int]:
        tm, tn, tk = self.tile.get_values()
        return int(tm), int(tn), int(tk)

    @property
    def thread_counts(self) -> tuple[int, int]:
        thm, thn = self.threads.get_values()
        return int(thm), int(thn)

    @property
    def chunk_count(self) -> int:
        return self.chunks.value.data

    @property
    def merge_kind(self) -> str:
        return self.merge.data

    @property
    def mnk(self) -> tuple[int, int, int]:
        m, k = _shape(self.a)
        return m, _shape(self.b)[1], k

    @property
    def chunk_k(self) -> int:
        return chunk_size(self.mnk[2], self.chunk_count, self.tile_sizes[2])

    @property
    def grid(self) -> tuple[int, int, int]:
        m, n, _ = self.mnk
        tm, tn, _ = self.tile_sizes
        return (-(-n // tn), -(-m // tm), self.chunk_count)

    @property
    def block(self) -> tuple[int, int, int]:
        thm, thn = self.thread_counts
        return (thm * thn, 1, 1)

    def verify_(self) -> None:
        _need(len(self.tile.get_values()) == 3, self, "tile must be [M, N, K] sizes")
        _need(len(self.threads.get_values()) == 2, self, "threads must be [M, N] counts")
        _need(self.merge_kind in MERGES, self, f"merge must be one of {', '.join(MERGES)}")
        _static_f32(self, self.a, "A", 2, None, f16=True)
        _static_f32(self, self.b, "B", 2, None, f16=True)
        partials = self.merge_kind == "partials"
        _static_f32(self, self.c, "C", 3 if partials else 2, None)
        (m, k), (k2, n) = _shape(self.a), _shape(self.b)
        _need(k == k2, self, f"A's K ({k}) and B's K ({k2}) must agree")
        c = _shape(self.c)
        _need(c[-2:] == (m, n), self, f"C must be {m}x{n}")
        tm, tn, tk = self.tile_sizes
        thm, thn = self.thread_counts
        _need(min(tm, tn, tk, thm, thn) > 0, self, "tile and threads must be positive")
        _need(
            self.mma is not None or (tm % thm == 0 and tn % thn == 0),
            self,
            "threads must divide the tile",
        )
        t = thm * thn
        _need(
            (tm * tk) % t == 0 and (tn * tk) % t == 0,
            self,
            "each thread must copy a whole number of elements of each staged tile",
        )
        s = self.chunk_count
        _need(s >= 1, self, "chunks must be at least 1")
        _need(s == 1 or self.merge_kind != "store", self, "merge store takes one chunk")
        _need(
            chunk_count(k, s, tk) == s,
            self,
            f"{s} chunks of whole {tk}-steps leave an empty chunk of K = {k}",
        )
        if partials:
            _need(c[0] == s, self, f"the partials buffer must have {s} chunks")
        _need(self.stage_count in (1, 2, 3, 4), self, "stages must be 1 to 4")
        async_copies = (
            self.stage_count >= 2 and self.register_prefetch is None and self.direct_to_lds is None
        )
        _need(
            async_copies or self.stage_count <= 2,
            self,
            "stages 3 and 4 are cp.async's: through registers or direct to LDS it is 2",
        )
        # Each tile is then a multiple of 16 bytes: the 16-byte async copies
        # into the B tiles that follow the A tiles stay aligned.
        _need(not async_copies or tk % 4 == 0, self, "stages 2 needs K steps of a multiple of 4")
        _need(
            not async_copies
            or self.a_k_major is None
            or isinstance(self.a.type.element_type, Float32Type),  # type: ignore[attr-defined]
            self,
            "stages 2 with a K-major A needs f32 (its transposed copies are 4 bytes an element)",
        )
        _need(
            self.register_prefetch is None or self.stage_count == 2,
            self,
            "register_prefetch is a way of double buffering: it needs stages 2",
        )
        if self.async_b is not None:
            _need(self.register_prefetch is not None, self, "async_b goes with register_prefetch")
            vec = 16 * 8 // self.b.type.element_type.bitwidth  # type: ignore[attr-defined]
            _need(
                n % vec == 0 and tn % vec == 0 and (tk * tn // vec) % t == 0,
                self,
                f"async_b needs B's rows in whole 16-byte vectors of {vec} that the threads divide",
            )
        if self.direct_to_lds is not None:
            _need(
                self.stage_count == 2 and self.register_prefetch is None,
                self,
                "direct_to_lds is a way of double buffering: it needs stages 2 and no "
                "register_prefetch",
            )
            _need(self.a_k_major is None, self, "direct_to_lds stages A as it is (M-major)")
            for v, rows, cols, name in ((self.a, tm, tk, "A"), (self.b, tk, tn, "B")):
                why = gather_refusal(v, (rows, cols), t)
                _need(why is None, self, f"direct_to_lds cannot copy {name}: {why}")
        if async_copies and self.a.type.element_type.bitwidth == 16:  # type: ignore[attr-defined]
            # 2 bytes is below cp.async's 4: only whole 16-byte vectors copy.
            _need(
                k % 8 == 0 and n % 8 == 0 and (tm * tk // 8) % t == 0 and (tk * tn // 8) % t == 0,
                self,
                "stages 2 with 16-bit elements needs K and N in whole vectors of 8 that the "
                "threads divide (cp.async copies 4 bytes at least)",
            )
        _need((self.mma is None) == (self.warps is None), self, "mma and warps go together")
        if self.mma is not None:
            self._verify_mma()

    def _verify_mma(self) -> None:
        intr = self.intrinsic
        _need(intr is not None, self, f"mma must be one of {', '.join(INTRINSICS)}")
        assert intr is not None
        for v, name in ((self.a, "A"), (self.b, "B")):
            element = str(v.type.element_type)  # type: ignore[attr-defined]
            takes = f"{intr.name} takes {name} of {', '.join(intr.operands)}"
            _need(element in intr.operands, self, takes)
        _need(self.a_k_major is None, self, "mma reads A as it is in memory (M-major)")
        _need(len(self.warps.get_values()) == 2, self, "warps must be [M, N] counts")  # type: ignore[union-attr]
        wm, wn = self.warp_counts
        _need(min(wm, wn) > 0, self, "warps must be positive")
        _need(
            self.thread_counts == (wm, wn * intr.lanes),
            self,
            f"threads must be [warps[0], warps[1] * {intr.lanes}]",
        )
        tm, tn, tk = self.tile_sizes
        _need(
            tm % (wm * intr.m) == 0 and tn % (wn * intr.n) == 0 and tk % intr.k == 0,
            self,
            f"the tile must be whole {intr.m}x{intr.n}x{intr.k} blocks per warp",
        )


@irdl_op_definition
class MergePartialsOp(IRDLOperation):
    """
    `C += P[0] + P[1] + ...`, in that order for every element: the ordered
    second pass of the deterministic merge. One thread per element of C,
    `threads` per workgroup.
    """

    name = "xsplit_gemm.merge_partials"

    partials = operand_def(MemRefType)
    c = operand_def(MemRefType)
    threads = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$partials `into` $c attr-dict `:` type($partials) `into` type($c)"

    def __init__(self, partials: SSAValue, c: SSAValue, threads: int):
        super().__init__(
            operands=[partials, c], properties={"threads": IntegerAttr(threads, i64)}
        )

    @property
    def thread_count(self) -> int:
        return self.threads.value.data

    @property
    def grid(self) -> tuple[int, int, int]:
        m, n = _shape(self.c)
        return (-(-n // self.thread_count), m, 1)

    @property
    def block(self) -> tuple[int, int, int]:
        return (self.thread_count, 1, 1)

    def verify_(self) -> None:
        _static_f32(self, self.partials, "the partials", 3, None)
        _static_f32(self, self.c, "C", 2, None)
        _need(_shape(self.partials)[1:] == _shape(self.c), self, "partials and C must agree")
        _need(self.thread_count > 0, self, "threads must be positive")


@irdl_op_definition
class BlockwiseCopyOp(IRDLOperation):
    """
    The workgroup's threads copy `src[row + i, col + j]` for i < sizes[0],
    j < sizes[1] into `tile[i, j]` (`tile[j, i]` with `transpose`), zero
    where the element is outside `src`: a bounds mask, no padding copy.
    Thread `thread` of `threads` copies every `threads`-th element, in the
    order of `src`'s rows, so that neighbouring threads read neighbouring
    addresses. `tile` may be larger than the copy (padded rows). With
    `vector = w`, each thread loads runs of w elements of a row with one
    vector load (w = 4: 128 bits of f32), masked as a whole: the source's
    rows and the copy's columns are whole vectors, so a vector is either
    inside or outside. `row` and `col` are multiples of the sizes.
    """

    name = "xsplit_gemm.blockwise_copy"

    src = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    tile = operand_def(MemRefType)
    thread = operand_def(IndexType)
    sizes = prop_def(DenseArrayBase)
    threads = prop_def(IntegerAttr)
    transpose = opt_prop_def(UnitAttr)
    vector = opt_prop_def(IntegerAttr)
    """Elements per global load (4: 128-bit loads of f32); 1 when absent."""
    swizzle = opt_prop_def(UnitAttr)
    """The tile is XOR-swizzled (`swizzled`): element (i, j) lives at
    `swizzled(i, j)`."""
    kpack = opt_prop_def(IntegerAttr)
    """The tile is K-packed (`kpacked`): element (i, j) lives at
    [i / kpack, j * kpack + i % kpack]. Each thread copies slices of kpack
    rows x `vector` columns and stores each slice as one run."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$src `[` $row `,` $col `]` `to` $tile `thread` $thread attr-dict "
        "`:` type($src) `to` type($tile)"
    )

    def __init__(
        self,
        src: SSAValue,
        row: SSAValue,
        col: SSAValue,
        tile: SSAValue,
        thread: SSAValue,
        sizes: tuple[int, int],
        threads: int,
        transpose: bool = False,
        vector: int = 1,
        swizzle: bool = False,
        kpack: int = 1,
    ):
        props = {"sizes": _ints(sizes), "threads": IntegerAttr(threads, i64)}
        if transpose:
            props["transpose"] = UnitAttr()
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        _layout_props(props, swizzle, kpack)
        super().__init__(operands=[src, row, col, tile, thread], properties=props)

    @property
    def copy_sizes(self) -> tuple[int, int]:
        r, c = self.sizes.get_values()
        return int(r), int(c)

    @property
    def thread_count(self) -> int:
        return self.threads.value.data

    @property
    def width(self) -> int:
        return 1 if self.vector is None else self.vector.value.data

    @property
    def kpack_size(self) -> int:
        return 1 if self.kpack is None else self.kpack.value.data

    def verify_(self) -> None:
        _verify_copy(self)


def _verify_copy(self) -> None:
    """The invariants of both staged copies."""
    _static_f32(self, self.src, "the source", 2, None, f16=True)
    _static_f32(self, self.tile, "the tile", 2, "workgroup", f16=True)
    _need(
        self.src.type.element_type == self.tile.type.element_type,  # type: ignore[attr-defined]
        self,
        "the tile must hold the source's element type",
    )
    _need(len(self.sizes.get_values()) == 2, self, "sizes must be [rows, columns]")
    r, c = self.copy_sizes
    room = _shape(self.tile)
    want = (c, r) if self.transpose else (r, c)
    kpack = getattr(self, "kpack", None) is not None
    if not kpack:
        _need(room[0] >= want[0] and room[1] >= want[1], self, "the tile is smaller than the copy")
    w = self.width
    _need(w > 0 and c % w == 0, self, f"a vector of {w} must divide the copy's rows")
    _need(_shape(self.src)[1] % w == 0, self, f"a vector of {w} must divide the source's rows")
    _need((r * c // w) % self.thread_count == 0, self, "threads must divide the copy")
    _verify_layout(self, self.tile, r, c)


@irdl_op_definition
class BlockwiseAsyncCopyOp(IRDLOperation):
    """
    `blockwise_copy` with asynchronous copies (sm_80's `cp.async`): the same
    elements go to the same places, masked the same way (a masked copy reads
    nothing and writes zero), but the copies are only started; they form one
    group per thread, whose token this returns. They are complete after an
    `nvgpu.device_async_wait` that covers the group, and visible to the
    other threads after a barrier that follows it.
    """

    name = "xsplit_gemm.blockwise_async_copy"

    src = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    tile = operand_def(MemRefType)
    thread = operand_def(IndexType)
    sizes = prop_def(DenseArrayBase)
    threads = prop_def(IntegerAttr)
    transpose = opt_prop_def(UnitAttr)
    vector = opt_prop_def(IntegerAttr)
    swizzle = opt_prop_def(UnitAttr)
    """As `blockwise_copy`'s: each 16-byte copy lands at its swizzled place."""
    token = result_def(DeviceAsyncTokenType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$src `[` $row `,` $col `]` `to` $tile `thread` $thread attr-dict "
        "`:` type($src) `to` type($tile)"
    )

    def __init__(
        self, src, row, col, tile, thread, sizes, threads, transpose=False, vector=1, swizzle=False
    ):
        props: dict = {"sizes": _ints(sizes), "threads": IntegerAttr(threads, i64)}
        if transpose:
            props["transpose"] = UnitAttr()
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        _layout_props(props, swizzle, 1)
        super().__init__(
            operands=[src, row, col, tile, thread],
            properties=props,
            result_types=[DeviceAsyncTokenType()],
        )

    copy_sizes = BlockwiseCopyOp.copy_sizes
    thread_count = BlockwiseCopyOp.thread_count
    width = BlockwiseCopyOp.width

    def verify_(self) -> None:
        _verify_copy(self)


@irdl_op_definition
class BlockwiseLoadOp(IRDLOperation):
    """
    The load half of `blockwise_copy`: the same elements of `src`, masked
    the same way (zero outside `src`), land in this thread's registers
    `regs` (items x vector, in the copy's order) instead of the tile. A
    `blockwise_store` with the same sizes, threads and vector puts them in
    a tile later: in between, the loads are in flight while the threads do
    other work (register-prefetch double buffering).
    """

    name = "xsplit_gemm.blockwise_load"

    src = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    regs = operand_def(MemRefType)
    thread = operand_def(IndexType)
    sizes = prop_def(DenseArrayBase)
    threads = prop_def(IntegerAttr)
    vector = opt_prop_def(IntegerAttr)
    kpack = opt_prop_def(IntegerAttr)
    """As `blockwise_copy`'s: slices of kpack rows x `vector` columns, each
    one row of the registers (K-packed: column by column)."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$src `[` $row `,` $col `]` `to` $regs `thread` $thread attr-dict "
        "`:` type($src) `to` type($regs)"
    )

    def __init__(self, src, row, col, regs, thread, sizes, threads, vector=1, kpack=1):
        props: dict = {"sizes": _ints(sizes), "threads": IntegerAttr(threads, i64)}
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        _layout_props(props, False, kpack)
        super().__init__(operands=[src, row, col, regs, thread], properties=props)

    copy_sizes = BlockwiseCopyOp.copy_sizes
    thread_count = BlockwiseCopyOp.thread_count
    width = BlockwiseCopyOp.width
    kpack_size = BlockwiseCopyOp.kpack_size

    def verify_(self) -> None:
        _static_f32(self, self.src, "the source", 2, None, f16=True)
        _verify_registers(self, self.src)
        w = self.width
        _need(_shape(self.src)[1] % w == 0, self, f"a vector of {w} must divide the source's rows")


@irdl_op_definition
class BlockwiseStoreOp(IRDLOperation):
    """
    The store half of `blockwise_copy`: the registers a `blockwise_load`
    with the same sizes, threads and vector filled go to `tile[i, j]`
    (`tile[j, i]` with `transpose`).
    """

    name = "xsplit_gemm.blockwise_store"

    regs = operand_def(MemRefType)
    tile = operand_def(MemRefType)
    thread = operand_def(IndexType)
    sizes = prop_def(DenseArrayBase)
    threads = prop_def(IntegerAttr)
    transpose = opt_prop_def(UnitAttr)
    vector = opt_prop_def(IntegerAttr)
    swizzle = opt_prop_def(UnitAttr)
    """As `blockwise_copy`'s."""
    kpack = opt_prop_def(IntegerAttr)
    """As `blockwise_copy`'s (the `blockwise_load` had the same)."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$regs `to` $tile `thread` $thread attr-dict `:` type($regs) `to` type($tile)"
    )

    def __init__(
        self, regs, tile, thread, sizes, threads, transpose=False, vector=1, swizzle=False, kpack=1
    ):
        props: dict = {"sizes": _ints(sizes), "threads": IntegerAttr(threads, i64)}
        if transpose:
            props["transpose"] = UnitAttr()
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        _layout_props(props, swizzle, kpack)
        super().__init__(operands=[regs, tile, thread], properties=props)

    copy_sizes = BlockwiseCopyOp.copy_sizes
    thread_count = BlockwiseCopyOp.thread_count
    width = BlockwiseCopyOp.width
    kpack_size = BlockwiseCopyOp.kpack_size

    def verify_(self) -> None:
        _static_f32(self, self.tile, "the tile", 2, "workgroup", f16=True)
        _verify_registers(self, self.tile)
        r, c = self.copy_sizes
        room = _shape(self.tile)
        want = (c, r) if self.transpose else (r, c)
        if self.kpack is None:
            big = room[0] >= want[0] and room[1] >= want[1]
            _need(big, self, "the tile is smaller than the copy")
        _verify_layout(self, self.tile, r, c)


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
    if cols % per_lane or _shape(src)[1] % per_lane:
        return f"its rows are not whole runs of {per_lane} elements"
    return None


@irdl_op_definition
class BlockwiseGatherOp(IRDLOperation):
    """
    `blockwise_copy` as direct-to-LDS loads: the tile (unpadded, the copy's
    size) is cut in runs of 64 lanes x 4 bytes; wavefront w of the
    workgroup fills runs w, w + W, ... (W wavefronts), lane l the l-th 4
    bytes of the run, from the source place they stand for. A lane whose
    elements are outside `src` writes zeros instead. The loads land by the
    next barrier.
    """

    name = "xsplit_gemm.blockwise_gather"

    src = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    tile = operand_def(MemRefType)
    thread = operand_def(IndexType)
    threads = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$src `[` $row `,` $col `]` `to` $tile `thread` $thread attr-dict "
        "`:` type($src) `to` type($tile)"
    )

    def __init__(self, src, row, col, tile, thread, threads: int):
        super().__init__(
            operands=[src, row, col, tile, thread], properties={"threads": IntegerAttr(threads, i64)}
        )

    @property
    def thread_count(self) -> int:
        return self.threads.value.data

    @property
    def per_lane(self) -> int:
        """Elements a lane loads: 4 bytes' worth."""
        return GATHER_BYTES * 8 // self.src.type.element_type.bitwidth  # type: ignore[attr-defined]

    def verify_(self) -> None:
        _static_f32(self, self.src, "the source", 2, None, f16=True)
        _static_f32(self, self.tile, "the tile", 2, "workgroup", f16=True)
        _need(
            self.src.type.element_type == self.tile.type.element_type,  # type: ignore[attr-defined]
            self,
            "the tile must hold the source's element type",
        )
        why = gather_refusal(self.src, _shape(self.tile), self.thread_count)  # type: ignore[arg-type]
        _need(why is None, self, str(why))


def register_shape(sizes: tuple[int, int], threads: int, width: int, kpack: int = 1) -> list[int]:
    """One thread's registers for a copy split in `width`-element vectors
    among `threads` threads: [vectors, width]; K-packed, in slices of
    `kpack` vectors: [slices, kpack * width]."""
    r, c = sizes
    return [r * c // width // threads // kpack, width * kpack]


def _verify_registers(self, other: SSAValue) -> None:
    """The invariants of a split copy's registers (`regs`), whose elements
    are those of `other` (the source or the tile)."""
    _static_f32(self, self.regs, "the registers", 2, "private", f16=True)
    _need(
        self.regs.type.element_type == other.type.element_type,  # type: ignore[attr-defined]
        self,
        "the registers must hold the copy's element type",
    )
    _need(len(self.sizes.get_values()) == 2, self, "sizes must be [rows, columns]")
    r, c = self.copy_sizes
    w = self.width
    _need(w > 0 and c % w == 0, self, f"a vector of {w} must divide the copy's rows")
    _need((r * c // w) % self.thread_count == 0, self, "threads must divide the copy")
    want = register_shape((r, c), self.thread_count, w, self.kpack_size)
    _need(list(_shape(self.regs)) == want, self, f"the registers must be {want[0]}x{want[1]}")


@irdl_op_definition
class BlockwiseGemmOp(IRDLOperation):
    """
    Each thread adds the staged K step to its register tile:
    `acc[i, j] += sum over kk of a[kk, tm + i * threads[0]] * b[kk, tn + j * threads[1]]`
    with `tm = thread / threads[1]` and `tn = thread % threads[1]`: registers
    strided by the thread counts, so that neighbouring threads read
    neighbouring words of workgroup memory. `b` is stored K-major (its rows
    are K); `a` too, or M-major (`a[tm + i * threads[0], kk]`) with
    `a_m_major`.
    """

    name = "xsplit_gemm.blockwise_gemm"

    acc = operand_def(MemRefType)
    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    thread = operand_def(IndexType)
    threads = prop_def(DenseArrayBase)
    step_k = prop_def(IntegerAttr)
    a_m_major = opt_prop_def(UnitAttr)
    """`a` is stored M-major (`a[m, kk]`) rather than K-major."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$a `*` $b `into` $acc `thread` $thread attr-dict "
        "`:` type($a) `,` type($b) `into` type($acc)"
    )

    def __init__(
        self,
        acc: SSAValue,
        a: SSAValue,
        b: SSAValue,
        thread: SSAValue,
        threads: tuple[int, int],
        step_k: int,
        a_m_major: bool = False,
    ):
        props: dict = {"threads": _ints(threads), "step_k": IntegerAttr(step_k, i64)}
        if a_m_major:
            props["a_m_major"] = UnitAttr()
        super().__init__(operands=[acc, a, b, thread], properties=props)

    @property
    def thread_counts(self) -> tuple[int, int]:
        thm, thn = self.threads.get_values()
        return int(thm), int(thn)

    @property
    def steps(self) -> int:
        return self.step_k.value.data

    def verify_(self) -> None:
        _static_f32(self, self.acc, "the accumulator", 2, "private")
        _static_f32(self, self.a, "the A tile", 2, "workgroup", f16=True)
        _static_f32(self, self.b, "the B tile", 2, "workgroup", f16=True)
        rm, rn = _shape(self.acc)
        thm, thn = self.thread_counts
        am, ak = _shape(self.a)[::-1] if self.a_m_major is None else _shape(self.a)
        _need(am >= rm * thm, self, "the A tile is narrower than the threads' rows")
        _need(_shape(self.b)[1] >= rn * thn, self, "the B tile is narrower than the threads' columns")
        k = self.steps
        _need(0 < k <= min(ak, _shape(self.b)[0]), self, "step_k exceeds the tiles")


def _intrinsic(op: IRDLOperation, name: StringAttr) -> Intrinsic:
    intr = INTRINSICS.get(name.data)
    _need(intr is not None, op, f"mma must be one of {', '.join(INTRINSICS)}")
    assert intr is not None
    return intr


def _fragments_acc(op: IRDLOperation, acc: SSAValue, intr: Intrinsic) -> None:
    _static_f32(op, acc, "the accumulator", 3, "private")
    _need(
        _shape(acc)[2] == intr.c.size,
        op,
        f"the accumulator holds {intr.c.size} elements of C per {intr.m}x{intr.n} block",
    )


@irdl_op_definition
class BlockwiseMmaOp(IRDLOperation):
    """
    The workgroup's warps add the staged K step to their accumulators with
    the intrinsic `mma`: warp w (`thread / lanes`) owns the warp tile at
    ((w / warps[1]) * wtm, (w % warps[1]) * wtn) of the staged tiles, wtm x
    wtn = `acc`'s blocks; `acc[i, j]` holds the lane's elements of its
    block (i, j). `a` is M-major (`a[m, kk]`), `b` K-major (`b[kk, n]`).
    """

    name = "xsplit_gemm.blockwise_mma"

    acc = operand_def(MemRefType)
    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    thread = operand_def(IndexType)
    mma = prop_def(StringAttr)
    warps = prop_def(DenseArrayBase)
    step_k = prop_def(IntegerAttr)
    a_swizzle = opt_prop_def(UnitAttr)
    """The A tile is XOR-swizzled (`swizzled`)."""
    b_swizzle = opt_prop_def(UnitAttr)
    """The B tile is XOR-swizzled."""
    b_kpack = opt_prop_def(IntegerAttr)
    """The B tile is K-packed (`kpacked`)."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$a `*` $b `into` $acc `thread` $thread attr-dict "
        "`:` type($a) `,` type($b) `into` type($acc)"
    )

    def __init__(
        self,
        acc,
        a,
        b,
        thread,
        mma: str,
        warps: tuple[int, int],
        step_k: int,
        swizzle: tuple[bool, bool] = (False, False),
        b_kpack: int = 1,
    ):
        props: dict = {
            "mma": StringAttr(mma),
            "warps": _ints(warps),
            "step_k": IntegerAttr(step_k, i64),
        }
        for name, on in zip(("a_swizzle", "b_swizzle"), swizzle):
            if on:
                props[name] = UnitAttr()
        if b_kpack != 1:
            props["b_kpack"] = IntegerAttr(b_kpack, i64)
        super().__init__(operands=[acc, a, b, thread], properties=props)

    @property
    def b_kpack_size(self) -> int:
        return 1 if self.b_kpack is None else self.b_kpack.value.data

    @property
    def intrinsic(self) -> Intrinsic:
        return _intrinsic(self, self.mma)

    @property
    def warp_counts(self) -> tuple[int, int]:
        wm, wn = self.warps.get_values()
        return int(wm), int(wn)

    @property
    def steps(self) -> int:
        return self.step_k.value.data

    def verify_(self) -> None:
        intr = self.intrinsic
        _fragments_acc(self, self.acc, intr)
        _static_f32(self, self.a, "the A tile", 2, "workgroup", f16=True)
        _static_f32(self, self.b, "the B tile", 2, "workgroup", f16=True)
        fm, fn, _ = _shape(self.acc)
        wm, wn = self.warp_counts
        _need(
            _shape(self.a)[0] >= fm * intr.m * wm,
            self,
            "the A tile is narrower than the warps' rows",
        )
        kp = self.b_kpack_size
        b_rows, b_cols = _shape(self.b)
        _need(
            b_cols >= fn * intr.n * wn * kp,
            self,
            "the B tile is narrower than the warps' columns",
        )
        k = self.steps
        _need(k > 0 and k % intr.k == 0, self, f"step_k must be whole K blocks of {intr.k}")
        _need(k <= min(_shape(self.a)[1], b_rows * kp), self, "step_k exceeds the tiles")
        _need(intr.k % kp == 0, self, f"b_kpack must divide the intrinsic's K ({intr.k})")


def _paired(shape: tuple[int, ...], pair: bool) -> tuple[int, ...]:
    """A fragment's vector shape, or two of them stacked along the first
    dimension."""
    return (2 * shape[0], *shape[1:]) if pair else tuple(shape)


@irdl_op_definition
class ThreadwiseFragmentOp(IRDLOperation):
    """
    This lane's fragment of operand `operand` ("a" or "b") of the intrinsic
    `mma`, read from the block of `tile` at (row, col): element `idx` of the
    result is `tile[row + r, col + c]` with (r, c) the intrinsic's layout of
    (lane, idx).
    """

    name = "xsplit_gemm.threadwise_fragment"

    tile = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    lane = operand_def(IndexType)
    mma = prop_def(StringAttr)
    operand = prop_def(StringAttr)
    loads = opt_prop_def(UnitAttr)
    """Read with the lane's own loads even where the target has a
    collective fragment load (`ldmatrix`)."""
    swizzle = opt_prop_def(UnitAttr)
    """The tile is XOR-swizzled: element (r, c) is at `swizzled(r, c)`."""
    kpack = opt_prop_def(IntegerAttr)
    """The tile is K-packed: element (r, c) is at `kpacked(r, c)`; `row`
    and `col` stay the block's place in the unpacked matrix."""
    pair = opt_prop_def(UnitAttr)
    """B only, where the intrinsic has a collective load: the fragments of
    this block and of the next along N, in one load of twice the matrices
    (`ldmatrix.x4.trans` for m16n8k16's B): the result stacks them along
    its first dimension, this block's first (`threadwise_mma`'s
    `b_half`)."""
    result = result_def(VectorType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect())

    assembly_format = (
        "$tile `[` $row `,` $col `]` `lane` $lane attr-dict `:` type($tile) `->` type($result)"
    )

    def __init__(
        self,
        tile,
        row,
        col,
        lane,
        mma: str,
        operand: str,
        loads: bool = False,
        swizzle: bool = False,
        kpack: int = 1,
        pair: bool = False,
    ):
        intr = INTRINSICS[mma]
        frag = intr.a if operand == "a" else intr.b
        t = VectorType(tile.type.element_type, _paired(frag.shape, pair))
        props: dict = {"mma": StringAttr(mma), "operand": StringAttr(operand)}
        if loads:
            props["loads"] = UnitAttr()
        if pair:
            props["pair"] = UnitAttr()
        _layout_props(props, swizzle, kpack)
        super().__init__(operands=[tile, row, col, lane], properties=props, result_types=[t])

    @property
    def loads_only(self) -> bool:
        return self.loads is not None

    @property
    def kpack_size(self) -> int:
        return 1 if self.kpack is None else self.kpack.value.data

    def place(self, x, row, col):
        """Where element (row, col) of the unpacked tile is in `tile`."""
        if self.kpack is not None:
            return kpacked(x, row, col, self.kpack_size)
        if self.swizzle is not None:
            size = self.tile.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
            return swizzled(x, row, col, _shape(self.tile)[1], size)
        return row, col

    @property
    def intrinsic(self) -> Intrinsic:
        return _intrinsic(self, self.mma)

    @property
    def fragment(self):
        intr = self.intrinsic
        return intr.a if self.operand.data == "a" else intr.b

    def verify_(self) -> None:
        _need(self.operand.data in ("a", "b"), self, "operand must be a or b")
        _static_f32(self, self.tile, "the tile", 2, "workgroup", f16=True)
        t = self.result.type
        assert isinstance(t, VectorType)
        frag = self.fragment
        element = self.tile.type.element_type  # type: ignore[attr-defined]
        want = _paired(frag.shape, self.pair is not None)
        shape = "x".join(map(str, want))
        _need(
            tuple(t.get_shape()) == want and t.element_type == element,
            self,
            f"the fragment must be a vector of {shape} of the tile's elements",
        )
        if self.pair is not None:
            _need(
                self.operand.data == "b" and self.kpack is None,
                self,
                "pair reads two B fragments of an unpacked tile",
            )
        one = self.swizzle is None or self.kpack is None
        _need(one, self, "swizzle and kpack exclude each other")
        if self.swizzle is not None:
            size = element.bitwidth // 8
            _need(
                swizzle_fits(_shape(self.tile), size),
                self,
                "a swizzled tile's rows must be 2, 4, 8, ... 16-byte chunks",
            )
        _need(
            self.kpack is None or (frag.matrix_load is None or self.loads is not None),
            self,
            "a K-packed tile is read with the lanes' own loads",
        )


@irdl_op_definition
class ThreadwiseMmaOp(IRDLOperation):
    """
    `acc[at] = a · b + acc[at]` by the intrinsic `mma`, over the warp: `a`
    and `b` are this lane's fragments, `acc[at[0], at[1]]` its elements of
    the C block, in the order of the intrinsic's C fragment.
    """

    name = "xsplit_gemm.threadwise_mma"

    a = operand_def(VectorType)
    b = operand_def(VectorType)
    acc = operand_def(MemRefType)
    mma = prop_def(StringAttr)
    at = prop_def(DenseArrayBase)
    b_half = opt_prop_def(IntegerAttr)
    """`b` is a pair of B fragments (`threadwise_fragment` with `pair`):
    the multiply takes half 0 or 1 of it."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$a `*` $b `into` $acc attr-dict `:` type($a) `,` type($b) `into` type($acc)"

    def __init__(self, a, b, acc, mma: str, at: tuple[int, int], b_half: int | None = None):
        props: dict = {"mma": StringAttr(mma), "at": _ints(at)}
        if b_half is not None:
            props["b_half"] = IntegerAttr(b_half, i64)
        super().__init__(operands=[a, b, acc], properties=props)

    @property
    def half(self) -> int | None:
        return None if self.b_half is None else self.b_half.value.data

    @property
    def intrinsic(self) -> Intrinsic:
        return _intrinsic(self, self.mma)

    @property
    def block(self) -> tuple[int, int]:
        i, j = self.at.get_values()
        return int(i), int(j)

    def verify_(self) -> None:
        intr = self.intrinsic
        _fragments_acc(self, self.acc, intr)
        _need(self.half in (None, 0, 1), self, "b_half must be 0 or 1")
        for v, shape, name in (
            (self.a, intr.a.shape, "A"),
            (self.b, _paired(intr.b.shape, self.half is not None), "B"),
        ):
            _need(
                tuple(v.type.get_shape()) == shape,  # type: ignore[attr-defined]
                self,
                f"{name} must be a fragment of {'x'.join(map(str, shape))}",
            )
        _need(len(self.at.get_values()) == 2, self, "at must be [i, j]")
        i, j = self.block
        fm, fn, _ = _shape(self.acc)
        _need(0 <= i < fm and 0 <= j < fn, self, "at is outside the accumulator")


@irdl_op_definition
class ThreadwiseWriteFragmentsOp(IRDLOperation):
    """
    Element v of `acc[i, j]` goes to C at `(row + i * m + r, col + j * n + c)`
    with (r, c) the intrinsic's C layout of (lane, v), where that is inside
    C (a bounds mask), by `merge` as `threadwise_write` does. With merge
    `tile`, C is a workgroup-memory tile that holds every warp tile whole:
    a plain store, no mask.
    """

    name = "xsplit_gemm.threadwise_write_fragments"

    acc = operand_def(MemRefType)
    c = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    lane = operand_def(IndexType)
    chunk = var_operand_def(IndexType)
    mma = prop_def(StringAttr)
    merge = prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$acc `to` $c `[` $row `,` $col `]` `lane` $lane (`chunk` $chunk^)? attr-dict "
        "`:` type($acc) `to` type($c)"
    )

    def __init__(self, acc, c, row, col, lane, mma: str, merge: str, chunk=None):
        super().__init__(
            operands=[acc, c, row, col, lane, [chunk] if chunk is not None else []],
            properties={"mma": StringAttr(mma), "merge": StringAttr(merge)},
        )

    @property
    def intrinsic(self) -> Intrinsic:
        return _intrinsic(self, self.mma)

    def verify_(self) -> None:
        merge = self.merge.data
        _need(merge in (*MERGES, "tile"), self, f"merge must be one of {', '.join(MERGES)}, tile")
        _fragments_acc(self, self.acc, self.intrinsic)
        partials = merge == "partials"
        space = "workgroup" if merge == "tile" else None
        _static_f32(self, self.c, "C", 3 if partials else 2, space)
        _need(
            len(self.chunk) == (1 if partials else 0),
            self,
            "a chunk index is given with merge partials, and only then",
        )


@irdl_op_definition
class ThreadwiseFillOp(IRDLOperation):
    """Sets every register of `acc` to zero."""

    name = "xsplit_gemm.threadwise_fill"

    acc = operand_def(MemRefType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())

    assembly_format = "$acc attr-dict `:` type($acc)"

    def __init__(self, acc: SSAValue):
        super().__init__(operands=[acc])

    def verify_(self) -> None:
        rank = len(_shape(self.acc)) if isinstance(self.acc.type, MemRefType) else 2
        # Registers of a thread (rank 2) or fragments of C blocks (rank 3).
        _static_f32(self, self.acc, "the accumulator", rank if rank in (2, 3) else 2, "private")


@irdl_op_definition
class ThreadwiseReadOp(IRDLOperation):
    """`regs[i] = tile[row, col + i * stride]`: one thread's registers from
    one row of a staged tile (from one column with `down`)."""

    name = "xsplit_gemm.threadwise_read"

    tile = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    regs = operand_def(MemRefType)
    stride = prop_def(IntegerAttr)
    down = opt_prop_def(UnitAttr)
    """Read down a column: `regs[i] = tile[row + i * stride, col]`."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$tile `[` $row `,` $col `]` `to` $regs attr-dict `:` type($tile) `to` type($regs)"
    )

    def __init__(
        self, tile: SSAValue, row: SSAValue, col: SSAValue, regs: SSAValue, stride: int,
        down: bool = False,
    ):
        props: dict = {"stride": IntegerAttr(stride, i64)}
        if down:
            props["down"] = UnitAttr()
        super().__init__(operands=[tile, row, col, regs], properties=props)

    def verify_(self) -> None:
        _static_f32(self, self.tile, "the tile", 2, None, f16=True)
        _static_f32(self, self.regs, "the registers", 1, "private")
        _need(self.stride.value.data > 0, self, "stride must be positive")


@irdl_op_definition
class ThreadwiseReadTileOp(IRDLOperation):
    """`acc[i, j] = tile[row + i * strides[0], col + j * strides[1]]`: one
    thread's register tile, laid out as `threadwise_write` places it, from a
    workgroup-memory C tile (the tensor-core kernel's fragments, stored
    there, read back in the FMA epilogue's layout)."""

    name = "xsplit_gemm.threadwise_read_tile"

    tile = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    acc = operand_def(MemRefType)
    strides = prop_def(DenseArrayBase)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$tile `[` $row `,` $col `]` `to` $acc attr-dict `:` type($tile) `to` type($acc)"
    )

    def __init__(self, tile: SSAValue, row: SSAValue, col: SSAValue, acc: SSAValue, strides):
        super().__init__(operands=[tile, row, col, acc], properties={"strides": _ints(strides)})

    @property
    def stride_sizes(self) -> tuple[int, int]:
        sm, sn = self.strides.get_values()
        return int(sm), int(sn)

    def verify_(self) -> None:
        _static_f32(self, self.tile, "the tile", 2, "workgroup")
        _static_f32(self, self.acc, "the accumulator", 2, "private")
        _need(len(self.strides.get_values()) == 2, self, "strides must be [M, N] steps")
        _need(min(self.stride_sizes) > 0, self, "strides must be positive")


@irdl_op_definition
class ThreadwiseGemmOp(IRDLOperation):
    """`acc[i, j] += a[i] * b[j]`: the outer product of one K element."""

    name = "xsplit_gemm.threadwise_gemm"

    acc = operand_def(MemRefType)
    a = operand_def(MemRefType)
    b = operand_def(MemRefType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$a `*` $b `into` $acc attr-dict `:` type($a) `,` type($b) `into` type($acc)"

    def __init__(self, acc: SSAValue, a: SSAValue, b: SSAValue):
        super().__init__(operands=[acc, a, b])

    def verify_(self) -> None:
        for v, name, rank in ((self.acc, "the accumulator", 2), (self.a, "A", 1), (self.b, "B", 1)):
            _static_f32(self, v, name, rank, "private")
        _need(
            _shape(self.acc) == (_shape(self.a)[0], _shape(self.b)[0]),
            self,
            "the accumulator must be |a| x |b|",
        )


@irdl_op_definition
class ThreadwiseWriteOp(IRDLOperation):
    """
    Element (i, j) of the register tile goes to C at
    `(row + i * strides[0], col + j * strides[1])`, where that is inside C
    (a bounds mask), by `merge`: added to C (`store`), atomically added
    (`atomic`), or stored into the partials buffer at `[chunk, ...]`
    (`partials`; `chunk` is then the one index before the row).
    """

    name = "xsplit_gemm.threadwise_write"

    acc = operand_def(MemRefType)
    c = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    chunk = var_operand_def(IndexType)
    strides = prop_def(DenseArrayBase)
    merge = prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$acc `to` $c `[` $row `,` $col `]` (`chunk` $chunk^)? attr-dict `:` type($acc) `to` type($c)"
    )

    def __init__(
        self,
        acc: SSAValue,
        c: SSAValue,
        row: SSAValue,
        col: SSAValue,
        strides: tuple[int, int],
        merge: str,
        chunk: SSAValue | None = None,
    ):
        super().__init__(
            operands=[acc, c, row, col, [chunk] if chunk is not None else []],
            properties={"strides": _ints(strides), "merge": StringAttr(merge)},
        )

    @property
    def stride_sizes(self) -> tuple[int, int]:
        sm, sn = self.strides.get_values()
        return int(sm), int(sn)

    def verify_(self) -> None:
        merge = self.merge.data
        _need(merge in MERGES, self, f"merge must be one of {', '.join(MERGES)}")
        _static_f32(self, self.acc, "the accumulator", 2, "private")
        partials = merge == "partials"
        _static_f32(self, self.c, "C", 3 if partials else 2, None)
        _need(
            len(self.chunk) == (1 if partials else 0),
            self,
            "a chunk index is given with merge partials, and only then",
        )


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


def _name_in(op: IRDLOperation, attr: StringAttr, what: str, allowed: tuple[str, ...]) -> None:
    _need(attr.data in allowed, op, f"{what} must be one of {', '.join(allowed)}")


def reduce_chunks(extent: int, tile: int, threads: int, stage: str) -> int:
    """Rows of a fused reduction's partials buffer: a workgroup per tile
    along the reduced axis, times its threads along it in the atomic stage
    (each keeps its own partial)."""
    return -(-extent // tile) * (threads if stage == "atomic" else 1)


def _out_shapes(kept: int, dim: int) -> tuple[tuple[int, ...], ...]:
    """The output's shapes for `kept` elements: dropped, or kept as 1 at the
    reduced dimension `dim` of C."""
    return ((kept,), (1, kept) if dim == 0 else (kept, 1))


def _verify_reduce_kind(op) -> None:
    _name_in(op, op.method, "method", REDUCE_METHODS)
    _name_in(op, op.stage, "stage", REDUCE_STAGES)
    _name_in(op, op.merge, "merge", REDUCE_MERGES)
    _name_in(op, op.exchange, "exchange", EXCHANGES)
    _need(op.dim.value.data in (0, 1), op, "dim must be 0 (along M) or 1 (along N)")
    _need(op.subgroup.value.data > 0, op, "subgroup must be positive")
    _need(op.init is None or op.c is None, op, "C's init is an operand or a constant, not both")
    _need(op.store_c is None or op.c is not None, op, "store_c needs C")


@irdl_op_definition
class GridwiseGemmReduceOp(IRDLOperation):
    """
    The fused GEMM + reduction: `C = init + A · B` (A M x K, B K x N, the
    init C's operand `c` or the constant `init`, else 0), reduced by `method`
    along `dim` (1: along N, one output per row; 0: along M, one per
    column) into `out`, whose initial value the reduction starts from. C is
    written back into `c` with `store_c`. The K loop is `gridwise_gemm`'s
    (one chunk: workgroup (x, y) computes the C tile at (y * tile[0],
    x * tile[1])); the epilogue (`blockwise_reduce`) reduces the tile in
    registers by `stage` instead of writing it, and `merge` says how each
    workgroup's outputs reach `out`: atomically, or (`partials`) into the
    chunks x outputs buffer `out` that `merge_reduced` then combines. With
    `mma` and `warps` the K loop multiplies on tensor cores as
    `gridwise_gemm`'s does, and `threads` is the epilogue's layout only.
    """

    name = "xsplit_gemm.gridwise_gemm_reduce"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    out = operand_def(MemRefType)
    c = opt_operand_def(MemRefType)
    tile = prop_def(DenseArrayBase)
    threads = prop_def(DenseArrayBase)
    method = prop_def(StringAttr)
    dim = prop_def(IntegerAttr)
    stage = prop_def(StringAttr)
    merge = prop_def(StringAttr)
    subgroup = prop_def(IntegerAttr)
    exchange = prop_def(StringAttr)
    init = opt_prop_def(FloatAttr)
    store_c = opt_prop_def(UnitAttr)
    stages = opt_prop_def(IntegerAttr)
    a_k_major = opt_prop_def(UnitAttr)
    mma = opt_prop_def(StringAttr)
    """The warp-level matrix intrinsic the warps multiply with, as on
    `gridwise_gemm`; the epilogue then first puts the C fragments into a
    workgroup-memory C tile and reads each thread's `threads` register tile
    back from it. FMAs per thread when absent."""
    warps = opt_prop_def(DenseArrayBase)
    """With `mma`: warps along M and N; `threads` (the epilogue's layout)
    then counts warps[0] x warps[1] x lanes threads in all."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$a `,` $b (`init` $c^)? `into` $out attr-dict "
        "`:` type($a) `,` type($b) (`,` type($c)^)? `into` type($out)"
    )

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        out: SSAValue,
        c: SSAValue | None,
        tile: tuple[int, int, int],
        threads: tuple[int, int],
        method: str,
        dim: int,
        stage: str,
        merge: str,
        subgroup: int,
        exchange: str,
        init: float | None = None,
        store_c: bool = False,
        stages: int = 1,
        a_k_major: bool = False,
        mma: str | None = None,
        warps: tuple[int, int] | None = None,
    ):
        props: dict = {
            "tile": _ints(tile),
            "threads": _ints(threads),
            "method": StringAttr(method),
            "dim": IntegerAttr(dim, i64),
            "stage": StringAttr(stage),
            "merge": StringAttr(merge),
            "subgroup": IntegerAttr(subgroup, i64),
            "exchange": StringAttr(exchange),
        }
        if init is not None:
            props["init"] = FloatAttr(init, Float32Type())
        if store_c:
            props["store_c"] = UnitAttr()
        if stages != 1:
            props["stages"] = IntegerAttr(stages, i64)
        if a_k_major:
            props["a_k_major"] = UnitAttr()
        if mma is not None:
            props["mma"] = StringAttr(mma)
        if warps is not None:
            props["warps"] = _ints(warps)
        super().__init__(operands=[a, b, out, [c] if c is not None else []], properties=props)

    # What the K loop of `lower-gridwise-gemm` reads, as on `gridwise_gemm`.
    stage_count = GridwiseGemmOp.stage_count
    tile_sizes = GridwiseGemmOp.tile_sizes
    thread_counts = GridwiseGemmOp.thread_counts
    mnk = GridwiseGemmOp.mnk
    block = GridwiseGemmOp.block
    intrinsic = GridwiseGemmOp.intrinsic
    warp_counts = GridwiseGemmOp.warp_counts

    @property
    def register_prefetch(self) -> None:
        """None: the fused kernel's second stage is sm_80's async copies only."""
        return None

    @property
    def async_b(self) -> None:
        return None

    @property
    def direct_to_lds(self) -> None:
        return None

    @property
    def chunk_count(self) -> int:
        return 1

    @property
    def chunk_k(self) -> int:
        return self.mnk[2]

    @property
    def grid(self) -> tuple[int, int, int]:
        return (*GridwiseGemmOp.grid.fget(self)[:2], 1)  # type: ignore[attr-defined]

    @property
    def partial_chunks(self) -> int:
        d = self.dim.value.data
        return reduce_chunks(
            self.mnk[d], self.tile_sizes[d], self.thread_counts[d], self.stage.data
        )

    def verify_(self) -> None:
        _need(len(self.tile.get_values()) == 3, self, "tile must be [M, N, K] sizes")
        _need(len(self.threads.get_values()) == 2, self, "threads must be [M, N] counts")
        _verify_reduce_kind(self)
        _static_f32(self, self.a, "A", 2, None, f16=True)
        _static_f32(self, self.b, "B", 2, None, f16=True)
        (m, k), (k2, n) = _shape(self.a), _shape(self.b)
        _need(k == k2, self, f"A's K ({k}) and B's K ({k2}) must agree")
        if self.c is not None:
            _static_f32(self, self.c, "C", 2, None)
            _need(_shape(self.c) == (m, n), self, f"C must be {m}x{n}")
        tm, tn, tk = self.tile_sizes
        thm, thn = self.thread_counts
        _need(min(tm, tn, tk, thm, thn) > 0, self, "tile and threads must be positive")
        _need(tm % thm == 0 and tn % thn == 0, self, "threads must divide the tile")
        _need(
            (tm * tk) % (thm * thn) == 0 and (tn * tk) % (thm * thn) == 0,
            self,
            "each thread must copy a whole number of elements of each staged tile",
        )
        d = self.dim.value.data
        kept = (n, m)[d]
        out = _shape(self.out)
        if self.merge.data == "partials":
            _static_f32(self, self.out, "the partials", 2, None)
            _need(
                out == (self.partial_chunks, kept),
                self,
                f"the partials must be {self.partial_chunks}x{kept}",
            )
        else:
            _static_f32(self, self.out, "the output", len(out), None)
            _need(out in _out_shapes(kept, d), self, f"the output must hold {kept} elements")
        _verify_epilogue_layout(self, (thm, thn), (tm, tn))
        _need(self.stage_count in (1, 2), self, "stages must be 1 or 2")
        _need(self.stage_count == 1 or tk % 4 == 0, self, "stages 2 needs K steps of a multiple of 4")
        _need((self.mma is None) == (self.warps is None), self, "mma and warps go together")
        if self.mma is not None:
            self._verify_mma()

    def _verify_mma(self) -> None:
        intr = _intrinsic(self, self.mma)  # type: ignore[arg-type]
        for v, name in ((self.a, "A"), (self.b, "B")):
            element = str(v.type.element_type)  # type: ignore[attr-defined]
            takes = f"{intr.name} takes {name} of {', '.join(intr.operands)}"
            _need(element in intr.operands, self, takes)
        _need(self.a_k_major is None, self, "mma reads A as it is in memory (M-major)")
        _need(len(self.warps.get_values()) == 2, self, "warps must be [M, N] counts")  # type: ignore[union-attr]
        wm, wn = self.warp_counts
        _need(min(wm, wn) > 0, self, "warps must be positive")
        thm, thn = self.thread_counts
        _need(
            thm * thn == wm * wn * intr.lanes,
            self,
            f"threads must count warps[0] x warps[1] x {intr.lanes} threads",
        )
        tm, tn, tk = self.tile_sizes
        _need(
            tm % (wm * intr.m) == 0 and tn % (wn * intr.n) == 0 and tk % intr.k == 0,
            self,
            f"the tile must be whole {intr.m}x{intr.n}x{intr.k} blocks per warp",
        )


def _verify_epilogue_layout(op, threads: tuple[int, int], tile: tuple[int, int]) -> None:
    d = op.dim.value.data
    stage = op.stage.data
    reduced, kept_tile = threads[d], tile[1 - d]
    if stage == "subgroup":
        _need(
            reduced & (reduced - 1) == 0,
            op,
            "the subgroup stage needs a power-of-two thread count along the reduced axis",
        )
    if stage != "atomic":
        # One thread per kept row (column) of the tile combines it.
        _need(kept_tile <= threads[0] * threads[1], op, "the tile keeps more outputs than it has threads")


@irdl_op_definition
class MergeReducedOp(IRDLOperation):
    """
    `out[e] = method(out[e], partials[0, e], partials[1, e], ...)`, in that
    order for every output element e (row-major): the ordered second pass of
    the fused reduction's deterministic form. One thread per element,
    `threads` per workgroup along grid x.
    """

    name = "xsplit_gemm.merge_reduced"

    partials = operand_def(MemRefType)
    out = operand_def(MemRefType)
    method = prop_def(StringAttr)
    threads = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$partials `into` $out attr-dict `:` type($partials) `into` type($out)"

    def __init__(self, partials: SSAValue, out: SSAValue, method: str, threads: int):
        super().__init__(
            operands=[partials, out],
            properties={"method": StringAttr(method), "threads": IntegerAttr(threads, i64)},
        )

    @property
    def elements(self) -> int:
        n = 1
        for s in _shape(self.out):
            n *= s
        return n

    @property
    def thread_count(self) -> int:
        return self.threads.value.data

    @property
    def grid(self) -> tuple[int, int, int]:
        return (-(-self.elements // self.thread_count), 1, 1)

    @property
    def block(self) -> tuple[int, int, int]:
        return (self.thread_count, 1, 1)

    def verify_(self) -> None:
        _name_in(self, self.method, "method", REDUCE_METHODS)
        _static_f32(self, self.partials, "the partials", 2, None)
        out = _shape(self.out)
        _static_f32(self, self.out, "the output", len(out), None)
        # Indices stay affine in the thread id: one dimension of the output
        # is not 1 at most (no div/rem of the element index).
        _need(
            len(out) in (1, 2) and sum(1 for s in out if s != 1) <= 1,
            self,
            "the output must be a vector (rank 1, or rank 2 with a dimension of 1)",
        )
        _need(_shape(self.partials)[1] == self.elements, self, "partials and output must agree")
        _need(self.thread_count > 0, self, "threads must be positive")


@irdl_op_definition
class BlockwiseReduceOp(IRDLOperation):
    """
    The workgroup's register tiles, as `threadwise_write` places them (thread
    t's `acc[i, j]` is C at `(row + t / threads[1] + i * threads[0],
    col + t % threads[1] + j * threads[1])`), plus the init (`c`'s element,
    or `init`), reduced by `method` along `dim` within the tile, each
    output by `stage` (see `REDUCE_STAGES`), then merged into `out` by
    `merge`. Elements outside C (`bounds`) count as the combiner's identity;
    with `store_c`, C's elements are written into `c`.
    """

    name = "xsplit_gemm.blockwise_reduce"

    acc = operand_def(MemRefType)
    out = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    thread = operand_def(IndexType)
    c = opt_operand_def(MemRefType)
    threads = prop_def(DenseArrayBase)
    bounds = prop_def(DenseArrayBase)
    method = prop_def(StringAttr)
    dim = prop_def(IntegerAttr)
    stage = prop_def(StringAttr)
    merge = prop_def(StringAttr)
    subgroup = prop_def(IntegerAttr)
    exchange = prop_def(StringAttr)
    init = opt_prop_def(FloatAttr)
    store_c = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$acc (`init` $c^)? `to` $out `[` $row `,` $col `]` `thread` $thread attr-dict "
        "`:` type($acc) (`,` type($c)^)? `to` type($out)"
    )

    def __init__(self, acc, out, row, col, thread, c, threads, bounds, of: GridwiseGemmReduceOp):
        props: dict = {
            "threads": _ints(threads),
            "bounds": _ints(bounds),
            **{
                k: of.properties[k]
                for k in ("method", "dim", "stage", "merge", "subgroup", "exchange", "init", "store_c")
                if k in of.properties
            },
        }
        super().__init__(
            operands=[acc, out, row, col, thread, [c] if c is not None else []], properties=props
        )

    thread_counts = GridwiseGemmOp.thread_counts

    @property
    def extents(self) -> tuple[int, int]:
        m, n = self.bounds.get_values()
        return int(m), int(n)

    def verify_(self) -> None:
        _verify_reduce_kind(self)
        _static_f32(self, self.acc, "the accumulator", 2, "private")
        rm, rn = _shape(self.acc)
        thm, thn = self.thread_counts
        _verify_epilogue_layout(self, (thm, thn), (rm * thm, rn * thn))
        if self.c is not None:
            _static_f32(self, self.c, "C", 2, None)
            _need(_shape(self.c) == self.extents, self, "C must have the bounds' shape")
        out = _shape(self.out)
        _static_f32(self, self.out, "the output", len(out), None)


@irdl_op_definition
class ThreadwiseReduceOp(IRDLOperation):
    """
    One thread's share of `blockwise_reduce`: `parts[u]` is `method` over
    its registers of its u-th kept row (`dim` 1) or column (`dim` 0) of
    C's elements `acc[i, j] + init`, at `(row + i * strides[0], col + j *
    strides[1])`; elements outside C (`bounds`) count as the identity, and
    with `store_c` each element inside C is also written into `c`.
    """

    name = "xsplit_gemm.threadwise_reduce"

    acc = operand_def(MemRefType)
    parts = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    c = opt_operand_def(MemRefType)
    strides = prop_def(DenseArrayBase)
    bounds = prop_def(DenseArrayBase)
    method = prop_def(StringAttr)
    dim = prop_def(IntegerAttr)
    init = opt_prop_def(FloatAttr)
    store_c = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$acc (`init` $c^)? `to` $parts `[` $row `,` $col `]` attr-dict "
        "`:` type($acc) (`,` type($c)^)? `to` type($parts)"
    )

    def __init__(self, acc, parts, row, col, c, of: BlockwiseReduceOp):
        props: dict = {
            "strides": of.threads,
            **{k: of.properties[k] for k in ("bounds", "method", "dim", "init", "store_c") if k in of.properties},
        }
        super().__init__(operands=[acc, parts, row, col, [c] if c is not None else []], properties=props)

    stride_sizes = ThreadwiseWriteOp.stride_sizes
    extents = BlockwiseReduceOp.extents

    def verify_(self) -> None:
        _name_in(self, self.method, "method", REDUCE_METHODS)
        _need(self.dim.value.data in (0, 1), self, "dim must be 0 (along M) or 1 (along N)")
        _static_f32(self, self.acc, "the accumulator", 2, "private")
        _static_f32(self, self.parts, "the partials", 1, "private")
        kept = _shape(self.acc)[1 - self.dim.value.data]
        _need(_shape(self.parts)[0] == kept, self, f"the partials must hold {kept} kept registers")
        _need(self.init is None or self.c is None, self, "C's init is an operand or a constant, not both")
        _need(self.store_c is None or self.c is not None, self, "store_c needs C")


XsplitGemm = Dialect(
    "xsplit_gemm",
    [
        GridwiseGemmOp,
        MergePartialsOp,
        BlockwiseCopyOp,
        BlockwiseAsyncCopyOp,
        BlockwiseLoadOp,
        BlockwiseStoreOp,
        BlockwiseGatherOp,
        BlockwiseGemmOp,
        BlockwiseMmaOp,
        ThreadwiseFillOp,
        ThreadwiseReadOp,
        ThreadwiseReadTileOp,
        ThreadwiseGemmOp,
        ThreadwiseWriteOp,
        ThreadwiseFragmentOp,
        ThreadwiseMmaOp,
        ThreadwiseWriteFragmentsOp,
        GridwiseGemmReduceOp,
        MergeReducedOp,
        BlockwiseReduceOp,
        ThreadwiseReduceOp,
    ],
)
