"""One call per op, for rewrites that build IR. Each helper inserts its op at the
builder's insertion point and returns the value it defines, so a pattern's
source reads in the order of the IR it produces.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import affine, arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    TensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.parser import Parser

from xsplit.dialects.affine import MaxOp
from xsplit.dialects.op_helpers import dense_i64, nested_ops, split_mixed
from xsplit.xdsl_compat import append_new_op, copy_block_shell, copy_op_shell

Mixed = int | SSAValue
"""A size or offset: a constant, or an index value."""


class FoldingIndexArithmetic:
    """`add`, `sub` and `mul` of index values and constants, folded where both
    sides are constants or one is the identity, so that built code stays
    small. A subclass has `b`, the builder it inserts with, and says in
    `index_value` how a constant becomes a value (it may reuse one)."""

    b: Builder

    def index_value(self, x: Mixed) -> SSAValue:
        raise NotImplementedError

    def add(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if b == 0:
            return a
        if a == 0:
            return b
        return self.b.insert(arith.AddiOp(self.index_value(a), self.index_value(b))).result

    def sub(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if b == 0:
            return a
        return self.b.insert(arith.SubiOp(self.index_value(a), self.index_value(b))).result

    def mul(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1:
            return b
        if b == 1:
            return a
        return self.b.insert(arith.MuliOp(self.index_value(a), self.index_value(b))).result


class IRBuilder:
    def __init__(self, builder: Builder):
        self.b = builder

    def index(self, value: int) -> SSAValue:
        return self.b.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result

    def constant(self, value: Attribute) -> SSAValue:
        return self.b.insert(arith.ConstantOp(value)).result

    def muli(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.b.insert(arith.MuliOp(lhs, rhs)).result

    def apply(self, m: str | AffineMap, *operands: SSAValue) -> SSAValue:
        """`affine.apply`, with `m` a map or MLIR map text such as `(d0) -> (d0 * 4)`."""
        amap = parse_map(m)
        return self.b.insert(affine.ApplyOp(list(operands), AffineMapAttr(amap))).result

    def min(self, m: str | AffineMap, *operands: SSAValue) -> SSAValue:
        return self.b.insert(affine.MinOp(list(operands), AffineMapAttr(parse_map(m)))).result

    def max(self, m: str | AffineMap, *operands: SSAValue) -> SSAValue:
        amap = parse_map(m)
        return self.b.insert(
            MaxOp(
                AffineMapAttr(amap),
                operands[: amap.num_dims],
                operands[amap.num_dims :],
            )
        ).result

    def dim(self, source: SSAValue, index: int) -> SSAValue:
        return self.b.insert(tensor.DimOp(source, self.index(index))).result

    def sizes_of(self, value: SSAValue) -> list[Mixed]:
        """Each dimension of a tensor: its static size, or a `tensor.dim`."""
        t = value.type
        assert isinstance(t, TensorType)
        return [
            self.dim(value, i) if s == DYNAMIC_INDEX else s for i, s in enumerate(t.get_shape())
        ]

    def empty(self, sizes: Sequence[Mixed], element_type: Attribute) -> SSAValue:
        shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        dynamic = [s for s in sizes if not isinstance(s, int)]
        return self.b.insert(tensor.EmptyOp(dynamic, TensorType(element_type, shape))).tensor

    def fill(self, value: SSAValue, dest: SSAValue) -> SSAValue:
        return self.b.insert(linalg.FillOp([value], [dest], [dest.type])).results[0]

    def extract_slice(
        self,
        source: SSAValue,
        offsets: Sequence[Mixed],
        sizes: Sequence[Mixed],
        drop_dims: Sequence[int] = (),
    ) -> SSAValue:
        """A unit-stride slice; `drop_dims` names unit dimensions to drop."""
        source_type = source.type
        assert isinstance(source_type, TensorType)
        result_shape = [
            s if isinstance(s, int) else DYNAMIC_INDEX
            for i, s in enumerate(sizes)
            if i not in drop_dims
        ]
        op = tensor.ExtractSliceOp.build(
            operands=[source, dynamic_list(offsets), dynamic_list(sizes), []],
            properties={
                "static_offsets": static_list(offsets),
                "static_sizes": static_list(sizes),
                "static_strides": dense_i64([1] * len(sizes)),
            },
            result_types=[TensorType(source_type.element_type, result_shape)],
        )
        return self.b.insert(op).result


def values_defined_above(op: Operation) -> list[SSAValue]:
    """Values defined outside `op` that it or its nested ops use, in first-use order."""
    if not op.regions:
        return list(dict.fromkeys(op.operands))
    nested = nested_ops(op)
    inside: set[SSAValue] = set()
    for inner in nested:
        inside.update(inner.results)
        for region in inner.regions:
            block = region.first_block
            while block is not None:
                inside.update(block.args)
                block = block.next_block
    seen: dict[SSAValue, None] = {}
    for inner in nested:
        for operand in inner.operands:
            if operand not in inside:
                seen.setdefault(operand, None)
    return list(seen)


def static_list(mixed: Sequence[Mixed]) -> DenseArrayBase:
    return split_mixed(mixed)[0]


def dynamic_list(mixed: Sequence[Mixed]) -> list[SSAValue]:
    return split_mixed(mixed)[1]


def parse_map(m: str | AffineMap) -> AffineMap:
    return m if isinstance(m, AffineMap) else _parse_map_text(m)


@functools.cache
def _parse_map_text(text: str) -> AffineMap:
    return Parser(Context(), text).parse_affine_map()


def defined_before_use(block: Block) -> bool:
    """Whether each value defined in `block` is defined before every use of
    it there, in a walk in program order, and no region holds more than one
    block or op has successors."""
    inside: set[SSAValue] = set(block.args)
    for top in block.ops:
        for op in top.walk():
            inside.update(op.results)
            for region in op.regions:
                inside.update(arg for b in region.blocks for arg in b.args)
    defined: set[SSAValue] = set(block.args)

    def visit(op: Operation) -> bool:
        if op.successors:
            return False
        if any(v in inside and v not in defined for v in op.operands):
            return False
        defined.update(op.results)
        for region in op.regions:
            if len(region.blocks) > 1:
                return False
            for inner_block in region.blocks:
                defined.update(inner_block.args)
                if not all(visit(inner) for inner in inner_block.ops):
                    return False
        return True

    return all(visit(op) for op in block.ops)


def clone_in_order(op: Operation, mapping: dict[SSAValue, SSAValue]) -> Operation:
    """`op.clone(value_mapper=mapping)` for an op whose values are defined
    before their uses (`defined_before_use`): each clone gets its operands
    when it is made, where xDSL's clone makes every op without them and walks
    the clone again to set them."""
    get = mapping.get
    new = copy_op_shell(op, [get(v, v) for v in op._operands])  # pyright: ignore[reportPrivateUsage]
    for old, result in zip(op.results, new.results):
        mapping[old] = result
    for region, new_region in zip(op.regions, new.regions):
        for block in region.blocks:
            new_block = copy_block_shell(block)
            new_region.add_block(new_block)
            for arg, new_arg in zip(block.args, new_block.args):
                mapping[arg] = new_arg
            inner = block.first_op
            while inner is not None:
                append_new_op(new_block, clone_in_order(inner, mapping))
                inner = inner.next_op
    return new
