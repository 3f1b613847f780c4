"""Reductions as users write them, for `lower-reduce`: a tensor program whose
reduction (and the GEMM `fuse-reduction` fused into it) takes its init from
`linalg.fill` of a `tensor.empty`, or from any other tensor, reads operands
that are not function arguments (an imported model's `hal.tensor.import`, a
constant weight), and whose result flows on to other ops.

The kernel writer wants destination-passing form: a function whose arguments
are the operands and the outputs to update. This module cuts the reduction's
computation (the reduction, its GEMM, and the fills and empties only they use)
out of the function into such a function, and writes the host side that
replaces it in place:

    %a_buf = bufferization.to_buffer %a : tensor<MxKxf32> to memref<MxKxf32>
    %out = memref.alloc() : memref<Mxf32>
    linalg.fill ins(%init : f32) outs(%out : memref<Mxf32>)
    func.call @f_fused(%a_buf, %b_buf, %out) : (...) -> ()
    %r = bufferization.to_tensor %out restrict : memref<Mxf32> to tensor<Mxf32>

The function keeps its name, signature and every other op, and is marked
`xsplit.host`: the simulator runs it as the host would, and `export-dispatch`
turns the buffers back into tensors around the kernel's dispatch. With
atomics the fill runs before the kernel adds into the output; the
deterministic stage's partials buffer and merge kernel are inlined here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import bufferization, func, memref
from xdsl.dialects.builtin import FunctionType, MemRefType, TensorType, UnitAttr
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

import xsplit.attr_names as attr_names
from xsplit.dialects.memref import CopyOp

HOSTS = ("func.func", "util.func")


@dataclass
class Output:
    """A buffer the kernel writes: the tensor value it stands for in the
    program, and how the host initialises it before the kernel runs."""

    value: SSAValue
    fill: Operation | None
    """The `linalg.fill` whose constant initialises it, or None to copy `init`."""
    init: SSAValue
    """The init tensor in the program (the fill's result, or another tensor)."""


@dataclass
class Subgraph:
    fn: Operation
    reduce: Operation
    gemm: Operation | None
    ops: list[Operation]
    """What moves into the kernel, in program order."""
    inputs: list[SSAValue]
    """The tensors it reads from outside, in order of first use."""
    outputs: list[Output]

    @property
    def read(self) -> list[SSAValue]:
        """The inputs the kernel reads: an output's init is the host's to copy."""
        inits = {(o.value.owner, o.init) for o in self.outputs}
        return [
            v
            for v in self.inputs
            if any(u.operation in self.ops and (u.operation, v) not in inits for u in v.uses)
        ]


def _fill_of(value: SSAValue) -> Operation | None:
    """The `linalg.fill` of a `tensor.empty` that defines `value`, if that is
    what defines it."""
    fill = value.owner
    if not (isinstance(fill, Operation) and fill.name == "linalg.fill"):
        return None
    if not isinstance(fill.operands[1].owner, Operation) or fill.operands[1].owner.name != "tensor.empty":
        return None
    if not isinstance(value.type, TensorType):
        return None
    return fill


def _only_used_by(value: SSAValue, users: set[Operation]) -> bool:
    return all(u.operation in users for u in value.uses)


def find_subgraph(reduce: Operation, gemm: Operation | None) -> Subgraph | str:
    """The reduction's computation as a unit to cut out, or why it is not one."""
    fn = reduce.parent_op()
    if fn is None or fn.name not in HOSTS or reduce.parent_block() is not fn.regions[0].blocks[0]:
        return "it is not at the top level of a function"
    if gemm is not None and gemm.parent_block() is not reduce.parent_block():
        return "the GEMM is in another block"
    for op in (reduce,) if gemm is None else (gemm, reduce):
        for v in (*op.operands, *op.results):
            if not (isinstance(v.type, TensorType) and v.type.has_static_shape()):
                return "it is not on static f32 tensors"
    block = reduce.parent_block()
    assert block is not None
    moved: list[Operation] = [reduce] if gemm is None else [gemm, reduce]
    outputs: list[Output] = []
    for op in moved:
        init = op.operands[-1]
        fill = _fill_of(init)
        # A fill (and its empty) moves only where nothing else needs its value.
        if fill is not None and not _only_used_by(fill.results[0], {op}):
            fill = None
        outputs.append(Output(op.results[0], fill, init))
    for out in outputs:
        if out.fill is not None:
            empty = out.fill.operands[1].owner
            assert isinstance(empty, Operation)
            if _only_used_by(empty.results[0], {out.fill}):
                moved.append(empty)
            moved.append(out.fill)
    if gemm is not None and _only_used_by(gemm.results[0], {reduce}):
        # The GEMM's result stays in memory only where the program reads it
        # after the reduction (the fused kernel then writes it too); else it
        # is no output, and its init (its fill, moved above) goes into the
        # kernel, which starts each dot product there.
        outputs.pop(0)
    if gemm is not None and not _only_used_by(gemm.operands[2], {gemm}):
        return "the GEMM's init is also used elsewhere"
    if gemm is not None and any(
        u.operation is not reduce and u.operation.is_before_in_block(reduce) for u in gemm.results[0].uses
    ):
        return "the GEMM's result is read before the reduction"
    inside = set(moved)
    ordered = [op for op in block.ops if op in inside]
    # A kept output's fill becomes the host's fill of its buffer: its
    # destination (an empty other ops share) is no input of the kernel.
    kept_fills = {out.fill for out in outputs if out.fill is not None}
    inputs: list[SSAValue] = []
    for op in ordered:
        for v in op.operands:
            owner = v.owner
            if owner in inside or v in inputs:
                continue
            if op in kept_fills and v is op.operands[1]:
                continue
            if isinstance(owner, Operation) and owner.name == "arith.constant" and not isinstance(
                v.type, TensorType
            ):
                continue  # a scalar constant is cloned into the kernel function
            if not isinstance(v.type, TensorType):
                return f"it reads a value of type {v.type} from outside"
            inputs.append(v)
    # The kept outputs' inits are read by the host, not by the kernel.
    for out in outputs:
        if out.fill is None and out.init not in inputs:
            inputs.append(out.init)
    return Subgraph(fn, reduce, gemm, ordered, inputs, outputs)


def unique_name(module: Operation, base: str) -> str:
    """`base`, or `base_N`: a symbol the module does not define yet."""
    taken = {
        op.properties["sym_name"].data  # type: ignore[union-attr]
        for op in module.walk()
        if "sym_name" in op.properties
    }
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def kernel_function(sub: Subgraph, name: str) -> tuple[func.FuncOp, Operation]:
    """A detached function in destination-passing form computing the
    subgraph: its arguments are the inputs the kernel reads, then one per
    output; it returns the outputs in argument order. Also returns the clone
    of the reduction in it."""
    read = sub.read
    types = [v.type for v in read] + [o.value.type for o in sub.outputs]
    block = Block(arg_types=types)
    mapping: dict[SSAValue, SSAValue] = dict(zip(read, block.args))
    for arg, v in zip(block.args, read):
        arg.name_hint = v.name_hint
    out_args = block.args[len(read) :]
    for arg in out_args:
        arg.name_hint = "out"
    # An output's init is the destination argument itself.
    out_of = {o.value.owner: arg for o, arg in zip(sub.outputs, out_args)}
    reduce_clone: Operation | None = None
    constants: dict[SSAValue, SSAValue] = {}
    kept_fills = {o.fill for o in sub.outputs if o.fill is not None}
    for op in sub.ops:
        if op in kept_fills:
            continue  # the destination argument replaces it (write_host fills the buffer)
        for v in op.operands:
            owner = v.owner
            if v not in mapping and isinstance(owner, Operation) and owner.name == "arith.constant":
                if v not in constants:
                    c = owner.clone()
                    block.add_op(c)
                    constants[v] = c.results[0]
                mapping[v] = constants[v]
        local = dict(mapping)
        if op in out_of:
            local[op.operands[-1]] = out_of[op]
        clone = op.clone(value_mapper=local)
        block.add_op(clone)
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
        if op is sub.reduce:
            reduce_clone = clone
    block.add_op(func.ReturnOp(*(mapping[o.value] for o in sub.outputs)))
    assert reduce_clone is not None
    kernel = func.FuncOp(name, FunctionType.from_lists(types, [o.value.type for o in sub.outputs]), Region(block))
    # The fills the destinations replaced are dead in the kernel, and so
    # are their empties and constants; users come after producers.
    for op in reversed(list(block.ops)):
        if op.name in ("linalg.fill", "tensor.empty", "arith.constant") and all(
            not r.uses for r in op.results
        ):
            op.detach()
            op.erase()
    return kernel, reduce_clone


def _as_memref(t) -> MemRefType:
    assert isinstance(t, TensorType)
    return MemRefType(t.element_type, t.get_shape())


def write_host(sub: Subgraph, kernel_name: str, kernels: list[Operation]) -> None:
    """Replaces the subgraph in its function with the host side: buffers for
    the inputs, the outputs allocated and initialised, the kernel launched
    (or, for the deterministic stage, the lowered host's body inlined), and
    tensors of the outputs where the program used the results."""
    fn, rewriter = sub.fn, Rewriter()
    at = InsertPoint.before(sub.reduce)
    buffers: dict[SSAValue, SSAValue] = {}

    def insert(op: Operation) -> Operation:
        rewriter.insert_op(op, at)
        return op

    for v in sub.inputs:
        t = _as_memref(v.type)
        buffers[v] = insert(bufferization.ToBufferOp(operands=[v], result_types=[t])).results[0]
        if v.name_hint:
            buffers[v].name_hint = f"{v.name_hint}_buf"
    outs: list[SSAValue] = []
    for out in sub.outputs:
        t = _as_memref(out.value.type)
        buf = insert(memref.AllocOp([], [], t)).results[0]
        buf.name_hint = "out"
        if out.fill is not None:
            scalar = out.fill.operands[0]
            owner = scalar.owner
            if isinstance(owner, Operation) and owner.name == "arith.constant" and owner in sub.ops:
                scalar = insert(owner.clone()).results[0]
            insert(FillOp([scalar], [buf], []))
        else:
            insert(CopyOp(buffers[out.init], buf))
        outs.append(buf)
    args = [buffers[v] for v in sub.read] + outs
    host = next((k for k in kernels if attr_names.HOST in k.attributes), None)
    if host is None:
        insert(func.CallOp(kernel_name, args, []))
    else:
        # The deterministic stage's own host (partials buffer, two kernels)
        # runs here, where the buffers are.
        inner = dict(zip(host.regions[0].blocks[0].args, args))
        for op in host.regions[0].blocks[0].ops:
            if op.name == "func.return":
                continue
            insert(op.clone(value_mapper=inner))
    for out, buf in zip(sub.outputs, outs):
        tensor = insert(bufferization.ToTensorOp(buf, restrict=True)).results[0]
        out.value.replace_all_uses_with(tensor)
    for op in reversed(sub.ops):
        if all(not r.uses for r in op.results):
            rewriter.erase_op(op)
    fn.attributes[attr_names.HOST] = UnitAttr()


__all__ = ["Subgraph", "find_subgraph", "kernel_function", "unique_name", "write_host"]
