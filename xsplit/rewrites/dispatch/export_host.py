"""The host side of a program of several kernels, for `export-dispatch`.

`lower-reduce{deterministic=true}` writes a host function (`xsplit.host`)
that allocates a buffer and calls kernels on memrefs. `export-dispatch`
replaces each kernel with a tensor function of its name that returns the
arguments it writes; this pattern turns the host into the matching tensor
program: an allocation becomes `tensor.empty`, a call passes tensors and
takes back the written ones, and the host returns its written arguments in
argument order, the signature the function had before lowering.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func, tensor
from xdsl.dialects.builtin import FunctionType, MemRefType, TensorType
from xdsl.ir import Block, Region, SSAValue

from xsplit import attr_names
from xsplit.analysis.writes import may_write
from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dsl import Match, Pattern, where
from xsplit.rewrites.dsl.builders import IRBuilder

HOST = attr_names.HOST


def _as_tensor(t) -> TensorType:
    assert isinstance(t, MemRefType)
    return TensorType(t.element_type, t.get_shape())


def _is_host(m: Match) -> bool | str:
    fn = m.root
    if not isinstance(fn, func.FuncOp) or HOST not in fn.attributes:
        return "it is not a host function"
    return True


def _export_host(m: Match, ir: IRBuilder) -> Sequence[SSAValue] | None:
    fn = m.root
    assert isinstance(fn, func.FuncOp)
    module = fn.parent_op()
    kernels = {
        op.sym_name.data: op
        for op in module.walk()  # type: ignore[union-attr]
        if isinstance(op, func.FuncOp) and op is not fn and op.body.blocks
    }
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
            callee = kernels.get(op.callee.string_value())
            if callee is None:
                raise XsplitError(f"export-dispatch: no kernel '{op.callee.string_value()}'", op)
            written = [i for i, a in enumerate(callee.args) if may_write(a)]
            call = func.CallOp(
                op.callee,
                [current[v] for v in op.operands],
                [_as_tensor(op.operands[i].type) for i in written],
            )
            block.add_op(call)
            for i, r in zip(written, call.results):
                current[op.operands[i]] = r
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
    root=func.FuncOp,
    where=where("is a host function", _is_host),
    rewrite=_export_host,
)
