"""`xsplit_gemm`'s blockwise level: what one workgroup's threads do together.
Stage a tile of A or B in workgroup memory (at once, asynchronously, through
registers in two halves, or gathered), multiply the staged tiles into each
thread's registers (FMA or tensor-core fragments), and combine a fused
reduction's partials across the workgroup."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IndexType,
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
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from xsplit.dialects.fragments import Intrinsic
from xsplit.dialects.nvgpu import DeviceAsyncTokenType
from xsplit.dialects.xsplit_gemm.common import (
    GATHER_BYTES,
    gather_refusal,
    i64_array,
    intrinsic_of,
    layout_props,
    need,
    need_static_memref,
    shape_of,
    verify_epilogue_layout,
    verify_fragments_acc,
    verify_layout,
    verify_reduce_kind,
)


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
    inside or outside. With `ragged` the source's rows need not be whole
    vectors (a target whose vector loads take any element-aligned address):
    the vector that straddles a row's end is read element by element, each
    masked. `row` and `col` are multiples of the sizes.
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
    ragged = opt_prop_def(UnitAttr)
    """The source's rows need not be whole vectors (see above)."""
    inside = opt_prop_def(DenseArrayBase)
    """Dimensions of the copy (0: its rows, 1: its columns) that lie inside
    the source wherever the op runs (the caller's loop bounds say so): no
    mask along them."""
    clamp = opt_prop_def(DenseArrayBase)
    """Dimensions of the copy along which an element outside the source is
    read from the source's last row (0) or last vector of a row (1) instead
    of masked to zero: the caller never uses it (a GEMM's rows of A past M
    and columns of B past N make only the C elements it does not write), and
    the load needs no branch or zeroed registers."""

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
        ragged: bool = False,
        inside: tuple[int, ...] = (),
        clamp: tuple[int, ...] = (),
    ):
        props = {"sizes": i64_array(sizes), "threads": IntegerAttr(threads, i64)}
        if transpose:
            props["transpose"] = UnitAttr()
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        _source_props(props, ragged, inside, clamp)
        layout_props(props, swizzle, kpack)
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

    @property
    def inside_dims(self) -> tuple[int, ...]:
        return () if self.inside is None else tuple(int(d) for d in self.inside.get_values())

    @property
    def clamp_dims(self) -> tuple[int, ...]:
        return () if self.clamp is None else tuple(int(d) for d in self.clamp.get_values())

    def verify_(self) -> None:
        _verify_copy(self)


def _verify_copy(self) -> None:
    """The invariants of both staged copies."""
    need_static_memref(self, self.src, "the source", 2, None, f16=True)
    need_static_memref(self, self.tile, "the tile", 2, "workgroup", f16=True)
    need(
        self.src.type.element_type == self.tile.type.element_type,  # type: ignore[attr-defined]
        self,
        "the tile must hold the source's element type",
    )
    need(len(self.sizes.get_values()) == 2, self, "sizes must be [rows, columns]")
    r, c = self.copy_sizes
    room = shape_of(self.tile)
    want = (c, r) if self.transpose else (r, c)
    kpack = getattr(self, "kpack", None) is not None
    if not kpack:
        need(room[0] >= want[0] and room[1] >= want[1], self, "the tile is smaller than the copy")
    w = self.width
    need(w > 0 and c % w == 0, self, f"a vector of {w} must divide the copy's rows")
    _need_whole_rows(self)
    need((r * c // w) % self.thread_count == 0, self, "threads must divide the copy")
    verify_layout(self, self.tile, r, c)


def _source_props(
    props: dict, ragged: bool, inside: tuple[int, ...], clamp: tuple[int, ...] = ()
) -> None:
    if ragged:
        props["ragged"] = UnitAttr()
    if inside:
        props["inside"] = i64_array(tuple(sorted(set(inside))))
    if clamp:
        props["clamp"] = i64_array(tuple(sorted(set(clamp))))


def _need_whole_rows(self) -> None:
    """The source's rows are whole vectors unless the copy is `ragged`;
    `inside` names the copy's dimensions."""
    need(set(getattr(self, "inside_dims", ())) <= {0, 1}, self, "inside names dimensions 0 and 1")
    need(set(getattr(self, "clamp_dims", ())) <= {0, 1}, self, "clamp names dimensions 0 and 1")
    w = self.width
    if getattr(self, "ragged", None) is None:
        need(shape_of(self.src)[1] % w == 0, self, f"a vector of {w} must divide the source's rows")


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
    inside = opt_prop_def(DenseArrayBase)
    """The dimensions (0: rows, 1: columns) along which the copy is known
    to lie inside the source: no mask along them (a K loop whose steps
    are all whole, `lower-gridwise-gemm`'s residue first)."""
    row_threads = opt_prop_def(IntegerAttr)
    """Threads that share a row of the copy (default: as many as its
    vectors, or all): each copies every `row_threads`-th vector of its
    rows, so that its vectors of a row are constant offsets from one
    address (sm_90's LDGSTS takes an immediate offset of +-2 KiB, less
    than a row of B)."""
    token = result_def(DeviceAsyncTokenType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$src `[` $row `,` $col `]` `to` $tile `thread` $thread attr-dict "
        "`:` type($src) `to` type($tile)"
    )

    def __init__(
        self, src, row, col, tile, thread, sizes, threads, transpose=False, vector=1, swizzle=False,
        inside=(), row_threads=None,
    ):  # fmt: skip
        props: dict = {"sizes": i64_array(sizes), "threads": IntegerAttr(threads, i64)}
        if transpose:
            props["transpose"] = UnitAttr()
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        layout_props(props, swizzle, 1)
        if inside:
            props["inside"] = i64_array(sorted(inside))
        if row_threads is not None:
            props["row_threads"] = IntegerAttr(row_threads, i64)
        super().__init__(
            operands=[src, row, col, tile, thread],
            properties=props,
            result_types=[DeviceAsyncTokenType()],
        )

    copy_sizes = BlockwiseCopyOp.copy_sizes
    thread_count = BlockwiseCopyOp.thread_count
    width = BlockwiseCopyOp.width

    @property
    def inside_dims(self) -> tuple[int, ...]:
        return () if self.inside is None else tuple(int(d) for d in self.inside.get_values())

    @property
    def row_thread_count(self) -> int | None:
        return None if self.row_threads is None else self.row_threads.value.data

    def verify_(self) -> None:
        _verify_copy(self)
        dims = self.inside_dims
        need(
            all(d in (0, 1) for d in dims) and len(set(dims)) == len(dims),
            self,
            "inside names dimensions 0 (rows) and 1 (columns), once each",
        )
        share = self.row_thread_count
        if share is not None:
            rows, cols = self.copy_sizes
            runs, threads = cols // self.width, self.thread_count
            need(not self.transpose, self, "row_threads copies rows, not transposed runs")
            need(
                share > 0 and runs % share == 0 and threads % share == 0
                and rows % (threads // share) == 0,
                self,
                "row_threads must divide the vectors of a row and the threads, and the "
                "rows they cover at once the copy's rows",
            )  # fmt: skip


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
    ragged = opt_prop_def(UnitAttr)
    """As `blockwise_copy`'s: the source's rows need not be whole vectors."""
    inside = opt_prop_def(DenseArrayBase)
    """As `blockwise_copy`'s: dimensions with no mask."""
    clamp = opt_prop_def(DenseArrayBase)
    """As `blockwise_copy`'s: dimensions read clamped to the source, not masked."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$src `[` $row `,` $col `]` `to` $regs `thread` $thread attr-dict "
        "`:` type($src) `to` type($regs)"
    )

    def __init__(
        self, src, row, col, regs, thread, sizes, threads, vector=1, kpack=1, ragged=False,
        inside=(), clamp=(),
    ):  # fmt: skip
        props: dict = {"sizes": i64_array(sizes), "threads": IntegerAttr(threads, i64)}
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        _source_props(props, ragged, inside, clamp)
        layout_props(props, False, kpack)
        super().__init__(operands=[src, row, col, regs, thread], properties=props)

    copy_sizes = BlockwiseCopyOp.copy_sizes
    thread_count = BlockwiseCopyOp.thread_count
    width = BlockwiseCopyOp.width
    kpack_size = BlockwiseCopyOp.kpack_size
    inside_dims = BlockwiseCopyOp.inside_dims
    clamp_dims = BlockwiseCopyOp.clamp_dims

    def verify_(self) -> None:
        need_static_memref(self, self.src, "the source", 2, None, f16=True)
        _verify_registers(self, self.src)
        _need_whole_rows(self)


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
        props: dict = {"sizes": i64_array(sizes), "threads": IntegerAttr(threads, i64)}
        if transpose:
            props["transpose"] = UnitAttr()
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        layout_props(props, swizzle, kpack)
        super().__init__(operands=[regs, tile, thread], properties=props)

    copy_sizes = BlockwiseCopyOp.copy_sizes
    thread_count = BlockwiseCopyOp.thread_count
    width = BlockwiseCopyOp.width
    kpack_size = BlockwiseCopyOp.kpack_size

    def verify_(self) -> None:
        need_static_memref(self, self.tile, "the tile", 2, "workgroup", f16=True)
        _verify_registers(self, self.tile)
        r, c = self.copy_sizes
        room = shape_of(self.tile)
        want = (c, r) if self.transpose else (r, c)
        if self.kpack is None:
            big = room[0] >= want[0] and room[1] >= want[1]
            need(big, self, "the tile is smaller than the copy")
        verify_layout(self, self.tile, r, c)


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
        need_static_memref(self, self.src, "the source", 2, None, f16=True)
        need_static_memref(self, self.tile, "the tile", 2, "workgroup", f16=True)
        need(
            self.src.type.element_type == self.tile.type.element_type,  # type: ignore[attr-defined]
            self,
            "the tile must hold the source's element type",
        )
        why = gather_refusal(self.src, shape_of(self.tile), self.thread_count)  # type: ignore[arg-type]
        need(why is None, self, str(why))


def register_shape(sizes: tuple[int, int], threads: int, width: int, kpack: int = 1) -> list[int]:
    """One thread's registers for a copy split in `width`-element vectors
    among `threads` threads: [vectors, width]; K-packed, in slices of
    `kpack` vectors: [slices, kpack * width]."""
    r, c = sizes
    return [r * c // width // threads // kpack, width * kpack]


def _verify_registers(self, other: SSAValue) -> None:
    """The invariants of a split copy's registers (`regs`), whose elements
    are those of `other` (the source or the tile)."""
    need_static_memref(self, self.regs, "the registers", 2, "private", f16=True)
    need(
        self.regs.type.element_type == other.type.element_type,  # type: ignore[attr-defined]
        self,
        "the registers must hold the copy's element type",
    )
    need(len(self.sizes.get_values()) == 2, self, "sizes must be [rows, columns]")
    r, c = self.copy_sizes
    w = self.width
    need(w > 0 and c % w == 0, self, f"a vector of {w} must divide the copy's rows")
    need((r * c // w) % self.thread_count == 0, self, "threads must divide the copy")
    want = register_shape((r, c), self.thread_count, w, self.kpack_size)
    need(list(shape_of(self.regs)) == want, self, f"the registers must be {want[0]}x{want[1]}")


@irdl_op_definition
class BlockwiseGemmOp(IRDLOperation):
    """
    Each thread adds the staged K step to its register tile:
    `acc[i, j] += sum over kk of a[kk, tm + i * threads[0]] * b[kk, tn + j * threads[1]]`
    with `tm = thread / threads[1]` and `tn = thread % threads[1]`: registers
    strided by the thread counts, so that neighbouring threads read
    neighbouring words of workgroup memory. `b` is stored K-major (its rows
    are K); `a` too, or M-major (`a[tm + i * threads[0], kk]`) with
    `a_m_major`. With `columns = g` each thread's columns come in runs of
    g neighbours (one wide read each): `b[kk, tn * g + (j / g) * threads[1]
    * g + j % g]`.
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
    columns = opt_prop_def(IntegerAttr)
    """Each thread's columns in runs of this many; 1 when absent."""

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
        columns: int = 1,
    ):
        props: dict = {"threads": i64_array(threads), "step_k": IntegerAttr(step_k, i64)}
        if a_m_major:
            props["a_m_major"] = UnitAttr()
        if columns != 1:
            props["columns"] = IntegerAttr(columns, i64)
        super().__init__(operands=[acc, a, b, thread], properties=props)

    @property
    def thread_counts(self) -> tuple[int, int]:
        thm, thn = self.threads.get_values()
        return int(thm), int(thn)

    @property
    def column_run(self) -> int:
        return 1 if self.columns is None else self.columns.value.data

    @property
    def steps(self) -> int:
        return self.step_k.value.data

    def verify_(self) -> None:
        need_static_memref(self, self.acc, "the accumulator", 2, "private")
        need_static_memref(self, self.a, "the A tile", 2, "workgroup", f16=True)
        need_static_memref(self, self.b, "the B tile", 2, "workgroup", f16=True)
        rm, rn = shape_of(self.acc)
        thm, thn = self.thread_counts
        am, ak = shape_of(self.a)[::-1] if self.a_m_major is None else shape_of(self.a)
        need(am >= rm * thm, self, "the A tile is narrower than the threads' rows")
        need(shape_of(self.b)[1] >= rn * thn, self, "the B tile is narrower than the threads' columns")
        g = self.column_run
        need(g > 0 and rn % g == 0, self, "columns must divide each thread's columns")
        k = self.steps
        need(0 < k <= min(ak, shape_of(self.b)[0]), self, "step_k exceeds the tiles")


@irdl_op_definition
class BlockwiseStreamGemmOp(IRDLOperation):
    """
    Each thread adds a K step to its register tile, B read from global
    memory straight into registers, each element once:
    `acc[i, j] += sum over kk of a[i, kk] * b[row + kk, col + n(j)]` with
    `n(j) = thread * g + (j / g) * threads * g + j % g` (g = `vector`: each
    run of g columns one load, neighbouring threads on neighbouring runs).
    `a` is the staged A tile, M-major; every thread reads all its rows (one
    address for the whole workgroup: a broadcast). Registers of columns
    past B's hold what B's last run gives them (the write masks them);
    rows past B's K read zeros with `ragged_k`, else every row is inside
    (the caller's loop runs whole steps).
    """

    name = "xsplit_gemm.blockwise_stream_gemm"

    acc = operand_def(MemRefType)
    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    thread = operand_def(IndexType)
    threads = prop_def(IntegerAttr)
    step_k = prop_def(IntegerAttr)
    vector = opt_prop_def(IntegerAttr)
    """Columns per load of B (4: 128 bits of f32); 1 when absent."""
    ragged_k = opt_prop_def(UnitAttr)
    """Rows of the step may lie past B's K: masked, read as zeros."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$a `*` $b `[` $row `,` $col `]` `into` $acc `thread` $thread attr-dict "
        "`:` type($a) `,` type($b) `into` type($acc)"
    )

    def __init__(
        self, acc: SSAValue, a: SSAValue, b: SSAValue, row: SSAValue, col: SSAValue,
        thread: SSAValue, threads: int, step_k: int, vector: int = 1, ragged_k: bool = False,
    ):  # fmt: skip
        props: dict = {"threads": IntegerAttr(threads, i64), "step_k": IntegerAttr(step_k, i64)}
        if vector != 1:
            props["vector"] = IntegerAttr(vector, i64)
        if ragged_k:
            props["ragged_k"] = UnitAttr()
        super().__init__(operands=[acc, a, b, row, col, thread], properties=props)

    @property
    def thread_count(self) -> int:
        return self.threads.value.data

    @property
    def steps(self) -> int:
        return self.step_k.value.data

    @property
    def width(self) -> int:
        return 1 if self.vector is None else self.vector.value.data

    def verify_(self) -> None:
        need_static_memref(self, self.acc, "the accumulator", 2, "private")
        need_static_memref(self, self.a, "the A tile", 2, "workgroup", f16=True)
        need_static_memref(self, self.b, "B", 2, None, f16=True)
        rm, rn = shape_of(self.acc)
        need(shape_of(self.a)[0] >= rm, self, "the A tile has fewer rows than the accumulator")
        g = self.width
        need(g > 0 and rn % g == 0, self, "vector must divide each thread's columns")
        need(shape_of(self.b)[1] % g == 0, self, f"a load of {g} must divide B's rows")
        need(self.thread_count > 0, self, "threads must be positive")
        need(0 < self.steps <= shape_of(self.a)[1], self, "step_k exceeds the A tile")


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
            "warps": i64_array(warps),
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
        return intrinsic_of(self, self.mma)

    @property
    def warp_counts(self) -> tuple[int, int]:
        wm, wn = self.warps.get_values()
        return int(wm), int(wn)

    @property
    def steps(self) -> int:
        return self.step_k.value.data

    def verify_(self) -> None:
        intr = self.intrinsic
        verify_fragments_acc(self, self.acc, intr)
        need_static_memref(self, self.a, "the A tile", 2, "workgroup", f16=True)
        need_static_memref(self, self.b, "the B tile", 2, "workgroup", f16=True)
        fm, fn, _ = shape_of(self.acc)
        wm, wn = self.warp_counts
        need(
            shape_of(self.a)[0] >= fm * intr.m * wm,
            self,
            "the A tile is narrower than the warps' rows",
        )
        kp = self.b_kpack_size
        b_rows, b_cols = shape_of(self.b)
        need(
            b_cols >= fn * intr.n * wn * kp,
            self,
            "the B tile is narrower than the warps' columns",
        )
        k = self.steps
        need(k > 0 and k % intr.k == 0, self, f"step_k must be whole K blocks of {intr.k}")
        need(k <= min(shape_of(self.a)[1], b_rows * kp), self, "step_k exceeds the tiles")
        need(intr.k % kp == 0, self, f"b_kpack must divide the intrinsic's K ({intr.k})")


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

    def __init__(self, acc, out, row, col, thread, c, threads, bounds, of: IRDLOperation):
        # `of` is the gridwise_gemm_reduce op being lowered: its epilogue's
        # properties carry over as they are.
        props: dict = {
            "threads": i64_array(threads),
            "bounds": i64_array(bounds),
            **{
                k: of.properties[k]
                for k in ("method", "dim", "stage", "merge", "subgroup", "exchange", "init", "store_c")
                if k in of.properties
            },
        }
        super().__init__(
            operands=[acc, out, row, col, thread, [c] if c is not None else []], properties=props
        )

    @property
    def thread_counts(self) -> tuple[int, int]:
        thm, thn = self.threads.get_values()
        return int(thm), int(thn)

    @property
    def extents(self) -> tuple[int, int]:
        m, n = self.bounds.get_values()
        return int(m), int(n)

    def verify_(self) -> None:
        verify_reduce_kind(self)
        need_static_memref(self, self.acc, "the accumulator", 2, "private")
        rm, rn = shape_of(self.acc)
        thm, thn = self.thread_counts
        verify_epilogue_layout(self, (thm, thn), (rm * thm, rn * thn))
        if self.c is not None:
            need_static_memref(self, self.c, "C", 2, None)
            need(shape_of(self.c) == self.extents, self, "C must have the bounds' shape")
        out = shape_of(self.out)
        need_static_memref(self, self.out, "the output", len(out), None)
