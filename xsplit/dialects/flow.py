"""IREE's `flow` dialect: the dispatch containers that split-K forms.

- `flow.dispatch.region` groups ops that will become one dispatch. It captures
  values from above and is the form IREE's own fusion heuristics produce.
- `flow.dispatch.workgroups` is the isolated form: tensor operands become
  `!iree_tensor_ext.dispatch.tensor` placeholders read and written with
  `iree_tensor_ext.dispatch.tensor.load/store`.
- `flow.return` ends both bodies and their workgroup-count regions.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.iree_tensor_ext import DispatchTensorType, TensorAccess
from xsplit.dialects.op_helpers import init_segmented


def dynamic_dim_count(t: Attribute) -> int:
    """How many `{%d}` values a shaped type carries beside it."""
    if isinstance(t, TensorType | DispatchTensorType):
        shaped = t.bound_type if isinstance(t, DispatchTensorType) else t
        return sum(1 for d in shaped.get_shape() if d == DYNAMIC_INDEX)
    return 0


def _take_dims(types: Sequence[Attribute], dims: Sequence[SSAValue]):
    """Pairs each type with its own slice of a flat dynamic-dims list."""
    pos = 0
    for t in types:
        n = dynamic_dim_count(t)
        yield t, list(dims[pos : pos + n])
        pos += n


def _print_dims(printer: Printer, dims: Sequence[SSAValue]) -> None:
    if dims:
        printer.print_string("{")
        printer.print_list(dims, printer.print_ssa_value)
        printer.print_string("}")


def _print_type_with_dims(printer: Printer, t: Attribute, dims: Sequence[SSAValue]):
    printer.print_attribute(t)
    _print_dims(printer, dims)


def _parse_dims(parser: Parser) -> list[SSAValue]:
    dims: list[SSAValue] = []
    if parser.parse_optional_punctuation("{"):
        dims = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, lambda: parser.parse_operand(IndexType())
        )
        parser.parse_punctuation("}")
    return dims


def _parse_type_with_dims(parser: Parser) -> tuple[Attribute, list[SSAValue]]:
    t = parser.parse_type()
    return t, _parse_dims(parser)


def _parse_tied_results(
    parser: Parser, arguments: Sequence[SSAValue], names: Sequence[UnresolvedOperand]
) -> list[tuple[Attribute, list[SSAValue], int]]:
    """The results after `->`: `type{dims}` or a tied argument
    `%arg[ as type]{dims}`, one alone or a parenthesized list. Each is (type,
    dynamic dims, tied argument index or -1). A tied result has the argument's
    type unless `as` gives another, and carries the sizes of its own type as
    an untied result does. `names` are the arguments as the op spelled them."""
    spelled = [(n.operand_name, n.index) for n in names]

    def parse_result() -> tuple[Attribute, list[SSAValue], int]:
        pos = parser.pos
        if (name := parser.parse_optional_unresolved_operand()) is not None:
            if (name.operand_name, name.index) not in spelled:
                parser.raise_error("tied result must name one of the arguments", pos, parser.pos)
            tie = spelled.index((name.operand_name, name.index))
            t = arguments[tie].type
            if parser.parse_optional_keyword("as") is not None:
                t = parser.parse_type()
            return t, _parse_dims(parser), tie
        t, dims = _parse_type_with_dims(parser)
        return t, dims, -1

    if parser.parse_optional_punctuation("(") is None:
        return [parse_result()]
    if parser.parse_optional_punctuation(")") is not None:
        return []
    results = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parse_result)
    parser.parse_punctuation(")")
    return results


def _print_tied_results(
    printer: Printer,
    arguments: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    tied: Sequence[int],
    result_dims: Sequence[SSAValue],
) -> None:
    """Prints results as `_parse_tied_results` reads them, and as IREE does:
    a single result bare, any other number in parentheses."""
    items = list(_take_dims(result_types, result_dims))

    def print_item(i: int) -> None:
        t, dims = items[i]
        if tied[i] < 0:
            _print_type_with_dims(printer, t, dims)
            return
        argument = arguments[tied[i]]
        printer.print_ssa_value(argument)
        if argument.type != t:
            printer.print_string(" as ")
            printer.print_attribute(t)
        _print_dims(printer, dims)

    if len(items) == 1:
        print_item(0)
        return
    printer.print_string("(")
    printer.print_list(range(len(items)), print_item)
    printer.print_string(")")


def _parse_workload(parser: Parser) -> list[SSAValue]:
    workload = parser.parse_optional_comma_separated_list(
        Parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
    )
    return workload or []


def _print_workload(printer: Printer, workload: Sequence[SSAValue]) -> None:
    if workload:
        printer.print_string("[")
        printer.print_list(workload, printer.print_ssa_value)
        printer.print_string("]")


def _parse_count_region(parser: Parser) -> Region:
    if parser.parse_optional_keyword("count") is None:
        return Region()
    args = parser.parse_comma_separated_list(
        Parser.Delimiter.PAREN, lambda: parser.parse_argument()
    )
    parser.parse_punctuation("->")
    parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
    return parser.parse_region(args)


def _print_count_region(printer: Printer, count: Region) -> None:
    if not count.blocks:
        return
    printer.print_string(" count(")
    printer.print_list(count.block.args, printer.print_block_argument)
    printer.print_string(") -> (index, index, index) ")
    printer.print_region(count, print_entry_block_args=False)


def _verify_count_region(op: Operation, count: Region, workload_size: int) -> None:
    if not count.blocks:
        return
    args = count.block.args
    if len(args) != workload_size:
        raise VerifyException(
            f"'{op.name}' op workload operands and workgroup count args mismatch "
            f"({workload_size} vs {len(args)})"
        )
    if any(not isinstance(a.type, IndexType) for a in args):
        raise VerifyException(f"'{op.name}' op workgroup count region arguments must be index")
    last = count.block.last_op
    if (
        not isinstance(last, ReturnOp)
        or len(last.operands) != 3
        or any(not isinstance(v.type, IndexType) for v in last.operands)
    ):
        raise VerifyException(f"'{op.name}' op workgroup count region must return 3 index values")


def _verify_result_dims(
    op: Operation, types: Sequence[Attribute], dims: Sequence[SSAValue], what: str
) -> None:
    expected = sum(dynamic_dim_count(t) for t in types)
    if expected != len(dims):
        raise VerifyException(
            f"'{op.name}' op {what} have {expected} dynamic dimensions but "
            f"{len(dims)} dimension values are given"
        )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """
    Ends a dispatch body, yielding the results of a `flow.dispatch.region`
    (a `flow.dispatch.workgroups` body returns nothing), or ends a
    workgroup-count region, yielding the x, y, z counts.
    """

    name = "flow.return"

    values = var_operand_def()

    traits = lazy_traits_def(
        lambda: (
            Pure(),
            IsTerminator(),
            HasParent(DispatchRegionOp, DispatchWorkgroupsOp),
        )
    )

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        Operation.__init__(self, operands=[SSAValue.get(v) for v in values])

    def verify_(self) -> None:
        # IREE checks a dispatch region's yield at the flow.return.
        parent = self.parent_op()
        if not isinstance(parent, DispatchRegionOp) or self.parent_region() is not parent.body:
            return
        if len(self.values) != len(parent.results):
            raise VerifyException(
                f"'{self.name}' op number of results ({len(parent.results)}) does not match "
                f"number of returned values ({len(self.values)})"
            )
        if list(self.values.types) != list(parent.result_types):
            raise VerifyException(f"'{self.name}' op operand types do not match with parent results")


@irdl_op_definition
class DispatchRegionOp(IRDLOperation):
    """
    A group of ops that will form one dispatch. Its body captures values from
    above and yields the results with `flow.return`. The optional `count`
    region maps the `workload` values to the number of workgroups.

    ```mlir
    %0 = flow.dispatch.region -> (tensor<4x8xf32>) {
      ...
      flow.return %r : tensor<4x8xf32>
    }
    ```
    """

    name = "flow.dispatch.region"

    result_dims = var_operand_def(IndexType)
    workload = var_operand_def(IndexType)
    result = var_result_def()

    body = region_def("single_block")
    workgroup_count = region_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(
        self,
        result_types: Sequence[Attribute],
        body: Region,
        result_dims: Sequence[SSAValue] = (),
        workload: Sequence[SSAValue] = (),
        workgroup_count: Region | None = None,
    ):
        init_segmented(
            self,
            [result_dims, workload],
            list(result_types),
            regions=[body, workgroup_count or Region()],
        )

    def print(self, printer: Printer) -> None:
        _print_workload(printer, self.workload)
        printer.print_string(" -> (")
        printer.print_list(
            _take_dims(self.result_types, self.result_dims),
            lambda pair: _print_type_with_dims(printer, *pair),
        )
        printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        terminator = self.body.block.last_op
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_block_terminators=not (
                isinstance(terminator, ReturnOp) and not terminator.operands
            ),
        )
        _print_count_region(printer, self.workgroup_count)

    @classmethod
    def parse(cls, parser: Parser) -> DispatchRegionOp:
        workload = _parse_workload(parser)
        parser.parse_punctuation("->")
        typed = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: _parse_type_with_dims(parser)
        )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if body.blocks and not isinstance(body.block.last_op, ReturnOp):
            body.block.add_op(ReturnOp())
        op = cls(
            [t for t, _ in typed],
            body,
            [d for _, dims in typed for d in dims],
            workload,
            _parse_count_region(parser),
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def verify_(self) -> None:
        _verify_result_dims(self, self.result_types, self.result_dims, "results")
        terminator = self.body.block.last_op
        if not isinstance(terminator, ReturnOp):
            raise VerifyException(f"'{self.name}' op body must end in flow.return")
        _verify_count_region(self, self.workgroup_count, len(self.workload))


@irdl_op_definition
class DispatchWorkgroupsOp(IRDLOperation):
    """
    A dispatch of workgroups over a 3-D grid, isolated from above. Each tensor
    argument and each result not tied to an argument has a block argument of
    type `!iree_tensor_ext.dispatch.tensor`; other arguments pass through as
    they are. A result written as an argument's SSA name (`-> %arg`) is tied to
    that argument and updated in place; like any result it carries the sizes of
    its type (`-> %arg{%n}`), which `as` may make another (`-> %arg as T{%n}`).

    ```mlir
    %r = flow.dispatch.workgroups(%a) : (tensor<4xf32>) -> tensor<4xf32> =
        (%in: !iree_tensor_ext.dispatch.tensor<readonly:tensor<4xf32>>,
         %out: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4xf32>>) {
      ...
      flow.return
    }
    ```

    Without a `count` region IREE derives the workgroup count from the body.
    """

    name = "flow.dispatch.workgroups"

    workload = var_operand_def(IndexType)
    arguments = var_operand_def()
    argument_dims = var_operand_def(IndexType)
    result_dims = var_operand_def(IndexType)
    tied_operands = opt_prop_def(ArrayAttr[IntegerAttr])
    results_ = var_result_def()

    workgroup_body = region_def("single_block")
    workgroup_count = region_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure(), IsolatedFromAbove())

    def __init__(
        self,
        arguments: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        body: Region,
        argument_dims: Sequence[SSAValue] = (),
        result_dims: Sequence[SSAValue] = (),
        workload: Sequence[SSAValue] = (),
        tied_operands: Sequence[int] | None = None,
        workgroup_count: Region | None = None,
    ):
        properties: dict[str, Attribute] = {}
        if tied_operands is not None:
            properties["tied_operands"] = ArrayAttr(
                [IntegerAttr(i, IndexType()) for i in tied_operands]
            )
        init_segmented(
            self,
            [workload, arguments, argument_dims, result_dims],
            list(result_types),
            properties,
            regions=[body, workgroup_count or Region()],
        )

    def tied_argument_indices(self) -> list[int]:
        """For each result, the index of the argument it is tied to, or -1."""
        if self.tied_operands is None:
            return [-1] * len(self.results)
        return [a.value.data for a in self.tied_operands.data]

    def expected_block_arg_types(self) -> list[Attribute]:
        """The placeholder or scalar type of each body argument, in order."""
        tied = self.tied_argument_indices()
        expected: list[Attribute] = []
        for i, arg in enumerate(self.arguments):
            if isinstance(arg.type, TensorType):
                access = TensorAccess.READWRITE if i in tied else TensorAccess.READONLY
                expected.append(DispatchTensorType.get(access, arg.type))
            else:
                expected.append(arg.type)
        for t, tie in zip(self.result_types, tied):
            if tie < 0:
                assert isinstance(t, TensorType)
                expected.append(DispatchTensorType.get(TensorAccess.WRITEONLY, t))
        return expected

    def print(self, printer: Printer) -> None:
        _print_workload(printer, self.workload)
        printer.print_string("(")
        printer.print_list(self.arguments, printer.print_ssa_value)
        printer.print_string(") : (")
        printer.print_list(
            _take_dims([a.type for a in self.arguments], self.argument_dims),
            lambda pair: _print_type_with_dims(printer, *pair),
        )
        printer.print_string(") -> ")
        _print_tied_results(
            printer,
            self.arguments,
            self.result_types,
            self.tied_argument_indices(),
            self.result_dims,
        )
        printer.print_op_attributes(
            self.attributes, print_keyword=True, reserved_attr_names=("tied_operands",)
        )
        printer.print_string(" =")
        printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
        printer.print_string("    (")
        printer.print_list(self.workgroup_body.block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(self.workgroup_body, print_entry_block_args=False)
        _print_count_region(printer, self.workgroup_count)

    @classmethod
    def parse(cls, parser: Parser) -> DispatchWorkgroupsOp:
        workload = _parse_workload(parser)
        unresolved = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(":")
        pos = parser.pos
        typed_args = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: _parse_type_with_dims(parser)
        )
        if len(typed_args) != len(unresolved):
            parser.raise_error(
                f"expected {len(unresolved)} argument types, got {len(typed_args)}",
                pos,
                parser.pos,
            )
        arguments = [parser.resolve_operand(u, t) for u, (t, _) in zip(unresolved, typed_args)]
        parser.parse_punctuation("->")

        results = _parse_tied_results(parser, arguments, unresolved)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation("=")
        block_args = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_argument()
        )
        body = parser.parse_region(block_args)
        ties = [tie for _, _, tie in results]
        op = cls(
            arguments,
            [t for t, _, _ in results],
            body,
            [d for _, dims in typed_args for d in dims],
            [d for _, dims, _ in results for d in dims],
            workload,
            # As MLIR's parser, which records every result's tie, -1 for none.
            ties if ties else None,
            _parse_count_region(parser),
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def verify_(self) -> None:
        _verify_result_dims(self, [a.type for a in self.arguments], self.argument_dims, "arguments")
        tied = self.tied_argument_indices()
        if len(tied) != len(self.results):
            raise VerifyException(
                f"'{self.name}' op tied_operands has {len(tied)} entries for "
                f"{len(self.results)} results"
            )
        # A tied result carries its own sizes, and `as` may give it a type
        # other than its argument's: IREE checks neither against the other.
        _verify_result_dims(self, self.result_types, self.result_dims, "results")
        for t, tie in zip(self.result_types, tied):
            if tie >= len(self.arguments):
                raise VerifyException(
                    f"'{self.name}' op result tied to argument {tie}, which does not exist"
                )
            if tie < 0 and not isinstance(t, TensorType):
                raise VerifyException(f"'{self.name}' op results must be tensors, got {t}")
        expected = self.expected_block_arg_types()
        actual = [a.type for a in self.workgroup_body.block.args]
        # IREE lets a tensor argument be bound with any access mode it can
        # honour, so compare the bound tensor types and the argument count.
        if len(actual) != len(expected) or any(
            _bound(a) != _bound(e) for a, e in zip(actual, expected)
        ):
            raise VerifyException(
                f"'{self.name}' op body arguments ({', '.join(map(str, actual))}) "
                f"do not match the dispatch signature, expected "
                f"({', '.join(map(str, expected))})"
            )
        terminator = self.workgroup_body.block.last_op
        if not isinstance(terminator, ReturnOp) or terminator.values:
            raise VerifyException(f"'{self.name}' op body must end in a flow.return with no values")
        _verify_count_region(self, self.workgroup_count, len(self.workload))


@irdl_op_definition
class DispatchOp(IRDLOperation):
    """
    Launches an executable's entry point (`@executable::@export`) on tensors.
    A result written as an argument's SSA name is tied to that argument: the
    dispatch updates it in place, which is how a hand-written kernel returns
    the buffers it writes. A tied result carries the sizes of its type, as in
    `-> %out{%n}`, and `as` gives it another type.

    ```mlir
    %r = flow.dispatch @ex::@k(%a, %out) : (tensor<8xf32>, tensor<8xf32>) -> %out
    ```
    """

    name = "flow.dispatch"

    workload = var_operand_def(IndexType)
    arguments = var_operand_def()
    argument_dims = var_operand_def(IndexType)
    result_dims = var_operand_def(IndexType)
    entry_points = prop_def(ArrayAttr[SymbolRefAttr])
    tied_operands = opt_prop_def(ArrayAttr[IntegerAttr])
    results_ = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        entry_point: SymbolRefAttr | Sequence[SymbolRefAttr],
        arguments: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        tied_operands: Sequence[int] | None = None,
        argument_dims: Sequence[SSAValue] = (),
        result_dims: Sequence[SSAValue] = (),
        workload: Sequence[SSAValue] = (),
    ):
        points = [entry_point] if isinstance(entry_point, SymbolRefAttr) else list(entry_point)
        properties: dict[str, Attribute] = {"entry_points": ArrayAttr(points)}
        ties = list(tied_operands) if tied_operands is not None else [-1] * len(result_types)
        properties["tied_operands"] = ArrayAttr([IntegerAttr(i, IndexType()) for i in ties])
        init_segmented(
            self,
            [workload, arguments, argument_dims, result_dims],
            list(result_types),
            properties,
        )

    def tied_argument_indices(self) -> list[int]:
        """For each result, the index of the argument it is tied to, or -1."""
        if self.tied_operands is None:
            return [-1] * len(self.results)
        return [a.value.data for a in self.tied_operands.data]

    def print(self, printer: Printer) -> None:
        points = self.entry_points.data
        printer.print_string(" ")
        if len(points) == 1:
            printer.print_attribute(points[0])
        else:
            printer.print_string("{")
            printer.print_list(points, printer.print_attribute)
            printer.print_string("}")
        _print_workload(printer, self.workload)
        printer.print_string("(")
        printer.print_list(self.arguments, printer.print_ssa_value)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_list(
            _take_dims([a.type for a in self.arguments], self.argument_dims),
            lambda pair: _print_type_with_dims(printer, *pair),
        )
        printer.print_string(") -> ")
        _print_tied_results(
            printer,
            self.arguments,
            self.result_types,
            self.tied_argument_indices(),
            self.result_dims,
        )

    @classmethod
    def parse(cls, parser: Parser) -> DispatchOp:
        pos = parser.pos
        if parser.parse_optional_punctuation("{") is not None:
            points = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_attribute
            )
            parser.parse_punctuation("}")
        else:
            points = [parser.parse_attribute()]
        if not all(isinstance(p, SymbolRefAttr) for p in points):
            parser.raise_error("expected @executable::@entry_point", pos, parser.pos)
        workload = _parse_workload(parser)
        unresolved = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        typed_args = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: _parse_type_with_dims(parser)
        )
        if len(typed_args) != len(unresolved):
            parser.raise_error(
                f"expected {len(unresolved)} argument types, got {len(typed_args)}", pos, parser.pos
            )
        arguments = [parser.resolve_operand(u, t) for u, (t, _) in zip(unresolved, typed_args)]
        parser.parse_punctuation("->")

        results = _parse_tied_results(parser, arguments, unresolved)
        op = cls(
            points,  # pyright: ignore[reportArgumentType]
            arguments,
            [t for t, _, _ in results],
            [tie for _, _, tie in results],
            [d for _, dims in typed_args for d in dims],
            [d for _, dims, _ in results for d in dims],
            workload,
        )
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        _verify_result_dims(self, [a.type for a in self.arguments], self.argument_dims, "arguments")
        tied = self.tied_argument_indices()
        if len(tied) != len(self.results):
            raise VerifyException(
                f"'{self.name}' op tied_operands has {len(tied)} entries for {len(self.results)} results"
            )
        for tie in tied:
            if tie >= len(self.arguments):
                raise VerifyException(
                    f"'{self.name}' op result tied to argument {tie}, which does not exist"
                )
        # As for flow.dispatch.workgroups, tied results carry their own sizes.
        _verify_result_dims(self, self.result_types, self.result_dims, "results")


def _bound(t: Attribute) -> Attribute:
    return t.bound_type if isinstance(t, DispatchTensorType) else t


Flow = Dialect("flow", [DispatchOp, DispatchRegionOp, DispatchWorkgroupsOp, ReturnOp], [])

__all__ = [
    "DispatchOp",
    "DispatchRegionOp",
    "DispatchWorkgroupsOp",
    "Flow",
    "ReturnOp",
    "dynamic_dim_count",
]
