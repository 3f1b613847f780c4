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

from collections.abc import Callable

from xdsl.dialects.builtin import AnyFloat, DictionaryAttr, IndexType, IntegerType, TensorType
from xdsl.ir import Attribute

from xsplit.dialects.flow import DispatchRegionOp
from xsplit.dialects.iree_tensor_ext import DispatchTensorType, TensorAccess
from xsplit.rewrites.dispatch.form_dispatch_regions import (
    formed_by_xsplit,
    is_graph_level,
    is_scalar_constant,
)
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
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.structure import (
    because,
    region_ops,
    results,
    the_value,
    values_from_above,
)


def _whole(t: TensorType) -> tuple[list[int], list[int], list[int]]:
    shape = list(t.get_shape())
    return [0] * len(shape), shape, [1] * len(shape)


def _of_each(values: str, f: Callable[[Attribute], object]) -> Callable[[Match], list[object]]:
    """A helper: `f` of the type of each value of the captured list `values`."""
    return lambda m: [f(v.type) for v in m[values]]


def _loaded(t: Attribute) -> bool:
    return isinstance(t, TensorType)


def _readonly(t: Attribute) -> Attribute | None:
    return DispatchTensorType.get(TensorAccess.READONLY, t) if isinstance(t, TensorType) else None


def _writeonly(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return DispatchTensorType.get(TensorAccess.WRITEONLY, t)


def _zeros(t: Attribute) -> list[int]:
    return _whole(t)[0] if isinstance(t, TensorType) else []


def _sizes(t: Attribute) -> list[int]:
    return _whole(t)[1] if isinstance(t, TensorType) else []


def _ones(t: Attribute) -> list[int]:
    return _whole(t)[2] if isinstance(t, TensorType) else []


WORKGROUPS = CloningTemplate(
    """
$if $count:
%0:$count = flow.dispatch.workgroups($arguments) : ($arguments.type) -> ($results.type) attributes $attributes =
$else:
flow.dispatch.workgroups($arguments) : ($arguments.type) -> () attributes $attributes =
$end
    (
$for i in $arguments:
$if $loaded[$i]:
      %binding$i: $readonly[$i],
$else:
      %in$i: $arguments[$i].type,
$end
$end
$for r in $results:
      %out$r: $writeonly[$r],
$end
    ) {
$for c in $constants:
  %c$c = $clone $constants[$c]
$end
$for i in $arguments:
$if $loaded[$i]:
  %in$i = iree_tensor_ext.dispatch.tensor.load %binding$i, offsets = [$offsets[$i]], sizes = [$sizes[$i]], strides = [$strides[$i]] : $readonly[$i] -> $arguments[$i].type
$end
$end
$if $count:
  %yielded:$count = $move $body.ops replacing $constants with %c, $arguments with %in yielding $yielded
$else:
  $move $body.ops replacing $constants with %c, $arguments with %in
$end
$for r in $results:
  iree_tensor_ext.dispatch.tensor.store %yielded#$r, %out$r, offsets = [$result_offsets[$r]], sizes = [$result_sizes[$r]], strides = [$result_strides[$r]] : $results[$r].type -> $writeonly[$r]
$end
  flow.return
}
""",
    unnamed=True,
    count=lambda m: len(m.root.results),
    attributes=lambda m: DictionaryAttr(dict(m.root.attributes)),
    loaded=_of_each("arguments", _loaded),
    readonly=_of_each("arguments", _readonly),
    writeonly=_of_each("results", _writeonly),
    offsets=_of_each("arguments", _zeros),
    sizes=_of_each("arguments", _sizes),
    strides=_of_each("arguments", _ones),
    result_offsets=_of_each("results", _zeros),
    result_sizes=_of_each("results", _sizes),
    result_strides=_of_each("results", _ones),
)
"""The region's ops moved into the workgroups' body, between loads of the
tensors it captures (whole, from `readonly` bindings) and stores of what it
yields (whole, into `writeonly` ones); the scalar constants it reads are
rebuilt inside, its other scalars are the body's own arguments. No result is
tied to an argument: said explicitly, as MLIR's flow dialect does (iree-opt
adds `[-1 : index]` per result when it reads the op back)."""



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
            & captures_operands
            & results().capture("results")
            & region_ops("body", "body", yielded="yielded"),
            rewrite=WORKGROUPS,
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
