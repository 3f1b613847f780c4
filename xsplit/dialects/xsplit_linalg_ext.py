"""`linalg_ext.split_grouped_gemm`: a batch of contractions of different K sizes.

xsplit's own dialect (the module's name says so: IREE's LinalgExt is
`iree_linalg_ext.py`); iree-opt does not know it.

This is the seed's solution 1 for unaligned split-K: one structured op for
"the partial reductions over each group of K", without reshaping any tensor,
so the split stays one unit until it is materialized (`materialize-late` into
loops inside a dispatch, or `materialize-early` at graph level).

    %p = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 666, ..., 51234>,
           indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                            affine_map<(d0, d1, d2) -> (d2, d1)>,
                            affine_map<(d0, d1, d2) -> (d0, d1)>],
           iterator_types = ["parallel", "parallel", "reduction"]}
         ins(%a, %b : tensor<123x51234xf32>, tensor<51234x456xf32>)
         outs(%init : tensor<77x123x456xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<77x123x456xf32>

The maps and body are those of the unsplit reduction, over its own loops; the
one reduction loop is K. Group s covers K in [offset_s, offset_{s+1}) and its
partial contraction is accumulated onto `init[s]`, so the result has a leading
group axis of size S. For a dynamic K the groups are given as `group_count = S`
(chunks of ceil(K/S), the trailing ones possibly empty) or with `balanced`
(group s covers [floor(s*K/S), floor((s+1)*K/S))).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, Dialect, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xsplit.dialects.op_helpers import dense_i64, segment_sizes


@irdl_op_definition
class SplitGroupedGemmOp(IRDLOperation):
    """
    Partial reductions over groups of the K loop, one per leading index of the
    result: `result[s, ...] = init[s, ...] combined with the reduction of the
    body over K in group s`. See the module docstring for the syntax.
    """

    name = "linalg_ext.split_grouped_gemm"

    inputs = var_operand_def(TensorType)
    init = operand_def(TensorType)
    result = result_def(TensorType)
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = prop_def(ArrayAttr[IteratorTypeAttr])
    group_offsets = opt_prop_def(DenseArrayBase.constr(i64))
    group_count = opt_prop_def(IntegerAttr)
    balanced = opt_prop_def(UnitAttr)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    PROPERTY_NAMES: ClassVar = (
        "indexing_maps",
        "iterator_types",
        "group_offsets",
        "group_count",
        "balanced",
    )

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        init: SSAValue,
        body: Region,
        indexing_maps: Sequence[AffineMap],
        iterator_types: Sequence[Attribute],
        group_offsets: Sequence[int] | None = None,
        group_count: int | None = None,
        balanced: bool = False,
    ):
        properties: dict[str, Attribute] = {
            "indexing_maps": ArrayAttr([AffineMapAttr(m) for m in indexing_maps]),
            "iterator_types": ArrayAttr(iterator_types),
        }
        if group_offsets is not None:
            properties["group_offsets"] = dense_i64(group_offsets)
        if group_count is not None:
            properties["group_count"] = IntegerAttr(group_count, i64)
        if balanced:
            properties["balanced"] = UnitAttr()
        super().__init__(
            operands=[inputs, init],
            result_types=[init.type],
            properties=properties,
            regions=[body],
        )

    # Structure.

    @property
    def maps(self) -> list[AffineMap]:
        return [m.data for m in self.indexing_maps.data]

    @property
    def reduction_dim(self) -> int:
        kinds = [str(t.data) for t in self.iterator_types.data]
        return kinds.index("reduction")

    def num_groups(self) -> int:
        if self.group_offsets is not None:
            return len(self.group_offsets.get_values()) - 1
        assert self.group_count is not None
        return self.group_count.value.data

    def k_extent(self) -> int | None:
        """The static size of K, read off an input that spans it."""
        r = self.reduction_dim
        for value, m in zip(self.inputs, self.maps):
            for pos, expr in enumerate(m.results):
                if isinstance(expr, AffineDimExpr) and expr.position == r:
                    assert isinstance(value.type, TensorType)
                    size = value.type.get_shape()[pos]
                    return None if size == DYNAMIC_INDEX else size
        return None

    def group_bounds(self, k: int) -> list[int]:
        """The S+1 group boundaries along a K of size `k`."""
        if self.group_offsets is not None:
            return list(self.group_offsets.get_values())
        s = self.num_groups()
        if self.balanced is not None:
            return [(g * k) // s for g in range(s + 1)]
        chunk = -(-k // s)
        return [min(g * chunk, k) for g in range(s + 1)]

    # Syntax.

    def print(self, printer: Printer) -> None:
        props = {n: self.properties[n] for n in self.PROPERTY_NAMES if n in self.properties}
        printer.print_op_attributes(dict(sorted({**props, **self.attributes}.items())))
        printer.print_string(" ins(")
        printer.print_list(self.inputs, printer.print_ssa_value)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.inputs], printer.print_attribute)
        printer.print_string(") outs(")
        printer.print_ssa_value(self.init)
        printer.print_string(" : ")
        printer.print_attribute(self.init.type)
        printer.print_string(") ")
        printer.print_region(self.body)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> SplitGroupedGemmOp:
        pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        props = {n: attrs.pop(n) for n in cls.PROPERTY_NAMES if n in attrs}
        if "indexing_maps" not in props or "iterator_types" not in props:
            parser.raise_error("expected indexing_maps and iterator_types", pos, parser.pos)
        parser.parse_keyword("ins")
        parser.parse_punctuation("(")
        ins = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(":")
        in_types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        parser.parse_keyword("outs")
        parser.parse_punctuation("(")
        init = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        init_type = parser.parse_type()
        parser.parse_punctuation(")")
        body = parser.parse_region()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        if len(ins) != len(in_types):
            parser.raise_error("expected one type per input", pos, parser.pos)
        if result_type != init_type:
            parser.raise_error("the result type must be the init type", pos, parser.pos)
        op = cls.create(
            operands=[
                *(parser.resolve_operand(o, t) for o, t in zip(ins, in_types)),
                parser.resolve_operand(init, init_type),
            ],
            result_types=[init_type],
            properties={**props, "operandSegmentSizes": segment_sizes((len(ins), 1))},
            attributes=attrs,
            regions=[body],
        )
        return op

    # Invariants.

    def verify_(self) -> None:
        name = f"'{self.name}' op"
        maps = self.maps
        kinds = [str(t.data) for t in self.iterator_types.data]
        if len(maps) != len(self.inputs) + 1:
            raise VerifyException(
                f"{name} expects one indexing map per input and one for the output"
            )
        if kinds.count("reduction") != 1:
            raise VerifyException(f"{name} expects exactly one reduction loop (K)")
        for m in maps:
            if m.num_dims != len(kinds) or not all(isinstance(e, AffineDimExpr) for e in m.results):
                raise VerifyException(
                    f"{name} indexing maps must be projected permutations of the loops"
                )
        r = self.reduction_dim
        if any(e.position == r for e in maps[-1].results):  # type: ignore[union-attr]
            raise VerifyException(f"{name} the output map must not use the reduction loop")
        if (self.group_offsets is None) == (self.group_count is None):
            raise VerifyException(f"{name} needs exactly one of group_offsets and group_count")
        if self.balanced is not None and self.group_offsets is not None:
            raise VerifyException(f"{name} 'balanced' only applies to group_count")
        init_type = self.init.type
        assert isinstance(init_type, TensorType)
        out_rank = len(maps[-1].results)
        if init_type.get_num_dims() != out_rank + 1:
            raise VerifyException(
                f"{name} the partials must have a leading group axis and rank {out_rank + 1}, "
                f"got {init_type}"
            )
        groups = self.num_groups()
        if groups < 1:
            raise VerifyException(f"{name} needs at least one group")
        leading = init_type.get_shape()[0]
        if leading != DYNAMIC_INDEX and leading != groups:
            raise VerifyException(
                f"{name} has {groups} groups but its partials' leading axis is {leading}"
            )
        extents: dict[int, int] = {}
        shaped = [(v.type, m) for v, m in zip(self.inputs, maps)]
        shaped.append((TensorType(init_type.element_type, init_type.get_shape()[1:]), maps[-1]))
        for t, m in shaped:
            assert isinstance(t, TensorType)
            if t.get_num_dims() != len(m.results):
                raise VerifyException(f"{name} operand {t} does not have the rank of its map")
            for expr, size in zip(m.results, t.get_shape()):
                assert isinstance(expr, AffineDimExpr)
                if size == DYNAMIC_INDEX:
                    continue
                if extents.setdefault(expr.position, size) != size:
                    raise VerifyException(
                        f"{name} loop d{expr.position} has size {extents[expr.position]} in one "
                        f"operand and {size} in {t}"
                    )
        if self.group_offsets is not None:
            offsets = list(self.group_offsets.get_values())
            k = self.k_extent()
            if offsets[0] != 0 or any(a > b for a, b in zip(offsets, offsets[1:])):
                raise VerifyException(f"{name} group offsets must start at 0 and not decrease")
            if k is not None and offsets[-1] != k:
                raise VerifyException(
                    f"{name} group offsets must end at K = {k}, not {offsets[-1]}"
                )
        block = self.body.block
        if len(block.args) != len(maps):
            raise VerifyException(f"{name} body takes one scalar per operand")
        if not isinstance(block.last_op, YieldOp) or len(block.last_op.operands) != 1:
            raise VerifyException(f"{name} body must yield one value")


LinalgExt = Dialect("linalg_ext", [SplitGroupedGemmOp], [])
