"""The parts of IREE's `hal` dialect that a hand-written (custom) dispatch needs.

A custom dispatch is an executable whose code xsplit writes itself:

```mlir
hal.executable.source private @ex {
  hal.executable.export public @k ordinal(0) layout(#layout)
      count(%device: !hal.device) -> (index, index, index) {
    hal.return %x, %y, %z : index, index, index
  }
  builtin.module {
    func.func @k() attributes {translation_info = ...} {
      %A = hal.interface.binding.subspan layout(#layout) binding(0) ... : memref<...>
      %wg = hal.interface.workgroup.id[0] : index
      ...
    }
  }
}
```

`flow.dispatch @ex::@k(...)` launches it from the host program. The export's
`count` region is the launch grid; inside the kernel the
`hal.interface.workgroup.*` ops read this workgroup's place in it, and
`hal.interface.binding.subspan` binds each dispatch operand to a memref.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    i32,
)
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    SingleBlockImplicitTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.flow import dynamic_dim_count
from xsplit.dialects.op_helpers import init_segmented

DESCRIPTOR_FLAGS: dict[str, int] = {"None": 0, "ReadOnly": 1, "Indirect": 2}
"""IREE's descriptor flag bits, by the names its assembly uses."""

_BARE_FLAGS = ("ReadOnly", "Indirect")


def _flags_text(bits: int) -> str:
    """`ReadOnly`, or a quoted `"ReadOnly|Indirect"` / `"None"`, as IREE prints flags."""
    names = [n for n, b in DESCRIPTOR_FLAGS.items() if b and bits & b]
    if len(names) == 1 and names[0] in _BARE_FLAGS:
        return names[0]
    return '"' + ("|".join(names) or "None") + '"'


def _parse_flags(parser: AttrParser) -> int:
    pos = parser.pos
    text = parser.parse_optional_str_literal()
    if text is None:
        text = parser.parse_identifier()
    bits = 0
    for name in text.split("|"):
        name = name.strip()
        if name not in DESCRIPTOR_FLAGS:
            parser.raise_error(
                f"unknown descriptor flag '{name}' (expected {', '.join(DESCRIPTOR_FLAGS)})",
                pos,
                parser.pos,
            )
        bits |= DESCRIPTOR_FLAGS[name]
    return bits


def _index(value: int) -> IntegerAttr:
    return IntegerAttr(value, IndexType())


@irdl_attr_definition
class DeviceType(ParametrizedAttribute, TypeAttribute):
    """`!hal.device`: the device a dispatch runs on; the count region's first argument."""

    name = "hal.device"


@irdl_attr_definition
class PipelineBindingAttr(ParametrizedAttribute):
    """One buffer binding of a pipeline layout: `#hal.pipeline.binding<storage_buffer, ReadOnly>`."""

    name = "hal.pipeline.binding"

    descriptor_type: StringAttr
    flags: IntAttr

    def __init__(self, descriptor_type: str = "storage_buffer", flags: int = 0):
        super().__init__(StringAttr(descriptor_type), IntAttr(flags))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            kind = parser.parse_identifier()
            if kind not in ("storage_buffer", "uniform_buffer"):
                parser.raise_error(
                    "expected storage_buffer or uniform_buffer", pos, parser.pos
                )
            flags = _parse_flags(parser) if parser.parse_optional_punctuation(",") else 0
        return (StringAttr(kind), IntAttr(flags))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.descriptor_type.data}")
        if self.flags.data:
            printer.print_string(f", {_flags_text(self.flags.data)}")
        printer.print_string(">")

    @property
    def read_only(self) -> bool:
        return bool(self.flags.data & DESCRIPTOR_FLAGS["ReadOnly"])


@irdl_attr_definition
class PipelineLayoutAttr(ParametrizedAttribute):
    """
    The interface of an executable: how many 32-bit push constants it takes
    and its buffer bindings, in order:
    `#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>`.
    """

    name = "hal.pipeline.layout"

    constants: IntAttr
    bindings: ArrayAttr[PipelineBindingAttr]

    def __init__(self, bindings: Sequence[PipelineBindingAttr], constants: int = 0):
        super().__init__(IntAttr(constants), ArrayAttr(bindings))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return cls.parse_body(parser)

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Sequence[Attribute]:
        """What is between the angle brackets."""
        constants = 0
        if parser.parse_optional_keyword("constants") is not None:
            parser.parse_punctuation("=")
            constants = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
        parser.parse_keyword("bindings")
        parser.parse_punctuation("=")
        pos = parser.pos
        bindings = parser.parse_comma_separated_list(
            AttrParser.Delimiter.SQUARE, parser.parse_attribute
        )
        if not all(isinstance(b, PipelineBindingAttr) for b in bindings):
            parser.raise_error("expected #hal.pipeline.binding attributes", pos, parser.pos)
        return (IntAttr(constants), ArrayAttr(bindings))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        if self.constants.data:
            printer.print_string(f"constants = {self.constants.data}, ")
        printer.print_string("bindings = [")
        printer.print_list(self.bindings.data, printer.print_attribute)
        printer.print_string("]>")


def _parse_layout_operand(parser: Parser) -> PipelineLayoutAttr:
    """`layout(...)` of an interface op: the layout with its `#hal.pipeline.layout`
    prefix elided, as MLIR prints an attribute whose kind the op fixes, or in full."""
    parser.parse_keyword("layout")
    pos = parser.pos
    with parser.in_parens():
        if parser.parse_optional_punctuation("<") is not None:
            params = PipelineLayoutAttr.parse_body(parser)
            parser.parse_punctuation(">")
            return PipelineLayoutAttr.new(params)
        layout = parser.parse_attribute()
    if not isinstance(layout, PipelineLayoutAttr):
        parser.raise_error("expected a #hal.pipeline.layout", pos, parser.pos)
    return layout


def _print_layout_operand(printer: Printer, layout: PipelineLayoutAttr) -> None:
    printer.print_string(" layout(")
    layout.print_parameters(printer)
    printer.print_string(")")


def _parse_visibility(parser: Parser) -> str | None:
    for v in ("public", "private", "nested"):
        if parser.parse_optional_keyword(v) is not None:
            return v
    return None


@irdl_op_definition
class ExecutableSourceEndOp(IRDLOperation):
    """The implicit terminator of a `hal.executable.source` body."""

    name = "hal.executable.source_end"

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ExecutableSourceOp)))


@irdl_op_definition
class ExecutableSourceOp(IRDLOperation):
    """
    An executable given as source: its exports (entry points with their
    launch grids) and a `builtin.module` with their code. iree-compile
    translates the module for each target like its own dispatches.
    """

    name = "hal.executable.source"

    sym_name = prop_def(SymbolNameConstraint())
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(
        SymbolOpInterface(),
        SymbolTable(),
        IsolatedFromAbove(),
        SingleBlockImplicitTerminator(ExecutableSourceEndOp),
    )

    def __init__(self, sym_name: str, body: Region, visibility: str | None = "private"):
        props: dict[str, Attribute] = {"sym_name": StringAttr(sym_name)}
        if visibility is not None:
            props["sym_visibility"] = StringAttr(visibility)
        if body.blocks and not isinstance(body.block.last_op, ExecutableSourceEndOp):
            body.block.add_op(ExecutableSourceEndOp())
        super().__init__(properties=props, regions=[body])

    def print(self, printer: Printer) -> None:
        vis = self.sym_visibility.data if self.sym_visibility else "public"
        printer.print_string(f" {vis} @{self.sym_name.data}")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=False)

    @classmethod
    def parse(cls, parser: Parser) -> ExecutableSourceOp:
        vis = _parse_visibility(parser)
        name = parser.parse_symbol_name().data
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            parser.raise_error("hal.executable.source needs a body")
        op = cls(name, body, vis)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def exports(self) -> list[ExecutableExportOp]:
        return [op for op in self.body.block.ops if isinstance(op, ExecutableExportOp)]


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends an export's `count` region with the x, y, z workgroup counts."""

    name = "hal.return"

    values = var_operand_def()

    traits = lazy_traits_def(lambda: (Pure(), IsTerminator(), HasParent(ExecutableExportOp)))

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[[SSAValue.get(v) for v in values]])


@irdl_op_definition
class ExecutableExportOp(IRDLOperation):
    """
    An entry point of an executable. `layout` is its binding interface;
    the `count` region, given the device and the workload, returns the number
    of workgroups along x, y and z.
    """

    name = "hal.executable.export"

    sym_name = prop_def(SymbolNameConstraint())
    sym_visibility = opt_prop_def(StringAttr)
    ordinal = opt_prop_def(IntegerAttr)
    layout = prop_def(PipelineLayoutAttr)
    workgroup_count = region_def()
    condition = region_def()

    traits = traits_def(SymbolOpInterface(), HasParent(ExecutableSourceOp))

    def __init__(
        self,
        sym_name: str,
        layout: PipelineLayoutAttr,
        workgroup_count: Region | None = None,
        ordinal: int | None = 0,
        visibility: str | None = "public",
    ):
        props: dict[str, Attribute] = {"sym_name": StringAttr(sym_name), "layout": layout}
        if visibility is not None:
            props["sym_visibility"] = StringAttr(visibility)
        if ordinal is not None:
            props["ordinal"] = _index(ordinal)
        super().__init__(properties=props, regions=[workgroup_count or Region(), Region()])

    def print(self, printer: Printer) -> None:
        vis = self.sym_visibility.data if self.sym_visibility else "public"
        printer.print_string(f" {vis} @{self.sym_name.data}")
        if self.ordinal is not None:
            printer.print_string(f" ordinal({self.ordinal.value.data})")
        printer.print_string(" layout(")
        printer.print_attribute(self.layout)
        printer.print_string(")")
        if self.workgroup_count.blocks:
            printer.print_string(" count(")
            printer.print_list(self.workgroup_count.block.args, printer.print_block_argument)
            printer.print_string(") -> (index, index, index) ")
            printer.print_region(self.workgroup_count, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ExecutableExportOp:
        vis = _parse_visibility(parser)
        name = parser.parse_symbol_name().data
        ordinal = None
        if parser.parse_optional_keyword("ordinal") is not None:
            with parser.in_parens():
                ordinal = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_keyword("layout")
        pos = parser.pos
        with parser.in_parens():
            layout = parser.parse_attribute()
        if not isinstance(layout, PipelineLayoutAttr):
            parser.raise_error("expected a #hal.pipeline.layout", pos, parser.pos)
        count = Region()
        if parser.parse_optional_keyword("count") is not None:
            args = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parser.parse_argument()
            )
            parser.parse_punctuation("->")
            parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
            count = parser.parse_region(args)
        op = cls(name, layout, count, ordinal, vis or "public")
        if (attrs := parser.parse_optional_attr_dict_with_keyword()) is not None:
            op.attributes |= attrs.data
        return op

    def verify_(self) -> None:
        if not self.workgroup_count.blocks:
            return
        args = self.workgroup_count.block.args
        if not args or not isinstance(args[0].type, DeviceType):
            raise VerifyException(
                f"'{self.name}' op count region's first argument must be a !hal.device"
            )
        last = self.workgroup_count.block.last_op
        if (
            not isinstance(last, ReturnOp)
            or len(last.values) != 3
            or any(not isinstance(v.type, IndexType) for v in last.values)
        ):
            raise VerifyException(f"'{self.name}' op count region must return 3 index values")


@irdl_op_definition
class InterfaceBindingSubspanOp(IRDLOperation):
    """
    Binds one buffer of the dispatch's layout as a memref (or a dispatch
    tensor), starting `offset` bytes in; dynamic sizes follow the type in
    braces.
    """

    name = "hal.interface.binding.subspan"

    byte_offset = opt_operand_def(IndexType)
    dynamic_dims = var_operand_def(IndexType)
    layout = prop_def(PipelineLayoutAttr)
    binding = prop_def(IntegerAttr)
    alignment = opt_prop_def(IntegerAttr)
    descriptor_flags = opt_prop_def(IntegerAttr)
    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(
        self,
        layout: PipelineLayoutAttr,
        binding: int,
        result_type: Attribute,
        byte_offset: SSAValue | None = None,
        dynamic_dims: Sequence[SSAValue] = (),
        alignment: int | None = 64,
        descriptor_flags: int | None = None,
    ):
        props: dict[str, Attribute] = {"layout": layout, "binding": _index(binding)}
        if alignment is not None:
            props["alignment"] = _index(alignment)
        if descriptor_flags is not None:
            props["descriptor_flags"] = IntegerAttr(descriptor_flags, i32)
        init_segmented(
            self,
            [[byte_offset] if byte_offset is not None else [], list(dynamic_dims)],
            [result_type],
            props,
        )

    def print(self, printer: Printer) -> None:
        _print_layout_operand(printer, self.layout)
        printer.print_string(f" binding({self.binding.value.data})")
        if self.alignment is not None:
            printer.print_string(f" alignment({self.alignment.value.data})")
        if self.byte_offset is not None:
            printer.print_string(" offset(")
            printer.print_ssa_value(self.byte_offset)
            printer.print_string(")")
        if self.descriptor_flags is not None:
            printer.print_string(f" flags({_flags_text(self.descriptor_flags.value.data)})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)
        if self.dynamic_dims:
            printer.print_string("{")
            printer.print_list(self.dynamic_dims, printer.print_ssa_value)
            printer.print_string("}")

    @classmethod
    def parse(cls, parser: Parser) -> InterfaceBindingSubspanOp:
        layout = _parse_layout_operand(parser)
        parser.parse_keyword("binding")
        with parser.in_parens():
            binding = parser.parse_integer(allow_boolean=False, allow_negative=False)
        alignment = offset = flags = None
        if parser.parse_optional_keyword("alignment") is not None:
            with parser.in_parens():
                alignment = parser.parse_integer(allow_boolean=False, allow_negative=False)
        if parser.parse_optional_keyword("offset") is not None:
            with parser.in_parens():
                offset = parser.parse_operand(IndexType())
        if parser.parse_optional_keyword("flags") is not None:
            with parser.in_parens():
                flags = _parse_flags(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        dims: list[SSAValue] = []
        if parser.parse_optional_punctuation("{"):
            dims = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, lambda: parser.parse_operand(IndexType())
            )
            parser.parse_punctuation("}")
        op = cls(layout, binding, t, offset, dims, alignment, flags)
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        n = self.binding.value.data
        if n >= len(self.layout.bindings.data):
            raise VerifyException(
                f"'{self.name}' op binding ordinal {n} out of bounds in layout {self.layout}"
            )
        t = self.result.type
        expected = _dynamic_count(t)
        if expected != len(self.dynamic_dims):
            raise VerifyException(
                f"'{self.name}' op result type '{t}' has {expected} dynamic dimensions "
                f"but {len(self.dynamic_dims)} associated dimension SSA values"
            )


def _dynamic_count(t: Attribute) -> int:
    from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType

    if isinstance(t, MemRefType):
        return sum(1 for d in t.get_shape() if d == DYNAMIC_INDEX)
    return dynamic_dim_count(t)


_AXES = "xyz"


class _WorkgroupIndexOp(IRDLOperation):
    """A workgroup index along dimension 0, 1 or 2: `hal.interface.workgroup.id[0] : index`."""

    dimension = prop_def(IntegerAttr)
    upper_bound = opt_prop_def(IntegerAttr)
    result = result_def(IndexType)

    traits = traits_def(Pure())

    HINT: ClassVar[str] = ""

    def __init__(self, dimension: int, upper_bound: int | None = None):
        props: dict[str, Attribute] = {"dimension": _index(dimension)}
        if upper_bound is not None:
            props["upper_bound"] = _index(upper_bound)
        super().__init__(result_types=[IndexType()], properties=props)
        if 0 <= dimension < 3:
            self.result.name_hint = f"{self.HINT}_{_AXES[dimension]}"

    @property
    def dim(self) -> int:
        return self.dimension.value.data

    def print(self, printer: Printer) -> None:
        printer.print_string(f"[{self.dim}]")
        if self.upper_bound is not None:
            printer.print_string(f" upper_bound {self.upper_bound.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : index")

    @classmethod
    def parse(cls, parser: Parser):
        with parser.in_square_brackets():
            dim = parser.parse_integer(allow_boolean=False, allow_negative=False)
        bound = None
        if parser.parse_optional_keyword("upper_bound") is not None:
            bound = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_keyword("index")
        op = cls(dim, bound)
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        if not 0 <= self.dim < 3:
            raise VerifyException(f"'{self.name}' op dimension must be 0, 1 or 2, got {self.dim}")


@irdl_op_definition
class InterfaceWorkgroupIDOp(_WorkgroupIndexOp):
    """This workgroup's index in the launch grid."""

    name = "hal.interface.workgroup.id"
    HINT: ClassVar[str] = "workgroup_id"


@irdl_op_definition
class InterfaceWorkgroupCountOp(_WorkgroupIndexOp):
    """The number of workgroups in the launch grid."""

    name = "hal.interface.workgroup.count"
    HINT: ClassVar[str] = "workgroup_count"


@irdl_op_definition
class InterfaceWorkgroupSizeOp(_WorkgroupIndexOp):
    """The number of invocations (threads) in a workgroup."""

    name = "hal.interface.workgroup.size"
    HINT: ClassVar[str] = "workgroup_size"


@irdl_op_definition
class InterfaceConstantLoadOp(IRDLOperation):
    """Reads push constant `ordinal` of the layout."""

    name = "hal.interface.constant.load"

    layout = prop_def(PipelineLayoutAttr)
    ordinal = prop_def(IntegerAttr)
    alignment = opt_prop_def(IntegerAttr)
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, layout: PipelineLayoutAttr, ordinal: int, result_type: Attribute, alignment: int | None = None):
        props: dict[str, Attribute] = {"layout": layout, "ordinal": _index(ordinal)}
        if alignment is not None:
            props["alignment"] = _index(alignment)
        super().__init__(result_types=[result_type], properties=props)

    def print(self, printer: Printer) -> None:
        _print_layout_operand(printer, self.layout)
        printer.print_string(f" ordinal({self.ordinal.value.data})")
        if self.alignment is not None:
            printer.print_string(f" alignment({self.alignment.value.data})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> InterfaceConstantLoadOp:
        layout = _parse_layout_operand(parser)
        parser.parse_keyword("ordinal")
        with parser.in_parens():
            ordinal = parser.parse_integer(allow_boolean=False, allow_negative=False)
        alignment = None
        if parser.parse_optional_keyword("alignment") is not None:
            with parser.in_parens():
                alignment = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(layout, ordinal, parser.parse_type(), alignment)
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        n = self.ordinal.value.data
        if n >= self.layout.constants.data:
            raise VerifyException(f"'{self.name}' op push constant ordinal out of bounds")


HAL = Dialect(
    "hal",
    [
        ExecutableSourceOp,
        ExecutableSourceEndOp,
        ExecutableExportOp,
        ReturnOp,
        InterfaceBindingSubspanOp,
        InterfaceWorkgroupIDOp,
        InterfaceWorkgroupCountOp,
        InterfaceWorkgroupSizeOp,
        InterfaceConstantLoadOp,
    ],
    [DeviceType, PipelineBindingAttr, PipelineLayoutAttr],
)
