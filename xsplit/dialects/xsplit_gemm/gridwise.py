"""`xsplit_gemm`'s gridwise level: the whole problem, one op per GEMM
(`gridwise_gemm`, or `gridwise_gemm_reduce` with a reduction epilogue), and
the ops that merge the chunks' partials (`merge_partials`, `merge_reduced`).
The launch is implied by the tile and the chunk count."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    Float32Type,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from xsplit.dialects.fragments import INTRINSICS, Intrinsic
from xsplit.dialects.xsplit_gemm.common import (
    BATCH_DIM,
    MERGES,
    REDUCE_METHODS,
    aligned_length,
    async_width,
    padded_a_length,
    chunk_count,
    chunk_size,
    gather_refusal,
    i64_array,
    intrinsic_of,
    need,
    need_one_of,
    need_static_memref,
    need_whole_warp_blocks,
    out_shapes,
    reduce_chunks,
    shape_of,
    verify_epilogue_layout,
    verify_mma_operands_and_warps,
    verify_reduce_kind,
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
    """With `register_prefetch`, B (whose rows are whole copies of 4, 8 or
    16 bytes) is staged with asynchronous copies instead, straight into the
    idle pair; only A goes through registers (sm_80 and later, where A's
    rows of 16-bit elements are of an odd length)."""
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
    misaligned_vectors = opt_prop_def(UnitAttr)
    """The target's global vector loads need only their element's
    alignment (gfx942: `global_load_dwordx4` at any 4-byte, even 2-byte,
    address): rows that are not whole vectors (odd K or N) still load 16
    bytes at a time (`ragged` copies), not one element a load."""
    thread_columns = opt_prop_def(IntegerAttr)
    """Without `mma`: each thread's register tile holds its columns in runs
    of this many neighbours (`blockwise_gemm`'s `columns`), so that it
    reads B's row in wide workgroup-memory reads; 1 when absent."""
    stream_b = opt_prop_def(UnitAttr)
    """Without `mma`, one thread along M, stages 2: B is not staged but
    read from global memory straight into each thread's registers
    (`blockwise_stream_gemm`, runs of `thread_columns` a load), each
    element once; only A (every thread's rows: a broadcast) goes through
    workgroup memory, by cp.async, or with `register_prefetch` by plain
    copies into the idle tile after the multiply. For a skinny M, where each
    element of B feeds fewer than 8 FMAs: staged, its copy and its read
    back cost as much as the math (sm_90 SASS on M = 1: 65% FFMA at best)."""

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
        misaligned_vectors: bool = False,
        thread_columns: int = 1,
        stream_b: bool = False,
    ):
        props: dict = {
            "tile": i64_array(tile),
            "threads": i64_array(threads),
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
            props["warps"] = i64_array(warps)
        if misaligned_vectors:
            props["misaligned_vectors"] = UnitAttr()
        if thread_columns != 1:
            props["thread_columns"] = IntegerAttr(thread_columns, i64)
        if stream_b:
            props["stream_b"] = UnitAttr()
        super().__init__(operands=[a, b, c], properties=props)

    @property
    def intrinsic(self) -> Intrinsic | None:
        return None if self.mma is None else INTRINSICS.get(self.mma.data)

    @property
    def column_run(self) -> int:
        return 1 if self.thread_columns is None else self.thread_columns.value.data

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
        # K is B's rows: A's may be padded past it (`pad_rows`).
        k, n = shape_of(self.b)
        return shape_of(self.a)[0], n, k

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
        need(len(self.tile.get_values()) == 3, self, "tile must be [M, N, K] sizes")
        need(len(self.threads.get_values()) == 2, self, "threads must be [M, N] counts")
        need(self.merge_kind in MERGES, self, f"merge must be one of {', '.join(MERGES)}")
        need_static_memref(self, self.a, "A", 2, None, f16=True)
        need_static_memref(self, self.b, "B", 2, None, f16=True)
        partials = self.merge_kind == "partials"
        need_static_memref(self, self.c, "C", 3 if partials else 2, None)
        (m, k), (k2, n) = shape_of(self.a), shape_of(self.b)
        bits = self.a.type.element_type.bitwidth  # type: ignore[attr-defined]
        tm, tn, tk = self.tile_sizes
        # A's rows may be padded (`pad_rows`: zeros before, `front_pad`, and
        # after, to whole 16-byte vectors) for the cp.async loop, and B's
        # past C's N: the padding is zeros, or masked.
        padded_a = k != k2
        want = padded_a_length(k2, self.chunk_count, tk, bits) if min(tk, self.chunk_count) > 0 else k2
        need(
            not padded_a or k == want,
            self,
            f"A's K ({k}) and B's K ({k2}) must agree, or A's rows be padded to {want}",
        )
        need(
            not padded_a
            or (
                self.stage_count >= 2
                and self.register_prefetch is None
                and self.direct_to_lds is None
            ),
            self,
            "a padded A is staged by cp.async: stages 2 to 4, no register_prefetch or direct_to_lds",
        )
        c = shape_of(self.c)
        need(
            c[-2] == m and n in (c[-1], aligned_length(c[-1], bits)),
            self,
            f"C must be {m}x{n}, or B's rows C's padded to whole vectors",
        )
        thm, thn = self.thread_counts
        need(min(tm, tn, tk, thm, thn) > 0, self, "tile and threads must be positive")
        need(
            self.mma is not None or (tm % thm == 0 and tn % thn == 0),
            self,
            "threads must divide the tile",
        )
        t = thm * thn
        need(
            (tm * tk) % t == 0 and (tn * tk) % t == 0,
            self,
            "each thread must copy a whole number of elements of each staged tile",
        )
        g = self.column_run
        need(
            g == 1 or (self.mma is None and g > 0 and (tn // thn) % g == 0),
            self,
            "thread_columns must divide each thread's columns (FMAs only)",
        )
        s = self.chunk_count
        need(s >= 1, self, "chunks must be at least 1")
        need(s == 1 or self.merge_kind != "store", self, "merge store takes one chunk")
        need(
            chunk_count(k, s, tk) == s,
            self,
            f"{s} chunks of whole {tk}-steps leave an empty chunk of K = {k}",
        )
        if partials:
            need(c[0] == s, self, f"the partials buffer must have {s} chunks")
        need(self.stage_count in (1, 2, 3, 4), self, "stages must be 1 to 4")
        async_copies = (
            self.stage_count >= 2 and self.register_prefetch is None and self.direct_to_lds is None
        )
        need(
            async_copies or self.stage_count <= 2,
            self,
            "stages 3 and 4 are cp.async's: through registers or direct to LDS it is 2",
        )
        # Each tile is then a multiple of 16 bytes: the 16-byte async copies
        # into the B tiles that follow the A tiles stay aligned.
        need(not async_copies or tk % 4 == 0, self, "stages 2 needs K steps of a multiple of 4")
        need(
            not async_copies
            or self.a_k_major is None
            or isinstance(self.a.type.element_type, Float32Type),  # type: ignore[attr-defined]
            self,
            "stages 2 with a K-major A needs f32 (its transposed copies are 4 bytes an element)",
        )
        need(
            self.register_prefetch is None or self.stage_count == 2,
            self,
            "register_prefetch is a way of double buffering: it needs stages 2",
        )
        if self.async_b is not None:
            need(self.register_prefetch is not None, self, "async_b goes with register_prefetch")
            bits = self.b.type.element_type.bitwidth  # type: ignore[attr-defined]
            need(
                async_width(bits, n, (tk, tn), t) > 0,
                self,
                "async_b needs B's rows in copies of 4, 8 or 16 bytes that the threads divide",
            )
        if self.direct_to_lds is not None:
            need(
                self.stage_count == 2 and self.register_prefetch is None,
                self,
                "direct_to_lds is a way of double buffering: it needs stages 2 and no "
                "register_prefetch",
            )
            need(self.a_k_major is None, self, "direct_to_lds stages A as it is (M-major)")
            for v, rows, cols, name in ((self.a, tm, tk, "A"), (self.b, tk, tn, "B")):
                why = gather_refusal(v, (rows, cols), t)
                need(why is None, self, f"direct_to_lds cannot copy {name}: {why}")
        if async_copies and self.a.type.element_type.bitwidth == 16:  # type: ignore[attr-defined]
            # 2 bytes is below cp.async's 4: rows copy in pairs at least.
            need(
                async_width(16, k, (tm, tk), t) > 0 and async_width(16, n, (tk, tn), t) > 0,
                self,
                "stages 2 with 16-bit elements needs K and N even, in copies of 2, 4 or 8 that "
                "the threads divide (cp.async copies 4 bytes at least)",
            )
        need((self.mma is None) == (self.warps is None), self, "mma and warps go together")
        if self.stream_b is not None:
            self._verify_stream_b()
        if self.mma is not None:
            self._verify_mma()

    def _verify_stream_b(self) -> None:
        thm, thn = self.thread_counts
        need(
            self.mma is None and self.a_k_major is None and self.direct_to_lds is None,
            self,
            "stream_b takes FMAs and an M-major A",
        )
        need(self.stage_count == 2 and self.async_b is None, self, "stream_b stages A in 2 stages")
        need(thm == 1, self, "stream_b takes one thread along M (each thread has every row)")
        types = (v.type.element_type for v in (self.a, self.b))  # type: ignore[attr-defined]
        f32 = all(isinstance(t, Float32Type) for t in types)
        need(
            f32,
            self,
            "stream_b takes f32 A and B (A's copies are 4 bytes an element)",
        )
        g, n = self.column_run, shape_of(self.b)[1]
        need(n % g == 0, self, f"stream_b loads runs of {g}: B's rows must be whole runs")

    def _verify_mma(self) -> None:
        intr = self.intrinsic
        need(intr is not None, self, f"mma must be one of {', '.join(INTRINSICS)}")
        assert intr is not None
        wm, wn = verify_mma_operands_and_warps(self, intr)
        need(
            self.thread_counts == (wm, wn * intr.lanes),
            self,
            f"threads must be [warps[0], warps[1] * {intr.lanes}]",
        )
        need_whole_warp_blocks(self, intr, (wm, wn))


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
        m, n = shape_of(self.c)
        return (-(-n // self.thread_count), m, 1)

    @property
    def block(self) -> tuple[int, int, int]:
        return (self.thread_count, 1, 1)

    def verify_(self) -> None:
        need_static_memref(self, self.partials, "the partials", 3, None)
        need_static_memref(self, self.c, "C", 2, None)
        need(shape_of(self.partials)[1:] == shape_of(self.c), self, "partials and C must agree")
        need(self.thread_count > 0, self, "threads must be positive")


@irdl_op_definition
class PadRowsOp(IRDLOperation):
    """
    `dst[i, j] = src[i, j - front]` where that column is inside `src`, else
    0: `src`'s rows widened to `dst`'s, so that every row of `dst` starts on a 16-byte
    boundary and a GEMM kernel stages it with 16-byte `cp.async` (16-bit
    rows of an odd length start 2 bytes into a word, which no `cp.async`
    can copy). One thread per element of `dst`, counted along its rows,
    `threads` per workgroup, the workgroups along grid x.
    """

    name = "xsplit_gemm.pad_rows"

    src = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    threads = prop_def(IntegerAttr)
    front = opt_prop_def(IntegerAttr)
    """Zeros before each row: `dst[i, j] = src[i, j - front]` (0 when absent)."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$src `into` $dst attr-dict `:` type($src) `into` type($dst)"

    def __init__(self, src: SSAValue, dst: SSAValue, threads: int, front: int = 0):
        props = {"threads": IntegerAttr(threads, i64)}
        if front:
            props["front"] = IntegerAttr(front, i64)
        super().__init__(operands=[src, dst], properties=props)

    @property
    def front_count(self) -> int:
        return 0 if self.front is None else self.front.value.data

    @property
    def thread_count(self) -> int:
        return self.threads.value.data

    @property
    def grid(self) -> tuple[int, int, int]:
        rows, cols = shape_of(self.dst)
        return (-(-rows * cols // self.thread_count), 1, 1)

    @property
    def block(self) -> tuple[int, int, int]:
        return (self.thread_count, 1, 1)

    def verify_(self) -> None:
        need_static_memref(self, self.src, "the source", 2, None, f16=True)
        need_static_memref(self, self.dst, "the destination", 2, None, f16=True)
        need(
            self.src.type.element_type == self.dst.type.element_type,  # type: ignore[attr-defined]
            self,
            "the destination must hold the source's element type",
        )
        (rows, cols), (rows2, cols2) = shape_of(self.src), shape_of(self.dst)
        need(
            rows == rows2 and cols2 >= cols + self.front_count and self.front_count >= 0,
            self,
            "the destination's rows must be the source's, widened",
        )
        need(self.thread_count > 0, self, "threads must be positive")


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
    With `a_transposed` A is given K x M, with `b_transposed` B N x K (an
    operand transposed in memory): the K loop's copies read it as it lies,
    into the tiles it always fills. With `dim` 2 (`BATCH_DIM`) the op is
    one batch of a GEMM reduced along its batch: every element of C is its
    own output, merged into `out[m, n]` (stage `atomic`), or stored into
    the batch's M x N partials `out[m, n]`.
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
    a_transposed = opt_prop_def(UnitAttr)
    """A is K x M in memory (A[k, m]): its rows run along M."""
    b_transposed = opt_prop_def(UnitAttr)
    """B is N x K in memory (B[n, k]): its rows run along K."""
    workgroup_level = opt_prop_def(UnitAttr)
    """For llvm-cpu, which runs workgroup-level code only: the workgroup is
    one thread (`threads` 1x1) that loops over its C tile, each element's
    dot product read from A and B as they lie (K step 0: nothing staged, no
    workgroup memory, no barriers), each kept row or column combined in
    order before its one atomic or partial."""

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
        a_transposed: bool = False,
        b_transposed: bool = False,
        workgroup_level: bool = False,
    ):
        props: dict = {
            "tile": i64_array(tile),
            "threads": i64_array(threads),
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
            props["warps"] = i64_array(warps)
        if a_transposed:
            props["a_transposed"] = UnitAttr()
        if b_transposed:
            props["b_transposed"] = UnitAttr()
        if workgroup_level:
            props["workgroup_level"] = UnitAttr()
        super().__init__(operands=[a, b, out, [c] if c is not None else []], properties=props)

    # What the K loop of `lower-gridwise-gemm` reads, as on `gridwise_gemm`.
    stage_count = GridwiseGemmOp.stage_count
    tile_sizes = GridwiseGemmOp.tile_sizes
    thread_counts = GridwiseGemmOp.thread_counts
    block = GridwiseGemmOp.block
    intrinsic = GridwiseGemmOp.intrinsic
    warp_counts = GridwiseGemmOp.warp_counts

    @property
    def operand_shapes(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """A as M x K and B as K x N, whichever way they lie in memory."""
        (a0, a1), (b0, b1) = shape_of(self.a), shape_of(self.b)
        a = (a1, a0) if self.a_transposed is not None else (a0, a1)
        b = (b1, b0) if self.b_transposed is not None else (b0, b1)
        return a, b

    @property
    def mnk(self) -> tuple[int, int, int]:
        (m, _), (k, n) = self.operand_shapes
        return m, n, k

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
        if d == BATCH_DIM:  # the batch's own row of the partials
            return 1
        return reduce_chunks(
            self.mnk[d], self.tile_sizes[d], self.thread_counts[d], self.stage.data
        )

    def verify_(self) -> None:
        need(len(self.tile.get_values()) == 3, self, "tile must be [M, N, K] sizes")
        need(len(self.threads.get_values()) == 2, self, "threads must be [M, N] counts")
        verify_reduce_kind(self)
        need_static_memref(self, self.a, "A", 2, None, f16=True)
        need_static_memref(self, self.b, "B", 2, None, f16=True)
        (m, k), (k2, n) = self.operand_shapes
        need(k == k2, self, f"A's K ({k}) and B's K ({k2}) must agree")
        transposed = self.a_transposed is not None or self.b_transposed is not None
        # The transposed copies are the one-stage loop's FMA tiles; the
        # tensor-core tiles and the async copies read rows as gemm-kernel's do.
        need(
            not transposed or (self.mma is None and self.stage_count == 1),
            self,
            "a transposed A or B takes FMAs (no mma) and one stage",
        )
        if self.c is not None:
            need_static_memref(self, self.c, "C", 2, None)
            need(shape_of(self.c) == (m, n), self, f"C must be {m}x{n}")
        tm, tn, tk = self.tile_sizes
        thm, thn = self.thread_counts
        if self.workgroup_level is not None:
            self._verify_workgroup_level()
        else:
            need(tk > 0, self, "tile and threads must be positive")
        need(min(tm, tn, thm, thn) > 0, self, "tile and threads must be positive")
        need(tm % thm == 0 and tn % thn == 0, self, "threads must divide the tile")
        need(
            (tm * tk) % (thm * thn) == 0 and (tn * tk) % (thm * thn) == 0,
            self,
            "each thread must copy a whole number of elements of each staged tile",
        )
        d = self.dim.value.data
        out = shape_of(self.out)
        if d == BATCH_DIM:
            # The batch's partials (M x N); or the output itself, C's shape
            # (a kept batch dimension of 1 in front).
            want = [(m, n)] if self.merge.data == "partials" else [(m, n), (1, m, n)]
            need_static_memref(self, self.out, "the output", len(out), None)
            shapes = " or ".join("x".join(map(str, w)) for w in want)
            need(out in want, self, f"the output must be {shapes}")
        elif self.merge.data == "partials":
            kept = (n, m)[d]
            need_static_memref(self, self.out, "the partials", 2, None)
            need(
                out == (self.partial_chunks, kept),
                self,
                f"the partials must be {self.partial_chunks}x{kept}",
            )
        else:
            kept = (n, m)[d]
            need_static_memref(self, self.out, "the output", len(out), None)
            need(out in out_shapes(kept, d), self, f"the output must hold {kept} elements")
        verify_epilogue_layout(self, (thm, thn), (tm, tn))
        need(self.stage_count in (1, 2), self, "stages must be 1 or 2")
        need(self.stage_count == 1 or tk % 4 == 0, self, "stages 2 needs K steps of a multiple of 4")
        need((self.mma is None) == (self.warps is None), self, "mma and warps go together")
        if self.mma is not None:
            self._verify_mma()

    def _verify_workgroup_level(self) -> None:
        need(self.thread_counts == (1, 1), self, "workgroup_level runs one thread: threads 1x1")
        need(self.tile_sizes[2] == 0, self, "workgroup_level stages nothing: a K step of 0")
        need(self.stage.data == "atomic", self, "workgroup_level exchanges nothing: stage atomic")
        need(self.mma is None and self.stage_count == 1, self, "workgroup_level takes FMAs, one stage")

    def _verify_mma(self) -> None:
        intr = intrinsic_of(self, self.mma)  # type: ignore[arg-type]
        wm, wn = verify_mma_operands_and_warps(self, intr)
        thm, thn = self.thread_counts
        need(
            thm * thn == wm * wn * intr.lanes,
            self,
            f"threads must count warps[0] x warps[1] x {intr.lanes} threads",
        )
        need_whole_warp_blocks(self, intr, (wm, wn))


@irdl_op_definition
class MergeReducedOp(IRDLOperation):
    """
    `out[e] = method(out[e], partials[0, e], partials[1, e], ...)`, in that
    order for every output element e (row-major): the ordered second pass of
    the fused reduction's deterministic form. One thread per element,
    `threads` per workgroup along grid x; an output that is a matrix (a
    reduction along the batch: M x N, or 1 x M x N) has its rows along grid
    y, and its partials are chunks x M x N (`partials[c, m, n]`), so that
    every index stays affine in the thread id.
    """

    name = "xsplit_gemm.merge_reduced"

    partials = operand_def(MemRefType)
    out = operand_def(MemRefType)
    method = prop_def(StringAttr)
    threads = prop_def(IntegerAttr)
    workgroup_level = opt_prop_def(UnitAttr)
    """For llvm-cpu: the workgroup's one thread loops over the `threads`
    elements a GPU workgroup's threads would take."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$partials `into` $out attr-dict `:` type($partials) `into` type($out)"

    def __init__(
        self, partials: SSAValue, out: SSAValue, method: str, threads: int,
        workgroup_level: bool = False,
    ):
        props: dict = {"method": StringAttr(method), "threads": IntegerAttr(threads, i64)}
        if workgroup_level:
            props["workgroup_level"] = UnitAttr()
        super().__init__(operands=[partials, out], properties=props)

    @property
    def elements(self) -> int:
        n = 1
        for s in shape_of(self.out):
            n *= s
        return n

    @property
    def thread_count(self) -> int:
        return self.threads.value.data

    @property
    def matrix(self) -> tuple[int, int] | None:
        """Rows and columns of a matrix output (M x N, or 1 x M x N); None
        for a vector."""
        out = shape_of(self.out)
        if sum(1 for s in out if s != 1) <= 1 and len(out) <= 2:
            return None
        return out[-2], out[-1]

    @property
    def grid(self) -> tuple[int, int, int]:
        if self.matrix is not None:
            rows, cols = self.matrix
            return (-(-cols // self.thread_count), rows, 1)
        return (-(-self.elements // self.thread_count), 1, 1)

    @property
    def block(self) -> tuple[int, int, int]:
        return (1 if self.workgroup_level is not None else self.thread_count, 1, 1)

    def verify_(self) -> None:
        need_one_of(self, self.method, "method", REDUCE_METHODS)
        out = shape_of(self.out)
        need_static_memref(self, self.out, "the output", len(out), None)
        # Indices stay affine in the thread id: one dimension of the output
        # is not 1 at most (no div/rem of the element index), or a matrix
        # whose rows run along grid y.
        vector = len(out) in (1, 2) and sum(1 for s in out if s != 1) <= 1
        matrix = len(out) == 2 or (len(out) == 3 and out[0] == 1)
        need(
            vector or matrix,
            self,
            "the output must be a vector (rank 1, or rank 2 with a dimension of 1) or a matrix "
            "(rank 2, or rank 3 with a first dimension of 1)",
        )
        if self.matrix is not None:
            need_static_memref(self, self.partials, "the partials", 3, None)
            need(
                shape_of(self.partials)[1:] == self.matrix,
                self,
                "partials and output must agree (chunks x M x N for a matrix)",
            )
            need(self.thread_count > 0, self, "threads must be positive")
            return
        need_static_memref(self, self.partials, "the partials", 2, None)
        need(shape_of(self.partials)[1] == self.elements, self, "partials and output must agree")
        need(self.thread_count > 0, self, "threads must be positive")
