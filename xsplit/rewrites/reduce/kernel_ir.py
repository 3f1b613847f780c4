"""Builder calls for the GEMM kernel's lowerings (gemm_kernel.py and the
lower-*-gemm passes): one call per op, so that a lowering reads in the order
of the IR it makes. Regions are built by callbacks that get a builder at the
end of the new block."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    VectorType,
    f32,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xsplit.dialects import gpu
from xsplit.dialects.amdgpu import GatherToLDSOp
from xsplit.dialects.memref import AtomicRMWOp
from xsplit.dialects.nvgpu import DeviceAsyncCopyOp, DeviceAsyncCreateGroupOp, DeviceAsyncWaitOp
from xsplit.dialects.vector import FromElementsOp
from xsplit.rewrites.dsl.builders import FoldingIndexArithmetic

WORKGROUP = gpu.AddressSpaceAttr(gpu.AddressSpace.WORKGROUP)
PRIVATE = gpu.AddressSpaceAttr(gpu.AddressSpace.PRIVATE)

Index = SSAValue | int


def element_bytes(ref: SSAValue) -> int:
    return ref.type.element_type.bitwidth // 8  # type: ignore[attr-defined]


class KernelBuilder(FoldingIndexArithmetic):
    """Inserts at one point; `c(4)` and `zero()` reuse a constant already made
    in the same block. Index arithmetic folds (`FoldingIndexArithmetic`)."""

    def __init__(self, builder: Builder, consts: dict | None = None):
        self.b = builder
        self.consts: dict = {} if consts is None else consts

    @staticmethod
    def at_end(block: Block, consts: dict | None = None) -> KernelBuilder:
        return KernelBuilder(Builder(InsertPoint.at_end(block)), consts)

    def insert(self, op: Operation) -> Operation:
        return self.b.insert(op)

    def _block(self) -> Block | None:
        return self.b.insertion_point.block

    def _const(self, key, make: Callable[[], Operation]) -> SSAValue:
        full = (id(self._block()), key)
        if full not in self.consts:
            self.consts[full] = self.insert(make()).results[0]
        return self.consts[full]

    def c(self, value: Index) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        make = lambda: arith.ConstantOp(IntegerAttr(value, IndexType()))  # noqa: E731
        return self._const(("index", value), make)

    index_value = c

    def f(self, value: float, t: Attribute = f32) -> SSAValue:
        return self._const((str(t), value), lambda: arith.ConstantOp(FloatAttr(value, t)))

    def zero(self, t: Attribute = f32) -> SSAValue:
        return self.f(0.0, t)

    def extf(self, value: SSAValue) -> SSAValue:
        """`value` as f32: f16 is extended, f32 passes."""
        if value.type == f32:
            return value
        return self.insert(arith.ExtFOp(value, f32)).results[0]

    def select(self, cond: SSAValue, a: Index, b: Index) -> SSAValue:
        return self.insert(arith.SelectOp(cond, self.c(a), self.c(b))).results[0]

    def div(self, a: Index, b: int) -> Index:
        """`a / b`; the same quotient in the same block is made once (the
        fragment layouts ask for a lane's group many times)."""
        if isinstance(a, int):
            return a // b
        if b == 1:
            return a
        return self._const(("divui", a, b), lambda: arith.DivUIOp(a, self.c(b)))

    def rem(self, a: Index, b: int) -> Index:
        if isinstance(a, int) or b == 1:
            return a % b if isinstance(a, int) else 0
        return self._const(("remui", a, b), lambda: arith.RemUIOp(a, self.c(b)))

    def xor(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a ^ b
        if b == 0 or a == 0:
            return b if a == 0 else a
        return self.insert(arith.XOrIOp(self.c(a), self.c(b))).results[0]

    def min(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        return self.insert(arith.MinUIOp(self.c(a), self.c(b))).results[0]

    def below(self, a: Index, bound: int) -> SSAValue:
        return self.insert(arith.CmpiOp(self.c(a), self.c(bound), "ult")).results[0]

    def both(self, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        if a is None or b is None:
            return a or b
        return self.insert(arith.AndIOp(a, b)).results[0]

    def addf(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.insert(arith.AddfOp(a, b)).results[0]

    def mulf(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.insert(arith.MulfOp(a, b)).results[0]

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """`a * b + c`, marked `contract` so that LLVM fuses it into one FMA
        (without the flag NVPTX keeps `mul.rn` and `add.rn` apart)."""
        flags = arith.FastMathFlagsAttr([arith.FastMathFlag.ALLOW_CONTRACT])
        prod = self.insert(arith.MulfOp(a, b, flags)).results[0]
        return self.insert(arith.AddfOp(c, prod, flags)).results[0]

    # GPU ids and memory.
    def thread_id(self) -> SSAValue:
        return self.insert(gpu.ThreadIdOp("x")).results[0]

    def block_id(self, dim: str) -> SSAValue:
        return self.insert(gpu.BlockIdOp(dim)).results[0]

    def barrier(self) -> None:
        self.insert(gpu.BarrierOp())

    def async_copy(
        self, src: SSAValue, at: Sequence[Index], dst: SSAValue, to: Sequence[Index],
        width: int, cond: SSAValue | None,
    ) -> SSAValue:
        """Starts copying `width` elements; where `cond` is false nothing is
        read (the source index is clamped to 0, `srcElements` is 0) and zeros land."""
        count = None
        if cond is not None:
            at = [self.select(cond, i, 0) for i in at]
            count = self.select(cond, width, 0)
        op = DeviceAsyncCopyOp(
            src, [self.c(i) for i in at], dst, [self.c(i) for i in to], width, count,
            bypass_l1=width * element_bytes(src) == 16,
        )
        return self.insert(op).results[0]

    def gather_to_lds(
        self, src: SSAValue, at: Sequence[Index], dst: SSAValue, to: Sequence[Index], count: int
    ) -> None:
        """A direct-to-LDS load of `count` elements a lane (4 bytes)."""
        element = src.type.element_type  # type: ignore[attr-defined]
        transfer = element if count == 1 else VectorType(element, [count])
        op = GatherToLDSOp(src, [self.c(i) for i in at], dst, [self.c(i) for i in to], transfer)
        self.insert(op)

    def async_group(self, tokens: Sequence[SSAValue]) -> SSAValue:
        return self.insert(DeviceAsyncCreateGroupOp(tokens)).results[0]

    def async_wait(self, token: SSAValue, groups: int) -> None:
        self.insert(DeviceAsyncWaitOp(token, groups))

    def alloc(
        self, shape: Sequence[int], space: Attribute, hint: str, element: Attribute = f32
    ) -> SSAValue:
        make = memref.AllocaOp if space == PRIVATE else memref.AllocOp
        v = self.insert(make.get(element, shape=list(shape), memory_space=space)).results[0]
        v.name_hint = hint
        return v

    def load(self, ref: SSAValue, idx: Sequence[Index]) -> SSAValue:
        return self.insert(memref.LoadOp.get(ref, [self.c(i) for i in idx])).results[0]

    def store(self, value: SSAValue, ref: SSAValue, idx: Sequence[Index]) -> None:
        self.insert(memref.StoreOp.get(value, ref, [self.c(i) for i in idx]))

    def store_vector(self, values: Sequence[SSAValue], ref: SSAValue, idx: Sequence[Index]) -> None:
        """One `vector.store` of `values` along the last index: a single
        wide store whose alignment LLVM can infer from the index, where
        separate element stores may not be merged."""
        t = VectorType(values[0].type, [len(values)])
        vec = self.insert(FromElementsOp(list(values), t)).results[0]
        self.insert(vector.StoreOp(vec, ref, [self.c(i) for i in idx]))

    def atomic_add(self, value: SSAValue, ref: SSAValue, idx: Sequence[Index]) -> None:
        self.insert(AtomicRMWOp("addf", value, ref, [self.c(i) for i in idx]))

    # Control flow.
    def for_(
        self,
        lo: Index,
        hi: Index,
        step: Index,
        body: Callable[[KernelBuilder, SSAValue], None],
        hint: str = "k",
    ) -> None:
        """An `scf.for` with no iteration arguments."""
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = hint
        inner = KernelBuilder.at_end(block, self.consts)
        body(inner, block.args[0])
        inner.insert(scf.YieldOp())
        self.insert(scf.ForOp(self.c(lo), self.c(hi), self.c(step), [], block))

    def fold(
        self,
        lo: Index,
        hi: Index,
        step: Index,
        inits: Sequence[SSAValue],
        body: Callable[[KernelBuilder, SSAValue, list[SSAValue]], Sequence[SSAValue]],
        hint: str = "k",
    ) -> list[SSAValue]:
        """An `scf.for` carrying `inits`, which `body(kb, iv, carried)`
        updates; its results."""
        block = Block(arg_types=[IndexType()] + [v.type for v in inits])
        block.args[0].name_hint = hint
        inner = KernelBuilder.at_end(block, self.consts)
        inner.insert(scf.YieldOp(*body(inner, block.args[0], list(block.args[1:]))))
        op = self.insert(scf.ForOp(self.c(lo), self.c(hi), self.c(step), list(inits), block))
        return list(op.results)

    def if_(self, cond: SSAValue | None, body: Callable[[KernelBuilder], None]) -> None:
        """`body` under `cond`; unconditionally when `cond` is None."""
        if cond is None:
            body(self)
            return
        block = Block()
        inner = KernelBuilder.at_end(block, self.consts)
        body(inner)
        inner.insert(scf.YieldOp())
        self.insert(scf.IfOp(cond, [], [block]))

    def if_else(
        self,
        cond: SSAValue,
        then: Callable[[KernelBuilder], None],
        other: Callable[[KernelBuilder], None],
    ) -> None:
        """`then` where `cond` holds, `other` where it does not; no results."""
        blocks = []
        for body in (then, other):
            block = Block()
            inner = KernelBuilder.at_end(block, self.consts)
            body(inner)
            inner.insert(scf.YieldOp())
            blocks.append(block)
        self.insert(scf.IfOp(cond, [], [blocks[0]], [blocks[1]]))

    def load_or_zero(self, ref: SSAValue, idx: Sequence[Index], cond: SSAValue | None) -> SSAValue:
        """`ref[idx]` where `cond` holds, else 0.0; nothing is read where it does not."""
        if cond is None:
            return self.load(ref, idx)
        element = ref.type.element_type  # type: ignore[attr-defined]
        then, other = Block(), Block()
        t = KernelBuilder.at_end(then, self.consts)
        t.insert(scf.YieldOp(t.load(ref, idx)))
        e = KernelBuilder.at_end(other, self.consts)
        e.insert(scf.YieldOp(e.zero(element)))
        return self.insert(scf.IfOp(cond, [element], [then], [other])).results[0]

    def load_vector(self, ref: SSAValue, idx: Sequence[Index], width: int) -> list[SSAValue]:
        """One `vector.load` of `width` elements along the last index, then
        its elements as scalars."""
        element = ref.type.element_type  # type: ignore[attr-defined]
        t = VectorType(element, [width])
        v = self.insert(vector.LoadOp(ref, [self.c(i) for i in idx], t)).results[0]
        return [self.insert(vector.ExtractOp(v, [e], element)).results[0] for e in range(width)]

    def load_vector_or_zero(
        self, ref: SSAValue, idx: Sequence[Index], width: int, cond: SSAValue | None
    ) -> list[SSAValue]:
        """`load_vector` where `cond` holds, else zeros; nothing is read where it does not."""
        if cond is None:
            return self.load_vector(ref, idx, width)
        then, other = Block(), Block()
        element = ref.type.element_type  # type: ignore[attr-defined]
        t = KernelBuilder.at_end(then, self.consts)
        t.insert(scf.YieldOp(*t.load_vector(ref, idx, width)))
        e = KernelBuilder.at_end(other, self.consts)
        e.insert(scf.YieldOp(*[e.zero(element)] * width))
        return list(self.insert(scf.IfOp(cond, [element] * width, [then], [other])).results)

    def vector_or_else(
        self,
        ref: SSAValue,
        idx: Sequence[Index],
        width: int,
        cond: SSAValue | None,
        other: Callable[[KernelBuilder], list[SSAValue]],
    ) -> list[SSAValue]:
        """`load_vector` where `cond` holds, else the `width` values `other`
        builds (which reads only what it masks in)."""
        if cond is None:
            return self.load_vector(ref, idx, width)
        then, alt = Block(), Block()
        element = ref.type.element_type  # type: ignore[attr-defined]
        t = KernelBuilder.at_end(then, self.consts)
        t.insert(scf.YieldOp(*t.load_vector(ref, idx, width)))
        e = KernelBuilder.at_end(alt, self.consts)
        e.insert(scf.YieldOp(*other(e)))
        return list(self.insert(scf.IfOp(cond, [element] * width, [then], [alt])).results)

    # The fused reduction's epilogue.
    def identity(self, method: str) -> SSAValue:
        """The combiner's identity: 0 for `sum`, -inf for `max`."""
        return self.f(0.0 if method == "sum" else float("-inf"))

    def combine(self, method: str, a: SSAValue, b: SSAValue) -> SSAValue:
        op = arith.AddfOp(a, b) if method == "sum" else arith.MaxnumfOp(a, b)
        return self.insert(op).results[0]

    def atomic(self, method: str, value: SSAValue, ref: SSAValue, idx: Sequence[Index]) -> None:
        kind = "addf" if method == "sum" else "maxnumf"
        self.insert(AtomicRMWOp(kind, value, ref, [self.c(i) for i in idx]))

    def i32(self, value: int) -> SSAValue:
        return self._const(("i32", value), lambda: arith.ConstantOp(IntegerAttr(value, i32)))

    def shuffle_xor(self, value: SSAValue, offset: int, width: int) -> SSAValue:
        op = gpu.ShuffleOp(gpu.ShuffleMode.XOR, value, self.i32(offset), self.i32(width))
        return self.insert(op).results[0]

    def subgroup_reduce(self, method: str, value: SSAValue, size: int, stride: int = 1) -> SSAValue:
        """Over clusters of `size` lanes `stride` apart."""
        kind = gpu.ReductionKind.ADD if method == "sum" else gpu.ReductionKind.MAXNUMF
        op = gpu.SubgroupReduceOp(kind, value, cluster_size=size, cluster_stride=stride)
        return self.insert(op).results[0]

    def subgroup_combine(
        self, method: str, value: SSAValue, lanes: int, width: int, cluster: bool, stride: int = 1
    ) -> SSAValue:
        """`value` combined over `lanes` lanes `stride` apart, every kernel's
        one subgroup step: a clustered `gpu.subgroup_reduce` where the target
        lowers it well (`cluster`: DPP and swizzles on gfx942), else a
        `gpu.shuffle xor` butterfly among subgroups of `width` lanes (NVIDIA,
        where the former does not legalize)."""
        if lanes > 1 and cluster:
            return self.subgroup_reduce(method, value, lanes, stride)
        off = lanes // 2
        while off >= 1:
            value = self.combine(method, value, self.shuffle_xor(value, off * stride, width))
            off //= 2
        return value
