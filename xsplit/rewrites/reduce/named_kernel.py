"""The kernel builder (kernel_ir.py) for kernels whose loops open and close
in the order they are read: `lower-reduce`'s per-element kernels,
whose structure varies with the plan's numbers (stage, registers, subgroup
width), so no template fits them.

Over `KernelBuilder` it adds what those kernels print as: constants hoisted
to the top of the function, each made once (`%c16`, `%i32`, `%cst3`), every
value named by a hint and a counter (`%lo9`, `%part14`), regions opened and
closed like the IR's braces, and the function assembled around it all:
constants, workgroup allocations, body, `func.return`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    f16,
    f32,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

import xsplit.attr_names as attr_names
from xsplit.dialects import gpu
from xsplit.dialects.memref import AtomicRMWOp
from xsplit.dialects.scf import ForallOp, InParallelOp
from xsplit.rewrites.reduce.kernel_ir import WORKGROUP, Index, KernelBuilder

IDENTITY = {"sum": "0.000000e+00", "max": "0xFF800000"}
"""The combiner's identity, as the constant is keyed (and printed)."""
ATOMIC = {"sum": "addf", "max": "maxnumf"}


def _float(text: str) -> float:
    """An f32 constant's value from its MLIR spelling (`0.0`, `1.5e+00`, `0xFF800000`)."""
    if text.lower().startswith("0x"):
        return struct.unpack(">f", int(text, 16).to_bytes(4, "big"))[0]
    return float(text)


def memref_of(
    shape: Sequence[int], element: str = "f32", space: Attribute | None = None
) -> MemRefType:
    t = f16 if element == "f16" else f32
    if space is None:
        return MemRefType(t, list(shape))
    return MemRefType(t, list(shape), memory_space=space)


class NamedKernelBuilder(KernelBuilder):
    """Builds one kernel function. `args` are its parameters (hint, type)."""

    def __init__(self, args: Sequence[tuple[str, Attribute]]):
        self.fn_block = Block(arg_types=[t for _, t in args])
        for arg, (hint, _) in zip(self.fn_block.args, args):
            arg.name_hint = hint
        self.hoisted = Block()
        self.body = Block()
        self.allocs: list[Operation] = []
        self.b = Builder(InsertPoint.at_end(self.body))
        self.consts: dict = {}
        self.keys: dict[str, SSAValue] = {}
        self.outer: list[Builder] = []
        self.n = 0
        self._combined = "v"

    @property
    def args(self) -> Sequence[SSAValue]:
        return self.fn_block.args

    # Names and constants ---------------------------------------------------

    def fresh(self, hint: str = "v") -> str:
        self.n += 1
        return f"{hint}{self.n}"

    def emit(self, op: Operation, hint: str = "v") -> SSAValue:
        """Inserts `op` and names its (first) result."""
        self.insert(op)
        op.results[0].name_hint = self.fresh(hint)
        return op.results[0]

    def named(self, op: Operation, name: str) -> SSAValue:
        """Inserts `op` and gives its result `name` itself, not numbered."""
        self.insert(op)
        op.results[0].name_hint = name
        return op.results[0]

    def _hoist(self, key: str, name: str, value: Attribute) -> SSAValue:
        if key not in self.keys:
            op = arith.ConstantOp(value)
            op.result.name_hint = name
            self.hoisted.add_op(op)
            self.keys[key] = op.result
        return self.keys[key]

    def c(self, value: Index) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        name = f"c{value}" if value >= 0 else f"cm{-value}"
        return self._hoist(f"{value} : index", name, IntegerAttr(value, IndexType()))

    index_value = c

    def cf(self, text: str) -> SSAValue:
        """An f32 constant, keyed by its spelling."""
        return self._hoist(f"{text} : f32", f"cst{len(self.keys)}", FloatAttr(_float(text), f32))

    def ci32(self, value: int) -> SSAValue:
        return self._hoist(f"{value} : i32", f"i{value}", IntegerAttr(value, i32))

    i32 = ci32

    # Ops, named --------------------------------------------------------------

    def addi(self, a: Index, b: Index, hint: str = "v") -> SSAValue:
        return self.emit(arith.AddiOp(self.c(a), self.c(b)), hint)

    def muli(self, a: Index, b: Index, hint: str = "v") -> SSAValue:
        return self.emit(arith.MuliOp(self.c(a), self.c(b)), hint)

    def divui(self, a: Index, b: Index, hint: str = "v") -> SSAValue:
        return self.emit(arith.DivUIOp(self.c(a), self.c(b)), hint)

    def remui(self, a: Index, b: Index, hint: str = "v") -> SSAValue:
        return self.emit(arith.RemUIOp(self.c(a), self.c(b)), hint)

    def minui(self, a: Index, b: Index, hint: str = "v") -> SSAValue:
        return self.emit(arith.MinUIOp(self.c(a), self.c(b)), hint)

    def cmpi(self, pred: str, a: Index, b: Index, hint: str = "v") -> SSAValue:
        return self.emit(arith.CmpiOp(self.c(a), self.c(b), pred), hint)

    def andi(self, a: SSAValue, b: SSAValue, hint: str = "v") -> SSAValue:
        return self.emit(arith.AndIOp(a, b), hint)

    def addf_(self, a: SSAValue, b: SSAValue, hint: str = "v") -> SSAValue:
        return self.emit(arith.AddfOp(a, b), hint)

    def mulf_(self, a: SSAValue, b: SSAValue, hint: str = "v") -> SSAValue:
        return self.emit(arith.MulfOp(a, b), hint)

    def extf_(self, a: SSAValue, hint: str = "v") -> SSAValue:
        return self.emit(arith.ExtFOp(a, f32), hint)

    def select_(self, cond: SSAValue, a: SSAValue, b: SSAValue, hint: str = "v") -> SSAValue:
        return self.emit(arith.SelectOp(cond, a, b), hint)

    def combine_(self, method: str, a: SSAValue, b: SSAValue, hint: str = "v") -> SSAValue:
        op = arith.AddfOp(a, b) if method == "sum" else arith.MaxnumfOp(a, b)
        return self.emit(op, hint)

    def load_(self, ref: SSAValue, idx: Sequence[Index], hint: str = "v") -> SSAValue:
        return self.emit(memref.LoadOp.get(ref, [self.c(i) for i in idx]), hint)

    def atomic_(self, method: str, value: SSAValue, ref: SSAValue, idx: Sequence[Index]) -> None:
        self.emit(AtomicRMWOp(ATOMIC[method], value, ref, [self.c(i) for i in idx]), "old")

    def thread_id_(self, hint: str = "tid") -> SSAValue:
        return self.emit(gpu.ThreadIdOp("x"), hint)

    def block_id_(self, dim: str, hint: str) -> SSAValue:
        return self.named(gpu.BlockIdOp(dim), hint)

    def alloc_workgroup(self, shape: Sequence[int], hint: str) -> SSAValue:
        """Workgroup memory, allocated at the top of the function."""
        op = memref.AllocOp.get(f32, shape=list(shape), memory_space=WORKGROUP)
        op.results[0].name_hint = hint
        self.allocs.append(op)
        return op.results[0]

    # The subgroup step (KernelBuilder.subgroup_combine), its values named ---

    def subgroup_combine(
        self, method: str, value: SSAValue, lanes: int, width: int, cluster: bool,
        stride: int = 1, hint: str = "sg",
    ) -> SSAValue:  # fmt: skip
        self._combined = hint
        return super().subgroup_combine(method, value, lanes, width, cluster, stride)

    def subgroup_reduce(self, method: str, value: SSAValue, size: int, stride: int = 1) -> SSAValue:
        v = super().subgroup_reduce(method, value, size, stride)
        v.name_hint = self.fresh("sg")
        return v

    def shuffle_xor(self, value: SSAValue, offset: int, width: int) -> SSAValue:
        sh, ok = self.fresh("sh"), self.fresh("ok")
        op = gpu.ShuffleOp(gpu.ShuffleMode.XOR, value, self.ci32(offset), self.ci32(width))
        self.insert(op)
        op.shuffle_result.name_hint, op.valid.name_hint = sh, ok
        return op.shuffle_result

    def combine(self, method: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.combine_(method, a, b, self._combined)

    # Regions, opened and closed ---------------------------------------------

    def _enter(self, block: Block) -> None:
        self.outer.append(self.b)
        self.b = Builder(InsertPoint.at_end(block))

    def close(self, *yielded: SSAValue) -> None:
        """Ends the innermost region with its terminator."""
        block = self.b.insertion_point.block
        parent = block.parent_op()
        if isinstance(parent, ForallOp):
            self.insert(InParallelOp())
        else:
            self.insert(scf.YieldOp(*yielded))
        self.b = self.outer.pop()

    def open_if(self, cond: SSAValue | None) -> bool:
        """`scf.if cond {`; nothing when `cond` is None. Says whether it opened."""
        if cond is None:
            return False
        block = Block()
        self.insert(scf.IfOp(cond, [], [block]))
        self._enter(block)
        return True

    def end(self, opened: bool = True) -> None:
        if opened:
            self.close()

    def open_for(
        self,
        lo: Index,
        hi: Index,
        step: Index,
        inits: Sequence[SSAValue],
        iv: str,
        args: Sequence[str],
        results: Sequence[str],
    ) -> tuple[list[SSAValue], list[SSAValue], SSAValue]:
        """`scf.for` carrying `inits` (f32), its names given; returns
        (results, iteration arguments, induction variable)."""
        block = Block(arg_types=[IndexType()] + [f32] * len(inits))
        block.args[0].name_hint = iv
        for a, name in zip(block.args[1:], args):
            a.name_hint = name
        op = scf.ForOp(self.c(lo), self.c(hi), self.c(step), list(inits), block)
        for r, name in zip(op.results, results):
            r.name_hint = name
        self.insert(op)
        self._enter(block)
        return list(op.results), list(block.args[1:]), block.args[0]

    def if_value(self, cond: SSAValue, hint: str, then, other) -> SSAValue:
        """`scf.if cond -> (f32)` yielding what `then()` and `other()` make."""
        name = self.fresh(hint)
        blocks = [Block(), Block()]
        op = scf.IfOp(cond, [f32], [blocks[0]], [blocks[1]])
        self.insert(op)
        for block, make in zip(blocks, (then, other)):
            self._enter(block)
            self.close(make())
        op.results[0].name_hint = name
        return op.results[0]

    def open_forall(self, count: int, iv: str = "w") -> SSAValue:
        """The block-level loop `distribute` maps onto `#gpu.block<x>`."""
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = iv
        mapping = [gpu.BlockMappingAttr("x")]
        self.insert(ForallOp([0], [count], [1], [], Region(block), mapping))
        self._enter(block)
        return block.args[0]

    # The function -----------------------------------------------------------

    def function(
        self, name: str, grid: Sequence[int] = (), block: Sequence[int] = ()
    ) -> func.FuncOp:
        """The kernel: constants, allocations, body, `func.return`; launched
        on `grid` x `block` (a host function when both are empty)."""
        assert not self.outer, "a region is still open"
        out = self.fn_block
        for source in (self.hoisted, self.allocs, self.body):
            for op in list(source.ops if isinstance(source, Block) else source):
                if op.parent is not None:
                    op.detach()
                out.add_op(op)
        out.add_op(func.ReturnOp())
        types = [a.type for a in out.args]
        fn = func.FuncOp(name, FunctionType.from_lists(types, []), Region(out))
        if not grid:
            fn.attributes[attr_names.HOST] = UnitAttr()
        else:
            fn.attributes[gpu.KNOWN_BLOCK_SIZE] = DenseArrayBase.from_list(i32, list(block))
            fn.attributes[gpu.KNOWN_GRID_SIZE] = DenseArrayBase.from_list(i32, list(grid))
        return fn


def reduction_kernel(
    params: Sequence[tuple[str, Attribute]],
    out: int,
    partials: MemRefType,
    merge: bool,
    deterministic: bool,
) -> tuple[NamedKernelBuilder, SSAValue | None, dict[int, SSAValue]]:
    """The builder of one kernel of a reduction whose function takes `params`
    (its result in `params[out]`): the merge kernel takes the partials and
    the result only; the deterministic partials kernel takes the partials
    after the reduction's own parameters. With the builder: its partials
    parameter (None where it has none) and the reduction's parameters it
    has, by their place in `params`."""
    if merge:
        params = [("partials", partials), params[out]]
    elif deterministic:
        params = [*params, ("partials", partials)]
    kb = NamedKernelBuilder(params)
    args = list(kb.args)
    if merge:
        return kb, args[0], {out: args[1]}
    own = len(args) - 1 if deterministic else len(args)
    return kb, args[-1] if deterministic else None, dict(enumerate(args[:own]))


def host_function(
    name: str, args: Sequence[tuple[str, Attribute]], out: int, partials: MemRefType
) -> func.FuncOp:
    """The deterministic form's host: allocate the partials, run the partials
    kernel, then the merge kernel, in that order."""
    kb = NamedKernelBuilder(args)
    params = list(kb.args)
    parts = kb.insert(memref.AllocOp.get(f32, shape=partials.get_shape())).results[0]
    parts.name_hint = "partials"
    kb.insert(func.CallOp(f"{name}_partials", [*params, parts], []))
    kb.insert(func.CallOp(f"{name}_merge", [parts, params[out]], []))
    kb.insert(memref.DeallocOp.get(parts))
    return kb.function(name)
