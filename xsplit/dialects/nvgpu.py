"""The part of MLIR's `nvgpu` dialect xsplit's GEMM kernel stages with:
sm_80's asynchronous copies from global into workgroup memory, and its
tensor cores' warp-level multiply-add.

    %t = nvgpu.device_async_copy %b[%k, %n], %tile[%i, %j], 4, %valid bypassL1
        : memref<1000x72xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t, %u
    nvgpu.device_async_wait %g numGroups = 1
    %d = nvgpu.mma.sync(%a, %b, %c) mmaShape = [16, 8, 16]
        : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>

iree-compile 3.13 lowers them in a custom dispatch to `cp.async.cg` (16
bytes, `bypassL1`) or `cp.async.ca`, `cp.async.commit_group` and
`cp.async.wait_group N`, and `mma.sync` to
`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`. The printed forms are
iree-opt's (strict properties: `bypassL1`, `numGroups` and `mmaShape` are
keywords, not attributes).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class DeviceAsyncTokenType(ParametrizedAttribute, TypeAttribute):
    """The completion of asynchronous copies: `!nvgpu.device.async.token`."""

    name = "nvgpu.device.async.token"


def _workgroup(t) -> bool:
    return "workgroup" in str(t.memory_space) or str(t.memory_space).startswith("3 ")


@irdl_op_definition
class DeviceAsyncCopyOp(IRDLOperation):
    """
    Starts copying `dstElements` contiguous elements from `src[srcIndices]`
    to workgroup memory at `dst[dstIndices]`; with `srcElements`, only that
    many are read and the rest are zero (0: nothing is read at all). The
    copy is complete, for this thread, after a `device_async_wait` that
    covers its group; other threads see it after a barrier that follows.
    """

    name = "nvgpu.device_async_copy"

    dst = operand_def(MemRefType)
    dst_indices = var_operand_def(IndexType)
    src = operand_def(MemRefType)
    src_indices = var_operand_def(IndexType)
    src_elements = opt_operand_def(IndexType)
    dst_elements = prop_def(IntegerAttr, prop_name="dstElements")
    bypass_l1 = opt_prop_def(UnitAttr, prop_name="bypassL1")
    async_token = result_def(DeviceAsyncTokenType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        src: SSAValue,
        src_indices: Sequence[SSAValue],
        dst: SSAValue,
        dst_indices: Sequence[SSAValue],
        elements: int,
        src_elements: SSAValue | None = None,
        bypass_l1: bool = False,
    ):
        props: dict = {"dstElements": IntegerAttr(elements, IndexType())}
        if bypass_l1:
            props["bypassL1"] = UnitAttr()
        super().__init__(
            operands=[
                dst, list(dst_indices), src, list(src_indices),
                [src_elements] if src_elements else [],
            ],  # fmt: skip
            result_types=[DeviceAsyncTokenType()],
            properties=props,
        )

    @property
    def elements(self) -> int:
        return self.dst_elements.value.data

    def verify_(self) -> None:
        s, d = self.src.type, self.dst.type
        assert isinstance(s, MemRefType) and isinstance(d, MemRefType)
        if not _workgroup(d):
            raise VerifyException(f"'{self.name}' op the destination must be in workgroup memory")
        ranks = (len(s.get_shape()), len(d.get_shape()))
        if (len(self.src_indices), len(self.dst_indices)) != ranks:
            raise VerifyException(f"'{self.name}' op needs one index per dimension of each memref")
        if s.element_type != d.element_type:
            raise VerifyException(f"'{self.name}' op source and destination element types differ")
        nbytes = self.elements * s.element_type.bitwidth // 8  # type: ignore[attr-defined]
        if nbytes not in (4, 8, 16):
            raise VerifyException(f"'{self.name}' op copies 4, 8 or 16 bytes, not {nbytes}")
        if self.bypass_l1 is not None and nbytes != 16:
            raise VerifyException(f"'{self.name}' op bypassL1 takes 16-byte copies only")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printer.print_string("[")
        printer.print_list(self.src_indices, printer.print_ssa_value)
        printer.print_string("], ")
        printer.print_ssa_value(self.dst)
        printer.print_string("[")
        printer.print_list(self.dst_indices, printer.print_ssa_value)
        printer.print_string(f"], {self.elements}")
        if self.src_elements is not None:
            printer.print_string(", ")
            printer.print_ssa_value(self.src_elements)
        if self.bypass_l1 is not None:
            printer.print_string(" bypassL1")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" to ")
        printer.print_attribute(self.dst.type)

    @classmethod
    def parse(cls, parser: Parser) -> DeviceAsyncCopyOp:
        index = lambda: parser.parse_operand(IndexType())  # noqa: E731
        src = parser.parse_unresolved_operand()
        src_idx = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, index)
        parser.parse_punctuation(",")
        dst = parser.parse_unresolved_operand()
        dst_idx = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, index)
        parser.parse_punctuation(",")
        elements = parser.parse_integer(allow_boolean=False, allow_negative=False)
        src_elements = index() if parser.parse_optional_punctuation(",") else None
        bypass = parser.parse_optional_keyword("bypassL1") is not None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_keyword("to")
        dst_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(src, src_type), src_idx,
            parser.resolve_operand(dst, dst_type), dst_idx, elements, src_elements, bypass,
        )  # fmt: skip
        op.attributes |= attrs
        return op


@irdl_op_definition
class DeviceAsyncCreateGroupOp(IRDLOperation):
    """Closes a group of this thread's asynchronous copies (`cp.async.commit_group`)."""

    name = "nvgpu.device_async_create_group"

    input_tokens = var_operand_def(DeviceAsyncTokenType)
    async_token = result_def(DeviceAsyncTokenType)

    assembly_format = "$input_tokens attr-dict"

    def __init__(self, tokens: Sequence[SSAValue]):
        super().__init__(operands=[list(tokens)], result_types=[DeviceAsyncTokenType()])

    def verify_(self) -> None:
        if not self.input_tokens:
            raise VerifyException(f"'{self.name}' op needs at least one copy")


@irdl_op_definition
class DeviceAsyncWaitOp(IRDLOperation):
    """
    Waits until at most `numGroups` of this thread's most recent groups are
    still in flight (all, without it): `cp.async.wait_group N`.
    """

    name = "nvgpu.device_async_wait"

    async_dependencies = operand_def(DeviceAsyncTokenType)
    num_groups = opt_prop_def(IntegerAttr, prop_name="numGroups")

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, token: SSAValue, num_groups: int | None = None):
        props = {} if num_groups is None else {"numGroups": IntegerAttr(num_groups, i32)}
        super().__init__(operands=[token], properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.async_dependencies)
        if self.num_groups is not None:
            printer.print_string(f" numGroups = {self.num_groups.value.data}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> DeviceAsyncWaitOp:
        token = parser.parse_operand(DeviceAsyncTokenType())
        groups = None
        if parser.parse_optional_keyword("numGroups") is not None:
            parser.parse_punctuation("=")
            groups = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attrs = parser.parse_optional_attr_dict()
        op = cls(token, groups)
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        if self.num_groups is not None and self.num_groups.value.data < 0:
            raise VerifyException(f"'{self.name}' op numGroups must not be negative")


MMA_SHAPES = {
    (16, 8, 16): ((4, 2), (2, 2), (2, 2)),
}
"""The fragment shapes (A, B, C) of each mmaShape xsplit emits: f16 or
bf16 A and B, f32 (or with f16, f16) C (PTX's mma.m16n8k16 with .f16 or
.bf16 multiplicands)."""


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """
    `D = A · B + C` of an m x n x k block (`mmaShape`) by a whole warp, each
    lane holding one fragment of A, B and C (`xsplit/dialects/fragments.py`
    says which elements): sm_80's `mma.sync.aligned`. All 32 lanes of the
    warp must execute it together.
    """

    name = "nvgpu.mma.sync"

    matrix_a = operand_def(VectorType)
    matrix_b = operand_def(VectorType)
    matrix_c = operand_def(VectorType)
    mma_shape = prop_def(ArrayAttr, prop_name="mmaShape")
    res = result_def(VectorType)

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, shape: Sequence[int] = (16, 8, 16)):
        super().__init__(
            operands=[a, b, c],
            result_types=[c.type],
            properties={"mmaShape": ArrayAttr([IntegerAttr(s, i64) for s in shape])},
        )

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.value.data for a in self.mma_shape.data)  # type: ignore[attr-defined]

    def verify_(self) -> None:
        if not all(isinstance(a, IntegerAttr) for a in self.mma_shape.data):
            raise VerifyException(f"'{self.name}' op mmaShape must be three integers")
        frags = MMA_SHAPES.get(self.shape)  # type: ignore[arg-type]
        if frags is None:
            shapes = ", ".join(str(list(s)) for s in MMA_SHAPES)
            raise VerifyException(f"'{self.name}' op mmaShape must be one of {shapes}")
        # A and B f16 or bf16; C (and D) f32, or f16 with f16 A and B, as
        # MLIR's verifier allows.
        halves = (Float16Type, BFloat16Type)
        f16_c = isinstance(self.matrix_a.type.element_type, Float16Type)  # type: ignore[attr-defined]
        elements = (halves, halves, (Float32Type, Float16Type) if f16_c else (Float32Type,))
        for v, name, want, allowed in zip(
            (self.matrix_a, self.matrix_b, self.matrix_c), "ABC", frags, elements
        ):
            t = v.type
            assert isinstance(t, VectorType)
            if tuple(t.get_shape()) != want or not isinstance(t.element_type, allowed):
                e = "f16 or bf16" if name != "C" else "f32 or f16" if f16_c else "f32"
                raise VerifyException(
                    f"'{self.name}' op {name} must be a vector<{want[0]}x{want[1]}> of {e}, not {t}"
                )
        if self.matrix_a.type.element_type != self.matrix_b.type.element_type:  # type: ignore[attr-defined]
            raise VerifyException(f"'{self.name}' op A and B must have one element type")
        if self.res.type != self.matrix_c.type:
            raise VerifyException(f"'{self.name}' op the result must have C's type")

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list((self.matrix_a, self.matrix_b, self.matrix_c), printer.print_ssa_value)
        printer.print_string(") mmaShape = [")
        printer.print_string(", ".join(str(s) for s in self.shape))
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_list(
            (self.matrix_a.type, self.matrix_b.type, self.matrix_c.type), printer.print_attribute
        )
        printer.print_string(") -> ")
        printer.print_attribute(self.res.type)

    @classmethod
    def parse(cls, parser: Parser) -> MmaSyncOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_keyword("mmaShape")
        parser.parse_punctuation("=")
        shape = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation("->")
        parser.parse_type()
        if len(operands) != 3 or len(types) != 3:
            parser.raise_error("nvgpu.mma.sync takes three operands: A, B and C")
        a, b, c = (parser.resolve_operand(o, t) for o, t in zip(operands, types))
        op = cls(a, b, c, shape)
        op.attributes |= attrs
        return op


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """
    A warp-collective load of `numTiles` 8x8 matrices from workgroup memory
    (sm_75's `ldmatrix`): lanes 8i..8i+7 pass, as their indices, the starts
    of matrix i's rows; lane l receives from each matrix the pair at row
    l / 4, columns 2 (l % 4) and 2 (l % 4) + 1, or with `transpose` the pair
    at rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4. Row i of the result
    holds matrix i's pair. All 32 lanes of the warp must execute it together.
    """

    name = "nvgpu.ldmatrix"

    src_memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    transpose = prop_def(IntegerAttr)
    num_tiles = prop_def(IntegerAttr, prop_name="numTiles")
    res = result_def(VectorType)

    traits = traits_def(MemoryReadEffect())

    def __init__(self, src: SSAValue, indices: Sequence[SSAValue], tiles: int, transpose: bool):
        element = src.type.element_type  # type: ignore[attr-defined]
        per_register = 32 // element.bitwidth
        super().__init__(
            operands=[src, list(indices)],
            result_types=[VectorType(element, [tiles, per_register])],
            properties={
                "transpose": IntegerAttr(int(transpose), IntegerType(1)),
                "numTiles": IntegerAttr(tiles, i32),
            },
        )

    @property
    def tiles(self) -> int:
        return self.num_tiles.value.data

    @property
    def transposed(self) -> bool:
        return bool(self.transpose.value.data)

    def verify_(self) -> None:
        t = self.src_memref.type
        assert isinstance(t, MemRefType)
        if not _workgroup(t):
            raise VerifyException(f"'{self.name}' op the source must be in workgroup memory")
        if len(self.indices) != len(t.get_shape()):
            raise VerifyException(f"'{self.name}' op needs one index per dimension of the source")
        if self.tiles not in (1, 2, 4):
            raise VerifyException(f"'{self.name}' op numTiles must be 1, 2 or 4")
        bits = t.element_type.bitwidth  # type: ignore[attr-defined]
        if self.transposed and bits != 16:
            raise VerifyException(f"'{self.name}' op transpose takes 16-bit elements only")
        want = VectorType(t.element_type, [self.tiles, 32 // bits])
        if self.res.type != want:
            raise VerifyException(
                f"'{self.name}' op the result must be {want}, not {self.res.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.src_memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_ssa_value)
        printer.print_string(f"] numTiles = {self.tiles} transpose = ")
        printer.print_string("true" if self.transposed else "false")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src_memref.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.res.type)

    @classmethod
    def parse(cls, parser: Parser) -> LdMatrixOp:
        src = parser.parse_unresolved_operand()
        index = lambda: parser.parse_operand(IndexType())  # noqa: E731
        indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, index)
        parser.parse_keyword("numTiles")
        parser.parse_punctuation("=")
        tiles = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_keyword("transpose")
        parser.parse_punctuation("=")
        transpose = parser.parse_boolean()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        res_type = parser.parse_type()
        op = cls(parser.resolve_operand(src, src_type), indices, tiles, transpose)
        op.attributes |= attrs
        if op.res.type != res_type:
            parser.raise_error(f"nvgpu.ldmatrix of {src_type} gives {op.res.type}, not {res_type}")
        return op


NVGPU = Dialect(
    "nvgpu",
    [DeviceAsyncCopyOp, DeviceAsyncCreateGroupOp, DeviceAsyncWaitOp, MmaSyncOp, LdMatrixOp],
    [DeviceAsyncTokenType],
)
