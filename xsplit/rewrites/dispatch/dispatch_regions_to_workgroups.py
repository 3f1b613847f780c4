"""`dispatch-regions-to-workgroups`: turns each graph-level `flow.dispatch.region`
into the isolated `flow.dispatch.workgroups` form (the seed's step 3).

Captured tensors become `readonly` placeholders loaded whole at the top of the
body; results become `writeonly` placeholders stored whole at the end;
captured constants are rebuilt inside. Regions with dynamic shapes, a workload
or a count region stay as they are: iree-compile forms their workgroups itself.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from xsplit.dialects.flow import DispatchRegionOp, DispatchWorkgroupsOp, ReturnOp
from xsplit.dialects.iree_tensor_ext import (
    DispatchTensorLoadOp,
    DispatchTensorStoreOp,
    DispatchTensorType,
)
from xsplit.rewrites.dispatch.form_dispatch_regions import is_graph_level
from xsplit.rewrites.dsl import Match, Pass, Pattern, Remark, where
from xsplit.rewrites.dsl.builders import IRBuilder


def _is_static_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType) and DYNAMIC_INDEX not in t.get_shape()


def _whole(t: TensorType) -> tuple[list[int], list[int], list[int]]:
    shape = list(t.get_shape())
    return [0] * len(shape), shape, [1] * len(shape)


def _capture_operands(m: Match) -> bool | str:
    """Splits what the region uses from above into constants and arguments."""
    captures = m.defined_above()
    constants = [v for v in captures if isinstance(v.owner, arith.ConstantOp)]
    m.captures["constants"] = constants
    m.captures["arguments"] = [v for v in captures if v not in constants]
    return True


def _all_static(m: Match) -> bool | str:
    region = m.root
    assert isinstance(region, DispatchRegionOp)
    shaped = [v.type for v in m.defined_above() if isinstance(v.type, TensorType)]
    return all(_is_static_tensor(t) for t in (*shaped, *region.result_types)) or (
        "it has dynamic shapes"
    )


has_no_workload = where(
    "has no workload or count region",
    lambda m: not (m.root.workload or m.root.workgroup_count.blocks) or "it has",
)
has_static_shapes = where("has static shapes", _all_static)
captures_operands = where("captures its operands", _capture_operands)


def region_to_workgroups(m: Match, ir: IRBuilder) -> list[SSAValue]:
    region = m.root
    assert isinstance(region, DispatchRegionOp)
    constants: list[SSAValue] = m["constants"]
    arguments: list[SSAValue] = m["arguments"]
    # No result is tied to an argument. Said explicitly, as MLIR's flow dialect
    # does: iree-opt adds `[-1 : index]` per result when it reads the op back,
    # so a module without it would not print as the same program.
    workgroups = DispatchWorkgroupsOp(
        arguments,
        list(region.result_types),
        Region(Block()),
        tied_operands=[-1] * len(region.result_types),
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
    for op in list(region.body.block.ops):
        if op is not terminator:
            op.detach()
            build.insert(op)
    # Rewire the moved ops (not the dispatch's own operands) to the values
    # available inside the body.
    for outside, inside in mapping.items():
        outside.replace_uses_with_if(
            inside,
            lambda use: use.operation is not workgroups and workgroups.is_ancestor(use.operation),
        )
    for value, placeholder in zip(terminator.values, body.args[len(arguments) :]):
        assert isinstance(placeholder.type, DispatchTensorType)
        whole = _whole(placeholder.type.bound_type)
        build.insert(DispatchTensorStoreOp(mapping.get(value, value), placeholder, [], *whole))
    build.insert(ReturnOp())
    workgroups.attributes |= region.attributes
    return list(ir.b.insert(workgroups).results)


REGION_TO_WORKGROUPS = Pattern(
    name="dispatch-region-to-workgroups",
    doc="turns a static-shaped flow.dispatch.region into flow.dispatch.workgroups",
    root=DispatchRegionOp,
    where=is_graph_level & has_no_workload & has_static_shapes & captures_operands,
    rewrite=region_to_workgroups,
)

DYNAMIC_REGION = Remark(
    name="dynamic-dispatch-region",
    doc="says that a dynamic-shaped region is left for iree-compile to convert",
    root=DispatchRegionOp,
    where=is_graph_level & ~has_static_shapes,
    message="left as a dispatch region: it has dynamic shapes, which iree-compile "
    "turns into workgroups itself",
)

REGION_WITH_WORKLOAD = Remark(
    name="dispatch-region-with-workload",
    doc="says that a region with a workload or count region is left as it is",
    root=DispatchRegionOp,
    where=is_graph_level & ~has_no_workload,
    message="left as a dispatch region: it has a workload or count region",
)

DISPATCH_REGIONS_TO_WORKGROUPS_PATTERNS = (
    REGION_TO_WORKGROUPS,
    DYNAMIC_REGION,
    REGION_WITH_WORKLOAD,
)

DISPATCH_REGIONS_TO_WORKGROUPS = Pass(
    "dispatch-regions-to-workgroups",
    "Turns static-shaped flow.dispatch.regions into flow.dispatch.workgroups.",
    DISPATCH_REGIONS_TO_WORKGROUPS_PATTERNS,
)
