"""`xsplit_gemm`'s threadwise level: one thread's registers, held in a
private memref whose indices are all constants once lowered, so that LLVM
keeps it in registers: fill, read and write them, multiply with FMAs or one
tensor-core intrinsic, and reduce them for a fused reduction."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    VectorType,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
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

from xsplit.dialects.fragments import INTRINSICS, Intrinsic
from xsplit.dialects.xsplit_gemm.common import (
    BATCH_DIM,
    MERGES,
    REDUCE_METHODS,
    i64_array,
    intrinsic_of,
    kpacked,
    layout_props,
    need,
    need_one_of,
    need_static_memref,
    paired,
    shape_of,
    swizzle_fits,
    swizzled,
    verify_fragments_acc,
)
from xsplit.dialects.xsplit_gemm.blockwise import BlockwiseReduceOp


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
        t = VectorType(tile.type.element_type, paired(frag.shape, pair))
        props: dict = {"mma": StringAttr(mma), "operand": StringAttr(operand)}
        if loads:
            props["loads"] = UnitAttr()
        if pair:
            props["pair"] = UnitAttr()
        layout_props(props, swizzle, kpack)
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
            return swizzled(x, row, col, shape_of(self.tile)[1], size)
        return row, col

    @property
    def intrinsic(self) -> Intrinsic:
        return intrinsic_of(self, self.mma)

    @property
    def fragment(self):
        intr = self.intrinsic
        return intr.a if self.operand.data == "a" else intr.b

    def verify_(self) -> None:
        need(self.operand.data in ("a", "b"), self, "operand must be a or b")
        need_static_memref(self, self.tile, "the tile", 2, "workgroup", f16=True)
        t = self.result.type
        assert isinstance(t, VectorType)
        frag = self.fragment
        element = self.tile.type.element_type  # type: ignore[attr-defined]
        want = paired(frag.shape, self.pair is not None)
        shape = "x".join(map(str, want))
        need(
            tuple(t.get_shape()) == want and t.element_type == element,
            self,
            f"the fragment must be a vector of {shape} of the tile's elements",
        )
        if self.pair is not None:
            need(
                self.operand.data == "b" and self.kpack is None,
                self,
                "pair reads two B fragments of an unpacked tile",
            )
        one = self.swizzle is None or self.kpack is None
        need(one, self, "swizzle and kpack exclude each other")
        if self.swizzle is not None:
            size = element.bitwidth // 8
            need(
                swizzle_fits(shape_of(self.tile), size),
                self,
                "a swizzled tile's rows must be 2, 4, 8, ... 16-byte chunks",
            )
        need(
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
        props: dict = {"mma": StringAttr(mma), "at": i64_array(at)}
        if b_half is not None:
            props["b_half"] = IntegerAttr(b_half, i64)
        super().__init__(operands=[a, b, acc], properties=props)

    @property
    def half(self) -> int | None:
        return None if self.b_half is None else self.b_half.value.data

    @property
    def intrinsic(self) -> Intrinsic:
        return intrinsic_of(self, self.mma)

    @property
    def block(self) -> tuple[int, int]:
        i, j = self.at.get_values()
        return int(i), int(j)

    def verify_(self) -> None:
        intr = self.intrinsic
        verify_fragments_acc(self, self.acc, intr)
        need(self.half in (None, 0, 1), self, "b_half must be 0 or 1")
        for v, shape, name in (
            (self.a, intr.a.shape, "A"),
            (self.b, paired(intr.b.shape, self.half is not None), "B"),
        ):
            need(
                tuple(v.type.get_shape()) == shape,  # type: ignore[attr-defined]
                self,
                f"{name} must be a fragment of {'x'.join(map(str, shape))}",
            )
        need(len(self.at.get_values()) == 2, self, "at must be [i, j]")
        i, j = self.block
        fm, fn, _ = shape_of(self.acc)
        need(0 <= i < fm and 0 <= j < fn, self, "at is outside the accumulator")


@irdl_op_definition
class ThreadwiseWriteFragmentsOp(IRDLOperation):
    """
    Element v of `acc[i, j]` goes to C at `(row + i * m + r, col + j * n + c)`
    with (r, c) the intrinsic's C layout of (lane, v), where that is inside
    C (a bounds mask), by `merge` as `threadwise_write` does. With merge
    `tile`, C is a workgroup-memory tile that holds every warp tile whole:
    a plain store, no mask. With `from`, columns below `col_from` are not
    written: a last tile of columns shifted back to end at B's last column
    overlaps its neighbour, whose columns it must not merge twice.
    """

    name = "xsplit_gemm.threadwise_write_fragments"

    acc = operand_def(MemRefType)
    c = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    lane = operand_def(IndexType)
    chunk = opt_operand_def(IndexType)
    col_from = opt_operand_def(IndexType)
    mma = prop_def(StringAttr)
    merge = prop_def(StringAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$acc `to` $c `[` $row `,` $col `]` `lane` $lane (`chunk` $chunk^)? "
        "(`from` $col_from^)? attr-dict `:` type($acc) `to` type($c)"
    )

    def __init__(
        self, acc, c, row, col, lane, mma: str, merge: str, chunk=None, col_from=None
    ):  # fmt: skip
        optional = [[x] if x is not None else [] for x in (chunk, col_from)]
        super().__init__(
            operands=[acc, c, row, col, lane, *optional],
            properties={"mma": StringAttr(mma), "merge": StringAttr(merge)},
        )

    @property
    def intrinsic(self) -> Intrinsic:
        return intrinsic_of(self, self.mma)

    def verify_(self) -> None:
        merge = self.merge.data
        need(merge in (*MERGES, "tile"), self, f"merge must be one of {', '.join(MERGES)}, tile")
        verify_fragments_acc(self, self.acc, self.intrinsic)
        partials = merge == "partials"
        space = "workgroup" if merge == "tile" else None
        need_static_memref(self, self.c, "C", 3 if partials else 2, space)
        need(
            (self.chunk is not None) == partials,
            self,
            "a chunk index is given with merge partials, and only then",
        )
        need(self.col_from is None or merge != "tile", self, "a tile holds its columns whole: no from")


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
        rank = len(shape_of(self.acc)) if isinstance(self.acc.type, MemRefType) else 2
        # Registers of a thread (rank 2) or fragments of C blocks (rank 3).
        need_static_memref(self, self.acc, "the accumulator", rank if rank in (2, 3) else 2, "private")


@irdl_op_definition
class ThreadwiseReadOp(IRDLOperation):
    """`regs[i] = tile[row, col + i * stride]`: one thread's registers from
    one row of a staged tile (from one column with `down`). With `group =
    g` the registers come in runs of g neighbours, `stride` apart:
    `tile[row, col + (i / g) * stride + i % g]`."""

    name = "xsplit_gemm.threadwise_read"

    tile = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    regs = operand_def(MemRefType)
    stride = prop_def(IntegerAttr)
    down = opt_prop_def(UnitAttr)
    """Read down a column: `regs[i] = tile[row + i * stride, col]`."""
    group = opt_prop_def(IntegerAttr)
    """Registers in runs of this many neighbours; 1 when absent."""

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$tile `[` $row `,` $col `]` `to` $regs attr-dict `:` type($tile) `to` type($regs)"
    )

    def __init__(
        self, tile: SSAValue, row: SSAValue, col: SSAValue, regs: SSAValue, stride: int,
        down: bool = False, group: int = 1,
    ):
        props: dict = {"stride": IntegerAttr(stride, i64)}
        if down:
            props["down"] = UnitAttr()
        if group != 1:
            props["group"] = IntegerAttr(group, i64)
        super().__init__(operands=[tile, row, col, regs], properties=props)

    @property
    def group_size(self) -> int:
        return 1 if self.group is None else self.group.value.data

    def verify_(self) -> None:
        need_static_memref(self, self.tile, "the tile", 2, None, f16=True)
        need_static_memref(self, self.regs, "the registers", 1, "private")
        need(self.stride.value.data > 0, self, "stride must be positive")
        g = self.group_size
        need(g > 0 and shape_of(self.regs)[0] % g == 0, self, "the group must divide the registers")
        need(self.stride.value.data >= g, self, "runs of a group must not overlap")


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
        super().__init__(operands=[tile, row, col, acc], properties={"strides": i64_array(strides)})

    @property
    def stride_sizes(self) -> tuple[int, int]:
        sm, sn = self.strides.get_values()
        return int(sm), int(sn)

    def verify_(self) -> None:
        need_static_memref(self, self.tile, "the tile", 2, "workgroup")
        need_static_memref(self, self.acc, "the accumulator", 2, "private")
        need(len(self.strides.get_values()) == 2, self, "strides must be [M, N] steps")
        need(min(self.stride_sizes) > 0, self, "strides must be positive")


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
            need_static_memref(self, v, name, rank, "private")
        need(
            shape_of(self.acc) == (shape_of(self.a)[0], shape_of(self.b)[0]),
            self,
            "the accumulator must be |a| x |b|",
        )


@irdl_op_definition
class ThreadwiseWriteOp(IRDLOperation):
    """
    Element (i, j) of the register tile goes to C at
    `(row + i * strides[0], col + j * strides[1])` (with `group = g`, the
    columns in runs of g: `col + (j / g) * strides[1] + j % g`), where that
    is inside C (a bounds mask), by `merge`: added to C (`store`),
    atomically added (`atomic`), or stored into the partials buffer at
    `[chunk, ...]` (`partials`; `chunk` is then the one index before the
    row).
    """

    name = "xsplit_gemm.threadwise_write"

    acc = operand_def(MemRefType)
    c = operand_def(MemRefType)
    row = operand_def(IndexType)
    col = operand_def(IndexType)
    chunk = var_operand_def(IndexType)
    strides = prop_def(DenseArrayBase)
    merge = prop_def(StringAttr)
    group = opt_prop_def(IntegerAttr)
    """Columns in runs of this many neighbours; 1 when absent."""

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
        group: int = 1,
    ):
        props: dict = {"strides": i64_array(strides), "merge": StringAttr(merge)}
        if group != 1:
            props["group"] = IntegerAttr(group, i64)
        super().__init__(
            operands=[acc, c, row, col, [chunk] if chunk is not None else []], properties=props
        )

    @property
    def stride_sizes(self) -> tuple[int, int]:
        sm, sn = self.strides.get_values()
        return int(sm), int(sn)

    @property
    def group_size(self) -> int:
        return 1 if self.group is None else self.group.value.data

    def verify_(self) -> None:
        merge = self.merge.data
        need(merge in MERGES, self, f"merge must be one of {', '.join(MERGES)}")
        need_static_memref(self, self.acc, "the accumulator", 2, "private")
        g = self.group_size
        need(g > 0 and shape_of(self.acc)[1] % g == 0, self, "the group must divide the columns")
        need(self.stride_sizes[1] >= g, self, "runs of a group must not overlap")
        partials = merge == "partials"
        need_static_memref(self, self.c, "C", 3 if partials else 2, None)
        need(
            len(self.chunk) == (1 if partials else 0),
            self,
            "a chunk index is given with merge partials, and only then",
        )


@irdl_op_definition
class ThreadwiseReduceOp(IRDLOperation):
    """
    One thread's share of `blockwise_reduce`: `parts[u]` is `method` over
    its registers of its u-th kept row (`dim` 1) or column (`dim` 0) (with
    `dim` 2, along the batch, `parts[i, j]` is the element itself) of
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
    @property
    def extents(self) -> tuple[int, int]:
        m, n = self.bounds.get_values()
        return int(m), int(n)

    def verify_(self) -> None:
        need_one_of(self, self.method, "method", REDUCE_METHODS)
        d = self.dim.value.data
        need(d in (0, 1, BATCH_DIM), self, "dim must be 0 (along M), 1 (along N) or 2 (none)")
        need_static_memref(self, self.acc, "the accumulator", 2, "private")
        if d == BATCH_DIM:  # every element its own: parts holds C's elements
            need_static_memref(self, self.parts, "the partials", 2, "private")
            need(shape_of(self.parts) == shape_of(self.acc), self, "the partials must be the accumulator's shape")
        else:
            need_static_memref(self, self.parts, "the partials", 1, "private")
            kept = shape_of(self.acc)[1 - d]
            need(shape_of(self.parts)[0] == kept, self, f"the partials must hold {kept} kept registers")
        need(self.init is None or self.c is None, self, "C's init is an operand or a constant, not both")
        need(self.store_c is None or self.c is not None, self, "store_c needs C")
