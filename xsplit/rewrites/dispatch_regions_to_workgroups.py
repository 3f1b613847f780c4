"""`dispatch-regions-to-workgroups`: turns each graph-level `flow.dispatch.region`
into the isolated `flow.dispatch.workgroups` form (the seed's step 3).

Captured tensors become `readonly` placeholders loaded whole at the top of the
body; results become `writeonly` placeholders stored whole at the end;
captured constants are rebuilt inside. Regions with dynamic shapes, a workload
or a count region stay as they are: iree-compile forms their workgroups itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xsplit.diagnostics import remark
from xsplit.dialects.flow import DispatchRegionOp, DispatchWorkgroupsOp, ReturnOp
from xsplit.dialects.iree_tensor_ext import (
    DispatchTensorLoadOp,
    DispatchTensorStoreOp,
    DispatchTensorType,
)
from xsplit.rewrites.form_dispatch_regions import in_dispatch, values_defined_above


def _is_static_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType) and DYNAMIC_INDEX not in t.get_shape()


def _whole(t: TensorType) -> tuple[list[int], list[int], list[int]]:
    shape = list(t.get_shape())
    return [0] * len(shape), shape, [1] * len(shape)


def region_to_workgroups(region: DispatchRegionOp) -> DispatchWorkgroupsOp | None:
    if region.workload or region.workgroup_count.blocks:
        remark(region, "left as a dispatch region: it has a workload or count region")
        return None
    captures = values_defined_above(region)
    constants = [v for v in captures if isinstance(v.owner, arith.ConstantOp)]
    arguments = [v for v in captures if v not in constants]
    shaped = [v.type for v in arguments if isinstance(v.type, TensorType)]
    if not all(_is_static_tensor(t) for t in (*shaped, *region.result_types)):
        remark(
            region,
            "left as a dispatch region: it has dynamic shapes, which iree-compile "
            "turns into workgroups itself",
        )
        return None

    workgroups = DispatchWorkgroupsOp(
        arguments, list(region.result_types), Region(Block())
    )
    body = workgroups.workgroup_body.block
    for t in workgroups.expected_block_arg_types():
        body.insert_arg(t, len(body.args))
    build = Builder(InsertPoint.at_end(body))

    mapping: dict[SSAValue, SSAValue] = {}
    for value in constants:
        mapping[value] = build.insert(value.owner.clone()).results[0]
    for value, placeholder in zip(arguments, body.args):
        if isinstance(value.type, TensorType):
            load = DispatchTensorLoadOp(placeholder, [], value.type, *_whole(value.type))
            mapping[value] = build.insert(load).result
        else:
            mapping[value] = placeholder

    terminator = region.body.block.last_op
    assert isinstance(terminator, ReturnOp)
    for op in region.body.block.ops:
        if op is not terminator:
            build.insert(op.clone(value_mapper=mapping))
    outputs = body.args[len(arguments) :]
    for value, placeholder in zip(terminator.values, outputs):
        assert isinstance(placeholder.type, DispatchTensorType)
        bound = placeholder.type.bound_type
        build.insert(
            DispatchTensorStoreOp(
                mapping.get(value, value), placeholder, [], *_whole(bound)
            )
        )
    build.insert(ReturnOp())

    workgroups.attributes |= region.attributes
    Rewriter.insert_op(workgroups, InsertPoint.before(region))
    for old, new in zip(region.results, workgroups.results):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(region)
    return workgroups


@dataclass(frozen=True)
class DispatchRegionsToWorkgroupsPass(ModulePass):
    """Turns static-shaped `flow.dispatch.region`s into `flow.dispatch.workgroups`."""

    name = "dispatch-regions-to-workgroups"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for region in [o for o in op.walk() if isinstance(o, DispatchRegionOp)]:
            if not in_dispatch(region):
                region_to_workgroups(region)
