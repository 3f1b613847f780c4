"""Linalg ops on memrefs in an exported kernel become loops.

A kernel exported with `#iree_codegen.no_pipeline` is lowered by IREE as
written, and that lowering has no pattern for linalg: iree-compile 3.13
rejects a `linalg.generic`, `linalg.fill` or `linalg.matmul` on memrefs there
("illegal for this phase of lowering") on llvm-cpu, CUDA and ROCm alike. Such
ops are what users write inside mapped loops and what `distribute` and
`insert-barriers` leave behind, so `export-dispatch` rewrites each one into
the loops it stands for:

- one `scf.for` from 0 to each loop's extent, in the op's loop order (d0
  outermost), whatever its iterator type: a reduction accumulates in the
  output in the order linalg defines. An extent is the static size of the
  first operand dimension its map names plainly, or a `memref.dim` of it;
- in the innermost loop, a `memref.load` of each input and output the body
  reads, at its indexing map (`affine.apply` for a result that is not a plain
  loop index); scalar inputs are used as they are;
- the body's ops, cloned with its block arguments replaced by those values
  and `linalg.index` by the loop's index;
- a `memref.store` of each yielded value into its output, cast to the
  output's element type as linalg's named ops do (`linalg.fill` of an f32
  into f16).

This covers every structured op (`linalg.generic`, `fill`, `copy`, the
elementwise and contraction ops, convolutions, pooling, `transpose`) and
`linalg.reduce` and `linalg.broadcast`. An op on tensors, or with an
indexing map that has symbols or leaves a loop without an operand dimension
to bound it, is refused: `export-dispatch` reports it at the op.

xDSL's `convert-linalg-to-loops` (`xdsl.transforms.convert_linalg_to_loops`)
builds the same nest, but it works through a `PatternRewriter` and erases the
op itself, stores a `linalg.fill`'s value uncast, does not know
`linalg.reduce` or `linalg.broadcast`, and fails with a Python exception
rather than a located error; so this pattern builds the nest itself, from the
structured-op interface (`get_indexing_maps`) xDSL's ops share.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import affine, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    IndexType,
    MemRefType,
    ShapedType,
)
from xdsl.dialects.linalg import Linalg
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp, IndexOp, ReduceOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xsplit.dialects import hal
from xsplit.dialects.iree_codegen import TRANSLATION_INFO, NoPipelineAttr, TranslationInfoAttr
from xsplit.dialects.linalg import LINALG_OPS, cast_to
from xsplit.rewrites.dsl import Match, Pattern, where
from xsplit.rewrites.dsl.builders import IRBuilder

LOWERED_OPS: tuple[str, ...] = tuple(
    sorted(
        {
            op.name
            for op in (*Linalg.operations, *LINALG_OPS)
            if issubclass(op, LinalgStructuredOperation)
        }
        | {ReduceOp.name, BroadcastOp.name}
    )
)
"""The linalg ops this lowering knows, by name."""


@dataclass
class Structure:
    """What a loop nest needs of a linalg op: its operands (inputs, then
    outputs), one indexing map each over `loops` loops, and the body, whose
    block takes one scalar per operand."""

    inputs: list[SSAValue]
    outputs: list[SSAValue]
    maps: list[AffineMap]
    loops: int
    body: Block


def _without(rank: int, dropped: set[int]) -> AffineMap:
    """`(d0, ..., d{rank-1}) -> (the dims not in dropped)`."""
    kept = tuple(AffineExpr.dimension(d) for d in range(rank) if d not in dropped)
    return AffineMap(rank, 0, kept)


def structure(op: Operation) -> Structure | str:
    """The op as loops over its operands, or why it cannot be lowered."""
    if isinstance(op, ReduceOp | BroadcastOp):
        dims = {int(d) for d in op.dimensions.get_values()}
        shaped = op.input.type if isinstance(op, ReduceOp) else op.init.type
        if not isinstance(shaped, ShapedType):
            return "its operands are not shaped"
        rank = len(shaped.get_shape())
        identity, projected = AffineMap.identity(rank), _without(rank, dims)
        maps = [identity, projected] if isinstance(op, ReduceOp) else [projected, identity]
        inputs, outputs, body = [op.input], [op.init], op.regions[0].block
    elif isinstance(op, LinalgStructuredOperation):
        try:
            maps = [m.data for m in op.get_indexing_maps().data]
        except (NotImplementedError, AssertionError, IndexError) as e:
            return f"its indexing maps are unknown ({e})"
        inputs, outputs, body = list(op.inputs), list(op.outputs), op.body.block
    else:
        return "it is not a structured linalg op"
    operands = [*inputs, *outputs]
    if any(not isinstance(v.type, MemRefType) for v in operands if isinstance(v.type, ShapedType)):
        return "it works on tensors; bufferize the kernel first"
    if op.results:
        return "it has results"
    if len(maps) != len(operands) or len(body.args) != len(operands):
        return "its indexing maps, operands and body arguments do not match"
    if any(m.num_symbols for m in maps):
        return "an indexing map has symbols"
    loops = maps[0].num_dims if maps else 0
    for d in range(loops):
        if _extent_source(operands, maps, d) is None:
            return f"no operand dimension is indexed by loop d{d} alone, to bound it"
    return Structure(inputs, outputs, maps, loops, body)


def refusal(op: Operation) -> str | None:
    """Why `op`, a linalg op in a kernel, cannot become loops; None if it can."""
    if op.name in ("linalg.yield", "linalg.index"):
        return None
    if op.name not in LOWERED_OPS:
        return "this lowering does not know it"
    found = structure(op)
    return found if isinstance(found, str) else None


def _extent_source(
    operands: list[SSAValue], maps: list[AffineMap], loop: int
) -> tuple[SSAValue, int] | None:
    """The first operand dimension that loop `loop` indexes plainly."""
    for value, m in zip(operands, maps):
        for i, expr in enumerate(m.results):
            if isinstance(expr, AffineDimExpr) and expr.position == loop:
                return value, i
    return None


def _extent(ir: IRBuilder, operands: list[SSAValue], maps: list[AffineMap], loop: int) -> SSAValue:
    source = _extent_source(operands, maps, loop)
    assert source is not None
    value, i = source
    t = value.type
    assert isinstance(t, MemRefType)
    size = t.get_shape()[i]
    if size != DYNAMIC_INDEX:
        return ir.index(size)
    return ir.b.insert(memref.DimOp(value, ir.index(i))).result


def _indices(ir: IRBuilder, m: AffineMap, ivs: list[SSAValue]) -> list[SSAValue]:
    """The element `m` names at these loop indices."""
    out: list[SSAValue] = []
    for expr in m.results:
        if isinstance(expr, AffineDimExpr):
            out.append(ivs[expr.position])
        elif isinstance(expr, AffineConstantExpr):
            out.append(ir.index(expr.value))
        else:
            # Only the loops the expression reads are the apply's operands.
            used = sorted(expr.used_dims())
            single = AffineMap(m.num_dims, 0, (expr,))
            unused = tuple(d not in used for d in range(m.num_dims))
            amap = single.drop_dims(unused)
            apply = affine.ApplyOp([ivs[d] for d in used], AffineMapAttr(amap))
            out.append(ir.b.insert(apply).result)
    return out


def _body(ir: IRBuilder, s: Structure, ivs: list[SSAValue]) -> None:
    """One iteration: load what the body reads, run it, store what it yields."""
    operands = [*s.inputs, *s.outputs]
    values: dict[SSAValue, SSAValue] = {}
    for value, m, arg in zip(operands, s.maps, s.body.args):
        if not arg.uses:
            continue
        if isinstance(value.type, MemRefType):
            load = memref.LoadOp.get(value, _indices(ir, m, ivs))
            values[arg] = ir.b.insert(load).res
        else:
            values[arg] = value
    clones: list[Operation] = []
    terminator = s.body.last_op
    for op in s.body.ops:
        if op is not terminator:
            clones.append(ir.b.insert(op.clone(value_mapper=values)))
    # linalg.index may sit in a region of the body (an scf.if), so the
    # clones are searched through.
    for index in [o for c in clones for o in c.walk() if isinstance(o, IndexOp)]:
        index.result.replace_all_uses_with(ivs[index.dim.value.data])
        index.detach()
        index.erase()
    assert terminator is not None
    for value, out, m in zip(terminator.operands, s.outputs, s.maps[len(s.inputs) :]):
        t = out.type
        assert isinstance(t, MemRefType)
        with ImplicitBuilder(ir.b):
            stored = cast_to(values.get(value, value), t.element_type)
        ir.b.insert(memref.StoreOp.get(stored, out, _indices(ir, m, ivs)))


def _lower(m: Match, ir: IRBuilder) -> list[SSAValue]:
    s = structure(m.root)
    assert isinstance(s, Structure)
    operands = [*s.inputs, *s.outputs]
    extents = [_extent(ir, operands, s.maps, d) for d in range(s.loops)]
    ivs: list[SSAValue] = []
    if extents:
        zero, one = ir.index(0), ir.index(1)
        for extent in extents:
            end = scf.YieldOp()
            block = Block([end], arg_types=[IndexType()])
            ir.b.insert(scf.ForOp(zero, extent, one, [], Region(block)))
            ivs.append(block.args[0])
            ir = IRBuilder(Builder(InsertPoint.before(end)))
    _body(ir, s, ivs)
    return []


def _in_custom_dispatch(m: Match) -> bool | str:
    """Only a kernel IREE lowers as written must be rid of linalg: elsewhere
    (host code, a dispatch with a real pipeline) IREE lowers linalg itself."""
    fn = m.root.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    if fn is None:
        return "it is not in a function"
    info = fn.attributes.get(TRANSLATION_INFO)
    if not isinstance(info, TranslationInfoAttr) or not isinstance(info.pipeline, NoPipelineAttr):
        return "its function is not a kernel IREE lowers as written (no_pipeline)"
    parent = fn.parent_op()
    while parent is not None and not isinstance(parent, hal.ExecutableSourceOp):
        parent = parent.parent_op()
    if parent is None:
        return "its function is not in a hal.executable.source"
    return True


def _lowerable(m: Match) -> bool | str:
    reason = refusal(m.root)
    return True if reason is None else reason


LINALG_TO_LOOPS = Pattern(
    name="linalg-to-loops",
    doc="a linalg op on memrefs in an exported kernel becomes the scf.for nest it stands for",
    root=LOWERED_OPS,
    where=where("is in a kernel IREE lowers as written", _in_custom_dispatch)
    & where("can be lowered to loops", _lowerable),
    rewrite=_lower,
)
