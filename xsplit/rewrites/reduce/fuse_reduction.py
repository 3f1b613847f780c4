"""`fuse-reduction`: a GEMM whose result feeds a reduction along one of its
output axes is fused with it into one kernel (rocMLIR's RFC, seed 004).

The pass decides the fusion and records it on the reduction as
`xsplit.fused_producer`; `lower-reduce` then writes the one kernel
(xsplit's staged GEMM kernel with a reduction epilogue, fused_gemm.py, on
every target: any number of batch loops, reductions along one of them,
transposed A, B or C; on the CPU one thread's loops over a tile): each
workgroup computes a tile of the GEMM's output in registers, from A and B
staged through workgroup memory along K and the GEMM's init, and reduces
it straight into the reduced result with the stage's atomics,
workgroup-memory combine or subgroup reduction, so the GEMM's output never
makes a round trip through memory. The GEMM's output is
still written, by the thread that computed each element, only when the
function returns it (its other users); otherwise it is never stored.

It fuses `linalg.matmul`, `linalg.batch_matmul` and contraction
`linalg.generic`s (projected-permutation maps, one reduction loop, a body
`out + a * b`) on static f32 tensors (or f16 operands accumulated in f32)
into a `rock.reduce`, a one-dimension `linalg.reduce`, or a reduction
`linalg.generic` as IREE imports ONNX's ReduceSum/ReduceMax (keepdims maps
such as `(d0, d1) -> (d0, 0)` included), summing or taking the max, whatever
its init: a fill, or another tensor. Anything else passes through unchanged,
with a remark saying why.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Operation, SSAValue

from xsplit.analysis.contraction import gemm_operand_dims
from xsplit.diagnostics import location_of
from xsplit.rewrites.dsl import Match, Pass, Pattern, Remark, UpdateRoot, where
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.reduce.lower_reduce import FUSED, REDUCTIONS
from xsplit.rewrites.reduce.reduced import (
    combiner_of,
    generic_reduction,
    is_static_f16_or_f32,
    is_static_f32,
)

GEMMS = ("linalg.matmul", "linalg.batch_matmul", "linalg.generic")


def _is_reduction(op: Operation) -> bool:
    return op.name != "linalg.generic" or not isinstance(generic_reduction(op), str)


def _why_not(op: Operation) -> str | None:
    """Why the reduction `op` cannot be fused with its producer, or None."""
    if FUSED in op.attributes:
        return "it is already fused"
    if op.name == "linalg.generic":
        found = generic_reduction(op)
        if isinstance(found, str):
            return found
    elif op.name == "linalg.reduce" and combiner_of(list(op.regions[0].block.ops)) is None:
        return "its combiner is not an associative add or max"
    source = op.operands[0]
    producer = source.owner
    if not isinstance(producer, Operation):
        return "its input is a block argument, not a GEMM's result"
    if producer.name not in GEMMS:
        return f"its producer '{producer.name}' is not a GEMM"
    if producer.name == "linalg.generic":
        dims = gemm_operand_dims(producer)
        if isinstance(dims, str):
            return dims
    if producer.parent_block() is not op.parent_block():
        return "the GEMM is in another block"
    a, b, c = (v.type for v in producer.operands)
    if not (
        all(is_static_f16_or_f32(t) for t in (a, b))
        and all(is_static_f32(t) for t in (c, source.type))
    ):
        return "the GEMM is not on static f32 tensors (or f16 operands accumulated in f32)"
    if op.name == "linalg.reduce":
        dims = op.properties["dimensions"].get_values()  # type: ignore[union-attr]
        if len(dims) != 1 or len(op.operands) != 2:
            return "it reduces more than one dimension or operand"
    returns = {"func.return", "util.return"}
    users = {u.operation.name for u in source.uses if u.operation is not op}
    if users - returns:
        return (
            f"the GEMM's result has other users ({', '.join(sorted(users - returns))}) "
            "that would need it materialized before the fused kernel ends"
        )
    return None


def _fusable(m: Match) -> bool | str:
    why = _why_not(m.root)
    return True if why is None else why


def _unfusable(m: Match) -> bool | str:
    if not _is_reduction(m.root):
        return "it is not a reduction"  # a generic that reduces nothing is none of this pass's business
    why = _why_not(m.root)
    if why is None or why == "it is already fused":
        return "it is fusable"
    m.captures["why"] = why
    return True


def _fused_remark(m: Match) -> str:
    gemm = m.root.operands[0].owner
    assert isinstance(gemm, Operation)
    written = any(u.operation.name in ("func.return", "util.return") for u in gemm.results[0].uses)
    return (
        f"fuse-reduction: fused with {gemm.name} at {location_of(gemm)}: one kernel, each "
        "workgroup computes its GEMM elements and reduces them into the result; the GEMM's "
        + ("output is also written (it is returned)" if written else "output is never written")
    )


def _without_unused_results(op: Operation) -> GenericOp | None:
    """The generic without its unused results (and the body computations only
    they needed), detached; None when every result is used or the op is not
    a generic. IREE imports ONNX's ReduceMax as a max that also tracks the
    argmax index; with the index unused it is a plain max reduction."""
    if not isinstance(op, GenericOp) or len(op.results) < 2:
        return None
    kept = [i for i, r in enumerate(op.results) if r.uses]
    if len(kept) == len(op.results) or not kept:
        return None
    n_in = len(op.inputs)
    region = op.regions[0].clone()
    block = region.block
    yielded = block.last_op
    assert yielded is not None
    yielded.operands = [yielded.operands[i] for i in kept]
    changed = True
    while changed:  # users before producers: erase what the dropped results alone needed
        changed = False
        for inner in reversed(list(block.ops)):
            if inner is not yielded and not inner.regions and all(not r.uses for r in inner.results):
                inner.detach()
                inner.erase()
                changed = True
    dropped_args = [block.args[n_in + i] for i in range(len(op.outputs)) if i not in kept]
    if any(a.uses for a in dropped_args):
        return None
    for arg in reversed(dropped_args):
        block.erase_arg(arg)
    maps = list(op.indexing_maps.data)
    return GenericOp(
        list(op.inputs),
        [op.outputs[i] for i in kept],
        region,
        maps[:n_in] + [maps[n_in + i] for i in kept],
        op.iterator_types,
        [op.results[i].type for i in kept],
    )


def _has_unused_reduction_results(m: Match) -> bool | str:
    smaller = _without_unused_results(m.root)
    if smaller is None or isinstance(generic_reduction(smaller), str):
        return "it has no unused results whose dropping leaves a reduction"
    m.captures["smaller"] = smaller
    return True


def _drop_unused_results(m: Match, ir: IRBuilder) -> list[SSAValue]:
    op, smaller = m.root, m["smaller"]
    ir.b.insert(smaller)
    kept = iter(smaller.results)
    # An unused result is replaced by its own init: nothing reads it.
    return [next(kept) if r.uses else op.outputs[i] for i, r in enumerate(op.results)]  # type: ignore[attr-defined]


DROP_UNUSED_RESULTS = Pattern(
    name="drop-unused-reduction-results",
    doc="a reduction generic's unused results (an argmax index nobody reads) are dropped",
    root="linalg.generic",
    where=where("has unused results, and without them is a reduction", _has_unused_reduction_results),
    rewrite=_drop_unused_results,
    benefit=2,
)

FUSE = Pattern(
    name="fuse-reduction",
    doc="a GEMM feeding a reduction along an output axis is fused with it into one kernel",
    root=REDUCTIONS,
    where=where("the reduction's input is a GEMM it can fuse", _fusable),
    rewrite=UpdateRoot({FUSED: lambda m: UnitAttr()}, remark=_fused_remark),
)

NOT_FUSED = Remark(
    name="fuse-reduction-not-applicable",
    doc="says why a reduction is not fused with its producer",
    root=REDUCTIONS,
    where=where("the reduction cannot be fused", _unfusable),
    message=lambda m: f"fuse-reduction: not fused: {m['why']}",
)

FUSE_REDUCTION = Pass(
    "fuse-reduction",
    "Fuses a GEMM and the reduction of its output along an axis into one kernel (with lower-reduce).",
    [DROP_UNUSED_RESULTS, FUSE, NOT_FUSED],
)
