"""Linalg contractions and convolutions for xsplit: `linalg.matmul`,
`batch_matmul` (both with optional `indexing_maps`), `matvec`, `vecmat`,
`mmt4d`, `batch_mmt4d`, `batch_reduce_matmul`, `contract`,
`conv_2d_nhwc_hwcf`, `conv_2d_nchw_fchw` and `depthwise_conv_2d_nhwc_hwc`.

xDSL 0.74 lacks most of them; its `linalg.matmul` builds an ill-typed body for
mixed precision (f16 x f16 -> f32, i8 x i8 -> i32) and cannot read
`indexing_maps = [...]`, and its convolutions require `strides` and
`dilations`, which MLIR makes optional. As in MLIR's named-op
definitions, the body here casts each input element to the accumulator type
(signed for integers) before the multiply-add.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntElementsAttr,
    DenseIntOrFPElementsAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg import ops as xdsl_linalg
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


def cast_to(builder_value: SSAValue, target: Attribute) -> SSAValue:
    """Converts a scalar to `target` the way linalg's `cast_signed` does."""
    source = builder_value.type
    if source == target:
        return builder_value
    if isinstance(source, AnyFloat) and isinstance(target, AnyFloat):
        if source.bitwidth < target.bitwidth:
            return arith.ExtFOp(builder_value, target).result
        return arith.TruncFOp(builder_value, target).result
    if isinstance(source, IntegerType) and isinstance(target, IntegerType):
        if source.width.data < target.width.data:
            return arith.ExtSIOp(builder_value, target).result
        return arith.TruncIOp(builder_value, target).result
    if isinstance(source, IntegerType) and isinstance(target, AnyFloat):
        return arith.SIToFPOp(builder_value, target).result
    if isinstance(source, AnyFloat) and isinstance(target, IntegerType):
        return arith.FPToSIOp(builder_value, target).result
    raise VerifyException(f"cannot cast {source} to {target} in a contraction")


def multiply_accumulate(lhs: SSAValue, rhs: SSAValue, acc: SSAValue) -> SSAValue:
    """`acc + cast(lhs) * cast(rhs)`, built at the current insertion point."""
    acc_type = acc.type
    a, b = cast_to(lhs, acc_type), cast_to(rhs, acc_type)
    if isinstance(acc_type, AnyFloat):
        return arith.AddfOp(acc, arith.MulfOp(a, b)).result
    return arith.AddiOp(acc, arith.MuliOp(a, b)).result


def _element_type(value: SSAValue) -> Attribute:
    t = value.type
    return t.get_element_type() if isinstance(t, TensorType | MemRefType) else t


class StructuredNamedOp(NamedOperation):
    """A named linalg op in MLIR's custom form:
    `name [indexing_maps = [...]] {attrs} ins(...) outs(...) -> types`.

    The attribute dictionary is printed in front, sorted by name as MLIR's
    dictionary is, with the op's inherent attributes (conv strides, say) in it.
    """

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    MAPS_KEYWORD: ClassVar[bool] = False
    """Whether the op takes `indexing_maps = [...]` before its operands (and
    keeps the maps as a property, as MLIR's matmul and contract do)."""
    ELIDED: ClassVar[frozenset[str]] = frozenset(
        {"operandSegmentSizes", "linalg.memoized_indexing_maps", "indexing_maps"}
    )

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        res: Sequence[Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        properties: Mapping[str, Attribute] | None = None,
    ):
        if res is None:
            res = [o.type for o in outputs if isinstance(o.type, TensorType)]
        props = dict(properties or {})
        if self.MAPS_KEYWORD and "indexing_maps" not in props:
            props["indexing_maps"] = self.default_maps_attr()
        super().__init__(
            ins=inputs,
            outs=outputs,
            result_types=res,
            attributes=dict(attributes or {}),
            properties=props,
            hidden_region=self.get_hidden_region(inputs, outputs),
        )

    @classmethod
    def default_maps_attr(cls) -> ArrayAttr[AffineMapAttr]:
        raise NotImplementedError(f"{cls.name} has no default indexing maps")

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        arg_types = [_element_type(v) for v in (*inputs, *outputs)]

        @Builder.implicit_region(arg_types)
        def body(args: tuple[BlockArgument, ...]) -> None:
            YieldOp(multiply_accumulate(args[0], args[1], args[2]))

        return body

    @classmethod
    def parse(cls, parser: Parser) -> StructuredNamedOp:
        properties: dict[str, Attribute] = {}
        if cls.MAPS_KEYWORD and parser.parse_optional_characters("indexing_maps"):
            parser.parse_punctuation("=")
            maps = parser.parse_comma_separated_list(
                Parser.Delimiter.SQUARE, parser.parse_attribute
            )
            properties["indexing_maps"] = ArrayAttr(maps)
        attrs = parser.parse_optional_attr_dict()
        ins = cls._parse_operands(parser, "ins")
        outs = cls._parse_operands(parser, "outs")
        attrs |= parser.parse_optional_attr_dict()
        res_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            parsed = parser.parse_optional_comma_separated_list(
                Parser.Delimiter.PAREN, parser.parse_type
            )
            res_types = parsed if parsed is not None else [parser.parse_type()]
        prop_names = cls.get_irdl_definition().properties
        for name in list(attrs):
            if name in prop_names:
                properties[name] = attrs.pop(name)
        if cls.MAPS_KEYWORD and "indexing_maps" not in properties:
            properties["indexing_maps"] = cls.default_maps_attr()
        return cls.build(
            operands=(ins, outs),
            result_types=(res_types,),
            properties=properties,
            attributes=attrs,
            regions=(cls.get_hidden_region(ins, outs),),
        )

    @staticmethod
    def _parse_operands(parser: Parser, keyword: str) -> Sequence[SSAValue]:
        pos = parser.pos
        if not parser.parse_optional_characters(keyword):
            return ()
        parser.parse_punctuation("(")
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return parser.resolve_operands(names, types, pos)

    def print_maps(self) -> bool:
        """Whether the maps differ from the op's defaults, so MLIR prints them."""
        if not self.MAPS_KEYWORD:
            return False
        maps = self.properties.get("indexing_maps")
        try:
            return maps != self.default_maps_attr()
        except NotImplementedError:
            return True

    def print(self, printer: Printer) -> None:
        if self.print_maps():
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(self.properties["indexing_maps"])
        extra = {**self.attributes, **self.properties}
        shown = {k: extra[k] for k in sorted(extra) if k not in self.ELIDED}
        if shown:
            printer.print_op_attributes(shown)
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            if values:
                printer.print_string(f" {keyword}(")
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list(values.types, printer.print_attribute)
                printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            if len(self.res) == 1:
                printer.print_attribute(self.res[0].type)
            else:
                with printer.in_parens():
                    printer.print_list(self.res, lambda r: printer.print_attribute(r.type))

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(m.data for m in self.get_indexing_maps().data)

    def verify_(self) -> None:
        # MLIR's DestinationStyleOpInterface: one result per tensor output,
        # of that output's type.
        n_inputs = len(self.inputs)
        tensor_outs = [
            (n_inputs + i, o) for i, o in enumerate(self.outputs) if isinstance(o.type, TensorType)
        ]
        if len(self.res) != len(tensor_outs):
            raise VerifyException(
                f"'{self.name}' op expected the number of tensor results ({len(self.res)}) to be "
                f"equal to the number of output tensors ({len(tensor_outs)})"
            )
        for (number, out), res in zip(tensor_outs, self.res):
            if out.type != res.type:
                raise VerifyException(
                    f"'{self.name}' op expected type of operand #{number} ('{out.type}') "
                    f"to match type of corresponding result ('{res.type}')"
                )
        if len(self.inputs) != 2 or len(self.outputs) != 1:
            raise VerifyException(f"'{self.name}' op expects two inputs and one output")
        maps = self.get_default_indexing_maps()
        if len(maps) != 3:
            raise VerifyException(f"'{self.name}' op expects 3 indexing maps, got {len(maps)}")
        loops = len(self.get_iterator_types().data)
        operands = (*self.inputs, *self.outputs)
        for number, (value, m) in enumerate(zip(operands, maps)):
            t = value.type
            if m.num_dims != loops:
                raise VerifyException(
                    f"'{self.name}' op expected indexing_map #{number} to have {loops} dim(s) "
                    "to match the number of loops"
                )
            if isinstance(t, TensorType | MemRefType) and t.get_num_dims() != len(m.results):
                raise VerifyException(
                    f"'{self.name}' op expected operand #{number} rank ({t.get_num_dims()}) "
                    f"to match the result rank of indexing_map ({len(m.results)})"
                )
        # Each loop's extent is the size of the first operand dimension that
        # indexes it plainly, as MLIR's `getStaticLoopRanges`; when all are
        # static, the others must agree, and a window expression (conv) must
        # fit in its dimension.
        extents: dict[int, int] = {}
        for value, m in zip(operands, maps):
            t = value.type
            assert isinstance(t, TensorType | MemRefType)
            for expr, size in zip(m.results, t.get_shape()):
                if isinstance(expr, AffineDimExpr):
                    extents.setdefault(expr.position, size)
        if len(extents) != loops or any(e < 0 for e in extents.values()):
            return
        for number, (value, m) in enumerate(zip(operands, maps)):
            t = value.type
            assert isinstance(t, TensorType | MemRefType)
            for dim, (expr, size) in enumerate(zip(m.results, t.get_shape())):
                if size <= 0:
                    continue
                if isinstance(expr, AffineDimExpr):
                    if extents[expr.position] != size:
                        raise VerifyException(
                            f"'{self.name}' op inferred input/output operand #{number} has "
                            f"shape's dimension #{dim} to be {extents[expr.position]}, "
                            f"but found {size}"
                        )
                    continue
                linear = linear_form(expr)
                if linear is None:
                    continue
                coeffs, const = linear
                if not all(d in extents and extents[d] > 0 for d in coeffs):
                    continue
                needed = const + sum(c * (extents[d] - 1) for d, c in coeffs.items()) + 1
                if size < needed:
                    raise VerifyException(
                        f"'{self.name}' op inferred input/output operand #{number} has "
                        f"shape's dimension #{dim} to be greater than or equal to {needed}, "
                        f"but found {size}"
                    )


def linear_form(expr: AffineExpr) -> tuple[dict[int, int], int] | None:
    """`expr` as {loop: coefficient} and a constant, when it is a sum of
    dimensions times constants (a conv window is `oh * 2 + kh * 3`)."""
    if isinstance(expr, AffineDimExpr):
        return {expr.position: 1}, 0
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if not isinstance(expr, AffineBinaryOpExpr):
        return None
    lhs, rhs = linear_form(expr.lhs), linear_form(expr.rhs)
    if lhs is None or rhs is None:
        return None
    if expr.kind == AffineBinaryOpKind.Add:
        coeffs = dict(lhs[0])
        for d, c in rhs[0].items():
            coeffs[d] = coeffs.get(d, 0) + c
        return coeffs, lhs[1] + rhs[1]
    if expr.kind == AffineBinaryOpKind.Mul:
        if not rhs[0]:
            return {d: c * rhs[1] for d, c in lhs[0].items()}, lhs[1] * rhs[1]
        if not lhs[0]:
            return {d: c * lhs[1] for d, c in rhs[0].items()}, lhs[1] * rhs[1]
    return None


class ContractionOp(StructuredNamedOp):
    """A named `C += A * B` op whose operands follow fixed indexing maps (or,
    for matmul and batch_matmul, maps given by `indexing_maps`)."""

    DEFAULT_MAPS: ClassVar[tuple[AffineMap, ...]]
    ITERATORS: ClassVar[str]
    """One letter per loop: `p` parallel, `r` reduction."""

    @classmethod
    def default_maps_attr(cls) -> ArrayAttr[AffineMapAttr]:
        return _class_attrs(cls)[0]

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _class_attrs(type(self))[1]

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        maps = self.properties.get("indexing_maps")
        if isinstance(maps, ArrayAttr):
            return maps  # pyright: ignore[reportUnknownVariableType]
        return _class_attrs(type(self))[0]

    def verify_(self) -> None:
        maps = self.get_indexing_maps()
        if not all(isinstance(m, AffineMapAttr) for m in maps.data):
            raise VerifyException(f"'{self.name}' op indexing_maps must be affine maps")
        for m in maps.data:
            if not all(isinstance(e, AffineDimExpr) for e in m.data.results):
                raise VerifyException(
                    f"'{self.name}' op indexing map {m.data} is not a projected permutation"
                )
        super().verify_()


@functools.cache
def _class_attrs(
    cls: type[ContractionOp],
) -> tuple[ArrayAttr[AffineMapAttr], ArrayAttr[IteratorTypeAttr]]:
    """A contraction's maps and iterator kinds are fixed by its class; attributes
    are immutable, so each class builds them once."""
    maps = ArrayAttr(AffineMapAttr(m) for m in cls.DEFAULT_MAPS)
    return maps, iterator_attrs(cls.ITERATORS)


def iterator_attrs(letters: str) -> ArrayAttr[IteratorTypeAttr]:
    """`"ppr"` as [parallel, parallel, reduction]."""
    return ArrayAttr(
        IteratorTypeAttr.parallel() if c == "p" else IteratorTypeAttr.reduction()
        for c in letters
    )


def _maps(loops: str, lhs: str, rhs: str, acc: str) -> tuple[AffineMap, ...]:
    """Indexing maps from loop letters, e.g. `_maps("mnk", "mk", "kn", "mn")`."""
    return tuple(
        AffineMap(len(loops), 0, tuple(AffineExpr.dimension(loops.index(c)) for c in r))
        for r in (lhs, rhs, acc)
    )


@irdl_op_definition
class MatmulOp(ContractionOp):
    """`C[m, n] += A[m, k] * B[k, n]`."""

    name = "linalg.matmul"
    MAPS_KEYWORD: ClassVar = True
    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    DEFAULT_MAPS: ClassVar = _maps("mnk", "mk", "kn", "mn")
    ITERATORS: ClassVar = "ppr"


@irdl_op_definition
class BatchMatmulOp(ContractionOp):
    """`C[b, m, n] += A[b, m, k] * B[b, k, n]`."""

    name = "linalg.batch_matmul"
    MAPS_KEYWORD: ClassVar = True
    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    DEFAULT_MAPS: ClassVar = _maps("bmnk", "bmk", "bkn", "bmn")
    ITERATORS: ClassVar = "pppr"


@irdl_op_definition
class MatvecOp(ContractionOp):
    """`y[m] += A[m, k] * x[k]`."""

    name = "linalg.matvec"
    DEFAULT_MAPS: ClassVar = _maps("mk", "mk", "k", "m")
    ITERATORS: ClassVar = "pr"


@irdl_op_definition
class VecmatOp(ContractionOp):
    """`y[n] += x[k] * A[k, n]`."""

    name = "linalg.vecmat"
    DEFAULT_MAPS: ClassVar = _maps("nk", "k", "kn", "n")
    ITERATORS: ClassVar = "pr"


@irdl_op_definition
class BatchMatvecOp(ContractionOp):
    """`y[b, m] += A[b, m, k] * x[b, k]`."""

    name = "linalg.batch_matvec"
    DEFAULT_MAPS: ClassVar = _maps("bmk", "bmk", "bk", "bm")
    ITERATORS: ClassVar = "ppr"


@irdl_op_definition
class BatchVecmatOp(ContractionOp):
    """`y[b, n] += x[b, k] * A[b, k, n]`."""

    name = "linalg.batch_vecmat"
    DEFAULT_MAPS: ClassVar = _maps("bnk", "bk", "bkn", "bn")
    ITERATORS: ClassVar = "ppr"


@irdl_op_definition
class DotOp(ContractionOp):
    """`c[] += a[k] * b[k]`: the inner product of two vectors, into a 0-d
    tensor."""

    name = "linalg.dot"
    DEFAULT_MAPS: ClassVar = _maps("k", "k", "k", "")
    ITERATORS: ClassVar = "r"


@irdl_op_definition
class Mmt4DOp(ContractionOp):
    """`C[m, n, m0, n0] += A[m, k, m0, k0] * B[n, k, n0, k0]`: a matmul on
    data-tiled operands, B transposed, each tile row-major. Two reduction loops:
    the outer `k` over tiles and the inner `k0` within one."""

    name = "linalg.mmt4d"
    DEFAULT_MAPS: ClassVar = _maps("mnkMNK", "mkMK", "nkNK", "mnMN")
    ITERATORS: ClassVar = "pprppr"


@irdl_op_definition
class BatchMmt4DOp(ContractionOp):
    """`C[b, m, n, m0, n0] += A[b, m, k, m0, k0] * B[b, n, k, n0, k0]`."""

    name = "linalg.batch_mmt4d"
    DEFAULT_MAPS: ClassVar = _maps("bmnkMNK", "bmkMK", "bnkNK", "bmnMN")
    ITERATORS: ClassVar = "ppprppr"


@irdl_op_definition
class BatchReduceMatmulOp(ContractionOp):
    """`C[m, n] += sum over b of A[b, m, k] * B[b, k, n]`: two reduction loops,
    the batch `b` and `k`."""

    name = "linalg.batch_reduce_matmul"
    MAPS_KEYWORD: ClassVar = True
    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    DEFAULT_MAPS: ClassVar = _maps("bmnk", "bmk", "bkn", "mn")
    ITERATORS: ClassVar = "rppr"


@irdl_op_definition
class ContractOp(ContractionOp):
    """`linalg.contract`: `C += A * B` over the loops its `indexing_maps` name.
    A loop the output's map uses is parallel, any other a reduction."""

    name = "linalg.contract"
    MAPS_KEYWORD: ClassVar = True
    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])

    @classmethod
    def default_maps_attr(cls) -> ArrayAttr[AffineMapAttr]:
        raise NotImplementedError("linalg.contract has no default indexing maps")

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        maps = [m.data for m in self.get_indexing_maps().data]
        if not maps:
            return iterator_attrs("")
        kept = {e.position for e in maps[-1].results if isinstance(e, AffineDimExpr)}
        return iterator_attrs("".join("p" if d in kept else "r" for d in range(maps[0].num_dims)))

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        maps = self.properties.get("indexing_maps")
        if not isinstance(maps, ArrayAttr):
            raise VerifyException("'linalg.contract' op requires indexing_maps")
        return maps  # pyright: ignore[reportUnknownVariableType]


class ConvOp(StructuredNamedOp):
    """A named 2-D convolution. `strides` and `dilations` are optional and
    default to 1, as in MLIR, which prints them only when they are set."""

    strides = opt_prop_def(DenseIntElementsAttr)
    dilations = opt_prop_def(DenseIntElementsAttr)
    ITERATORS: ClassVar[str]
    LOOPS: ClassVar[str]
    """Loop letters in domain order; `h`/`w` are the output's, `y`/`x` the
    filter window's."""
    OPERANDS: ClassVar[tuple[str, str, str]]
    """Each operand's dimensions as loop letters; `H` and `W` stand for the
    window expressions `h * stride + y * dilation` and `w * ... + x * ...`."""

    def _pair(self, name: str) -> tuple[int, int]:
        attr = self.properties.get(name)
        if attr is None:
            return (1, 1)
        assert isinstance(attr, DenseIntOrFPElementsAttr)
        values = attr.get_values()
        if len(values) != 2:
            raise VerifyException(f"'{self.name}' op {name} must have 2 elements")
        return (int(values[0]), int(values[1]))

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        (sh, sw), (dh, dw) = self._pair("strides"), self._pair("dilations")
        dims = {c: AffineExpr.dimension(i) for i, c in enumerate(self.LOOPS)}
        dims["H"] = dims["h"] * sh + dims["y"] * dh
        dims["W"] = dims["w"] * sw + dims["x"] * dw
        return ArrayAttr(
            AffineMapAttr(AffineMap(len(self.LOOPS), 0, tuple(dims[c] for c in operand)))
            for operand in self.OPERANDS
        )

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_attrs(self.ITERATORS)

    def verify_(self) -> None:
        self._pair("strides")
        self._pair("dilations")
        super().verify_()


@irdl_op_definition
class Conv2DNhwcHwcfOp(ConvOp):
    """`O[n, h, w, f] += I[n, h*sh + y*dh, w*sw + x*dw, c] * K[y, x, c, f]`;
    reductions over the window (y, x) and the input channel c."""

    name = "linalg.conv_2d_nhwc_hwcf"
    LOOPS: ClassVar = "nhwfyxc"
    ITERATORS: ClassVar = "pppprrr"
    OPERANDS: ClassVar = ("nHWc", "yxcf", "nhwf")


@irdl_op_definition
class Conv2DNchwFchwOp(ConvOp):
    """`O[n, f, h, w] += I[n, c, h*sh + y*dh, w*sw + x*dw] * K[f, c, y, x]`."""

    name = "linalg.conv_2d_nchw_fchw"
    LOOPS: ClassVar = "nfhwcyx"
    ITERATORS: ClassVar = "pppprrr"
    OPERANDS: ClassVar = ("ncHW", "fcyx", "nfhw")


@irdl_op_definition
class DepthwiseConv2DNhwcHwcOp(ConvOp):
    """`O[n, h, w, c] += I[n, h*sh + y*dh, w*sw + x*dw, c] * K[y, x, c]`: each
    channel on its own, so the only reductions are the window's (y, x)."""

    name = "linalg.depthwise_conv_2d_nhwc_hwc"
    LOOPS: ClassVar = "nhwcyx"
    ITERATORS: ClassVar = "pppprr"
    OPERANDS: ClassVar = ("nHWc", "yxc", "nhwc")


def parse_generic(cls: type[xdsl_linalg.GenericOp], parser: Parser) -> xdsl_linalg.GenericOp:
    """`linalg.generic`'s custom form, reading what xDSL 0.74's parser does
    not: several results (`-> (tensor<4xf32>, tensor<4xi32>)`, as an argmax
    has), and attributes other than the structured ones in the leading
    dictionary (MLIR keeps them; xDSL 0.74 drops them)."""
    start = parser.pos
    attrs = parser.parse_optional_attr_dict()
    maps = attrs.pop("indexing_maps", None)
    iterators = attrs.pop("iterator_types", None)
    if not isinstance(maps, ArrayAttr) or not isinstance(iterators, ArrayAttr):
        parser.raise_error(
            "linalg.generic needs indexing_maps and iterator_types", start, parser.pos
        )
    iterator_types: list[IteratorTypeAttr] = []
    for it in iterators.data:  # pyright: ignore[reportUnknownMemberType]
        if isinstance(it, IteratorTypeAttr):
            iterator_types.append(it)
        elif isinstance(it, StringAttr) and it.data in ("parallel", "reduction", "window"):
            iterator_types.append(IteratorTypeAttr(IteratorType(it.data)))
        else:
            parser.raise_error(f"unknown iterator type {it}", start, parser.pos)
    doc = attrs.pop("doc", None)
    library_call = attrs.pop("library_call", None)
    ins = StructuredNamedOp._parse_operands(parser, "ins")
    outs = StructuredNamedOp._parse_operands(parser, "outs")
    if parser.parse_optional_keyword("attrs"):
        parser.parse_punctuation("=")
        attrs |= parser.expect(parser.parse_optional_attr_dict, "expected an attribute dictionary")
    body = parser.parse_region()
    res_types: list[Attribute] = []
    if parser.parse_optional_punctuation("->"):
        parsed = parser.parse_optional_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_type
        )
        res_types = parsed if parsed is not None else [parser.parse_type()]
    generic = cls(
        ins,
        outs,
        body,
        maps,  # pyright: ignore[reportArgumentType]
        iterator_types,
        res_types,
        doc,  # pyright: ignore[reportArgumentType]
        library_call,  # pyright: ignore[reportArgumentType]
    )
    generic.attributes |= attrs
    return generic


def _parse_reduce(cls: type[xdsl_linalg.ReduceOp], parser: Parser) -> xdsl_linalg.ReduceOp:
    """`linalg.reduce ins(%x : T) outs(%y : U) dimensions = [d]  {attrs} (args) {body}`,
    the attribute dictionary MLIR prints after the dimensions included
    (xDSL 0.74's parser has none, and xsplit marks a split's tails and merges)."""

    def operand(keyword: str) -> SSAValue:
        parser.parse_characters(keyword)
        parser.parse_punctuation("(")
        unresolved = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        value = parser.resolve_operand(unresolved, parser.parse_type())
        parser.parse_punctuation(")")
        return value

    source, init = operand("ins"), operand("outs")
    parser.parse_keyword("dimensions")
    parser.parse_punctuation("=")
    dimensions = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
    attributes = parser.parse_optional_attr_dict()
    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
    op = cls(source, init, DenseArrayBase.from_list(i64, dimensions), parser.parse_region(args))
    op.attributes.update(attributes)
    return op


def _print_reduce(self: xdsl_linalg.ReduceOp, printer: Printer) -> None:
    """`linalg.reduce` as MLIR prints it, its attribute dictionary included."""
    for keyword, value in ((" ins", self.input), (" outs", self.init)):
        printer.print_string(keyword)
        with printer.in_parens():
            printer.print_ssa_value(value)
            printer.print_string(":")
            printer.print_attribute(value.type)
    printer.print_string(" dimensions = ")
    with printer.in_square_brackets():
        printer.print_list(self.dimensions.get_values(), printer.print_int)
    if self.attributes:
        printer.print_string("  ")
        printer.print_attr_dict(self.attributes)
    printer.print_string("\n")
    with printer.in_parens():
        printer.print_list(self.region.blocks[0].args, printer.print_block_argument)
    printer.print_string(" ")
    printer.print_region(self.region, print_entry_block_args=False)


GENERIC_AND_REDUCE_FORMAT: tuple[tuple[type[Operation], str, Callable[..., object]], ...] = (
    (xdsl_linalg.GenericOp, "parse", parse_generic),
    (xdsl_linalg.ReduceOp, "parse", _parse_reduce),
    (xdsl_linalg.ReduceOp, "print", _print_reduce),
)
"""The parsers above for xDSL's `linalg.generic` and `linalg.reduce`, and
the printer that keeps a reduce's attribute dictionary: (class, method,
function), which `xsplit.xdsl_compat` attaches. The op classes themselves
stay xDSL's, so that every `isinstance` check and builder keeps working; an
IRDL op cannot be subclassed."""


LINALG_OPS: tuple[type[Operation], ...] = (
    MatmulOp,
    BatchMatmulOp,
    MatvecOp,
    VecmatOp,
    BatchMatvecOp,
    BatchVecmatOp,
    DotOp,
    Mmt4DOp,
    BatchMmt4DOp,
    BatchReduceMatmulOp,
    ContractOp,
    Conv2DNhwcHwcfOp,
    Conv2DNchwFchwOp,
    DepthwiseConv2DNhwcHwcOp,
)
"""The linalg ops xsplit adds to (or replaces in) xDSL's linalg dialect."""
