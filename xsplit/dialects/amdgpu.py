"""The part of MLIR's `amdgpu` dialect xsplit's GEMM kernel multiplies with
on gfx942: the CDNA matrix-core instruction `amdgpu.mfma` and the
direct-to-LDS load `amdgpu.gather_to_lds` it stages with under
`prefetch=lds`, and the scheduling barrier `amdgpu.sched_barrier` that keeps
LLVM from issuing each f32 MFMA right after the conversion of its operand.

    %d = amdgpu.mfma 16x16x16 %a * %b + %c : vector<4xf16>, vector<4xf16>, vector<4xf32>

One MFMA is a collective of a 64-lane wavefront: each lane gives a
fragment of A and of B and a fragment of the accumulator, and gets its
fragment of the result (the layouts are `fragments.INTRINSICS`' entries
whose op is `amdgpu.mfma`: 16x16x16 and 32x32x8 of f16 or bf16, and 16x16x4 of
f32, whose one element of A and of B a lane is a scalar f32). iree-compile 3.13
lowers it in a custom dispatch to `v_mfma_f32_16x16x16_f16` (or `_bf16`,
`v_mfma_f32_16x16x4_f32`).
The printed form is iree-opt 3.13's: the broadcast and permutation controls
are keywords with parenthesised values (`abid(1) blgp(bcast_first_32)
cbsz(1)`), left out at their defaults; `blgp = none` and `{cbsz = 1 : i32}`
do not parse there. `#rocdl.mfma_perm_b`, the type of `blgp`, is in the
generic form only, so this module holds it too (`ROCDL`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    Float32Type,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    VectorType,
    f32,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Data, Dialect, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from xsplit.dialects.fragments import INTRINSICS, Intrinsic


class MFMAPermB(StrEnum):
    """How an MFMA permutes B's lanes (`blgp`)."""

    NONE = "none"
    BCAST_FIRST_32 = "bcast_first_32"
    BCAST_SECOND_32 = "bcast_second_32"
    ROTATE_16_RIGHT = "rotate_16_right"
    BCAST_FIRST_16 = "bcast_first_16"
    BCAST_SECOND_16 = "bcast_second_16"
    BCAST_THIRD_16 = "bcast_third_16"
    BCAST_FOURTH_16 = "bcast_fourth_16"


@irdl_attr_definition
class MFMAPermBAttr(EnumAttribute[MFMAPermB]):
    """`#rocdl.mfma_perm_b<none>`: the value of `amdgpu.mfma`'s `blgp`."""

    name = "rocdl.mfma_perm_b"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> MFMAPermB:
        with parser.in_angle_brackets():
            return MFMAPermB(parser.parse_identifier())


def _element(t: Attribute) -> str:
    return str(t.element_type) if isinstance(t, VectorType) else str(t)


def _mfmas() -> list[Intrinsic]:
    # One op each: a composite (`issues`) lowers to several of these.
    return [i for i in INTRINSICS.values() if i.op == "amdgpu.mfma" and i.issues == 1]


def _i32(value: int) -> IntegerAttr:
    return IntegerAttr(value, i32)


@irdl_op_definition
class MFMAOp(IRDLOperation):
    """
    `D = A · B + C` for one `m` x `n` x `k` block, by a 64-lane wavefront:
    each lane gives its fragments of A and B (`sourceA`, `sourceB`) and of
    C (`destC`) and gets its fragment of D (`intrinsic` says where they sit). `cbsz`,
    `abid` and `blgp` broadcast or permute the lanes' A and B fragments
    (0 and `none`: as given); `reducePrecision` allows a lower-precision
    product.
    """

    name = "amdgpu.mfma"

    source_a = operand_def(VectorType | Float32Type)
    """A vector of the fragment's elements, or one f32 (16x16x4 of f32)."""
    source_b = operand_def(VectorType | Float32Type)
    dest_c = operand_def(VectorType)
    dest_d = result_def(VectorType)
    m = prop_def(IntegerAttr)
    n = prop_def(IntegerAttr)
    k = prop_def(IntegerAttr)
    blocks = prop_def(IntegerAttr)
    cbsz = prop_def(IntegerAttr)
    abid = prop_def(IntegerAttr)
    blgp = prop_def(MFMAPermBAttr)
    reduce_precision = opt_prop_def(UnitAttr, prop_name="reducePrecision")

    traits = traits_def(Pure())

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        c: SSAValue,
        shape: tuple[int, int, int],
        blocks: int = 1,
        cbsz: int = 0,
        abid: int = 0,
        blgp: MFMAPermB = MFMAPermB.NONE,
        reduce_precision: bool = False,
    ):
        m, n, k = shape
        props: dict[str, Attribute] = {
            "m": _i32(m), "n": _i32(n), "k": _i32(k), "blocks": _i32(blocks),
            "cbsz": _i32(cbsz), "abid": _i32(abid), "blgp": MFMAPermBAttr(blgp),
        }  # fmt: skip
        if reduce_precision:
            props["reducePrecision"] = UnitAttr()
        super().__init__(operands=[a, b, c], result_types=[c.type], properties=props)

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.m.value.data, self.n.value.data, self.k.value.data

    @property
    def intrinsic(self) -> Intrinsic | None:
        """Its entry in `fragments.INTRINSICS`: the lanes' fragment layouts."""
        element = _element(self.source_a.type)
        return next(
            (i for i in _mfmas() if (i.m, i.n, i.k) == self.shape and element in i.operands), None
        )

    def verify_(self) -> None:
        m, n, k = self.shape
        element = _element(self.source_a.type)
        if self.source_a.type != self.source_b.type:
            raise VerifyException(f"'{self.name}' op sourceA and sourceB must have one type")
        if self.dest_c.type != self.dest_d.type:
            raise VerifyException(f"'{self.name}' op destC and destD must have one type")
        if self.blocks.value.data != 1:
            raise VerifyException(f"'{self.name}' op xsplit knows single-block MFMAs only")
        intr = self.intrinsic
        if intr is None:
            known = ", ".join(f"{i.m}x{i.n}x{i.k} {'/'.join(i.operands)}" for i in _mfmas())
            raise VerifyException(
                f"'{self.name}' op {m}x{n}x{k} of {element} is not a known MFMA ({known})"
            )
        want_a = (
            f32 if intr.a.shape == (1,)
            else VectorType(self.source_a.type.element_type, intr.a.shape)  # type: ignore[attr-defined]
        )  # fmt: skip
        if self.source_a.type != want_a:
            raise VerifyException(
                f"'{self.name}' op a lane's fragment of A and B for {m}x{n}x{k} is {want_a}"
            )
        want_c = VectorType(f32, intr.c.shape)
        if self.dest_c.type != want_c:
            raise VerifyException(
                f"'{self.name}' op a lane's fragment of C for {m}x{n}x{k} is {want_c}"
            )

    def print(self, printer: Printer) -> None:
        m, n, k = self.shape
        printer.print_string(f" {m}x{n}x{k} ")
        printer.print_ssa_value(self.source_a)
        printer.print_string(" * ")
        printer.print_ssa_value(self.source_b)
        printer.print_string(" + ")
        printer.print_ssa_value(self.dest_c)
        if self.abid.value.data:
            printer.print_string(f" abid({self.abid.value.data})")
        if self.blgp.data != MFMAPermB.NONE:
            printer.print_string(f" blgp({self.blgp.data})")
        if self.cbsz.value.data:
            printer.print_string(f" cbsz({self.cbsz.value.data})")
        if self.reduce_precision is not None:
            printer.print_string(" reducePrecision")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(
            [self.source_a.type, self.source_b.type, self.dest_c.type], printer.print_attribute
        )

    @classmethod
    def parse(cls, parser: Parser) -> MFMAOp:
        at = parser.pos
        dims = parser.parse_dimension_list()
        if len(dims) != 3:
            parser.raise_error("expected the MFMA's shape as MxNxK", at, parser.pos)
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation("*")
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation("+")
        c = parser.parse_unresolved_operand()
        controls: dict = {}
        while True:
            word = next(
                (w for w in ("abid", "blgp", "cbsz", "reducePrecision")
                 if w not in controls and parser.parse_optional_keyword(w) is not None),
                None,
            )  # fmt: skip
            if word is None:
                break
            if word == "reducePrecision":
                controls[word] = True
                continue
            with parser.in_parens():
                if word == "blgp":
                    controls[word] = MFMAPermB(parser.parse_identifier())
                else:
                    controls[word] = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ta = parser.parse_type()
        parser.parse_punctuation(",")
        tb = parser.parse_type()
        parser.parse_punctuation(",")
        tc = parser.parse_type()
        op = cls(
            parser.resolve_operand(a, ta),
            parser.resolve_operand(b, tb),
            parser.resolve_operand(c, tc),
            (dims[0], dims[1], dims[2]),
            cbsz=controls.get("cbsz", 0),
            abid=controls.get("abid", 0),
            blgp=controls.get("blgp", MFMAPermB.NONE),
            reduce_precision=controls.get("reducePrecision", False),
        )
        op.attributes |= attrs
        return op


@irdl_op_definition
class GatherToLDSOp(IRDLOperation):
    """
    Each lane of a wavefront reads `transferType` (4 bytes on gfx942) at
    its own `src[srcIndices]` and the wavefront writes them, lane after
    lane, to workgroup memory from `dst[dstIndices]` (the same for every
    lane) without passing through registers (`global_load_lds_dword`).
    The write lands by the next barrier (its release fence waits for it).
    """

    name = "amdgpu.gather_to_lds"

    src = operand_def(MemRefType)
    src_indices = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_indices = var_operand_def(IndexType)
    transfer_type = prop_def(TypeAttribute, prop_name="transferType")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$src `[` $src_indices `]` `,` $dst `[` $dst_indices `]` attr-dict `:` "
        "$transferType `,` type($src) `,` type($dst)"
    )

    def __init__(self, src, src_indices, dst, dst_indices, transfer_type: Attribute):
        super().__init__(
            operands=[src, list(src_indices), dst, list(dst_indices)],
            properties={"transferType": transfer_type},
        )

    def verify_(self) -> None:
        s, d = self.src.type, self.dst.type
        assert isinstance(s, MemRefType) and isinstance(d, MemRefType)
        if len(self.src_indices) != len(s.get_shape()) or len(self.dst_indices) != len(
            d.get_shape()
        ):
            raise VerifyException(f"'{self.name}' op needs one index per dimension of each memref")
        if "workgroup" not in str(d.memory_space):
            raise VerifyException(f"'{self.name}' op the destination must be in workgroup memory")


SCHED_GROUPS = (
    "none", "non_mem_non_sideeffect", "valu", "salu", "mfma_wmma", "all_vmem", "vmem_read",
    "vmem_write", "all_ds", "ds_read", "ds_write", "transcendental", "ldsdma", "all",
)  # fmt: skip
"""The instruction groups `amdgpu.sched_barrier` may let across it (MLIR's
`AMDGPU_SchedBarrierOpOpt`)."""


@irdl_attr_definition
class SchedGroupMaskAttr(Data[tuple[str, ...]]):
    """`#rocdl.sched_group_mask<valu|all_ds>`: the groups a scheduling
    barrier lets across (`none`: nothing)."""

    name = "rocdl.sched_group_mask"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("|".join(self.data))

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[str, ...]:
        with parser.in_angle_brackets():
            return _parse_groups(parser)

    def verify(self) -> None:
        unknown = [g for g in self.data if g not in SCHED_GROUPS]
        if unknown or not self.data:
            raise VerifyException(
                f"sched_barrier's groups are {', '.join(SCHED_GROUPS)}, got {'|'.join(self.data)}"
            )


def _parse_groups(parser: AttrParser) -> tuple[str, ...]:
    groups = [parser.parse_identifier()]
    while parser.parse_optional_punctuation("|"):
        groups.append(parser.parse_identifier())
    return tuple(groups)


@irdl_op_definition
class SchedBarrierOp(IRDLOperation):
    """
    Keeps LLVM's instruction scheduler from moving instructions across it,
    except those of the groups `allow` names (`s_sched_barrier`; no
    instruction of its own). xsplit puts one between the conversions that
    widen f16 fragments and the f32 MFMAs that read them, so that each
    MFMA is not issued right after its operand's conversion (2 wait states,
    an `s_nop`, each).

        amdgpu.sched_barrier allow = none
    """

    name = "amdgpu.sched_barrier"

    opts = prop_def(SchedGroupMaskAttr)

    def __init__(self, allow: tuple[str, ...] = ("none",)):
        super().__init__(properties={"opts": SchedGroupMaskAttr(tuple(allow))})

    def print(self, printer: Printer) -> None:
        printer.print_string(f" allow = {'|'.join(self.opts.data)}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SchedBarrierOp:
        parser.parse_characters("allow")
        parser.parse_punctuation("=")
        op = cls(_parse_groups(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


AMDGPU = Dialect("amdgpu", [MFMAOp, GatherToLDSOp, SchedBarrierOp], [])

ROCDL = Dialect("rocdl", [], [MFMAPermBAttr, SchedGroupMaskAttr])
"""Only the attributes the generic forms of `amdgpu.mfma` and
`amdgpu.sched_barrier` name."""
