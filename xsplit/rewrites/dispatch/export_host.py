"""The host side of a program of several kernels, for `export-dispatch`.

`lower-reduce{deterministic=true}` writes a host function (`xsplit.host`)
that allocates a buffer and calls kernels on memrefs. `export-dispatch`
replaces each kernel with a tensor function of its name that returns the
arguments it writes; this pattern turns the host into the matching tensor
program: an allocation becomes `tensor.empty`, a call passes tensors and
takes back the written ones, and the host returns its written arguments in
argument order, the signature the function had before lowering.

A host on tensors (a program as users write it, where `lower-reduce` put
the kernel's host side in place: `bufferization.to_buffer` of its inputs,
outputs allocated and filled, the call, `bufferization.to_tensor` of the
outputs) is converted where it stands: each buffer becomes the tensor it
holds at that point, so the program's other ops and its signature stay.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import bufferization, func, tensor
from xdsl.dialects.builtin import FunctionType, MemRefType, TensorType
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

import xsplit.attr_names as attr_names
from xsplit.analysis.writes import may_write
from xsplit.diagnostics import XsplitError
from xsplit.dialects.flow import DispatchOp
from xsplit.rewrites.dsl import Match, Pattern, attr, root_is
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.structure import because

HOST = attr_names.HOST


def _as_tensor(t) -> TensorType:
    assert isinstance(t, MemRefType)
    return TensorType(t.element_type, t.get_shape())


def _signature(fn: Operation) -> list:
    t = fn.properties["function_type"]
    return [*t.inputs.data, *t.outputs.data]  # type: ignore[union-attr]


is_host = because(
    root_is("func.func", "util.func") & attr(HOST).is_present(), "it is not a host function"
)
"""A function marked `xsplit.host`: what split-k's own kernel and lower-reduce
write around the kernels they call."""


def _kernels(fn: Operation) -> dict[str, func.FuncOp]:
    module = fn.parent_op()
    return {
        op.sym_name.data: op
        for op in module.walk()  # type: ignore[union-attr]
        if isinstance(op, func.FuncOp) and op is not fn and op.body.blocks
    }


def _written_arguments(callee: func.FuncOp) -> list[int]:
    """The arguments the kernel writes: read off its memrefs, or, once the
    kernel has been exported (the patterns run in no fixed order), off the
    arguments its dispatch's results are tied to."""
    if any(isinstance(t, MemRefType) for t in callee.function_type.inputs.data):
        return [i for i, a in enumerate(callee.args) if may_write(a)]
    for op in callee.walk():
        if isinstance(op, DispatchOp) and op.tied_operands is not None:
            args = list(callee.args)
            tied = [op.operands[int(t.value.data)] for t in op.tied_operands.data]
            return [args.index(v) for v in tied if v in args]
    return []


def _call_on_tensors(
    op: func.CallOp, kernels: dict[str, func.FuncOp], current: dict[SSAValue, SSAValue]
) -> func.CallOp:
    """The kernel call on the tensors its buffers hold; `current` then maps
    each buffer the kernel writes to the call's result for it."""
    callee = kernels.get(op.callee.string_value())
    if callee is None:
        raise XsplitError(f"export-dispatch: no kernel '{op.callee.string_value()}'", op)
    written = _written_arguments(callee)
    call = func.CallOp(
        op.callee,
        [current[v] for v in op.operands],
        [_as_tensor(op.operands[i].type) for i in written],
    )
    for i, r in zip(written, call.results):
        current[op.operands[i]] = r
    return call


def _export_tensor_host(fn: Operation) -> None:
    kernels = _kernels(fn)
    rewriter = Rewriter()
    current: dict[SSAValue, SSAValue] = {}
    done: list[Operation] = []
    for op in list(fn.regions[0].blocks[0].ops):
        at = InsertPoint.before(op)
        if isinstance(op, bufferization.ToBufferOp):
            current[op.results[0]] = op.operands[0]
        elif op.name == "memref.alloc":
            empty = tensor.EmptyOp([], _as_tensor(op.results[0].type))
            rewriter.insert_op(empty, at)
            current[op.results[0]] = empty.tensor
        elif isinstance(op, FillOp) and isinstance(op.outputs[0].type, MemRefType):
            buf = op.outputs[0]
            fill = FillOp([op.inputs[0]], [current[buf]], [current[buf].type])
            rewriter.insert_op(fill, at)
            current[buf] = fill.results[0]
        elif op.name == "memref.copy":
            current[op.operands[1]] = current[op.operands[0]]
        elif isinstance(op, func.CallOp) and any(isinstance(v.type, MemRefType) for v in op.operands):
            rewriter.insert_op(_call_on_tensors(op, kernels, current), at)
        elif isinstance(op, bufferization.ToTensorOp):
            op.results[0].replace_all_uses_with(current[op.operands[0]])
        elif op.name == "memref.dealloc":
            pass
        else:
            continue  # the program's own ops stay as they are
        done.append(op)
    for op in reversed(done):
        rewriter.erase_op(op)
    del fn.attributes[HOST]


def _export_host(m: Match, ir: IRBuilder) -> Sequence[SSAValue] | None:
    fn = m.root
    if not any(isinstance(t, MemRefType) for t in _signature(fn)):
        _export_tensor_host(fn)
        return None
    assert isinstance(fn, func.FuncOp)
    kernels = _kernels(fn)
    old_args = list(fn.args)
    block = Block(arg_types=[_as_tensor(a.type) for a in old_args])
    for new, old in zip(block.args, old_args):
        new.name_hint = old.name_hint
    current: dict[SSAValue, SSAValue] = dict(zip(old_args, block.args))
    for op in fn.body.block.ops:
        if op.name == "memref.alloc":
            empty = tensor.EmptyOp([], _as_tensor(op.results[0].type))
            block.add_op(empty)
            current[op.results[0]] = empty.tensor
        elif isinstance(op, func.CallOp):
            block.add_op(_call_on_tensors(op, kernels, current))
        elif op.name in ("memref.dealloc", "func.return"):
            continue
        else:
            raise XsplitError(f"export-dispatch: a host function may not hold '{op.name}'", op)
    results = [current[a] for a, b in zip(old_args, block.args) if current[a] is not b]
    block.add_op(func.ReturnOp(*results))
    new_fn = func.FuncOp(
        fn.sym_name.data,
        FunctionType.from_lists(list(block.arg_types), [r.type for r in results]),
        Region(block),
    )
    ir.b.insert(new_fn)
    return []


EXPORT_HOST = Pattern(
    name="export-host",
    doc="a host function calling kernels becomes the tensor program calling their dispatches",
    root=("func.func", "util.func"),
    where=is_host,
    rewrite=_export_host,
)
