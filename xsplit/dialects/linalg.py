"""Linalg contraction ops for xsplit: `linalg.matmul`, `linalg.batch_matmul`,
`linalg.matvec`, `linalg.vecmat`, `linalg.mmt4d` and `linalg.batch_mmt4d`.

xDSL 0.74 lacks all but the first, and its `linalg.matmul` builds an ill-typed body
for mixed precision (f16 x f16 -> f32, i8 x i8 -> i32). As in MLIR's named-op
definitions, the body here casts each input element to the accumulator type
(signed for integers) before the multiply-add.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, BlockArgument, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import irdl_op_definition
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


class ContractionOp(NamedOperation):
    """A named `C += A * B` op whose operands follow fixed indexing maps."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    DEFAULT_MAPS: ClassVar[tuple[AffineMap, ...]]
    ITERATORS: ClassVar[str]
    """One letter per loop: `p` parallel, `r` reduction."""

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        res: Sequence[Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        if res is None:
            res = [o.type for o in outputs if isinstance(o.type, TensorType)]
        super().__init__(
            ins=inputs,
            outs=outputs,
            result_types=res,
            attributes=attributes,
            hidden_region=self.get_hidden_region(inputs, outputs),
        )

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        arg_types = [_element_type(v) for v in (*inputs, *outputs)]

        @Builder.implicit_region(arg_types)
        def body(args: tuple[BlockArgument, ...]) -> None:
            YieldOp(multiply_accumulate(args[0], args[1], args[2]))

        return body

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return self.DEFAULT_MAPS

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _class_attrs(type(self))[1]

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return _class_attrs(type(self))[0]

    def verify_(self) -> None:
        if len(self.inputs) != 2 or len(self.outputs) != 1:
            raise VerifyException(f"'{self.name}' op expects two inputs and one output")
        for value, m in zip((*self.inputs, *self.outputs), self.DEFAULT_MAPS):
            t = value.type
            if isinstance(t, TensorType | MemRefType) and t.get_num_dims() != len(m.results):
                raise VerifyException(
                    f"'{self.name}' op operand of type {t} should have rank {len(m.results)}"
                )
        # Each loop's extent must agree across the operands that use it.
        extents: dict[int, int] = {}
        for value, m in zip((*self.inputs, *self.outputs), self.DEFAULT_MAPS):
            t = value.type
            assert isinstance(t, TensorType | MemRefType)
            for expr, size in zip(m.results, t.get_shape()):
                assert isinstance(expr, AffineDimExpr)
                dim = expr.position
                if size < 0:
                    continue
                if extents.setdefault(dim, size) != size:
                    raise VerifyException(
                        f"'{self.name}' op inferred size {extents[dim]} for loop "
                        f"d{dim} but operand {t} has {size}"
                    )


@functools.cache
def _class_attrs(
    cls: type[ContractionOp],
) -> tuple[ArrayAttr[AffineMapAttr], ArrayAttr[IteratorTypeAttr]]:
    """A contraction's maps and iterator kinds are fixed by its class; attributes
    are immutable, so each class builds them once."""
    maps = ArrayAttr(AffineMapAttr(m) for m in cls.DEFAULT_MAPS)
    iterators = ArrayAttr(
        IteratorTypeAttr.parallel() if c == "p" else IteratorTypeAttr.reduction()
        for c in cls.ITERATORS
    )
    return maps, iterators


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
    DEFAULT_MAPS: ClassVar = _maps("mnk", "mk", "kn", "mn")
    ITERATORS: ClassVar = "ppr"


@irdl_op_definition
class BatchMatmulOp(ContractionOp):
    """`C[b, m, n] += A[b, m, k] * B[b, k, n]`."""

    name = "linalg.batch_matmul"
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
