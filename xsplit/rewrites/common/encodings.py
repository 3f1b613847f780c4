"""Data-tiling encodings: putting them on a contraction's operands (as IREE's
SetEncoding does), and turning them into physical layouts for a target (as
IREE's encoding materialization does) or dropping them.

An encoded contraction is the cluster that `set-encoding` makes:

    %ea = iree_encoding.set_encoding %a : tensor<MxK> -> tensor<MxK, #lhs>
    %eb = iree_encoding.set_encoding %b : tensor<KxN> -> tensor<KxN, #rhs>
    %ec = iree_encoding.set_encoding %c (or linalg.fill of an encoded tensor.empty)
    %r  = <contraction> ins(%ea, %eb) outs(%ec)
    %o  = iree_encoding.unset_encoding %r : tensor<MxN, #acc> -> tensor<MxN>

Materialized for a CPU, each operand is packed into tiles of the target's
(m0, n0, k0): the LHS to [batch, M/m0, K/k0, m0, k0], the RHS to
[batch, N/n0, K/k0, n0, k0] and the accumulator to [batch, M/m0, N/n0, m0, n0]
(`linalg.pack` with padding for partial tiles, whatever the operands' own
dimension order); the contraction becomes `linalg.mmt4d` (`batch_mmt4d` with
batch loops, several batch loops collapsed into one), and the result is
unpacked. A matvec's missing N (a vecmat's missing M) is a unit dimension.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr

from xsplit.analysis.contraction import ContractionDims, op_contraction_dims
from xsplit.dialects.iree_encoding import (
    EncodingAttr,
    SetEncodingOp,
    UnsetEncodingOp,
    encoding_of,
)
from xsplit.dialects.linalg import BatchMmt4DOp, Mmt4DOp
from xsplit.dialects.linalg_layout import PackOp, UnpackOp, packed_shape
from xsplit.dialects.op_helpers import zero_attr
from xsplit.rewrites.dsl.builders import IRBuilder

Tiles = tuple[int, int, int]
"""(m0, n0, k0): the inner tile of a data-tiled contraction."""


def _element(v: SSAValue | Attribute) -> Attribute:
    t = v.type if isinstance(v, SSAValue) else v
    assert isinstance(t, TensorType)
    return t.element_type


def _shape(v: SSAValue) -> list[int]:
    t = v.type
    assert isinstance(t, TensorType)
    return list(t.get_shape())


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])


def expand(
    ir: IRBuilder, value: SSAValue, groups: Sequence[Sequence[int]], shape: Sequence[int]
) -> SSAValue:
    result_type = TensorType(_element(value), list(shape))
    return ir.b.insert(
        tensor.ExpandShapeOp(value, [], _reassociation(groups), list(shape), result_type)
    ).result


def collapse(ir: IRBuilder, value: SSAValue, groups: Sequence[Sequence[int]]) -> SSAValue:
    shape = _shape(value)
    collapsed = []
    for g in groups:
        size = 1
        for d in g:
            size *= shape[d]
        collapsed.append(size)
    op = tensor.CollapseShapeOp.build(
        operands=[value],
        result_types=[TensorType(_element(value), collapsed)],
        properties={"reassociation": _reassociation(groups)},
    )
    return ir.b.insert(op).result


# Setting encodings.


def rebuild(
    op: Operation, operands: Sequence[SSAValue], result_types: Sequence[Attribute]
) -> Operation:
    """`op` with other operands and result types (encoded or not): a clone
    cannot change its results' types."""
    return type(op).create(
        operands=list(operands),
        result_types=list(result_types),
        properties=dict(op.properties),
        attributes=dict(op.attributes),
        regions=[r.clone() for r in op.regions],
    )


def loop_sizes(op: Operation) -> list[int] | str:
    """Each loop's static size, read off the operands."""
    maps = [m.data for m in op.get_indexing_maps().data]  # type: ignore[attr-defined]
    sizes: dict[int, int] = {}
    for value, m in zip(op.operands, maps):
        for expr, size in zip(m.results, _shape(value)):
            if isinstance(expr, AffineDimExpr):
                if size < 0:
                    return "its shapes are dynamic"
                sizes[expr.position] = size
    return [sizes[d] for d in range(maps[0].num_dims)]


def encodings_for(op: Operation, sizes: Sequence[int]) -> list[EncodingAttr]:
    """The encodings IREE's SetEncoding gives the op's LHS, RHS and result."""
    elements = [_element(v) for v in op.operands]
    indexing_maps = op.get_indexing_maps().data  # type: ignore[attr-defined]
    maps = [AffineMapAttr(m.data) for m in indexing_maps]
    return [EncodingAttr(i, elements, maps, list(sizes)) for i in range(3)]


def encode(op: Operation, ir: IRBuilder) -> SSAValue:
    """`op` on encoded operands, between set_encoding and unset_encoding ops."""
    sizes = loop_sizes(op)
    assert not isinstance(sizes, str)
    encodings = encodings_for(op, sizes)
    inputs = [
        ir.b.insert(SetEncodingOp(v, e)).result for v, e in zip(op.operands[:2], encodings)
    ]
    init = op.operands[2]
    fill = init.owner
    if (
        isinstance(fill, linalg.FillOp)
        and isinstance(fill.outputs[0].owner, tensor.EmptyOp)
        and init.uses.get_length() == 1
    ):
        # A zero-initialized accumulator is an encoded empty tensor filled, as IREE
        # makes it, so that it is never packed.
        t = init.type
        assert isinstance(t, TensorType)
        empty = ir.b.insert(
            tensor.EmptyOp([], TensorType(t.element_type, t.get_shape(), encodings[2]))
        ).tensor
        encoded_init = ir.fill(fill.inputs[0], empty)
    else:
        encoded_init = ir.b.insert(SetEncodingOp(init, encodings[2])).result
    encoded = ir.b.insert(rebuild(op, [*inputs, encoded_init], [encoded_init.type]))
    out = ir.b.insert(UnsetEncodingOp(encoded.results[0])).result
    if op.results[0].name_hint:
        out.name_hint = op.results[0].name_hint
    return out


# Recognizing an encoded contraction.


@dataclass
class EncodedContraction:
    op: Operation
    unset: UnsetEncodingOp
    inputs: list[SSAValue]
    """The LHS and RHS before their set_encoding."""
    init: SSAValue | None
    """The accumulator before its set_encoding; None when it is a fill."""
    fill_value: SSAValue | None
    dims: ContractionDims
    encodings: list[EncodingAttr]

    @property
    def maps(self) -> list:
        return [m.data for m in self.op.get_indexing_maps().data]  # type: ignore[attr-defined]

    @property
    def elements(self) -> list[Attribute]:
        return [_element(v) for v in self.op.operands]

    def size(self, loop: int | None) -> int:
        if loop is None:
            return 1
        sizes = self.encodings[0].sizes
        assert sizes is not None
        return sizes[loop]


def match_encoded(unset: Operation) -> EncodedContraction | str:
    """The encoded contraction an `unset_encoding` takes the result of."""
    if not isinstance(unset, UnsetEncodingOp):
        return "not an unset_encoding"
    op = unset.source.owner
    if not isinstance(op, Operation):
        return "its source is a block argument"
    dims = op_contraction_dims(op)
    if isinstance(dims, str):
        return f"its source is not a contraction: {dims}"
    if op.results[0].uses.get_length() != 1:
        return "the encoded contraction has other users"
    encodings = [encoding_of(v.type) for v in op.operands]
    if any(e is None for e in encodings):
        return "the contraction's operands are not all encoded"
    inputs: list[SSAValue] = []
    for v in op.operands[:2]:
        if not isinstance(v.owner, SetEncodingOp):
            return "an encoded input does not come from set_encoding"
        inputs.append(v.owner.source)
    acc = op.operands[2]
    init = fill_value = None
    if isinstance(acc.owner, SetEncodingOp):
        init = acc.owner.source
    elif isinstance(acc.owner, linalg.FillOp) and isinstance(
        acc.owner.outputs[0].owner, tensor.EmptyOp
    ):
        fill_value = acc.owner.inputs[0]
    else:
        return "the encoded accumulator is neither set_encoding nor a filled tensor.empty"
    if any(s < 0 for v in (*inputs, acc) for s in _shape(v)):
        return "its shapes are dynamic"
    return EncodedContraction(
        op, unset, inputs, init, fill_value, dims, [e for e in encodings if e is not None]
    )


# Materializing: pack, mmt4d, unpack.


@dataclass(frozen=True)
class Layout:
    """How one operand is packed: the pack's parameters and the shapes around it."""

    unit_dim: bool
    """Whether a unit dimension was appended for a missing M or N."""
    inner_dims_pos: tuple[int, ...]
    inner_tiles: tuple[int, ...]
    outer_dims_perm: tuple[int, ...] | None
    batch: int


def layout_of(ec: EncodedContraction, operand: int, tiles: Tiles) -> Layout:
    m0, n0, k0 = tiles
    dims = ec.dims
    positions = [e.position for e in ec.maps[operand].results]  # type: ignore[union-attr]
    roles = dims.roles(operand)
    unit = None in roles
    tile_of = {dims.m: m0, dims.n: n0, dims.k: k0}
    rank = len(positions)
    where = [positions.index(r) if r is not None else rank for r in roles]
    tiled = where[len(dims.batch) :]
    tile_sizes = [tile_of.get(r, 1) if r is not None else 1 for r in roles[len(dims.batch) :]]
    perm = tuple(where)
    return Layout(
        unit,
        tuple(tiled),
        tuple(tile_sizes),
        None if perm == tuple(range(len(perm))) else perm,
        len(dims.batch),
    )


def pack(ir: IRBuilder, value: SSAValue, layout: Layout) -> SSAValue:
    """`value` in its packed layout, batch loops collapsed into at most one."""
    if layout.unit_dim:
        shape = _shape(value)
        groups = [[d] for d in range(len(shape))]
        if groups:
            groups[-1].append(len(shape))
        else:
            groups = [[0]]
        value = expand(ir, value, groups, [*shape, 1])
    shape = _shape(value)
    packed = packed_shape(shape, layout.inner_dims_pos, layout.inner_tiles, layout.outer_dims_perm)
    dest = ir.empty(packed, _element(value))
    padding = ir.constant(zero_attr(_element(value)))
    result = ir.b.insert(
        PackOp(
            value, dest, layout.inner_dims_pos, layout.inner_tiles, padding, layout.outer_dims_perm
        )
    ).result
    return _collapse_batch(ir, result, layout.batch)


def _collapse_batch(ir: IRBuilder, value: SSAValue, batch: int) -> SSAValue:
    if batch <= 1:
        return value
    rank = len(_shape(value))
    return collapse(ir, value, [list(range(batch)), *([d] for d in range(batch, rank))])


def unpack(ir: IRBuilder, packed: SSAValue, layout: Layout, result_type: TensorType) -> SSAValue:
    """The inverse of `pack` into a tensor of `result_type`."""
    shape = list(result_type.get_shape())
    unpacked_shape = [*shape, 1] if layout.unit_dim else shape
    full = packed_shape(
        unpacked_shape, layout.inner_dims_pos, layout.inner_tiles, layout.outer_dims_perm
    )
    if layout.batch > 1:
        groups = [list(range(layout.batch)), *([d] for d in range(layout.batch, len(full)))]
        packed = expand(ir, packed, groups, full)
    dest = ir.empty(unpacked_shape, result_type.element_type)
    value = ir.b.insert(
        UnpackOp(packed, dest, layout.inner_dims_pos, layout.inner_tiles, layout.outer_dims_perm)
    ).result
    if layout.unit_dim:
        rank = len(shape)
        groups = [[d] for d in range(rank)]
        if groups:
            groups[-1].append(rank)
        else:
            groups = [[0]]
        value = collapse(ir, value, groups)
    return value


def materialize(
    ec: EncodedContraction,
    tiles: Tiles,
    ir: IRBuilder,
    wrap: Callable[[Callable[[IRBuilder], SSAValue]], SSAValue] | None = None,
    merge: linalg.ReduceOp | None = None,
) -> SSAValue:
    """The encoded contraction as pack, mmt4d and unpack, returning the
    unpacked result (what the unset_encoding gave). `wrap`, given, builds
    each of those steps where it wants them (in a dispatch of its own), the
    mmt4d and its unpack as one step: IREE's own data tiling unpacks in the
    contraction's dispatch too, and a dispatch of its own for the unpack
    cost 1024x1024x16384 3% (233 against 226 ms).

    With `merge` (a `linalg.reduce` of the result over its one batch loop,
    `merged_chunks`), the chunks are merged in the packed layout, into the
    packed init, and only the merged result is unpacked: the partials are
    never unpacked. Returns the merge's result then."""

    def step(build: Callable[[IRBuilder], SSAValue]) -> SSAValue:
        return build(ir) if wrap is None else wrap(build)

    layouts = [layout_of(ec, i, tiles) for i in range(3)]
    lhs, rhs = (
        step(lambda b, v=v, i=i: pack(b, v, layouts[i])) for i, v in enumerate(ec.inputs)
    )
    acc_type = ec.unset.result.type
    assert isinstance(acc_type, TensorType)
    kind = BatchMmt4DOp if layouts[0].batch else Mmt4DOp
    if ec.init is not None:
        init = ec.init
        acc = step(lambda b: pack(b, init, layouts[2]))

        def contract(b: IRBuilder) -> SSAValue:
            return b.b.insert(kind([lhs, rhs], [acc])).results[0]
    else:
        fill_value = ec.fill_value
        assert fill_value is not None
        shape = list(acc_type.get_shape()) + ([1] if layouts[2].unit_dim else [])
        full = packed_shape(
            shape, layouts[2].inner_dims_pos, layouts[2].inner_tiles, layouts[2].outer_dims_perm
        )
        if layouts[2].batch > 1:
            full = [_product(full[: layouts[2].batch]), *full[layouts[2].batch :]]

        def contract(b: IRBuilder) -> SSAValue:
            value = fill_value
            if wrap is not None and isinstance(value.owner, arith.ConstantOp):
                value = b.b.insert(value.owner.clone()).results[0]
            acc = b.fill(value, b.empty(full, acc_type.element_type))
            return b.b.insert(kind([lhs, rhs], [acc])).results[0]

    if merge is not None:
        # The merge stays at graph level, as split-k's merge does: IREE forms
        # its dispatch and ties the packed init to its result.
        result = step(contract)
        return _merge_packed(merge, result, layouts[2], step, lambda build: build(ir))
    return step(lambda b: unpack(b, contract(b), layouts[2], acc_type))


def merged_chunks(ec: EncodedContraction) -> linalg.ReduceOp | None:
    """The `linalg.reduce` that merges the encoded op's result over its one
    batch loop (a split's chunks), if that is the result's only use."""
    uses = list(ec.unset.result.uses)
    if len(ec.dims.batch) != 1 or len(uses) != 1:
        return None
    merge = uses[0].operation
    if not isinstance(merge, linalg.ReduceOp) or merge.operands[0] is not ec.unset.result:
        return None
    acc_positions = [e.position for e in ec.maps[2].results]  # type: ignore[union-attr]
    if list(merge.dimensions.get_values()) != [acc_positions.index(ec.dims.batch[0])]:
        return None
    return merge


def without_batch(layout: Layout) -> Layout:
    """The accumulator's layout for the merged result, which lacks the batch loop."""
    perm = layout.outer_dims_perm or tuple(range(len(layout.inner_dims_pos) + 1))
    chunk = perm[0]

    def shift(p: int) -> int:
        return p - 1 if p > chunk else p

    rest = tuple(shift(p) for p in perm[1:])
    return Layout(
        layout.unit_dim,
        tuple(shift(p) for p in layout.inner_dims_pos),
        layout.inner_tiles,
        None if rest == tuple(range(len(rest))) else rest,
        0,
    )


def _merge_packed(
    merge: linalg.ReduceOp,
    partials: SSAValue,
    layout: Layout,
    step: Callable[[Callable[[IRBuilder], SSAValue]], SSAValue],
    graph_step: Callable[[Callable[[IRBuilder], SSAValue]], SSAValue],
) -> SSAValue:
    merged_layout = without_batch(layout)
    init = merge.init
    init_type = init.type
    assert isinstance(init_type, TensorType)
    packed_init = step(lambda b: pack(b, init, merged_layout))
    from xsplit.dialects.op_helpers import dense_i64

    def reduce(b: IRBuilder) -> SSAValue:
        op = linalg.ReduceOp(partials, packed_init, dense_i64([0]), merge.region.clone())
        return b.b.insert(op).results[0]

    merged = graph_step(reduce)
    return step(lambda b: unpack(b, merged, merged_layout, init_type))


def drop(ec: EncodedContraction, ir: IRBuilder) -> SSAValue:
    """The contraction on its unencoded operands: what IREE 3.13 does with
    encodings on a target that does not data-tile."""
    acc_type = ec.unset.result.type
    assert isinstance(acc_type, TensorType)
    if ec.init is not None:
        init = ec.init
    else:
        assert ec.fill_value is not None
        init = ir.fill(ec.fill_value, ir.empty(list(acc_type.get_shape()), acc_type.element_type))
    return ir.b.insert(rebuild(ec.op, [*ec.inputs, init], [acc_type])).results[0]


def _product(values: Sequence[int]) -> int:
    p = 1
    for v in values:
        p *= v
    return p
