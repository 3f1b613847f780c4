"""`form-dispatch-regions`: wraps each graph-level split-reduction `scf.forall`
in a `flow.dispatch.region` (the seed's step 2).

iree-compile 3.13 crashes on an `scf.forall` outside a dispatch, and accepts one
inside a `flow.dispatch.region` only if the `tensor.empty` it writes into is
created in the region too, so that op (and the constants the loop uses) move
in with it. The merge stays outside, for IREE to form its own dispatch.

A split loop is a graph-level `scf.forall` whose every mapping is
`#iree_linalg_ext.split_reduction_mapping`: split-k's own loops (its aligned
form's too), and nothing IREE leaves at graph level, where iree-compile would
crash on one. Graph level is outside any dispatch and outside the executables
IREE outlines dispatches into; ops in them are a dispatch's code already.
The regions formed here are remembered (`formed_by_xsplit`), so that
`materialize-late` isolates those and no region the module had before.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Attribute, Operation, Region, SSAValue

from xsplit.dialects.flow import DispatchRegionOp, DispatchWorkgroupsOp
from xsplit.dialects.gpu import BlockMappingAttr
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.scf import ForallOp
from xsplit.rewrites.dsl import Match, Pass, Pattern, Remark, Template, attr, not_inside
from xsplit.rewrites.dsl.clone import CloningTemplate
from xsplit.rewrites.dsl.structure import outputs, results, the_value, values_from_above


_DEVICE_CODE = frozenset(
    {
        DispatchRegionOp.name,
        DispatchWorkgroupsOp.name,
        "flow.executable",
        "stream.executable",
        "hal.executable",
        "hal.executable.source",
    }
)
"""The ops whose bodies are dispatches' code: a dispatch, and the executables
IREE outlines dispatches into (a `--compile-to=flow` dump and later)."""


def in_dispatch(op: Operation) -> bool:
    """Whether `op` is in a dispatch's code, not at graph level: inside a
    dispatch or an executable, whether xsplit reads that op as its class or
    carries it unregistered (a form of it xsplit's class does not take)."""
    parent = op.parent_op()
    while parent is not None:
        name = parent.op_name.data if isinstance(parent, UnregisteredOp) else parent.name
        if name in _DEVICE_CODE:
            return True
        parent = parent.parent_op()
    return False


_FORMED: weakref.WeakSet[DispatchRegionOp] = weakref.WeakSet()
"""The dispatch regions xsplit's own patterns formed, for `materialize-late`
to turn into workgroups: a module's existing regions look the same, and are
not its to change. Held weakly: an erased region leaves the set with its op."""


def new_dispatch_region(
    result_types: Sequence[Attribute], body: Region, result_dims: Sequence[SSAValue] = ()
) -> DispatchRegionOp:
    """A `flow.dispatch.region` that `formed_by_xsplit` then knows."""
    region = DispatchRegionOp(list(result_types), body, list(result_dims))
    _FORMED.add(region)
    return region


def formed_by_xsplit(op: Operation) -> bool:
    """Whether `op` is a region `new_dispatch_region` made in this process."""
    return op in _FORMED


class RegionFormingTemplate(Template):
    """A template whose `flow.dispatch.region`s are formed by xsplit, as
    `new_dispatch_region`'s are: `materialize-late` then turns them into
    workgroups."""

    def rewrite(self, m: Match, builder: Builder) -> list[SSAValue]:
        before = m.root.prev_op
        replacements = super().rewrite(m, builder)
        block = m.root.parent_block()
        op = before.next_op if before is not None else block.first_op if block else None
        while op is not None and op is not m.root:
            if isinstance(op, DispatchRegionOp):
                _FORMED.add(op)
            op = op.next_op
        return replacements


is_graph_level = not_inside(*_DEVICE_CODE, description="is outside any dispatch")
"""Outside any dispatch and outside the executables IREE outlines them into."""
is_split_reduction_loop = attr("mapping").each_is(SplitReductionMappingAttr)
has_sizes_outside = outputs().each(
    the_value.has_static_shape() | the_value.defined_by("tensor.empty"),
    why=lambda v, failure: "a dynamic shared output is not a tensor.empty",
)
"""Each dynamic shared output is a `tensor.empty`, whose sizes are values
from before the loop: the region's result sizes."""


is_scalar_constant = the_value.is_constant() & ~the_value.is_tensor()
"""A scalar `arith.constant`, which a dispatch rebuilds inside rather than
taking as an operand. A tensor constant (an ONNX initializer) stays an
operand: sliced in static chunks inside the dispatch, iree-compile 3.13
crashes on CUDA (SIGSEGV in iree-codegen-pad-dynamic-alloc; a 4x32 by
constant 32x8 matmul in 3 chunks), and compiles it taken as an operand."""


def _result_sizes(m: Match) -> list[list[SSAValue]]:
    """Each result's dynamic sizes: those of the `tensor.empty` it is
    written into (`has_sizes_outside` holds), defined before the loop."""
    return [
        list(out.owner.dynamic_sizes) if isinstance(out.owner, tensor.EmptyOp) else []
        for out in m.root.outputs  # type: ignore[attr-defined]
    ]


def _remember_regions(made: list[Operation]) -> None:
    _FORMED.update(op for op in made if isinstance(op, DispatchRegionOp))


WRAPPED_LOOP = CloningTemplate(
    """
$if $count:
%0:$count = flow.dispatch.region -> (
$else:
flow.dispatch.region -> (
$end
$for r in $loop:
    $loop[$r].type{$sizes[$r]},
$end
    ) {
$for e in $empties:
  %empty$e = $clone $empties[$e]
$end
$for c in $constants:
  %constant$c = $clone $constants[$c]
$end
  $move $root replacing $empties with %empty, $constants with %constant
  flow.return $loop : $loop.type
}
""",
    unnamed=True,
    count=lambda m: len(m.root.results),
    record=_remember_regions,
    sizes=_result_sizes,
)
"""The loop moved into a region of its own, with copies of the
`tensor.empty`s it writes into (IREE needs them inside) and of the scalar
constants it reads (inside, they are no operands of the dispatch); the
engine erases the originals once nothing else uses them. The region
carries each result's dynamic sizes out."""


WRAP_SPLIT_LOOP = Pattern(
    name="wrap-split-loop-in-dispatch-region",
    doc="puts a graph-level split-reduction scf.forall, its tensor.empty and "
    "constants in a flow.dispatch.region",
    root=ForallOp,
    where=is_graph_level
    & is_split_reduction_loop
    & has_sizes_outside
    & results().capture("loop")
    & outputs().distinct().capture_those("empties", the_value.defined_by("tensor.empty"))
    & values_from_above().capture_those("constants", is_scalar_constant),
    rewrite=WRAPPED_LOOP,
)

SERIAL_BLOCK_LOOP = Remark(
    name="serial-gpu-block-loop",
    doc="warns that a #gpu.block-mapped scf.forall stays serial inside an IREE dispatch",
    root=ForallOp,
    where=is_graph_level & attr("mapping").has_an(BlockMappingAttr),
    message="#gpu.block mapping stays a serial loop in each IREE workgroup; use "
    "#iree_linalg_ext.split_reduction_mapping to distribute it",
)

DYNAMIC_OUTPUT_LOOP = Remark(
    name="split-loop-without-sizes",
    doc="says why a split loop whose dynamic output is not a tensor.empty stays put",
    root=ForallOp,
    where=is_graph_level & is_split_reduction_loop & ~has_sizes_outside,
    message="not put in a dispatch: a dynamic shared output is not a tensor.empty",
)

FORM_DISPATCH_REGIONS_PATTERNS = (WRAP_SPLIT_LOOP, SERIAL_BLOCK_LOOP, DYNAMIC_OUTPUT_LOOP)

FORM_DISPATCH_REGIONS = Pass(
    "form-dispatch-regions",
    "Puts each graph-level split-reduction scf.forall in a flow.dispatch.region.",
    FORM_DISPATCH_REGIONS_PATTERNS,
)
