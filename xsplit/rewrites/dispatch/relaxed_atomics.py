"""Float atomic adds into global memory as relaxed device-scope atomics.

IREE 3.13 lowers `memref.atomic_rmw addf` in a custom dispatch to a
system-scope acq_rel atomic: `MEMBAR.ALL.SYS` before every `ATOMG...STRONG.SYS`
on NVIDIA, a `global_atomic_cmpswap` loop on gfx942. A split-K merge needs
neither ordering nor visibility beyond the device (the kernel's end orders it),
so at export each such add becomes `llvm.atomicrmw fadd ... monotonic` with the
device's sync scope, on a pointer built from the memref's aligned base:
a plain `RED` on sm_80/sm_90 and a native `global_atomic_add_f32` on gfx942.

This happens at export and not in the kernel lowerings so that the simulator
and the access analyses keep seeing a memref access with indices (a raw
pointer would hide which element an add hits).
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    IntAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    i64,
)
from xdsl.dialects.llvm import IntToPtrOp, LLVMPointerType
from xdsl.ir import Operation, Region, SSAValue

from xsplit.dialects.llvm import AtomicRMWOp as LLVMAtomicRMWOp
from xsplit.dialects.memref import AtomicRMWOp

SYNC_SCOPE = {"sm_80": "device", "sm_90": "device", "gfx942": "agent"}
"""LLVM's name for device scope per target: NVPTX takes `device`, AMDGPU `agent`."""

GLOBAL = 1
"""The global address space on NVPTX and AMDGPU."""


def _static_layout(t: MemRefType) -> tuple[int, list[int]] | None:
    """The memref's offset and strides where all are known."""
    if not t.has_static_shape():
        return None
    if isinstance(t.layout, NoneAttr):
        return 0, list(t.get_strides())
    if isinstance(t.layout, StridedLayoutAttr):
        offset, strides = t.layout.get_offset(), t.layout.get_strides()
        if offset is None or any(s is None for s in strides):
            return None
        return offset, [int(s) for s in strides]  # type: ignore[arg-type]
    return None


def relaxable(op: Operation) -> bool:
    """A float add into a global memref of known layout."""
    if not isinstance(op, AtomicRMWOp) or op.kind_name != "addf":
        return False
    t = op.memref.type
    return (
        isinstance(t, MemRefType)
        and isinstance(t.element_type, AnyFloat)
        and isinstance(t.memory_space, NoneAttr)
        and _static_layout(t) is not None
    )


def _index(value: int) -> Operation:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def relax_atomics(body: Region, target: str) -> int:
    """Rewrites the kernel's relaxable atomics for `target`; returns how many.
    Targets without a known device scope (the CPU) keep `memref.atomic_rmw`."""
    scope = SYNC_SCOPE.get(target)
    if scope is None:
        return 0
    count = 0
    for op in [o for o in body.walk() if relaxable(o)]:
        assert isinstance(op, AtomicRMWOp)
        t = op.memref.type
        assert isinstance(t, MemRefType)
        layout = _static_layout(t)
        assert layout is not None
        offset, strides = layout
        new: list[Operation] = []

        def emit(o: Operation) -> SSAValue:
            new.append(o)
            return o.results[0]

        element = emit(_index(offset)) if offset else None
        for idx, stride in zip(op.indices, strides):
            term = idx if stride == 1 else emit(arith.MuliOp(idx, emit(_index(stride))))
            element = term if element is None else emit(arith.AddiOp(element, term))
        base = emit(
            memref.ExtractAlignedPointerAsIndexOp.create(
                operands=[op.memref], result_types=[IndexType()]
            )
        )
        address = base
        if element is not None:
            width = t.element_type.bitwidth // 8  # type: ignore[attr-defined]
            address = emit(arith.AddiOp(base, emit(arith.MuliOp(element, emit(_index(width))))))
        as_int = emit(arith.IndexCastOp(address, i64))
        pointer = LLVMPointerType(IntAttr(GLOBAL))
        ptr = emit(IntToPtrOp.create(operands=[as_int], result_types=[pointer]))
        atomic = emit(LLVMAtomicRMWOp("fadd", ptr, op.value, "monotonic", scope))
        parent = op.parent
        assert parent is not None
        for o in new:
            parent.insert_op_before(o, op)
        op.result.replace_all_uses_with(atomic)
        op.detach()
        op.erase()
        count += 1
    return count
