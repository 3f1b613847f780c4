"""`scf.forall` and `scf.forall.in_parallel`, which xDSL 0.74 lacks.

`scf.forall` is a parallel loop nest over tensors: each iteration computes a
tile and, in its `scf.forall.in_parallel` terminator, inserts the tile into the
loop's shared outputs with `tensor.parallel_insert_slice`. Iterations must write
disjoint slices, so they may run in any order or all at once. Split-K uses it
to compute one partial reduction per iteration.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    TensorType,
    i64,
)
from xdsl.dialects.utils import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    NoTerminator,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.gpu import GPU_MAPPING_ATTRS
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.op_helpers import (
    ParallelCombining,
    ParallelCombiningUpdate,
    init_segmented,
    split_mixed,
)

MAPPING_ATTRS = (*GPU_MAPPING_ATTRS, SplitReductionMappingAttr)


@irdl_op_definition
class InParallelOp(IRDLOperation):
    """
    The terminator of `scf.forall`: a block of `tensor.parallel_insert_slice`
    ops that write each iteration's tiles into the shared outputs.
    """

    name = "scf.forall.in_parallel"

    body = region_def("single_block")

    traits = lazy_traits_def(lambda: (IsTerminator(), NoTerminator(), HasParent(ForallOp), ParallelCombining()))

    def __init__(self, ops: Sequence[Operation] = ()):
        super().__init__(regions=[Region(Block(ops))])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> InParallelOp:
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls.create(regions=[region])
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def verify_(self) -> None:
        for op in self.body.block.ops:
            if not op.has_trait(ParallelCombiningUpdate):
                raise VerifyException(
                    f"'{self.name}' op may only hold tensor.parallel_insert_slice, "
                    f"found '{op.name}'"
                )


@irdl_op_definition
class ForallOp(IRDLOperation):
    """
    A multi-dimensional parallel loop over `[lb, ub)` with `step`, given as a
    mix of constants and index values. `in (N, M)` is the normalized form
    (lower bounds 0, steps 1). `shared_outs` are tensors that iterations update
    in place through the `scf.forall.in_parallel` terminator; the op returns
    their final values. `mapping` names the processors each dimension is
    distributed over.

    ```mlir
    %r = scf.forall (%i) in (4) shared_outs(%o = %init) -> (tensor<4x8xf32>) {
      ...
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %t into %o[%i, 0] [1, 8] [1, 1]
            : tensor<8xf32> into tensor<4x8xf32>
      }
    } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
    ```
    """

    name = "scf.forall"

    dynamicLowerBound = var_operand_def(IndexType)
    dynamicUpperBound = var_operand_def(IndexType)
    dynamicStep = var_operand_def(IndexType)
    outputs = var_operand_def(TensorType)

    staticLowerBound = prop_def(DenseArrayBase.constr(i64))
    staticUpperBound = prop_def(DenseArrayBase.constr(i64))
    staticStep = prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)

    res = var_result_def(TensorType)

    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = lazy_traits_def(
        lambda: (SingleBlockImplicitTerminator(InParallelOp), RecursiveMemoryEffect())
    )

    def __init__(
        self,
        lower_bounds: Sequence[int | SSAValue],
        upper_bounds: Sequence[int | SSAValue],
        steps: Sequence[int | SSAValue],
        outputs: Sequence[SSAValue],
        body: Region,
        mapping: Sequence[Attribute] | None = None,
    ):
        static_lb, dynamic_lb = split_mixed(lower_bounds)
        static_ub, dynamic_ub = split_mixed(upper_bounds)
        static_step, dynamic_step = split_mixed(steps)
        properties: dict[str, Attribute] = {
            "staticLowerBound": static_lb,
            "staticUpperBound": static_ub,
            "staticStep": static_step,
        }
        if mapping is not None:
            properties["mapping"] = ArrayAttr(mapping)
        init_segmented(
            self,
            [dynamic_lb, dynamic_ub, dynamic_step, outputs],
            [o.type for o in outputs],
            properties,
            regions=[body],
        )

    @property
    def rank(self) -> int:
        return len(self.staticUpperBound.get_values())

    @property
    def induction_vars(self) -> Sequence[SSAValue]:
        return self.body.block.args[: self.rank]

    @property
    def region_outputs(self) -> Sequence[SSAValue]:
        return self.body.block.args[self.rank :]

    @property
    def terminator(self) -> InParallelOp:
        last = self.body.block.last_op
        assert isinstance(last, InParallelOp)
        return last

    def is_normalized(self) -> bool:
        return (
            not self.dynamicLowerBound
            and not self.dynamicStep
            and all(v == 0 for v in self.staticLowerBound.get_values())
            and all(v == 1 for v in self.staticStep.get_values())
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.induction_vars, printer.print_ssa_value)
        printer.print_string(")")

        def print_bounds(static: DenseArrayBase, dynamic: Sequence[SSAValue]):
            print_dynamic_index_list(
                printer,
                DYNAMIC_INDEX,
                dynamic,
                static.get_values(),
                delimiter=Parser.Delimiter.PAREN,
            )

        if self.is_normalized():
            printer.print_string(" in ")
            print_bounds(self.staticUpperBound, self.dynamicUpperBound)
        else:
            printer.print_string(" = ")
            print_bounds(self.staticLowerBound, self.dynamicLowerBound)
            printer.print_string(" to ")
            print_bounds(self.staticUpperBound, self.dynamicUpperBound)
            printer.print_string(" step ")
            print_bounds(self.staticStep, self.dynamicStep)
        if self.outputs:
            printer.print_string(" shared_outs(")
            printer.print_list(
                zip(self.region_outputs, self.outputs),
                lambda pair: (
                    printer.print_ssa_value(pair[0]),
                    printer.print_string(" = "),
                    printer.print_ssa_value(pair[1]),
                ),
            )
            printer.print_string(") -> (")
            printer.print_list(self.result_types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_block_terminators=bool(self.outputs),
        )
        # MLIR prints the inherent `mapping` in one sorted dictionary with the
        # discardable attributes.
        shown = dict(self.attributes)
        if self.mapping is not None:
            shown["mapping"] = self.mapping
        printer.print_op_attributes(dict(sorted(shown.items())))

    @classmethod
    def parse(cls, parser: Parser) -> ForallOp:
        ivs = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )

        def parse_bounds() -> list[int | SSAValue]:
            pos = parser.pos
            dynamic, static = parse_dynamic_index_list_without_types(
                parser, DYNAMIC_INDEX, delimiter=Parser.Delimiter.PAREN
            )
            if len(static) != len(ivs):
                parser.raise_error(
                    f"expected {len(ivs)} loop bounds, got {len(static)}",
                    pos,
                    parser.pos,
                )
            values = iter(resolve_index_operands(parser, dynamic))
            return [next(values) if s == DYNAMIC_INDEX else s for s in static]

        if parser.parse_optional_keyword("in"):
            ubs = parse_bounds()
            lbs: list[int | SSAValue] = [0] * len(ivs)
            steps: list[int | SSAValue] = [1] * len(ivs)
        else:
            parser.parse_punctuation("=")
            lbs = parse_bounds()
            parser.parse_keyword("to")
            ubs = parse_bounds()
            parser.parse_keyword("step")
            steps = parse_bounds()

        region_outs: list[Parser.UnresolvedArgument] = []
        outputs: list[SSAValue] = []
        if parser.parse_optional_keyword("shared_outs"):

            def parse_shared_out():
                arg = parser.parse_argument(expect_type=False)
                parser.parse_punctuation("=")
                return arg, parser.parse_unresolved_operand()

            pairs = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parse_shared_out)
            region_outs = [a for a, _ in pairs]
            parser.parse_punctuation("->")
            pos = parser.pos
            types = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
            if len(types) != len(pairs):
                parser.raise_error(
                    f"expected {len(pairs)} result types, one per shared output, got {len(types)}",
                    pos,
                    parser.pos,
                )
            # The types name the shared outputs' types, as in MLIR's syntax.
            outputs = [parser.resolve_operand(v, t) for (_, v), t in zip(pairs, types)]

        block_args = [iv.resolve(IndexType()) for iv in ivs] + [
            a.resolve(o.type) for a, o in zip(region_outs, outputs)
        ]
        body = parser.parse_region(block_args)
        attrs = parser.parse_optional_attr_dict()
        mapping = attrs.pop("mapping", None)
        if mapping is not None and not isinstance(mapping, ArrayAttr):
            parser.raise_error("'mapping' must be an array of mapping attributes")
        op = cls(lbs, ubs, steps, outputs, body, mapping.data if mapping else None)
        op.attributes |= attrs
        if not isinstance(body.block.last_op, InParallelOp):
            body.block.add_op(InParallelOp())
        return op

    def verify_(self) -> None:
        # MLIR's ForallOp::verify, in its order and with its messages; the
        # rank is the number of lower bounds, as MLIR's `getRank`.
        rank = len(self.staticLowerBound.get_values())
        if len(self.res) != len(self.outputs):
            raise VerifyException(
                f"'{self.name}' op produces {len(self.res)} results, "
                f"but has only {len(self.outputs)} outputs"
            )
        for i, (out, res) in enumerate(zip(self.outputs, self.res)):
            if out.type != res.type:
                raise VerifyException(
                    f"'{self.name}' op expected type of operand #{i} ('{out.type}') "
                    f"to match type of corresponding result ('{res.type}')"
                )
        args = self.body.block.args
        if len(args) != rank + len(self.outputs):
            raise VerifyException(f"'{self.name}' op region expects {rank} arguments")
        for i, arg in enumerate(args[:rank]):
            if not isinstance(arg.type, IndexType):
                raise VerifyException(
                    f"'{self.name}' op expects {i}-th block argument to be an index"
                )
        for i, (arg, out) in enumerate(zip(args[rank:], self.outputs)):
            if arg.type != out.type:
                raise VerifyException(
                    f"'{self.name}' op type mismatch between {i}-th output "
                    "and corresponding block argument"
                )
        if self.mapping is not None and self.mapping.data:
            if len(self.mapping.data) != rank:
                raise VerifyException(
                    f"'{self.name}' op mapping attribute size must match op rank"
                )
            for m in self.mapping.data:
                if not isinstance(m, MAPPING_ATTRS):
                    raise VerifyException(
                        f"'{self.name}' op mapping entry {m} is not a device mapping attribute"
                    )
            if len(set(self.mapping.data)) != rank:
                raise VerifyException(f"'{self.name}' op mapping repeats an entry")
        for what, static, dynamic in (
            ("lower bound", self.staticLowerBound, self.dynamicLowerBound),
            ("upper bound", self.staticUpperBound, self.dynamicUpperBound),
            ("step", self.staticStep, self.dynamicStep),
        ):
            values = static.get_values()
            if len(values) != rank:
                raise VerifyException(
                    f"'{self.name}' op expected {rank} {what} values, got {len(values)}"
                )
            n_dynamic = sum(1 for v in values if v == DYNAMIC_INDEX)
            if len(dynamic) != n_dynamic:
                raise VerifyException(
                    f"'{self.name}' op expected {n_dynamic} dynamic {what} values"
                )
        # MLIR accepts a static step of 0 or less; xsplit's passes divide by
        # the step, so such a loop is carried as it is (see xsplit.reader).
        if any(s != DYNAMIC_INDEX and s <= 0 for s in self.staticStep.get_values()):
            raise VerifyException(f"'{self.name}' op requires positive steps")


def resolve_index_operands(parser: Parser, operands: Sequence[UnresolvedOperand]) -> list[SSAValue]:
    return [parser.resolve_operand(o, IndexType()) for o in operands]
