"""The parts of the upstream gpu dialect that xDSL 0.74 lacks or spells differently.

`#gpu.block<x>`, `#gpu.thread<linear_dim_0>` and their kin name the processor
level an `scf.forall` dimension is distributed over. The id ops, `gpu.barrier`,
`gpu.shuffle`, `gpu.subgroup_reduce` and `#gpu.address_space` are what the
`distribute` and `insert-barriers` passes produce, in iree-opt's custom syntax.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

MAPPING_IDS: tuple[str, ...] = ("x", "y", "z") + tuple(f"linear_dim_{i}" for i in range(10))


class _ProcessorMappingAttr(ParametrizedAttribute):
    """A processor level and which of its ids a loop dimension maps to."""

    mapping_id: StringAttr

    LEVEL: ClassVar[str]

    def __init__(self, mapping_id: str):
        super().__init__(StringAttr(mapping_id))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            ident = parser.parse_identifier()
            if ident not in MAPPING_IDS:
                parser.raise_error(f"expected one of {', '.join(MAPPING_IDS)}", pos, parser.pos)
        return (StringAttr(ident),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.mapping_id.data}>")

    def verify(self) -> None:
        if self.mapping_id.data not in MAPPING_IDS:
            raise VerifyException(
                f"'{self.mapping_id.data}' is not a GPU mapping id ({', '.join(MAPPING_IDS)})"
            )


@irdl_attr_definition
class BlockMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over thread blocks (workgroups)."""

    name = "gpu.block"
    LEVEL = "block"
    # Declared on each attribute: xDSL compares and hashes attributes by the
    # parameters their own class declares, so #gpu.block<x> != #gpu.block<y>.
    mapping_id: StringAttr


@irdl_attr_definition
class WarpgroupMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over warpgroups of a block."""

    name = "gpu.warpgroup"
    LEVEL = "warpgroup"
    # Declared on each attribute: xDSL compares and hashes attributes by the
    # parameters their own class declares, so #gpu.block<x> != #gpu.block<y>.
    mapping_id: StringAttr


@irdl_attr_definition
class WarpMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over warps of a block."""

    name = "gpu.warp"
    LEVEL = "warp"
    # Declared on each attribute: xDSL compares and hashes attributes by the
    # parameters their own class declares, so #gpu.block<x> != #gpu.block<y>.
    mapping_id: StringAttr


@irdl_attr_definition
class ThreadMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over threads of a block."""

    name = "gpu.thread"
    LEVEL = "thread"
    # Declared on each attribute: xDSL compares and hashes attributes by the
    # parameters their own class declares, so #gpu.block<x> != #gpu.block<y>.
    mapping_id: StringAttr


@irdl_attr_definition
class LaneMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over lanes of a warp."""

    name = "gpu.lane"
    LEVEL = "lane"
    # Declared on each attribute: xDSL compares and hashes attributes by the
    # parameters their own class declares, so #gpu.block<x> != #gpu.block<y>.
    mapping_id: StringAttr


GPU_MAPPING_ATTRS = (
    BlockMappingAttr,
    WarpgroupMappingAttr,
    WarpMappingAttr,
    ThreadMappingAttr,
    LaneMappingAttr,
)


# ---------------------------------------------------------------------------
# Enumerations and attributes of the upstream gpu dialect.
#
# xDSL 0.74 has `gpu.thread_id` and kin, but only in generic form, with its
# `#gpu<dim x>` spelling and an `all_reduce_op` enum older than MLIR's. The
# replacements below print what iree-opt prints; `register_upstream_extensions`
# swaps them into xDSL's gpu dialect by name.
# ---------------------------------------------------------------------------


class _AngleSyntax:
    """Spells an enum attribute `#gpu.name<value>`, as MLIR prints gpu enums."""

    enum_type: ClassVar[type[StrEnum]]
    data: StrEnum

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> StrEnum:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(cls.enum_type)


class Dimension(StrEnum):
    X = auto()
    Y = auto()
    Z = auto()


@irdl_attr_definition
class DimensionAttr(_AngleSyntax, EnumAttribute[Dimension]):
    """Which of the three grid or block dimensions an id op reads: `#gpu.dim<x>`."""

    name = "gpu.dim"


class AddressSpace(StrEnum):
    GLOBAL = auto()
    WORKGROUP = auto()
    PRIVATE = auto()


@irdl_attr_definition
class AddressSpaceAttr(_AngleSyntax, EnumAttribute[AddressSpace]):
    """
    A memref memory space: `#gpu.address_space<workgroup>` is memory shared by
    the threads of one block (CUDA's `__shared__`, AMD's LDS).
    """

    name = "gpu.address_space"


class BarrierScope(StrEnum):
    WORKGROUP = auto()
    CLUSTER = auto()
    SUBGROUP = auto()


@irdl_attr_definition
class BarrierScopeAttr(_AngleSyntax, EnumAttribute[BarrierScope]):
    """Which threads a `gpu.barrier` waits for; `workgroup` (a block) by default."""

    name = "gpu.barrier_scope"


class ShuffleMode(StrEnum):
    XOR = auto()
    UP = auto()
    DOWN = auto()
    IDX = auto()


@irdl_attr_definition
class ShuffleModeAttr(_AngleSyntax, EnumAttribute[ShuffleMode]):
    """How `gpu.shuffle` picks the source lane from the offset."""

    name = "gpu.shuffle_mode"


class ReductionKind(StrEnum):
    ADD = auto()
    MUL = auto()
    MINUI = auto()
    MINSI = auto()
    MINNUMF = auto()
    MAXUI = auto()
    MAXSI = auto()
    MAXNUMF = auto()
    AND = auto()
    OR = auto()
    XOR = auto()
    MINIMUMF = auto()
    MAXIMUMF = auto()


_FLOAT_REDUCTIONS = frozenset(
    {ReductionKind.MINNUMF, ReductionKind.MAXNUMF, ReductionKind.MINIMUMF, ReductionKind.MAXIMUMF}
)
_INTEGER_REDUCTIONS = frozenset(
    {
        ReductionKind.MINUI,
        ReductionKind.MINSI,
        ReductionKind.MAXUI,
        ReductionKind.MAXSI,
        ReductionKind.AND,
        ReductionKind.OR,
        ReductionKind.XOR,
    }
)


@irdl_attr_definition
class AllReduceOpAttr(_AngleSyntax, EnumAttribute[ReductionKind]):
    """The combiner of a `gpu.subgroup_reduce` or `gpu.all_reduce`."""

    name = "gpu.all_reduce_op"


_UPPER_BOUND = "upper_bound"


def _parse_upper_bound(parser: Parser) -> IntegerAttr | None:
    if parser.parse_optional_keyword(_UPPER_BOUND) is None:
        return None
    return IntegerAttr(parser.parse_integer(allow_boolean=False), IndexType())


def _print_upper_bound(printer: Printer, bound: IntegerAttr | None) -> None:
    if bound is not None:
        printer.print_string(f" {_UPPER_BOUND} {bound.value.data}")


class _DimensionIndexOp(IRDLOperation):
    """An index along one dimension: `gpu.thread_id x [upper_bound N]`."""

    dimension = prop_def(DimensionAttr)
    upper_bound = opt_prop_def(IntegerAttr)
    result = result_def(IndexType)

    traits = traits_def(Pure())

    HINT: ClassVar[str]

    def __init__(self, dimension: str | Dimension, upper_bound: int | None = None):
        props: dict[str, Attribute] = {"dimension": DimensionAttr(Dimension(dimension))}
        if upper_bound is not None:
            props["upper_bound"] = IntegerAttr(upper_bound, IndexType())
        super().__init__(result_types=[IndexType()], properties=props)
        self.result.name_hint = f"{self.HINT}_{self.dimension.data.value}"

    @property
    def dim(self) -> str:
        return self.dimension.data.value

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dim}")
        _print_upper_bound(printer, self.upper_bound)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        dim = parser.parse_identifier()
        if dim not in ("x", "y", "z"):
            parser.raise_error("expected one of x, y, z", pos, parser.pos)
        op = cls(dim)
        if (bound := _parse_upper_bound(parser)) is not None:
            op.upper_bound = bound
        if (attrs := parser.parse_optional_attr_dict()) :
            op.attributes |= attrs
        return op

    def verify_(self) -> None:
        if self.upper_bound is not None and self.upper_bound.value.data <= 0:
            raise VerifyException(f"'{self.name}' op upper_bound must be positive")


@irdl_op_definition
class ThreadIdOp(_DimensionIndexOp):
    """This thread's id within its block along one dimension."""

    name = "gpu.thread_id"
    HINT: ClassVar[str] = "thread_id"


@irdl_op_definition
class BlockIdOp(_DimensionIndexOp):
    """This block's id within the grid along one dimension."""

    name = "gpu.block_id"
    HINT: ClassVar[str] = "block_id"


@irdl_op_definition
class BlockDimOp(_DimensionIndexOp):
    """The number of threads in a block along one dimension."""

    name = "gpu.block_dim"
    HINT: ClassVar[str] = "block_dim"


@irdl_op_definition
class GridDimOp(_DimensionIndexOp):
    """The number of blocks in the grid along one dimension."""

    name = "gpu.grid_dim"
    HINT: ClassVar[str] = "grid_dim"


@irdl_op_definition
class GlobalIdOp(_DimensionIndexOp):
    """`block_id * block_dim + thread_id` along one dimension."""

    name = "gpu.global_id"
    HINT: ClassVar[str] = "global_id"


class _SubgroupIndexOp(IRDLOperation):
    """A subgroup-level index: `gpu.subgroup_id [upper_bound N] : index`."""

    upper_bound = opt_prop_def(IntegerAttr)
    result = result_def(IndexType)

    traits = traits_def(Pure())

    PRINT_TYPE: ClassVar[bool] = True

    def __init__(self, upper_bound: int | None = None):
        props: dict[str, Attribute] = {}
        if upper_bound is not None:
            props["upper_bound"] = IntegerAttr(upper_bound, IndexType())
        super().__init__(result_types=[IndexType()], properties=props)

    def print(self, printer: Printer) -> None:
        _print_upper_bound(printer, self.upper_bound)
        printer.print_op_attributes(self.attributes)
        if self.PRINT_TYPE:
            printer.print_string(" : index")

    @classmethod
    def parse(cls, parser: Parser):
        op = cls()
        if (bound := _parse_upper_bound(parser)) is not None:
            op.upper_bound = bound
        if attrs := parser.parse_optional_attr_dict():
            op.attributes |= attrs
        if cls.PRINT_TYPE:
            parser.parse_punctuation(":")
            parser.parse_keyword("index")
        return op


@irdl_op_definition
class LaneIdOp(_SubgroupIndexOp):
    """This thread's lane within its subgroup (warp)."""

    name = "gpu.lane_id"
    PRINT_TYPE: ClassVar[bool] = False


@irdl_op_definition
class SubgroupIdOp(_SubgroupIndexOp):
    """This thread's subgroup (warp) within its block."""

    name = "gpu.subgroup_id"


@irdl_op_definition
class SubgroupSizeOp(_SubgroupIndexOp):
    """The number of lanes in a subgroup."""

    name = "gpu.subgroup_size"


@irdl_op_definition
class NumSubgroupsOp(_SubgroupIndexOp):
    """The number of subgroups in a block."""

    name = "gpu.num_subgroups"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """
    Waits until every thread of the scope (the block, by default) reaches it;
    memory written before it is visible to all of them after it.
    `memfence [...]` limits the fence to some address spaces.

    ```mlir
    gpu.barrier
    gpu.barrier memfence [#gpu.address_space<workgroup>]
    ```
    """

    name = "gpu.barrier"

    address_spaces = opt_prop_def(ArrayAttr[AddressSpaceAttr])
    scope = prop_def(BarrierScopeAttr)

    def __init__(
        self,
        address_spaces: Sequence[AddressSpace] | None = None,
        scope: BarrierScope = BarrierScope.WORKGROUP,
    ):
        props: dict[str, Attribute] = {"scope": BarrierScopeAttr(scope)}
        if address_spaces is not None:
            props["address_spaces"] = ArrayAttr([AddressSpaceAttr(a) for a in address_spaces])
        super().__init__(properties=props)

    def print(self, printer: Printer) -> None:
        if self.address_spaces is not None:
            printer.print_string(" memfence [")
            printer.print_list(self.address_spaces.data, printer.print_attribute)
            printer.print_string("]")
        if self.scope.data != BarrierScope.WORKGROUP:
            printer.print_string(f" scope <{self.scope.data.value}>")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        spaces = None
        if parser.parse_optional_keyword("memfence") is not None:
            attrs = parser.parse_comma_separated_list(
                Parser.Delimiter.SQUARE, parser.parse_attribute
            )
            spaces = []
            for a in attrs:
                if not isinstance(a, AddressSpaceAttr):
                    parser.raise_error(f"expected a #gpu.address_space, got {a}")
                spaces.append(a.data)
        scope = BarrierScope.WORKGROUP
        if parser.parse_optional_keyword("scope") is not None:
            with parser.in_angle_brackets():
                scope = parser.parse_str_enum(BarrierScope)
        op = cls(spaces, scope)
        if attrs := parser.parse_optional_attr_dict():
            op.attributes |= attrs
        return op


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """
    Reads `value` from another lane of the subgroup, chosen by `mode` and
    `offset` among the first `width` lanes; `valid` is false when that lane is
    out of range.

    ```mlir
    %r, %valid = gpu.shuffle xor %v, %offset, %width : f32
    ```
    """

    name = "gpu.shuffle"

    T: ClassVar = VarConstraint("T", AnyAttr())

    value = operand_def(T)
    offset = operand_def(i32)
    width = operand_def(i32)
    mode = prop_def(ShuffleModeAttr)
    shuffle_result = result_def(T)
    valid = result_def(i1)

    traits = traits_def(Pure())

    def __init__(
        self, mode: ShuffleMode, value: SSAValue, offset: SSAValue, width: SSAValue
    ):
        super().__init__(
            operands=[value, offset, width],
            result_types=[value.type, i1],
            properties={"mode": ShuffleModeAttr(mode)},
        )
        self.shuffle_result.name_hint = "shuffleResult"
        self.valid.name_hint = "valid"

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data.value} ")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleOp:
        mode = parser.parse_str_enum(ShuffleMode)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_operand(i32)
        parser.parse_punctuation(",")
        width = parser.parse_operand(i32)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(mode, parser.resolve_operand(value, t), offset, width)
        op.attributes |= attrs
        return op


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """
    Reduces `value` over the lanes of a subgroup (or over clusters of
    `cluster_size` lanes, `cluster_stride` apart); every lane gets the result.
    `uniform` says all lanes of the subgroup reach the op together.

    ```mlir
    %r = gpu.subgroup_reduce add %v uniform cluster(size = 4) : (f32) -> f32
    ```
    """

    name = "gpu.subgroup_reduce"

    T: ClassVar = VarConstraint("T", AnyAttr())

    value = operand_def(T)
    op = prop_def(AllReduceOpAttr)
    uniform = opt_prop_def(UnitAttr)
    cluster_size = opt_prop_def(IntegerAttr)
    cluster_stride = prop_def(IntegerAttr)
    result = result_def(T)

    traits = traits_def(Pure())

    def __init__(
        self,
        kind: ReductionKind,
        value: SSAValue,
        uniform: bool = False,
        cluster_size: int | None = None,
        cluster_stride: int = 1,
    ):
        props: dict[str, Attribute] = {
            "op": AllReduceOpAttr(kind),
            "cluster_stride": IntegerAttr(cluster_stride, i32),
        }
        if uniform:
            props["uniform"] = UnitAttr()
        if cluster_size is not None:
            props["cluster_size"] = IntegerAttr(cluster_size, i32)
        super().__init__(operands=[value], result_types=[value.type], properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.op.data.value} ")
        printer.print_ssa_value(self.value)
        if self.uniform is not None:
            printer.print_string(" uniform")
        if self.cluster_size is not None:
            printer.print_string(f" cluster(size = {self.cluster_size.value.data}")
            if self.cluster_stride.value.data != 1:
                printer.print_string(f", stride = {self.cluster_stride.value.data}")
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_attribute(self.value.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupReduceOp:
        kind = parser.parse_str_enum(ReductionKind)
        value = parser.parse_unresolved_operand()
        uniform = parser.parse_optional_keyword("uniform") is not None
        size, stride = None, 1
        if parser.parse_optional_keyword("cluster") is not None:
            with parser.in_parens():
                parser.parse_keyword("size")
                parser.parse_punctuation("=")
                size = parser.parse_integer(allow_boolean=False)
                if parser.parse_optional_punctuation(","):
                    parser.parse_keyword("stride")
                    parser.parse_punctuation("=")
                    stride = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        with parser.in_parens():
            t = parser.parse_type()
        parser.parse_punctuation("->")
        parser.parse_type()
        op = cls(kind, parser.resolve_operand(value, t), uniform, size, stride)
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        # MLIR's `verifyReduceOpAndType`: the min/max kinds are typed.
        kind = self.op.data
        element = self.value.type
        if isinstance(element, VectorType):
            element = element.element_type
        is_float = isinstance(element, AnyFloat)
        if (kind in _FLOAT_REDUCTIONS and not is_float) or (
            kind in _INTEGER_REDUCTIONS and not isinstance(element, IntegerType)
        ):
            raise VerifyException(
                f"'{self.name}' op `{kind.value}` reduction operation is not compatible "
                f"with type '{self.value.type}'"
            )
        for what, attr in (("cluster size", self.cluster_size), ("cluster stride", self.cluster_stride)):
            if attr is None:
                continue
            n = attr.value.data
            if n <= 0 or n & (n - 1):
                raise VerifyException(f"'{self.name}' op {what} {n} is not a power of two")


GPU_EXTENSION_OPS = (
    ThreadIdOp,
    BlockIdOp,
    BlockDimOp,
    GridDimOp,
    GlobalIdOp,
    LaneIdOp,
    SubgroupIdOp,
    SubgroupSizeOp,
    NumSubgroupsOp,
    BarrierOp,
    ShuffleOp,
    SubgroupReduceOp,
)
"""The gpu ops xsplit defines in place of (or beside) xDSL's."""

GPU_EXTENSION_ATTRS = (
    DimensionAttr,
    AddressSpaceAttr,
    BarrierScopeAttr,
    ShuffleModeAttr,
    AllReduceOpAttr,
)

KNOWN_BLOCK_SIZE = "gpu.known_block_size"
KNOWN_GRID_SIZE = "gpu.known_grid_size"
"""Discardable `array<i32: x, y, z>` attributes on a kernel function giving its launch sizes."""
