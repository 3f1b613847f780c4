"""`split-k{target=GPU kernel=auto|own}`: a static matmul lowered to xsplit's
own split-K GEMM kernel (`gemm-kernel` and its three stages) instead of
static chunks for IREE's code, where the cost model chooses it
(`cost_model.choose_kernel`) or `kernel=own` asks for it.

The matmul may sit in a program as users write it, as `lower-reduce` takes
a fused GEMM (`reduce/ordinary.py`): its init a `linalg.fill` of a
`tensor.empty` or any tensor, its operands any tensors, its result flowing
on, in a `func.func` or an imported `util.func`. The matmul (and the fill
only it uses) is outlined into a kernel function `@NAME_gemm` in
destination-passing form, which `gemm-kernel` turns into the gridwise
kernel, lowered through `lower-gridwise-gemm`, `lower-blockwise-gemm` and
`lower-threadwise-gemm` (`gemm_stages.staged_kernel`, the passes as
objects); the function becomes a
host (`xsplit.host`, signature kept): buffers of the operands, C allocated
and filled (or copied from the init), the kernel called, a tensor of C.
`materialize-late` (or `export-dispatch{target=...}`) turns the host back
into tensors around the kernel's dispatch, for the target each kernel
records (`xsplit.kernel_target`), and `xsplit simulate` runs the host.

What the kernel cannot take stays on split-k's other patterns, with a
remark saying why: a matmul with indexing maps (transposed, broadcast), a
batch, dynamic shapes, an accumulator other than f32, operands other than
f16 or f32, a target that is no GPU.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f16, f32
from xdsl.ir import Operation

import xsplit.attr_names as attr_names
from xsplit.analysis.cost_model import choose_kernel, choose_split, problem_of
from xsplit.analysis.devices import DEVICE, modeled
from xsplit.diagnostics import XsplitError, collect_diagnostics, remark, said_again
from xsplit.rewrites.dsl import Match, where
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.reduce.ordinary import (
    Subgraph,
    find_subgraph,
    kernel_function,
    unique_name,
    write_host,
)

KERNEL_CHOICES = ("auto", "iree", "own")

_PLAIN_MAPS = (
    "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>]"
)


def own_kernel_form(op: Operation) -> Subgraph | str:
    """The matmul as the unit the own kernel replaces, or why it cannot."""
    if op.name != "linalg.matmul":
        return f"it is a {op.name}, not a linalg.matmul"
    maps = op.properties.get("indexing_maps") or op.attributes.get("indexing_maps")
    if maps is not None and str(maps) != _PLAIN_MAPS:
        return "its operands are transposed or broadcast (indexing_maps)"
    if len(op.operands) != 3:
        return "it is not a matmul of two inputs into an init"
    a, b, c = op.operands
    for v in (a, b, c):
        if not (isinstance(v.type, TensorType) and v.type.has_static_shape()):
            return "its shapes are dynamic"
    accumulator = c.type.element_type  # type: ignore[attr-defined]
    if accumulator != f32:
        return f"its accumulator is {accumulator}; the kernel accumulates into f32 only"
    if any(v.type.element_type not in (f16, f32) for v in (a, b)):  # type: ignore[attr-defined]
        return "its operands are not f16 or f32"
    if a is b:
        return "A and B are one tensor (the kernel takes them as two arguments)"
    sub = find_subgraph(op, None)
    if isinstance(sub, str):
        return sub
    if any(o.value.owner is not op for o in sub.outputs) or len(sub.outputs) != 1:
        return "its init is used elsewhere"
    return sub


def _capture_own_kernel(m: Match) -> bool | str:
    """Whether this matmul goes to the own kernel: `kernel=own`, or
    `kernel=auto` where the model chooses it; remarks why not where the
    choice was the model's to make, or the user's."""
    o = m.options
    kernel = o["kernel"]
    if kernel == "iree":
        return "kernel=iree"
    if o["merge"] and kernel != "own":
        return "merge= without kernel=own is split-k-merged's (the staged kernel without the model)"
    name = o["target"]
    if name is None or name == DEVICE:
        if kernel == "own":
            remark(
                m.root, "split-k: kernel=own needs target= (a GPU); the op takes the usual split"
            )
        return "the own kernel needs a named GPU target"
    placed = modeled(m.root, name)
    assert placed is not None
    tgt = placed.target
    problem = problem_of(m["red"])
    if not tgt.is_gpu:
        if kernel == "own":
            remark(
                m.root,
                f"split-k: kernel=own: {tgt.name} is not a GPU (the kernel needs threads and "
                "workgroup memory); the op takes the usual split",
            )
        return "the target is no GPU"
    if kernel == "auto" and (tgt.own_kernel is None or isinstance(problem, str)):
        return "the target has no terms for the own kernel"
    form = own_kernel_form(m.root)
    if isinstance(form, str):
        # Under kernel=auto only contractions the model would weigh are worth a word.
        contraction = not isinstance(problem, str) and (
            problem.operations_per_point == 2 and len(problem.spans) == 2
        )
        if kernel == "own" or contraction:
            remark(m.root, f"split-k: not xsplit's own kernel: {form}; left to IREE's code")
        return form
    if isinstance(problem, str):
        return problem
    factor = o["factor"]
    if o["tile"] is not None:
        factor = -(-problem.k // o["tile"])
    iree = choose_split(problem, tgt)
    merge = o["merge"] or "atomic"
    choice = choose_kernel(problem, tgt, iree, kernel, merge, factor)
    if choice.kernel != "own":
        remark(m.root, f"{placed.prefix()}split-k: {choice.reason}")
        return "the model keeps IREE's code"
    assert choice.own is not None
    m.captures["own"] = (form, tgt.name, choice.own.factor, choice.merge)
    m.captures["own_reason"] = f"{placed.prefix()}split-k: {choice.reason}"
    return True


own_kernel_chosen = where("xsplit's own kernel is chosen for it", _capture_own_kernel)


def _free_name(module: Operation, base: str) -> str:
    """`base` or `base_N` such that it and the kernels named after it (the
    deterministic merge's `_partials` and `_merge`, the padded operands'
    `_pad_a`, `_pad_b` and `_gemm`) are all new symbols (a host is inlined,
    so its own name is never taken)."""
    n = 0
    suffixes = ("", "_partials", "_merge", "_pad_a", "_pad_b", "_gemm")
    while True:
        name = base if n == 0 else f"{base}_{n}"
        if all(unique_name(module, f"{name}{s}") == f"{name}{s}" for s in suffixes):
            return name
        n += 1


def lower_to_own_kernel(m: Match, ir: IRBuilder) -> None:
    """Outlines the matmul, lowers the kernel through the gemm stages and
    writes the host in its place."""
    from xsplit.rewrites.reduce.gemm_stages import staged_kernel

    assert m.ctx is not None, "split-k runs in a context"
    sub, target_name, chunks, merge = m["own"]
    remark(m.root, m["own_reason"])
    module = sub.fn.parent_op()
    assert module is not None
    name = _free_name(module, f"{sub.fn.properties['sym_name'].data}_gemm")  # type: ignore[union-attr]
    kernel, _ = kernel_function(sub, name)
    holder = ModuleOp([kernel])
    with collect_diagnostics() as said:
        try:
            staged_kernel(target_name, chunks, merge).apply(m.ctx, holder)
        except XsplitError as e:  # an option the kernel refused: said at the user's op
            raise XsplitError(f"split-k: {e.message}", m.root) from None
    if any(op.name == "linalg.matmul" for op in holder.walk()):
        # gemm-kernel left it, and said why: a form own_kernel_form let through.
        why = next((d.message for d in said if "left as it is" in d.message), "")
        raise XsplitError(f"split-k: kernel=own: {why}", m.root)
    # What the kernel's lowering said is about the user's matmul.
    said_again(m.root, said, "split-k: ")
    kernels = list(holder.body.block.ops)
    for op in kernels:
        op.detach()
    for op in kernels:
        if attr_names.HOST not in op.attributes:
            # materialize-late exports it for the target it was lowered for.
            op.attributes[attr_names.KERNEL_TARGET] = StringAttr(target_name)
            sub.fn.parent_block().insert_op_before(op, sub.fn)  # type: ignore[union-attr]
    write_host(sub, name, kernels)


__all__ = ["KERNEL_CHOICES", "lower_to_own_kernel", "own_kernel_chosen", "own_kernel_form"]
