"""`dispatch-regions-to-workgroups`: turns each graph-level `flow.dispatch.region`
into the isolated `flow.dispatch.workgroups` form (the seed's step 3).

Captured tensors become `readonly` placeholders loaded whole at the top of the
body; results become `writeonly` placeholders stored whole at the end;
captured constants are rebuilt inside. What the region's ops read from outside
in their own regions (a reduction's body reading a scalar) is captured too.
Regions with dynamic shapes, a workload or a count region stay as they are:
iree-compile forms their workgroups itself. So do regions of several blocks,
and regions that capture a value no workgroups operand can be (a vector),
each with a remark.

This pass converts every region; `materialize-late` uses the same patterns on
the regions xsplit itself formed only (`formed_by_xsplit`).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from xsplit.dialects.flow import DispatchRegionOp, DispatchWorkgroupsOp, ReturnOp
from xsplit.dialects.iree_tensor_ext import (
    DispatchTensorLoadOp,
    DispatchTensorStoreOp,
    DispatchTensorType,
)
from xsplit.rewrites.dispatch.form_dispatch_regions import formed_by_xsplit, is_graph_level
from xsplit.rewrites.dsl import (
    ALWAYS,
    Constraint,
    Match,
    Pass,
    Pattern,
    Remark,
    operand_group_size,
    region_blocks,
    where,
)
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.structure import (
    because,
    results,
    the_value,
    values_from_above,
)


def _whole(t: TensorType) -> tuple[list[int], list[int], list[int]]:
    shape = list(t.get_shape())
    return [0] * len(shape), shape, [1] * len(shape)


is_scalar_constant = the_value.is_constant() & ~the_value.is_tensor()
"""A scalar `arith.constant`, which the workgroups rebuild inside (see
`form_dispatch_regions.is_scalar_constant`)."""

has_one_block = region_blocks("body", 1)
has_no_workload = operand_group_size("workload", 0) & region_blocks("workgroup_count", 0)
has_static_shapes = because(
    values_from_above().each(~the_value.is_tensor() | the_value.has_static_shape())
    & results().each(the_value.has_static_shape()),
    "it has dynamic shapes",
)
"""The tensors it captures and its results have static shapes."""
captures_operands = values_from_above().each(
    is_scalar_constant | the_value.type_is(TensorType, IndexType, IntegerType, AnyFloat),
    why=lambda v, failure: f"it captures a {v.type}, which a flow.dispatch.workgroups cannot take",
) & values_from_above().capture_those("constants", is_scalar_constant) & values_from_above(
).capture_those("arguments", ~is_scalar_constant)
"""What it uses from above, nested regions included, is scalar constants
(rebuilt inside) and the workgroups' operands: tensors, indices, integers
and floats."""


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


is_formed_by_xsplit = where(
    "was formed by xsplit",
    lambda m: formed_by_xsplit(m.root) or "it was in the module before",
)


def _patterns(selected: Constraint, which: str = "") -> tuple[Pattern | Remark, ...]:
    """The conversion and its remarks, on the graph-level regions `selected`
    holds for (`which` says which in the patterns' docs)."""
    graph_level = is_graph_level & selected
    return (
        Pattern(
            name="dispatch-region-to-workgroups",
            doc=f"turns a static-shaped flow.dispatch.region{which} into flow.dispatch.workgroups",
            root=DispatchRegionOp,
            where=graph_level
            & has_one_block
            & has_no_workload
            & has_static_shapes
            & captures_operands,
            rewrite=region_to_workgroups,
        ),
        Remark(
            name="dynamic-dispatch-region",
            doc=f"says that a dynamic-shaped region{which} is left for iree-compile to convert",
            root=DispatchRegionOp,
            where=graph_level & ~has_static_shapes,
            message="left as a dispatch region: it has dynamic shapes, which iree-compile "
            "turns into workgroups itself",
        ),
        Remark(
            name="dispatch-region-with-workload",
            doc=f"says that a region{which} with a workload or count region is left as it is",
            root=DispatchRegionOp,
            where=graph_level & ~has_no_workload,
            message="left as a dispatch region: it has a workload or count region",
        ),
        Remark(
            name="dispatch-region-of-blocks",
            doc=f"says that a region{which} of several blocks is left as it is",
            root=DispatchRegionOp,
            where=graph_level & ~has_one_block,
            message="left as a dispatch region: it has several blocks",
        ),
        Remark(
            name="dispatch-region-capturing-other-types",
            doc=f"says that a region{which} capturing a value a workgroups op cannot take "
            "is left as it is",
            root=DispatchRegionOp,
            where=graph_level & has_one_block & has_static_shapes & ~captures_operands,
            message=lambda m: "left as a dispatch region: "
            + str(captures_operands.check(m).reason),  # type: ignore[union-attr]
        ),
    )


DISPATCH_REGIONS_TO_WORKGROUPS_PATTERNS = _patterns(ALWAYS)
"""For `dispatch-regions-to-workgroups`, asked for by name: every region."""

FORMED_REGIONS_TO_WORKGROUPS_PATTERNS = _patterns(is_formed_by_xsplit, " xsplit formed")
"""For `materialize-late`: only the regions xsplit's own patterns formed; a
module's existing dispatches pass through as they are."""

DISPATCH_REGIONS_TO_WORKGROUPS = Pass(
    "dispatch-regions-to-workgroups",
    "Turns static-shaped flow.dispatch.regions into flow.dispatch.workgroups.",
    DISPATCH_REGIONS_TO_WORKGROUPS_PATTERNS,
)
