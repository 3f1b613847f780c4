"""`form-dispatch-regions`: wraps each graph-level split-reduction `scf.forall`
in a `flow.dispatch.region` (the seed's step 2).

iree-compile 3.13 crashes on an `scf.forall` outside a dispatch, and accepts one
inside a `flow.dispatch.region` only if the `tensor.empty` it writes into is
created in the region too, so that op (and the constants the loop uses) move
in with it. The merge stays outside, for IREE to form its own dispatch.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xsplit.diagnostics import remark
from xsplit.dialects.flow import DispatchRegionOp, DispatchWorkgroupsOp, ReturnOp
from xsplit.dialects.gpu import BlockMappingAttr
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.scf import ForallOp


def is_split_reduction_loop(op: Operation) -> bool:
    return (
        isinstance(op, ForallOp)
        and op.mapping is not None
        and all(isinstance(m, SplitReductionMappingAttr) for m in op.mapping.data)
    )


def in_dispatch(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, DispatchRegionOp | DispatchWorkgroupsOp):
            return True
        parent = parent.parent_op()
    return False


def result_dims_outside(forall: ForallOp) -> list[SSAValue] | None:
    """The dynamic sizes of the loop's results, as values defined before it."""
    dims: list[SSAValue] = []
    for out in forall.outputs:
        t = out.type
        assert isinstance(t, TensorType)
        if DYNAMIC_INDEX not in t.get_shape():
            continue
        producer = out.owner
        if not isinstance(producer, tensor.EmptyOp):
            return None
        dims.extend(producer.dynamic_sizes)
    return dims


def wrap_in_dispatch_region(forall: ForallOp) -> DispatchRegionOp | None:
    dims = result_dims_outside(forall)
    if dims is None:
        remark(forall, "not put in a dispatch: a dynamic shared output is not a tensor.empty")
        return None
    body = Block()
    inside = Builder(InsertPoint.at_end(body))
    mapping: dict[SSAValue, SSAValue] = {}
    # The loop's destinations and constants are rebuilt inside: IREE needs the
    # empty tensor there, and constants inside save dispatch operands.
    for out in forall.outputs:
        if isinstance(out.owner, tensor.EmptyOp) and out not in mapping:
            mapping[out] = inside.insert(out.owner.clone()).results[0]
    for used in values_defined_above(forall):
        owner = used.owner
        if isinstance(owner, arith.ConstantOp) and used not in mapping:
            mapping[used] = inside.insert(owner.clone()).results[0]
    moved = inside.insert(forall.clone(value_mapper=mapping))
    body.add_op(ReturnOp(*moved.results))
    region = DispatchRegionOp(list(forall.result_types), Region(body), dims)
    Rewriter.insert_op(region, InsertPoint.before(forall))
    for old, new in zip(forall.results, region.results):
        old.replace_all_uses_with(new)
    moved_in = [v.owner for v in mapping]
    Rewriter.erase_op(forall)
    for original in moved_in:
        if isinstance(original, Operation) and not any(r.uses for r in original.results):
            Rewriter.erase_op(original)
    return region


def values_defined_above(op: Operation) -> list[SSAValue]:
    """Values defined outside `op` that it or its nested ops use, in first-use order."""
    seen: dict[SSAValue, None] = {}
    for nested in op.walk():
        for operand in nested.operands:
            owner = operand.owner
            definer = owner if isinstance(owner, Operation) else owner.parent_op()
            if definer is None or not op.is_ancestor(definer):
                seen.setdefault(operand, None)
    return list(seen)


@dataclass(frozen=True)
class FormDispatchRegionsPass(ModulePass):
    """Puts each graph-level split-reduction `scf.forall` in a `flow.dispatch.region`."""

    name = "form-dispatch-regions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in [o for o in op.walk() if isinstance(o, ForallOp)]:
            if in_dispatch(loop):
                continue
            if loop.mapping is not None and any(
                isinstance(m, BlockMappingAttr) for m in loop.mapping.data
            ):
                remark(
                    loop,
                    "#gpu.block mapping stays a serial loop in each IREE workgroup; "
                    "use #iree_linalg_ext.split_reduction_mapping to distribute it",
                )
            if is_split_reduction_loop(loop):
                wrap_in_dispatch_region(loop)
