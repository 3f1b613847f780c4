"""`lower-reduce{stage=atomic|lds|subgroup deterministic=false|true target=NAME}`:
a reduction along one axis becomes a distributed kernel, in rocMLIR's stages.

The input is rocMLIR's: a kernel whose body is a memref `rock.reduce` of one
argument into another; or a function in destination-passing form: tensor arguments, a
`rock.reduce` or a one-dimension `linalg.reduce` (sum or max, f32) whose init
is an argument, and results that are the reduction (and, for a reduction
`fuse-reduction` fused with its GEMM, the GEMM's result when it has other
users) returned in the order of the arguments they update. The output is the
same function on memrefs, returning nothing, with `gpu.known_block_size` and
`gpu.known_grid_size`; `export-dispatch` turns it back into a tensor function
of the same signature, and `xsplit simulate` runs it.

The reduction is cut into work items: an output element `e` and a chunk `c`
of the axis. The block-level loop over work items is an `scf.forall` on
`#gpu.block<x>` that `distribute` turns into SPMD code (exact, guarded or
cyclic, as it proves). Per stage (rocMLIR's RFC, seed 004):

- `atomic`: each thread owns a work item, reduces its chunk in a register and
  adds it to the output with `memref.atomic_rmw addf` (`maxnumf` for max).
  With one thread per block this is workgroup-level code, which llvm-cpu runs.
- `lds`: a block owns a work item; each thread reduces a strided part of the
  chunk, then a tree in workgroup memory, a `gpu.barrier` between levels,
  and thread 0 issues one atomic.
- `subgroup`: each subgroup reduces its lanes' values in registers
  (`gpu.subgroup_reduce` on gfx942, which becomes DPP; a `gpu.shuffle xor`
  butterfly on NVIDIA, where the former does not legalize), then, when the
  block holds more than one subgroup (RFC case 3.2), their partials meet in
  workgroup memory; one atomic per block.
- `deterministic=true`: the same, but no floating-point atomic: each work
  item's partial goes to `partials[c, e]`, and a second kernel combines them
  into the output in the fixed order c = 0, 1, ... The function becomes a host
  function that allocates the partials and calls both kernels.

With no `stage`, the target model picks one and says why in a remark. Block
size, subgroup width and the machine's processors come from the target table;
a `rock.reduce`'s `blockSize` and `gridSize`, or the `block`/`grid` options,
override them.

A reduction fused with its GEMM is written differently: a workgroup owns a
C tile (64x64 on the GPUs, 256 threads with a 4x4 register tile each), A
and B are staged through workgroup memory along K, and the stage decides
only the epilogue: how the threads sharing a row (or column) of the tile
combine their values before its atomic or partial. That is xsplit's staged
GEMM kernel (fused_gemm.py: `xsplit_gemm.gridwise_gemm_reduce` through the
GEMM kernel's passes; A, B and C read and written as they lie, any number
of batch loops, reduced along M, N or a batch loop); on llvm-cpu the same
ops with `workgroup_level`, one thread per workgroup looping over a 32x32
tile. The tile sizes are the kernels' own, not the options above.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

import xsplit.attr_names as attr_names
from xsplit.diagnostics import XsplitError, collect_diagnostics, remark, said_again
from xsplit.rewrites.dsl import Match, Option, Pass, Pattern, Remark, where
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.pass_pipeline import PassPipeline
from xsplit.rewrites.reduce import fused_gemm
from xsplit.rewrites.reduce.gemm_kernel import matmul_form
from xsplit.rewrites.reduce.gemm_stages import GEMM_STAGES, staged_kernel
from xsplit.rewrites.reduce.kernel_writer import kernels
from xsplit.rewrites.reduce.ordinary import (
    Subgraph,
    find_subgraph,
    kernel_function,
    unique_name,
    write_host,
)
from xsplit.rewrites.reduce.plan import STAGES, Plan, plan
from xsplit.rewrites.reduce.reduced import (
    FUSED,
    Product,
    ReductionToLower,
    analyze,
    generic_reduction,
    is_static_f32,
    loops_of,
)
from xsplit.targets.table import target as find_target

__all__ = ["FUSED", "LOWER_REDUCE", "REDUCTIONS", "STAGES", "lower_split"]


def _gemm_kernel(red: ReductionToLower, p: Plan) -> tuple[str | None, str | None]:
    """Which kernel writes a fused GEMM: `staged` (fused_gemm.py) or None
    (the per-element kernel), and why not the staged one."""
    if isinstance(loops_of(red), str):
        return None, None
    why = fused_gemm.applies(red, p)
    return ("staged", None) if why is None else (None, why)


def describe(p: Plan, red: ReductionToLower) -> str:
    kernel, why = _gemm_kernel(red, p)
    if kernel == "staged":
        return fused_gemm.describe(red, p)
    # Said so that a user knows why a fused GEMM is one dot product per element.
    refused = (
        f" (one dot product per element: xsplit's staged GEMM kernel does not take it: {why})"
        if why else ""
    )
    how = {
        "atomic": f"{p.items} blocks of {p.block} threads; each thread reduces {p.chunk} "
        "elements of the axis serially",
        "lds": f"{p.items} work items of {p.chunk} axis elements, a tree over {p.block} threads "
        "in workgroup memory",
        "subgroup": f"{p.items} work items of {p.chunk} axis elements, {p.subgroups} subgroups "
        f"of {p.subgroup} lanes per block",
    }[p.stage]
    tail = (
        f"partials to a {p.chunks}x{red.elements} buffer, then a fixed-order merge kernel"
        if p.deterministic
        else f"{'maxnumf' if red.method == 'max' else 'addf'} atomics into the output"
    )
    chosen = f" (chosen for {p.target.name}: {p.why})" if p.why else ""
    return f"lower-reduce: stage {p.stage}{chosen}: {how}; grid {p.grid}; {tail}{refused}"


def _as_written(op: Operation) -> tuple[ReductionToLower, Subgraph | None] | str:
    """The reduction as a kernel problem: the function itself when it is in
    destination-passing form, else the reduction's computation cut out of the
    program as users write it (ordinary.py), or why neither works."""
    red = analyze(op)
    if not isinstance(red, str):
        return red, None
    if op.name not in REDUCTIONS and generic_reduction(op) == "it is not a reduction":
        return red
    producer = op.operands[0].owner
    gemm = producer if FUSED in op.attributes and isinstance(producer, Operation) else None
    sub = find_subgraph(op, gemm)
    if isinstance(sub, str):
        return sub
    module = sub.fn.parent_op()
    assert module is not None
    base = f"{sub.fn.properties['sym_name'].data}_{'fused' if gemm else 'reduce'}"  # type: ignore[union-attr]
    kernel, reduce = kernel_function(sub, unique_name(module, base))
    found = analyze(reduce)
    if isinstance(found, str):
        return found
    return found, sub


def _lowerable(m: Match) -> bool | str:
    found = _as_written(m.root)
    if isinstance(found, str):
        return found
    m.captures["red"], m.captures["sub"] = found
    return True


def _not_lowerable(m: Match) -> bool | str:
    if m.root.name == "linalg.generic" and isinstance(generic_reduction(m.root), str):
        return "it is not a reduction"  # no remark on every generic of the program
    found = _as_written(m.root)
    if isinstance(found, str):
        m.captures["why"] = found
        return True
    return "it is lowerable"


def _lower(m: Match, ir: IRBuilder) -> Sequence[SSAValue] | None:
    red: ReductionToLower = m["red"]
    sub: Subgraph | None = m["sub"]
    assert m.ctx is not None, "lower-reduce runs in a context"
    p = plan(red, m)
    remark(m.root, describe(p, red))
    if sub is None:
        replace_function(red, p, m.ctx)
        return None
    kernels = lowered_kernels(red, p, m.root, m.ctx)
    name = red.fn.sym_name.data
    for op in kernels:
        if attr_names.HOST not in op.attributes:
            sub.fn.parent_block().insert_op_before(op, sub.fn)  # type: ignore[union-attr]
    write_host(sub, name, kernels)
    return None


def replace_function(red: ReductionToLower, p: Plan, ctx: Context) -> None:
    """Replaces the reduction's function with its kernels, distributed in `ctx`."""
    fn = red.fn
    for op in lowered_kernels(red, p, red.op, ctx):
        assert fn.parent is not None
        fn.parent.insert_op_before(op, fn)
    fn.detach()
    fn.erase()


def lowered_kernels(
    red: ReductionToLower, p: Plan, at: Operation, ctx: Context
) -> list[Operation]:
    """The kernels (and the deterministic stage's host) of the plan, written
    and distributed in `ctx`, detached; remarks are said at `at`."""
    from xsplit.rewrites.distribute.distribute import DISTRIBUTE

    kernel, _ = _gemm_kernel(red, p)
    if kernel == "staged":
        return fused_gemm.kernels(red, p, ctx)
    module = ModuleOp(kernels(red, p))
    try:
        module.verify()
    except VerifyException as e:  # a bug in the kernel builders, never the user's input
        raise XsplitError(f"lower-reduce: internal error: {e}", at) from None
    with collect_diagnostics() as said:
        PassPipeline([DISTRIBUTE.pass_class()]).apply(ctx, module)
    # distribute's choice, said at the reduction rather than in generated text
    said_again(at, said, "lower-reduce: ")
    new_ops = list(module.body.block.ops)
    for op in new_ops:
        op.detach()
    return new_ops


def lower_split(op: Operation, chunk: int, merge: str, target_name: str, ctx: Context) -> None:
    """`split-k{merge=...}`: the linalg reduction `op` (a matmul, say) cut into
    chunks of `chunk` along K, each chunk's partial merged inside the split
    kernel: with atomics, or (`deterministic`) into a partials buffer that a
    fixed-order kernel merges. A matmul that xsplit's staged GEMM kernel
    takes is that kernel (`gemm-kernel` and its stages), whose merge is the
    one split-K merge; what it does not take (another op, the CPU) is
    lower-reduce's per-element kernel, the reduction along K of a plain
    reduction. The remark says which ran, and why."""
    tgt = find_target(target_name)
    refused = staged_refusal(op, tgt.is_gpu, tgt.name)
    if refused is None:
        _split_in_staged_kernel(op, chunk, merge, tgt.name, ctx)
        return
    _split_per_element(op, chunk, merge, tgt.name, ctx, refused)


def staged_refusal(op: Operation, gpu: bool, target_name: str) -> str | None:
    """None when `gemm-kernel` takes `op` (a static matmul into f32 in
    destination-passing form, on a GPU), else why not."""
    if op.name != "linalg.matmul":
        return f"it is a {op.name}, not a linalg.matmul"
    if not gpu:
        return f"{target_name} is not a GPU"
    failure = matmul_form.check(Match(op))
    return None if failure is None else failure.reason


def _split_in_staged_kernel(
    op: Operation, chunk: int, merge: str, target_name: str, ctx: Context
) -> None:
    """The matmul's function replaced by gemm-kernel's kernels (and host),
    lowered through the GEMM stages: the passes held as objects and run on
    a module that holds the function alone, in `ctx`; what they say is said
    again at `op`."""
    fn = op.parent_op()
    assert isinstance(fn, func.FuncOp)
    k = op.operands[0].type.get_shape()[1]  # type: ignore[attr-defined]
    chunks = -(-k // chunk)
    staged = staged_kernel(target_name, chunks, merge)
    block, after = fn.parent_block(), fn.next_op
    assert block is not None
    fn.detach()
    holder = ModuleOp([fn])
    with collect_diagnostics() as said:
        try:
            staged.apply(ctx, holder)
        except XsplitError as e:  # an option the kernel refused: said at the user's op
            raise XsplitError(f"split-k: {e.message}", op) from None
    if any(o.name == "linalg.matmul" for o in holder.walk()):
        # gemm-kernel left it and said why: a form staged_refusal let through.
        why = next((d.message for d in said if "left as it is" in d.message), "")
        raise XsplitError(f"split-k: merge={merge}: {why}", op)
    kernels = list(holder.body.block.ops)
    saved = _partial_bytes(op, chunks)
    remark(
        op,
        f"split-k: merge={merge} on {target_name}: xsplit's staged GEMM kernel (gemm-kernel, "
        f"then {', '.join(p.name for p in GEMM_STAGES.passes)}) merges the chunks inside the split kernel"
        + (
            f", then a fixed-order merge kernel (partials {saved} bytes)"
            if merge == "deterministic"
            else f"; no partial buffer ({saved} bytes saved) and no merge dispatch"
        ),
    )
    said_again(op, said, "split-k: ")
    for new in kernels:
        new.detach()
        if after is None:
            block.add_op(new)
        else:
            block.insert_op_before(new, after)


def _partial_bytes(op: Operation, chunks: int) -> int:
    """The f32 partials buffer the unmerged split writes and reads back."""
    elements = 1
    for s in op.results[0].type.get_shape():  # type: ignore[attr-defined]
        elements *= s
    return elements * chunks * 4


def _split_per_element(
    op: Operation, chunk: int, merge: str, target_name: str, ctx: Context, refused: str
) -> None:
    """lower-reduce's per-element kernel: each thread one output over one
    chunk, its partial merged by an atomic or a fixed-order kernel."""
    from xsplit.analysis.reduction import match_reduction

    fn = op.parent_op()
    r = match_reduction(op)
    if isinstance(r, str) or not isinstance(fn, func.FuncOp):
        raise XsplitError(f"split-k: merge={merge} cannot lower this op", op)
    why = _split_lowerable(op, fn, r)
    if why is not None:
        raise XsplitError(f"split-k: merge={merge} needs {why}", op)
    args = list(fn.args)
    loops = [0] * r.num_loops
    for v, m in [*zip(r.inputs, r.input_maps), (r.init, r.output_map)]:
        for p, e in enumerate(m.results):
            loops[e.position] = v.type.get_shape()[p]  # type: ignore[attr-defined,union-attr]
    method = "sum" if r.kind == "add" else "max"
    source = Product([args.index(v) for v in r.inputs], [[e.position for e in m.results] for m in r.input_maps])  # type: ignore[attr-defined]
    red = ReductionToLower(
        fn, op, method, loops, r.reduction_dim, source, args.index(r.init), False,
        [list(a.type.get_shape()) for a in args],  # type: ignore[union-attr]
    )  # fmt: skip
    tgt = find_target(target_name)
    p = plan(red, None, {"target": tgt.name, "stage": "atomic", "chunk": chunk,
                         "deterministic": merge == "deterministic"})  # fmt: skip
    saved = red.elements * p.chunks * 4
    remark(
        op,
        f"split-k: merge={merge} on {tgt.name}: lower-reduce's per-element kernel (the staged "
        f"GEMM kernel does not take it: {refused}): {p.chunks} chunks of {p.chunk} merged inside "
        f"the split kernel ({p.grid} workgroups of {p.block} threads"
        + (
            f", then a fixed-order merge kernel; partials {saved} bytes)"
            if p.deterministic
            else f"); no partial buffer ({saved} bytes saved) and no merge dispatch)"
        ),
    )
    replace_function(red, p, ctx)


def _split_lowerable(op: Operation, fn: func.FuncOp, r) -> str | None:
    from xdsl.ir.affine import AffineDimExpr

    args = list(fn.args)
    if op.parent_block() is not fn.body.block:
        return "the op at the top level of its function"
    if not all(is_static_f32(a.type) for a in args):
        return "a function on static f32 tensors"
    if r.init not in args or any(v not in args for v in r.inputs):
        return "its operands and init to be function arguments (destination-passing form)"
    ret = fn.body.block.last_op
    if ret is None or list(ret.operands) != [op.results[0]]:
        return "the function to return only the op's result"
    if any(o not in (op, ret) for o in fn.body.block.ops):
        return "the function to hold only the op"
    if r.kind not in ("add", "max") or len(r.inputs) > 2:
        return "a sum or max of one input or of a product of two"
    maps = [*r.input_maps, r.output_map]
    if not all(isinstance(e, AffineDimExpr) for m in maps for e in m.results):
        return "projected-permutation indexing maps"
    parallel = [d for d in range(r.num_loops) if d != r.reduction_dim]
    if [e.position for e in r.output_map.results] != parallel:  # type: ignore[attr-defined]
        return "an output indexed by its parallel loops in order"
    body = list(op.regions[0].block.ops) if op.regions and op.regions[0].blocks else []
    names = [o.name for o in body]
    expected = (["arith.mulf"] if len(r.inputs) == 2 else []) + [r.combiner.name, "linalg.yield"]
    if body and names != expected:
        return "a body that is the combiner of the accumulator and the product of the inputs"
    return None


def _check_target(name: str) -> str | None:
    if not name:
        return "is required (cpu, sm_80, gfx942, ...)"
    try:
        find_target(name)
    except XsplitError as e:
        return e.message.removeprefix("unknown target ").join(("is unknown: ", ""))
    return None


REDUCTIONS = ("rock.reduce", "linalg.reduce", "linalg.generic")

LOWER_REDUCE_PATTERN = Pattern(
    name="lower-reduce",
    doc="a reduction along one axis in destination-passing form becomes a distributed kernel",
    root=REDUCTIONS,
    where=where("a standalone or fused reduction in destination-passing form", _lowerable),
    rewrite=_lower,
    options=("stage", "deterministic", "target", "block", "grid", "chunk"),
)

NOT_LOWERED = Remark(
    name="lower-reduce-not-applicable",
    doc="says why a reduction is left as it is",
    root=REDUCTIONS,
    where=where("the reduction cannot be lowered", _not_lowerable),
    message=lambda m: f"lower-reduce: left as it is: {m['why']}",
)

LOWER_REDUCE = Pass(
    "lower-reduce",
    "Lowers reductions along an axis to distributed kernels: atomics, LDS trees or subgroup reductions.",
    [LOWER_REDUCE_PATTERN, NOT_LOWERED],
    (
        Option("stage", str, "auto", "atomic, lds or subgroup; auto: the target's choice", STAGES),
        Option("deterministic", bool, False, "no float atomics: partials, then a fixed-order pass"),
        Option("target", str, "", "cpu, sm_80, sm_90, gfx942 (or cuda, rocm)", check=_check_target),
        Option("block", int, 0, "threads per block (default: the target's)"),
        Option("grid", int, 0, "at most this many blocks (default: 8 per processor)"),
        Option("chunk", int, 0, "axis elements per thread and work item (default: 16, or 4 per thread)"),
        Option(
            "mma", str, "auto",
            "the fused GEMM's tensor cores: auto (where the target has an intrinsic for A and B) "
            "or none (FMA register tiles)", ("auto", "none"),
        ),  # fmt: skip
    ),
)

__all__ = ["LOWER_REDUCE", "analyze", "lower_split"]
